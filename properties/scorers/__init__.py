"""The scoring library: plain Python, no Django. Plain data in, plain data out."""

from properties.scorers.base import Score, Scorer, Span

__all__ = ["Score", "Scorer", "Span"]
