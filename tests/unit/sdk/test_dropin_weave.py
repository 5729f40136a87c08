"""W&B Weave users change their imports only: `import evalsite as weave` and
`from evalsite.scorers import <WeaveName>`.

Here: `op`, `Model`, the structural scorers, column_map, the summary's shape and storage, and the
LLM-backed scorers given a model_id, against the local OpenAI-compatible server. The local-model
defaults of the LLM-backed scorers are in tests/unit/models/test_weave_scorers.py.
"""

from __future__ import annotations

import asyncio
import json
import math
import warnings

import pytest
from pydantic import BaseModel

import evalsite as weave
from evalsite.scorers import (
    ContextEntityRecallScorer,
    ContextRelevancyScorer,
    EmbeddingSimilarityScorer,
    HallucinationFreeScorer,
    OpenAIModerationScorer,
    PydanticScorer,
    SummarizationScorer,
    ValidJSONScorer,
    ValidXMLScorer,
)
from properties.models import PropertyValue, Run
from properties.scorers.base import ScorerUnavailable
from properties.scorers.llm.judges import LLMHallucinationFree
from tests.factories import UserFactory

# The local OpenAI-protocol server's fixtures: server, provider, base_url.
pytest_plugins = ["tests.unit.llm_server"]

PROMPTS = [{"input": "Generate a JSON object with a key and value"}, {"input": "Create an invalid JSON"}]


def evaluate(dataset, scorers, model):
    return asyncio.run(weave.Evaluation(dataset=dataset, scorers=scorers).evaluate(model))


class Report(BaseModel):
    revenue: int
    year: str


class TemplatedModel(weave.Model):
    # A field named model_*: Weave users write these, and pydantic must not warn about them.
    model_name: str
    template: str

    @weave.op()
    async def predict(self, input: str) -> str:
        return self.template.format(input=input, model=self.model_name)


# Every constructor call of Weave's reference page, and which of our scorers it builds.
REFERENCE_CONSTRUCTORS = [
    (lambda: HallucinationFreeScorer(), "hallucination_free", "models"),
    (
        lambda: HallucinationFreeScorer(model_id="openai/gpt-4o", column_map={"context": "input", "output": "x"}),
        "llm_hallucination_free",
        "llm",
    ),
    (lambda: SummarizationScorer(model_id="openai/gpt-4o"), "llm_summarization", "llm"),
    (lambda: SummarizationScorer(model_id="anthropic/claude-3-5-sonnet-20240620"), "llm_summarization", "llm"),
    (lambda: OpenAIModerationScorer(), "moderation", "models"),
    (
        lambda: EmbeddingSimilarityScorer(model_id="openai/text-embedding-3-small", threshold=0.4),
        "llm_embedding_similarity",
        "llm",
    ),
    (lambda: ValidJSONScorer(), "valid_json", "cpu"),
    (lambda: ValidXMLScorer(), "valid_xml", "cpu"),
    (lambda: PydanticScorer(model=Report), "schema", "cpu"),
    (lambda: ContextEntityRecallScorer(model_id="openai/gpt-4o"), "llm_context_entity_recall", "llm"),
    (lambda: ContextEntityRecallScorer(), "context_entity_recall", "models"),
    (
        lambda: ContextRelevancyScorer(model_id="openai/gpt-4o", relevancy_prompt="Q: {question}\nC: {context}"),
        "llm_context_relevancy",
        "llm",
    ),
]


@pytest.mark.parametrize(("build", "prop", "queue"), REFERENCE_CONSTRUCTORS)
def test_the_reference_pages_constructors_build_our_scorers(build, prop, queue):
    scorer = build()
    assert (scorer.scorer.name(), scorer.scorer.queue) == (prop, queue)
    assert scorer.name == type(scorer).__name__


def test_op_keeps_the_function_and_names_it():
    @weave.op
    def plain(input: str) -> str:
        return input.upper()

    @weave.op()
    async def awaited(input: str) -> str:
        return input

    @weave.op(name="exact_match")
    def scorer(output: str, input: str) -> bool:
        return output == input

    assert plain("a") == "A" and asyncio.run(awaited("b")) == "b"
    assert (plain.op_name, awaited.op_name, scorer.op_name) == ("plain", "awaited", "exact_match")
    summary = evaluate([{"input": "a"}, {"input": "b"}], [scorer], lambda input: "a")
    assert summary["exact_match"] == {"true_count": 1, "true_fraction": 0.5}


def test_a_model_subclass_has_pydantic_fields_and_an_async_or_sync_predict():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = TemplatedModel(model_name="json-1", template='{{"model": "{model}", "ask": "{input}"}}')
    assert model.model_dump() == {
        "name": None,
        "description": None,
        "model_name": "json-1",
        "template": '{{"model": "{model}", "ask": "{input}"}}',
    }
    with pytest.raises(ValueError, match="model_name"):
        TemplatedModel(template="x")  # a missing field is refused, as pydantic does
    summary = evaluate(PROMPTS, [ValidJSONScorer()], model)
    assert summary["ValidJSONScorer"] == {"json_valid": {"true_count": 2, "true_fraction": 1.0}}

    class SyncModel(weave.Model):
        @weave.op
        def predict(self, input: str) -> str:
            return "<a/>" if "JSON object" in input else "<a>"

    summary = evaluate(PROMPTS, [ValidXMLScorer()], SyncModel())
    assert summary["ValidXMLScorer"] == {"xml_valid": {"true_count": 1, "true_fraction": 0.5}}
    assert set(summary) == {"ValidXMLScorer", "model_latency"}
    assert summary["model_latency"]["mean"] >= 0


