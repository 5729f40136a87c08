"""The public Python API: what `import evalsite` and the `evalsite` command give a user.

Arthur Bench's `TestSuite` (suites), Weave's `Evaluation`, `init`, `op`, `Model` and scorer
classes (evaluation, ops, weave_model, weave_scorer, weave_scorers), the behaviour-suite runner
(behavior), the REST API's client (client), the `evalsite` command (cli) and Django's set-up for
in-process use (bootstrap). Users import it through the documented names: `evalsite`,
`evalsite.scorers` and `evalsite.client`.

May import: properties and the site's settings. The site (settings, urls, the Celery app) never
imports this package.
"""
