"""A head's file keeps its extras (further trained arrays, such as Fluency's LM adapter) by name."""

from __future__ import annotations

import numpy as np

from properties.scorers.runtime.heads import Head, load_head


def test_a_head_and_its_extras_round_trip(tmp_path) -> None:
    extras = {"layer0.self_attn.q_proj.a": np.arange(6, dtype=np.float32).reshape(2, 3), "unit.bias": np.ones(1)}
    head = Head(np.zeros(3), np.ones(3), np.array([0.5, -1.0, 2.0]), 0.25, {"encoder": "e"}, extras)
    head.save(tmp_path / "head.npz")
    loaded = load_head(tmp_path / "head.npz")
    assert sorted(loaded.extras) == sorted(extras)
    name = "layer0.self_attn.q_proj.a"
    assert np.allclose(loaded.extras[name], extras[name], rtol=1e-7, atol=0)
    rows = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    assert np.allclose(loaded.predict(rows), head.predict(rows))


def test_a_head_without_extras_loads_with_none(tmp_path) -> None:
    Head(np.zeros(2), np.ones(2), np.ones(2), 0.0).save(tmp_path / "plain.npz")
    assert load_head(tmp_path / "plain.npz").extras == {}
