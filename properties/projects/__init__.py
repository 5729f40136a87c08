"""Projects' setup: the template a project starts from and its property configuration.

Owns the templates and the properties a new project scores (project_templates) and what a
project's members may configure for a scorer (project_config).

May import: properties.models, properties.provider_keys and properties.scorers only.
"""
