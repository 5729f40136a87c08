"""A low-rank adapter on a causal LM's middle layers, fine-tuned as an acceptability classifier.

A frozen LM read through a linear head (`fluency.py`) stops near ROC-AUC 0.80 on held-out CoLA
rows: the mean of a layer's states blurs the one word that breaks a sentence. Fine-tuning lets the
layers learn to look for it, but back-propagating through all of SmolLM2 runs at ~3 sentences/s on
two CPU cores. So only a copy of the middle layers (`FIRST_LAYER` to `LAST_LAYER`, where probing
finds syntax) is adapted, with LoRA updates (Hu et al. 2021) of rank `RANK` on the attention and
MLP projections; it reads the states the frozen forward pass already computed at `FIRST_LAYER`,
so training costs six layers forward and backward per sentence (~11 minutes for CoLA's 8,000
sentences on two busy cores) and scoring adds six layers to the thirty already run.

The adapted layers' state at the end boundary (which has read the whole sentence) and their mean
over the sentence's tokens, layer-normalised, with the LM's scalar features and the surface markers,
go through one linear unit: P(acceptable). On a held-out 15% of CoLA (rows the adapter is not
trained on): the frozen head 0.799, this adapter 0.807, their mean 0.815 (their errors differ), so
the property averages the two.

The weights (~350,000 numbers, 1.4 MB) are stored as plain arrays in the head's `.npz`.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

# Fractions of the LM's depth: SmolLM2's 30 layers -> the states after layer 14 go through
# adapted copies of layers 15-20.
LAYER_FRACTIONS = (0.47, 0.67)
RANK = 8
LORA_SCALE = 2.0
TARGETS = ("self_attn.q_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.up_proj", "mlp.down_proj")
BATCH_SIZE = 32


def layer_span(depth: int) -> tuple[int, int]:
    """(first, last): the hidden state read (the output of layer `first`) and the last layer adapted."""
    first, last = (max(1, round(fraction * depth)) for fraction in LAYER_FRACTIONS)
    return first, max(first + 1, last)


def _lora_linear(base: Any, rank: int, generator: Any) -> Any:
    import torch

    class LoRALinear(torch.nn.Module):
        """base(x) + scale * B(A x): A random, B zero, so training starts from the frozen layer."""

        def __init__(self) -> None:
            super().__init__()
            self.base = base
            a = torch.randn(rank, base.in_features, generator=generator) / math.sqrt(base.in_features)
            self.a = torch.nn.Parameter(a.to(base.weight.device))
            self.b = torch.nn.Parameter(torch.zeros(base.out_features, rank, device=base.weight.device))

        def forward(self, x: Any) -> Any:
            return self.base(x) + (x @ self.a.T) @ self.b.T * LORA_SCALE

    return LoRALinear()


class Adapter:
    """Adapted copies of an LM's middle layers, a pooling norm and a linear unit.

    `extra` features (one row per text) are standardised with `extra_mean` / `extra_scale`.
    """

    def __init__(self, model: Any, extra_width: int, arrays: dict[str, np.ndarray] | None = None) -> None:
        import torch

        # The LoRA A matrices' start, for reproducible training, without touching torch's global seed.
        generator = torch.Generator().manual_seed(0)
        self.first, self.last = layer_span(model.config.num_hidden_layers)
        # Copies: the frozen model still computes the features the linear head reads.
        self.layers = copy.deepcopy(model.model.layers[self.first : self.last])
        self.rotary = model.model.rotary_emb
        for parameter in self.layers.parameters():
            parameter.requires_grad_(False)
        for layer in self.layers:
            for target in TARGETS:
                parent_name, name = target.split(".")
                parent = getattr(layer, parent_name)
                setattr(parent, name, _lora_linear(getattr(parent, name), RANK, generator))
        # Where the LM runs (a GPU when torch sees one): the adapter runs there too.
        self.device = next(model.parameters()).device
        width = 2 * model.config.hidden_size
        self.norm = torch.nn.LayerNorm(width).to(self.device)
        self.unit = torch.nn.Linear(width + extra_width, 1).to(self.device)
        self.extra_mean = np.zeros(extra_width)
        self.extra_scale = np.ones(extra_width)
        if arrays is not None:
            self.load(arrays)

    def parameters(self) -> list[Any]:
        trained = [p for p in self.layers.parameters() if p.requires_grad]
        return trained + list(self.norm.parameters()) + list(self.unit.parameters())

    def train(self, mode: bool = True) -> None:
        for module in (self.layers, self.norm, self.unit):
            module.train(mode)

    def logits(self, states: Sequence[np.ndarray], extra: np.ndarray) -> Any:
        """One logit per text; `states[i]` is its hidden states at `first`, boundaries included."""
        import torch

        x = self.adapted_states(states)
        ends = torch.tensor([len(s) - 1 for s in states], device=self.device)
        end_state = x[torch.arange(len(states), device=self.device), ends]
        # The text's tokens; a text of whitespace only has none, then the end boundary stands in.
        mean = torch.stack([x[row, 1 : max(2, len(s) - 1)].mean(0) for row, s in enumerate(states)])
        scaled = torch.from_numpy(((extra - self.extra_mean) / self.extra_scale).astype(np.float32)).to(self.device)
        return self.unit(torch.cat([self.norm(torch.cat([end_state, mean], 1)), scaled], 1))[:, 0]

    def adapted_states(self, states: Sequence[np.ndarray]) -> Any:
        """The texts' states after the adapted layers, padded on the right to the longest."""
        import torch

        width = max(len(s) for s in states)
        x = torch.zeros((len(states), width, states[0].shape[1]), device=self.device)
        for row, s in enumerate(states):
            x[row, : len(s)] = torch.from_numpy(np.asarray(s, dtype=np.float32)).to(self.device)
        # Right padding under causal attention: no real token attends to a padded one.
        positions = torch.arange(width, device=self.device)[None].expand(len(states), width)
        rotary = self.rotary(x, positions)
        for layer in self.layers:
            x = layer(x, attention_mask=None, position_ids=positions, position_embeddings=rotary)
            x = x[0] if isinstance(x, tuple) else x
        return x

    def predict(self, states: Sequence[np.ndarray], extra: np.ndarray) -> np.ndarray:
        """P(acceptable) of each text, in batches sorted by length."""
        import torch

        self.train(False)
        out = np.zeros(len(states))
        order = np.argsort([len(s) for s in states], kind="stable")
        with torch.inference_mode():
            for first in range(0, len(order), BATCH_SIZE):
                batch = order[first : first + BATCH_SIZE]
                out[batch] = self.logits([states[i] for i in batch], extra[batch]).double().cpu().numpy()
        return 1.0 / (1.0 + np.exp(-np.clip(out, -50.0, 50.0)))

    def arrays(self) -> dict[str, np.ndarray]:
        """The trained numbers by name: the LoRA matrices, the norm, the unit, the standardisation."""
        out = {
            f"layer{index}.{target}.{side}": getattr(_lora(layer, target), side).detach().cpu().numpy()
            for index, layer in enumerate(self.layers)
            for target in TARGETS
            for side in ("a", "b")
        }
        out.update({f"norm.{k}": v.detach().cpu().numpy() for k, v in self.norm.state_dict().items()})
        out.update({f"unit.{k}": v.detach().cpu().numpy() for k, v in self.unit.state_dict().items()})
        out["extra_mean"], out["extra_scale"] = self.extra_mean, self.extra_scale
        return out

    def load(self, arrays: dict[str, np.ndarray]) -> None:
        import torch

        with torch.no_grad():
            for index, layer in enumerate(self.layers):
                for target in TARGETS:
                    lora = _lora(layer, target)
                    lora.a.copy_(torch.from_numpy(arrays[f"layer{index}.{target}.a"]))
                    lora.b.copy_(torch.from_numpy(arrays[f"layer{index}.{target}.b"]))
            self.norm.load_state_dict({k: torch.from_numpy(arrays[f"norm.{k}"]) for k in ("weight", "bias")})
            self.unit.load_state_dict({k: torch.from_numpy(arrays[f"unit.{k}"]) for k in ("weight", "bias")})
        self.extra_mean = arrays["extra_mean"].astype(np.float64)
        self.extra_scale = arrays["extra_scale"].astype(np.float64)


