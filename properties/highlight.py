"""Evidence spans turned into segments of text that a template renders, escaped, with marks.

Highlights are built from character offsets on the original text; each segment is escaped by
the template like any other text, so no uploaded character ever becomes markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Segment:
    text: str
    span: dict[str, Any] | None = None

    @property
    def title(self) -> str:
        """What hovering a highlight shows: its label, score and note."""
        if not self.span:
            return ""
        parts = [str(self.span.get("label") or "")]
        if self.span.get("score") is not None:
            parts.append(f"score {float(self.span['score']):.3g}")
        if self.span.get("note"):
            parts.append(str(self.span["note"]))
        return " · ".join(part for part in parts if part)


def segments(text: str, spans: list[dict[str, Any]]) -> list[Segment]:
    """Split text at the spans' offsets; overlapping spans are clipped to the earlier one."""
    result: list[Segment] = []
    position = 0
    for span in sorted(spans, key=lambda s: (int(s.get("start", 0)), -int(s.get("end", 0)))):
        start = max(int(span.get("start", 0)), position)
        end = min(int(span.get("end", 0)), len(text))
        if start >= end:
            continue
        if start > position:
            result.append(Segment(text[position:start]))
        result.append(Segment(text[start:end], span))
        position = end
    if position < len(text) or not result:
        result.append(Segment(text[position:]))
    return result


def spans_by_field(spans: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        grouped.setdefault(str(span.get("field", "output")), []).append(span)
    return grouped
