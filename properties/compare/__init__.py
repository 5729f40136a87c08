"""Comparing runs: per-property statistics, distributions, row-by-row matching, and their charts.

Owns the statistics (comparison), the plotly figures (charts) and what the comparison page shows
(compare_page).

May import: properties.annotations (the runs' annotation scores), properties.screen and
everything below it. Never the pages or the API.
"""
