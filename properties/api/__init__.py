"""The REST API, mounted at /api/ (OpenAPI schema at /api/openapi.json, docs at /api/docs).

Token authentication (`Authorization: Bearer evs_...`), a fixed-window rate limit per token and
a request size limit. One router per resource (projects, runs, interactions, jobs, saved views); server holds the
API, its authentication and its error answers, access what a token may reach, schemas the shapes.
Views parse input, call one function of ingest / scoring, and serialise.
The schema and the docs need a logged-in session; the docs are the Swagger UI vendored in static/.

May import: every domain package (uploads, pipeline, screen, quality, projects), properties.models
and properties.scorers. Nothing of the app imports the API but the site's URLs.
"""

from properties.api.server import api, urls

__all__ = ["api", "urls"]
