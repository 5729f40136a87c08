"""Annotations: a person's good or bad label on an interaction, and the rules that label runs.

Owns a person's annotation, the auto-annotation job and a run's annotation score (annotation), and
the rules language in YAML (rules, with the defaults in default_rules.yaml), and how a property
agrees with the team's labels over a project's runs (agreement, its chart in agreement_chart).

May import: properties.screen (the filter language's addresses) and everything below it. Never
the pages, the API or the comparison.
"""
