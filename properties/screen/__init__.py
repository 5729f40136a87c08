"""The Data Screen: one run's interactions as a table, filtered and sorted, and the side panel.

Owns the filter language and the query behind the table (datascreen), the page's columns, rows
and neighbours (page), the side panel of one interaction (interaction_panel) with its evidence
marked (highlight), the panel's annotation form (forms), and which interactions a property's
verdict and a person's label disagree on, in the order the filter lists them (disagreement), and
the project's saved views: checked when saved, and the one the screen shows (saved_views).

May import: properties.uploads, properties.pipeline, properties.quality, properties.projects,
properties.models, properties.scorers. Never the pages (properties.web) or the API.
"""
