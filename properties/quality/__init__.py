"""What a value means: pass or fail, pass rates, and each property's report card.

Owns each property's direction, threshold, range and tolerance (criteria), a run's pass rates
(pass_rates) and the report cards measured by bench/ (report_card, with report_card.json).

May import: properties.models and properties.scorers only.
"""
