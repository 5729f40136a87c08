"""The pages: views, forms and URLs of the site, and the API tokens page.

Views parse the request, call one function of a domain package, and render a template from
templates/properties/. Nothing below imports this package.

May import: every domain package (uploads, pipeline, screen, compare, annotations, quality,
projects), properties.export, properties.models and properties.scorers.
"""
