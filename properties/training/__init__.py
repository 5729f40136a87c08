"""Training commands for the heads of the model-backed properties (`python -m properties.training.NAME`).

They read only the training data (`../shared/data/train/`, or `--data DIR`), never the
evaluation data, use fixed seeds, and write the head the property loads
(`properties/scorers/runtime/artifacts/NAME.npz`, or `--out PATH`).
"""
