"""LLM calls: the litellm client with retries, budgets and key scrubbing (`client`), its embedding
counterpart (`embeddings`, for Weave's EmbeddingSimilarityScorer given a model_id), the judge
prompts (`prompts`), Weave's LLM-judged scorers (`judges`: llm_hallucination_free,
llm_summarization, llm_context_entity_recall, llm_context_relevancy), the project prompt
properties (`prompt_property`) and the routing of Weave's plain names to a judge when a model is
named (`weave_routing`).

May import: `properties.scorers.base` and `properties.scorers.registry`. Imported by the property
modules that can be judged by an LLM. Never imports Django.
"""
