"""The model runtime: offline defaults, model ids, windows, overrides and load failures."""

from __future__ import annotations

import gc
import re

import numpy as np
import pytest

from properties.scorers.avoided_answer import AvoidedAnswer, avoided_answer_features
from properties.scorers.base import ScorerUnavailable
from properties.scorers.fluency import Fluency
from properties.scorers.pii_risk import PIIRisk, default_risk_factors
from properties.scorers.runtime import models
from properties.scorers.toxicity import Toxicity
from properties.training.common import fit_head

DIGEST = r"@[0-9a-f]{12}"


def test_default_models_load_offline_from_installed_packages(toxicity, pii_risk) -> None:
    # HF_HUB_OFFLINE=1 is set for this folder: the defaults need no hub.
    assert re.fullmatch(rf"bge-small-en-v1.5-int8{DIGEST}\+toxicity-head{DIGEST}", toxicity.model_id())
    assert re.fullmatch(rf"arcjet-rampart-pii-q4{DIGEST}", pii_risk.model_id())


def test_models_are_loaded_once_per_process(toxicity) -> None:
    assert Toxicity().predictor() is toxicity.predictor()
    assert models.packaged_encoder("fluency") is models.packaged_encoder("formality")


def test_a_load_freezes_what_it_made_out_of_the_collectors_reach(monkeypatch) -> None:
    monkeypatch.setattr(models, "_cache", {})
    gc.unfreeze()
    loaded = models.cached(("test-model",), lambda: {"weights": [object() for _ in range(1000)]})
    assert gc.get_freeze_count() >= 1000
    assert models.cached(("test-model",), lambda: None) is loaded
    models.clear_cache()
    assert gc.get_freeze_count() == 0


def test_windows_cover_every_token() -> None:
    offsets = [(i * 2, i * 2 + 1) for i in range(600)]
    windows = models.split_windows(offsets, 256, 64)
    assert windows[0] == (0, offsets[255][1])
    assert windows[-1][1] == offsets[-1][1]
    assert all(b[0] < a[1] for a, b in zip(windows, windows[1:], strict=False))  # they overlap
    assert models.split_windows(offsets[:10], 256, 64) == [(0, offsets[9][1])]


def test_batches_hold_texts_of_about_one_length() -> None:
    # A chunk of short answers and long passages: the answers must not be padded to the passages.
    lengths = [90, 6, 88, 7, 95, 5, 84, 8, 91, 180]
    batches = models.length_batches(lengths, most=3)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    assert [[lengths[i] for i in batch] for batch in batches] == [[5, 6, 7], [8], [84, 88, 90], [91, 95], [180]]
    assert models.length_batches([]) == []


def test_the_encoder_never_pads_an_answer_to_a_passage(toxicity, monkeypatch) -> None:
    encoder = models.packaged_encoder("toxicity")
    widths: list[list[int]] = []
    forward = encoder._forward

    def recording(encodings):
        widths.append([len(e.ids) for e in encodings])
        return forward(encodings)

    monkeypatch.setattr(encoder, "_forward", recording)
    passage = "The router's front light turns amber when the line is down and green once it syncs. " * 2
    vectors = encoder._encode_windows(["Yes.", passage, "It is green.", passage.upper()])
    assert vectors.shape == (4, 384)
    assert all(max(batch) <= 1.15 * min(batch) + 4 for batch in widths)


def test_model_sessions_take_the_cores_the_process_may_run_on(monkeypatch) -> None:
    # ONNX Runtime's default is every physical core of the machine: a process pinned to one core
    # then ran two threads taking turns on it, doubling each call's CPU time.
    monkeypatch.setenv("EVALSITE_MODEL_THREADS", "")
    monkeypatch.setattr(models.os, "sched_getaffinity", lambda pid: {3}, raising=False)
    assert models.model_threads() == 1
    monkeypatch.setenv("EVALSITE_MODEL_THREADS", "2")
    assert models.model_threads() == 2


def test_a_session_is_made_with_those_threads(monkeypatch) -> None:
    import onnxruntime

    made = []
    monkeypatch.setattr(models, "model_threads", lambda: 1)
    monkeypatch.setattr(onnxruntime, "InferenceSession", lambda path, options, providers: made.append(options))
    models.onnx_session("model.onnx")
    assert made[0].intra_op_num_threads == 1


def test_torch_models_compute_with_those_threads_too(monkeypatch) -> None:
    # Torch's default is one thread per core whatever the process shares: two pool processes of a
    # models worker ran four threads on two cores, and Fluency's LM took 2.7 times as long.
    import torch

    before = torch.get_num_threads()
    wanted = before + 1
    monkeypatch.setattr(models, "model_threads", lambda: wanted)
    try:
        models.torch_device()
        assert torch.get_num_threads() == wanted
    finally:
        torch.set_num_threads(before)


def test_torch_models_take_every_stream_s_threads(monkeypatch) -> None:
    # A models worker scores torch models in one stream (Scorer.scored_in_streams), with its whole share.
    import torch

    before = torch.get_num_threads()
    monkeypatch.setenv("EVALSITE_MODEL_THREADS", "1")
    monkeypatch.setenv("EVALSITE_MODEL_STREAMS", "2")
    try:
        models.torch_device()
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_a_missing_local_model_names_property_model_and_fix() -> None:
    with pytest.raises(ScorerUnavailable) as caught:
        Toxicity(model="/nonexistent/model")
    message = str(caught.value)
    assert message.startswith("toxicity: cannot load model '/nonexistent/model'")
    assert "Check the path" in message