def test_valid_json_and_xml_have_weaves_keys_and_values():
    answers = ['{"key": "value"}', "[1, 2", "<root><element>value</element></root>", "<root>"]
    dataset = [{"input": answer} for answer in answers]
    summary = evaluate(dataset, [ValidJSONScorer(), ValidXMLScorer()], lambda input: input)
    assert summary["ValidJSONScorer"] == {"json_valid": {"true_count": 1, "true_fraction": 0.25}}
    assert summary["ValidXMLScorer"] == {"xml_valid": {"true_count": 1, "true_fraction": 0.25}}


def test_pydantic_scorer_validates_against_the_model_class():
    outputs = ['{"revenue": 100, "year": "2024"}', '{"revenue": "lots", "year": "2024"}', {"revenue": 5, "year": "y"}]
    dataset = [{"input": index} for index in range(len(outputs))]
    scorer = PydanticScorer(model=Report)
    summary = evaluate(dataset, [scorer], lambda input: outputs[input])
    assert summary["PydanticScorer"] == {"valid_pydantic": {"true_count": 2, "true_fraction": 2 / 3}}
    assert scorer.model is Report


def test_column_map_follows_weaves_rules():
    with pytest.raises(ValueError, match=r"column_map maps \['question'\]"):
        HallucinationFreeScorer(column_map={"question": "input"})
    # A column named as the argument, else the mapped one; the model's output is always `output`.
    scorer = EmbeddingSimilarityScorer(column_map={"target": "expected", "output": "other_col"})
    assert scorer.arguments_of({"expected": "a", "target": "b"}) == {"target": "b"}
    assert scorer.arguments_of({"expected": "a"}) == {"target": "a"}
    with pytest.raises(ValueError, match=r"needs 'target' for each row, and the dataset has no 'expected' column"):
        scorer.arguments_of({"input": "x"})
    assert EmbeddingSimilarityScorer(target_column="answer").arguments_of({"answer": "c"}) == {"target": "c"}


def test_prompts_without_a_model_id_warn_that_the_local_model_does_not_read_them():
    with pytest.warns(UserWarning, match=r"ContextRelevancyScorer\(relevancy_prompt=...\) instructs an LLM judge"):
        ContextRelevancyScorer(relevancy_prompt="Question: {question}\nContext: {context}")


@pytest.mark.django_db(transaction=True)
def test_with_a_project_values_are_stored_under_the_property_names():
    UserFactory()
    evaluation = weave.Evaluation(
        dataset=PROMPTS, scorers=[ValidJSONScorer(), PydanticScorer(model=Report)], project="Weave users", name="v1"
    )
    summary = asyncio.run(evaluation.evaluate(lambda input: '{"revenue": 1, "year": "2024"}'))
    assert summary["PydanticScorer"] == {"valid_pydantic": {"true_count": 2, "true_fraction": 1.0}}
    run = Run.objects.get(project__name="Weave users", name="v1")
    stored = PropertyValue.objects.filter(run=run).values_list("property_name", "field", "value")
    assert sorted(stored) == [("schema", "output", 1.0)] * 2 + [("valid_json", "output", 1.0)] * 2


@pytest.mark.django_db(transaction=True)
def test_init_names_the_project_evaluations_are_stored_in(monkeypatch):
    UserFactory()
    monkeypatch.setattr("evalsite.sdk.ops._project", None)  # restored after the test
    weave.init("team/json-bot")
    asyncio.run(
        weave.Evaluation(dataset=PROMPTS, scorers=[ValidJSONScorer()], name="nightly").evaluate(lambda input: input)
    )
    run = Run.objects.get(project__name="team/json-bot", name="nightly")
    assert run.interactions.count() == 2


# LLM-backed scorers with a model_id, against the local OpenAI-compatible server.


def test_hallucination_free_scorer_asks_the_judge_with_the_mapped_context(provider, base_url):
    provider.script(json.dumps({"reasoning": "Cheddar is not in the context.", "has_hallucination": True}))
    scorer = HallucinationFreeScorer(
        model_id="openai/gpt-4o", base_url=base_url, column_map={"context": "input", "output": "other_col"}
    )
    assert isinstance(scorer.scorer, LLMHallucinationFree)
    dataset = [{"input": "John likes various types of cheese."}, {"input": "Pepe likes various types of cheese."}]

    @weave.op
    def model(input: str) -> str:
        return "The person's favorite cheese is cheddar."

    summary = evaluate(dataset, [scorer], model)
    assert summary["HallucinationFreeScorer"] == {"has_hallucination": {"true_count": 2, "true_fraction": 1.0}}
    prompts = sorted(request["messages"][-1]["content"] for request in provider.requests)
    assert "John likes various types of cheese." in prompts[0] and "cheddar" in prompts[0]
    assert "Pepe likes various types of cheese." in prompts[1]


