"""What a value means: pass or fail, pass rates, and each property's report card.

Owns each property's direction, threshold, range and tolerance (criteria), a run's pass rates
(pass_rates), each run's statistics of a property kept for comparisons (value_summaries), the
report cards measured by bench/ (report_card, with report_card.json), who set a threshold and when
(thresholds), and the statistics of a property against a team's labels
(agreement_stats: pure functions over arrays).

May import: properties.models and properties.scorers only.
"""
