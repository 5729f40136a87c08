"""The pages: views by page family, forms and URLs of the site.

One module of views per family of pages: project_views, prompt_views (prompt properties and provider
keys), upload_views, run_views (the Data Screen and a run's actions), interaction_views (the side
panel), compare_views, token_views (API tokens), health (`/healthz`); access says which projects and
runs a request may see. Views parse the request, call one function of a domain package, and
render a template from templates/properties/. Nothing below imports this package.

May import: every domain package (uploads, pipeline, screen, compare, annotations, quality,
projects), properties.export, properties.models and properties.scorers.
"""
