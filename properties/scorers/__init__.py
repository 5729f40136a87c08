"""The scoring library: plain Python, no Django. Plain data in, plain data out.

One module per property, named after it (`toxicity.py` scores `toxicity`, `invalid_links.py`
scores `invalid_links`); `grounded_in_context.py` also holds Weave's `hallucination_free`, and
`llm/judges.py` the LLM-judged `llm_*` scorers. Beside them: `base` (Scorer, Score, Span),
`registry` (scorers by name, plugins) and `builtins` (the list of built-in modules), and the
small packages the properties share:

    runtime/  model loading, packaged artifacts, batched inference
    text/     the shared analysis of a text: sentences, statements, topics, features
    llm/      LLM calls through litellm, prompts, budgets, the LLM judges
    net/      the network guard and the link fetcher

Nothing here imports Django (tests/unit/scorers/test_layout.py checks it).
"""

from properties.scorers.base import Score, Scorer, Span

__all__ = ["Score", "Scorer", "Span"]