def test_summarization_scorer_with_a_model_id(provider, base_url):
    provider.script(
        json.dumps({"reasoning": "r", "entities": ["fox", "dog"]}),
        json.dumps({"think_step_by_step": "Keeps the animals.", "summarization_evaluation": "ok"}),
    )
    scorer = SummarizationScorer(model_id="openai/gpt-4o", base_url=base_url, max_concurrency=1)
    summary = evaluate(
        [{"input": "The quick brown fox jumps over the lazy dog."}], [scorer], lambda input: "A fox, a dog."
    )
    assert summary["SummarizationScorer"] == {
        "summarization_eval_score": {"mean": 0.5},
        "is_entity_dense": {"true_count": 1, "true_fraction": 1.0},
        "entity_density": {"mean": 2 / 4},
    }


def test_moderation_scorer_with_a_model_id_calls_the_moderation_endpoint(provider, base_url):
    scorer = OpenAIModerationScorer(model_id="omni-moderation-latest", base_url=base_url, api_key="sk-test-0123456789")
    dataset = [{"input": "Have a nice day"}, {"input": "I will kill you"}]
    summary = evaluate(dataset, [scorer], lambda input: input)
    assert summary["OpenAIModerationScorer"] == {
        "flagged": {"true_count": 1, "true_fraction": 0.5},
        "categories": {"violence": {"true_count": 1, "true_fraction": 1.0}},
    }
    assert provider.paths == ["/v1/moderations"]


def test_embedding_similarity_scorer_with_a_model_id_embeds_through_litellm(provider, base_url):
    from tests.unit.llm_server import letter_vector  # the server's embedding, to compute the expected value

    scorer = EmbeddingSimilarityScorer(model_id="openai/text-embedding-3-small", base_url=base_url, threshold=0.99)
    dataset = [
        {"input": "John", "target": "John likes various types of cheese."},
        {"input": "Pepe", "target": "Pepe likes various types of cheese."},
    ]
    output = "John likes various types of cheese."
    summary = evaluate(dataset, [scorer], lambda input: output)

    def cosine(a: str, b: str) -> float:
        u, v = letter_vector(a), letter_vector(b)
        return sum(x * y for x, y in zip(u, v, strict=True)) / math.sqrt(sum(x * x for x in u) * sum(y * y for y in v))

    pepe = round(cosine(output, dataset[1]["target"]), 4)
    assert pepe < 0.99  # the threshold splits the two rows
    assert summary["EmbeddingSimilarityScorer"] == {
        "similarity_score": {"mean": pytest.approx((1.0 + pepe) / 2)},
        "is_similar": {"true_count": 1, "true_fraction": 0.5},
    }
    assert provider.paths == ["/v1/embeddings"]
    assert provider.requests[0]["model"] == "text-embedding-3-small"


def test_rag_scorers_with_a_model_id_use_weaves_arguments_and_prompt(provider, base_url):
    custom = "Rate it.\nQuestion: {question}\nContext: {context}\nRelevancy Score (0-1):"
    provider.script(
        json.dumps({"reasoning": "r", "entities": ["Paris", "France"]}),
        json.dumps({"reasoning": "r", "entities": ["paris", "France"]}),
        json.dumps({"reasoning": "The context answers it.", "relevancy_score": 1}),
    )
    recall = ContextEntityRecallScorer(model_id="openai/gpt-4o", base_url=base_url)
    relevancy = ContextRelevancyScorer(model_id="openai/gpt-4o", base_url=base_url, relevancy_prompt=custom)
    dataset = [{"question": "What is the capital of France?", "context": "Paris is the capital city of France."}]
    summary = evaluate(dataset, [recall, relevancy], lambda question: "Paris is the capital of France.")
    assert summary["ContextEntityRecallScorer"] == {"recall": {"mean": 1.0}}
    assert summary["ContextRelevancyScorer"] == {"relevancy_score": {"mean": 1.0}}
    # Weave reads the output as the relevancy prompt's question.
    asked = provider.requests[-1]["messages"][-1]["content"]
    question, context = asked.split("\nContext: ")
    assert question.startswith("Rate it.\nQuestion: ") and "Paris is the capital of France." in question
    assert "Paris is the capital city of France." in context


def test_a_base_url_the_operator_did_not_allow_is_refused(base_url):
    scorer = HallucinationFreeScorer(model_id="openai/gpt-4o", base_url="http://127.0.0.1:9/v1")
    summary = evaluate([{"context": "c"}], [scorer], lambda context: "o")
    assert summary["HallucinationFreeScorer"] == {}  # no value: the row's error is in the stored run
    with pytest.raises(ScorerUnavailable, match="is not allowed by the operator"):
        scorer.scorer.client()
