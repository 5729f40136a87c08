"""Weave's LLM-backed scorer classes without a model_id: our local models make the same judgement,
offline, on the examples of Weave's own reference page (small inputs; models load once)."""

from __future__ import annotations

import asyncio
from textwrap import dedent

import pytest

import evalsite as weave
from evalsite.scorers import (
    ContextEntityRecallScorer,
    ContextRelevancyScorer,
    EmbeddingSimilarityScorer,
    HallucinationFreeScorer,
    OpenAIModerationScorer,
    SummarizationScorer,
)


def evaluate(dataset, scorers, model):
    return asyncio.run(weave.Evaluation(dataset=dataset, scorers=scorers).evaluate(model))


def test_hallucination_free_scorer_flags_an_invented_favourite():
    scorer = HallucinationFreeScorer(column_map={"context": "input", "output": "other_col"})
    assert scorer.scorer.name() == "hallucination_free"
    dataset = [{"input": "John likes various types of cheese."}, {"input": "Pepe likes various types of cheese."}]

    @weave.op
    def model(input: str) -> str:
        return "The person's favorite cheese is cheddar."

    summary = evaluate(dataset, [scorer], model)
    assert summary["HallucinationFreeScorer"] == {"has_hallucination": {"true_count": 2, "true_fraction": 1.0}}
    # A copy of its context states nothing new.
    summary = evaluate(dataset[:1], [scorer], lambda input: input)
    assert summary["HallucinationFreeScorer"] == {"has_hallucination": {"true_count": 0, "true_fraction": 0.0}}


def test_summarization_scorer_grades_a_vague_summary_poor():
    class SummarizationModel(weave.Model):
        @weave.op()
        async def predict(self, input: str) -> str:
            return "This is a summary of the input text."

    dataset = [
        {"input": "The quick brown fox jumps over the lazy dog."},
        {"input": "Artificial Intelligence is revolutionizing various industries."},
    ]
    summary = evaluate(dataset, [SummarizationScorer()], SummarizationModel())["SummarizationScorer"]
    assert set(summary) == {"summarization_eval_score", "is_entity_dense", "entity_density"}
    assert summary["summarization_eval_score"] == {"mean": 0.0}
    assert set(summary["is_entity_dense"]) == {"true_count", "true_fraction"}


def test_moderation_scorer_flags_the_violent_text_only():
    class MyModel(weave.Model):
        @weave.op
        async def predict(self, input: str) -> str:
            return input

    dataset = [{"input": "I love puppies and kittens!"}, {"input": "I hate everyone and want to hurt them."}]
    summary = evaluate(dataset, [OpenAIModerationScorer()], MyModel())
    assert summary["OpenAIModerationScorer"] == {
        "flagged": {"true_count": 1, "true_fraction": 0.5},
        "categories": {"violence": {"true_count": 1, "true_fraction": 1.0}},
    }


def test_embedding_similarity_scorer_tells_the_same_text_from_another_persons():
    dataset = [
        {"input": "He's name is John", "target": "John likes various types of cheese."},
        {"input": "He's name is Pepe.", "target": "Pepe likes various types of cheese."},
    ]
    summary = evaluate(dataset, [EmbeddingSimilarityScorer(threshold=0.7)], lambda input: dataset[0]["target"])
    result = summary["EmbeddingSimilarityScorer"]
    assert result["is_similar"] == {"true_count": 1, "true_fraction": 0.5}
    assert 0.5 < result["similarity_score"]["mean"] < (1.0 + 0.7) / 2  # 1.0 for John, under 0.7 for Pepe


def test_rag_scorers_score_the_answering_context_above_the_other():
    class RAGModel(weave.Model):
        @weave.op()
        async def predict(self, question: str) -> str:
            return "Paris is the capital of France."

    relevancy_prompt = dedent("""
        Question: {question}
        Context: {context}
        Relevancy Score (0-1):
        """)
    with pytest.warns(UserWarning, match="reads no prompt"):
        relevancy = ContextRelevancyScorer(relevancy_prompt=relevancy_prompt)
    recall = ContextEntityRecallScorer()
    dataset = [
        {"question": "What is the capital of France?", "context": "Paris is the capital city of France."},
        {"question": "Who wrote Romeo and Juliet?", "context": "William Shakespeare wrote many famous plays."},
    ]
    rows = [evaluate([row], [recall, relevancy], RAGModel()) for row in dataset]
    assert [row["ContextEntityRecallScorer"] for row in rows] == [{"recall": {"mean": 1.0}}, {"recall": {"mean": 0.0}}]
    answering, other = (row["ContextRelevancyScorer"]["relevancy_score"]["mean"] for row in rows)
    assert answering > 0.5 > other
    both = evaluate(dataset, [recall, relevancy], RAGModel())
    assert set(both) == {"ContextEntityRecallScorer", "ContextRelevancyScorer", "model_latency"}
    # Batched with the other row the int8 cross-encoder moves in the third decimal.
    assert both["ContextRelevancyScorer"]["relevancy_score"]["mean"] == pytest.approx((answering + other) / 2, abs=0.01)


def test_local_moderation_names_the_category_of_a_flagged_text_only():
    from properties.scorers.moderation import Moderation

    hate, benign = Moderation().run_batch(["All immigrants are vermin and should be deported.", "Have a nice day"])
    assert (hate.label, hate.details["flagged"], hate.details["categories"]) == ("flagged", True, {"hate": True})
    assert max(hate.details["category_similarity"], key=hate.details["category_similarity"].get) == "hate"
    assert (benign.label, benign.details["categories"]) == ("ok", {})
    assert hate.value >= 0.5 > benign.value