def _lora(layer: Any, target: str) -> Any:
    """The LoRA-wrapped projection `target` ("self_attn.q_proj", ...) of an adapted layer."""
    parent_name, name = target.split(".")
    return getattr(getattr(layer, parent_name), name)


def fit(
    adapter: Adapter,
    states: Sequence[np.ndarray],
    extra: np.ndarray,
    labels: np.ndarray,
    epochs: float = 2.0,
    batch_size: int = 16,
    learning_rate: float = 1e-3,
    seed: int = 0,
) -> None:
    """AdamW on binary cross-entropy, 50 warm-up steps then linear decay; deterministic for a seed."""
    import torch

    torch.manual_seed(seed)
    adapter.extra_mean = extra.mean(0)
    adapter.extra_scale = extra.std(0) + 1e-6
    optimizer = torch.optim.AdamW(adapter.parameters(), lr=learning_rate, weight_decay=0.01)
    steps = max(1, int(epochs * len(states) / batch_size))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / 50) * max(0.0, 1 - step / steps)
    )
    targets = torch.tensor(labels, dtype=torch.float32, device=adapter.device)
    rng = np.random.default_rng(seed)
    adapter.train(True)
    step = 0
    while step < steps:
        order = rng.permutation(len(states))
        for first in range(0, max(1, len(order) - batch_size + 1), batch_size):
            batch = order[first : first + batch_size]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                adapter.logits([states[i] for i in batch], extra[batch]), targets[batch]
            )
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            step += 1
            if step >= steps:
                break
    adapter.train(False)
