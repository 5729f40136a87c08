"""Annotations: a person's good or bad label on an interaction, and the rules that label runs.

Owns a person's annotation, the auto-annotation job, the preview of a rule set and a run's annotation
score (annotation), the rules language in YAML (rules), a project's rules: checked against its
properties and their ranges, with defaults derived from them (project_rules), and how a property
agrees with the team's labels over a project's runs (agreement, its chart in agreement_chart).

May import: properties.screen (the filter language's addresses) and everything below it. Never
the pages, the API or the comparison.
"""
