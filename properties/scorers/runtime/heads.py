"""Small trained heads on top of a sentence encoder: standardise, then logistic regression.

A head is an `.npz` file of a few KB (384 + a few features: mean, scale, coef, intercept) plus a
JSON `meta` record of what it was trained on and with which encoder. Inference is numpy only, so
scoring needs neither scikit-learn nor torch. `properties.training` writes these files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ARTIFACTS = Path(__file__).parent / "artifacts"
EXTRA_PREFIX = "extra."


@dataclass
class Head:
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    meta: dict[str, Any] = field(default_factory=dict)
    # Further trained numbers stored in the same file, by name (Fluency's LM adapter).
    extras: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def encoder(self) -> str:
        """The `model_id` of the encoder whose embeddings the head was trained on."""
        return str(self.meta.get("encoder", ""))

    def predict(self, features: np.ndarray) -> np.ndarray:
        """Probability of the positive class for each row of features."""
        z = ((features - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            np.savez_compressed(
                handle,
                mean=self.mean.astype(np.float32),
                scale=self.scale.astype(np.float32),
                coef=self.coef.astype(np.float32),
                intercept=np.float32(self.intercept),
                meta=np.array(json.dumps(self.meta, sort_keys=True)),
                **{f"{EXTRA_PREFIX}{name}": value.astype(np.float32) for name, value in self.extras.items()},
            )


def load_head(path: Path) -> Head:
    with np.load(path, allow_pickle=False) as data:
        return Head(
            mean=data["mean"].astype(np.float64),
            scale=data["scale"].astype(np.float64),
            coef=data["coef"].astype(np.float64),
            intercept=float(data["intercept"]),
            meta=json.loads(str(data["meta"])),
            extras={
                name.removeprefix(EXTRA_PREFIX): data[name] for name in data.files if name.startswith(EXTRA_PREFIX)
            },
        )


def default_head_path(prop: str) -> Path:
    return ARTIFACTS / f"{prop}.npz"
