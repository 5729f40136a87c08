"""Uploads: a file or an API request turned into a run's interactions.

Owns reading each format within limits (file_formats, json_reading), mapping columns to
interaction fields, rejecting bad rows one by one with their line and field, and storing the good
ones (ingest), then asking the pipeline to score them.

May import: properties.pipeline, properties.quality, properties.projects, properties.models,
properties.scorers. Never the pages, the API or the Data Screen.
"""
