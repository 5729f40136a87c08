"""Text analysis shared by the properties: plain functions over strings, no models of their own.

Sentences and factual statements with offsets (`statements`), salient topics (`topics`), surface
and spaCy features (`linguistic`), the regular-expression PII detectors (`pii_detectors`) and JSON
paths (`json_paths`).

May import: `properties.scorers.runtime` (to load spaCy and the sentence encoder through one
place). Imported by the property modules and the runtime. Never imports Django or the property
modules.
"""
