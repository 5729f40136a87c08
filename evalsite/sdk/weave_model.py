"""Weave's `Model`, apart from `evalsite.sdk.ops` because it is a pydantic model: importing pydantic
(0.1 s) is for code that defines a Model, not for every `Evaluation`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    """Weave's Model: subclass it, declare its configuration as fields, and define `predict`
    (sync or async; its parameters are filled from the dataset columns of the same names)."""

    # protected_namespaces=(): Weave users name fields `model_name`, which pydantic would warn about.
    model_config = ConfigDict(arbitrary_types_allowed=True, protected_namespaces=(), extra="forbid")

    name: str | None = None
    description: str | None = None