def test_an_unreachable_hub_model_fails_when_used() -> None:
    scorer = Fluency(model="no-such-org/no-such-model")
    with pytest.raises(ScorerUnavailable, match=r"fluency: cannot load model 'no-such-org/no-such-model'"):
        scorer.run_batch(["Some text."])


def test_a_missing_pii_model_fails_with_the_same_shape() -> None:
    with pytest.raises(ScorerUnavailable, match=r"pii_risk: cannot load model '\./missing-ner'.*Check the path"):
        PIIRisk(model="./missing-ner")


def test_a_local_encoder_needs_a_head_trained_on_it(minilm_folder) -> None:
    scorer = AvoidedAnswer(model=minilm_folder)
    with pytest.raises(ScorerUnavailable, match=r"avoided_answer: .*python -m properties.training.avoided_answer"):
        scorer.run_batch(["I cannot help with that."])


def test_a_local_encoder_with_its_own_head(minilm_folder, tmp_path) -> None:
    """A user's local model folder as the encoder, with a head trained on it by the training code."""
    refusals = [f"I'm sorry, I can't help with {topic}." for topic in ("that", "this", "hacking", "weapons", "fraud")]
    refusals += [f"As an AI, I will not {act}." for act in ("do that", "write it", "help", "assist", "answer")]
    answers = [f"Sure! Here is how to {act}: first, gather what you need." for act in ("bake bread", "run", "code")]
    answers += [f"The answer is {n}, because {n} is the sum." for n in range(7)]
    encoder = models.user_encoder("avoided_answer", minilm_folder)
    head, _ = fit_head(avoided_answer_features(refusals + answers, encoder), np.array([1] * 10 + [0] * 10))
    head.meta = {"encoder": encoder.model_id}
    head.save(tmp_path / "head.npz")

    scorer = AvoidedAnswer(model=minilm_folder, head=str(tmp_path / "head.npz"))
    scorer.current_field = "output"
    refusal, answer = scorer.run_batch(["I'm sorry, but I cannot help with that.", "Paris is the capital of France."])
    assert refusal.value > answer.value
    assert scorer.model_id().startswith(f"{minilm_folder}@")


def test_risk_factors_are_data_and_a_project_can_override_them(pii_risk) -> None:
    table = default_risk_factors()
    assert table["credit_card"]["risk"] == 1.0
    assert {"person_name", "email", "phone", "street_address", "ssn", "iban", "ip_address"} <= set(table)
    text = "Write to jane.doe@example.org please."
    [default] = pii_risk.run_batch([text])
    [lowered] = PIIRisk(risk_factors={"email": 0.1}).run_batch([text])
    assert default.value > 0.7
    assert lowered.value < 0.15
    with pytest.raises(ValueError, match="email"):
        PIIRisk(risk_factors={"email": 3})


def test_to_dict_round_trips_the_configuration() -> None:
    scorer = PIIRisk(risk_factors={"city": 0.5})
    assert PIIRisk.from_dict(scorer.to_dict()).to_dict() == scorer.to_dict()
    assert Toxicity().to_dict() == {"model": None, "head": None, "positive_label": None}


def test_a_local_sequence_classifier_is_run_through_transformers(minilm_folder, tmp_path) -> None:
    """A user's classifier folder: built here from the MiniLM weights with a fresh two-label head."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = tmp_path / "classifier"
    model = AutoModelForSequenceClassification.from_pretrained(
        minilm_folder, num_labels=2, id2label={0: "neutral", 1: "toxic"}, label2id={"neutral": 0, "toxic": 1}
    )
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(minilm_folder).save_pretrained(folder)

    scorer = Toxicity(model=str(folder))
    results = scorer.run_batch(["Thank you!", "A much longer sentence. " * 200])
    assert all(0.0 <= result.value <= 1.0 for result in results)
    assert scorer.predictor().index == 1  # found by its name, "toxic"
    assert scorer.model_id().startswith(f"{folder}@")


def test_a_texts_embedding_does_not_depend_on_its_batch(toxicity) -> None:
    # bge's int8 quantisation is dynamic (one activation scale per pass): one text per pass.
    encoder = models.packaged_encoder("toxicity")
    text = "Let me know if you need anything else."
    alone = encoder._encode_windows([text])[0]
    beside = encoder._encode_windows([text, "KILL KILL KILL you FUCKING idiot NOW!!"])[0]
    # Batched, one coordinate moved by up to 0.11; threads may still change the last bits.
    np.testing.assert_allclose(alone, beside, rtol=0, atol=1e-5)


def test_a_pair_has_one_cross_encoder_logit_whatever_is_batched_beside_it() -> None:
    # The reranker's activations are quantised with one scale per pass: batched, a pair's logit moved
    # with its neighbours (by up to 1.0), so a value depended on the rows uploaded with it.
    from properties.scorers.runtime import cross_encoder

    reranker = cross_encoder.packaged_reranker("relevance")
    pairs = [
        ("How much does the Titan subscription cost?", "It costs $29 per month."),
        ("How much does the Titan subscription cost?", "THE ROUTER IS ON FIRE AND NOTHING WORKS!!! " * 6),
        ("Who leads the Titan team?", "Jan Novak leads the Titan team and shipped 17 releases."),
        ("Is the export streamed?", "Yes: rows are written as they are read, a page at a time."),
    ]
    together = reranker._logits(pairs)
    alone = [reranker._logits([pair])[0] for pair in pairs]
    assert together.tolist() == alone
