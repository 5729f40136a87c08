"""Fluency: the causal LM's features, sentence-by-sentence scoring of long texts, a user's LM."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from properties.scorers.base import ScorerUnavailable
from properties.scorers.fluency import Fluency, adapter_extra, read_units
from properties.scorers.runtime import causal_lm, lm_adapter
from properties.training.fluency import train_head

DIGEST = r"@[0-9a-f]{12}"
GOOD = "The committee approved the budget after a long discussion."
# Minimal pairs in the style of CoLA: the same words, one version broken.
PAIRS = [
    ("The dog chased the cat into the garden.", "The dog chased cat the into garden the."),
    ("She has lived in Paris for ten years.", "She have lived in Paris for ten years."),
    ("Which book did you say that John read?", "Which book did you say that John read it the?"),
    ("They were talking about the weather.", "They was talking about about the weather."),
]


@pytest.fixture(scope="session")
def lm(fluency) -> causal_lm.CausalLM:
    return causal_lm.packaged_lm("fluency")


def feature(lm: causal_lm.CausalLM, texts: list[str], name: str) -> np.ndarray:
    return lm.features(texts)[:, causal_lm.LM_FEATURES.index(name)]


def test_the_lm_finds_broken_word_order_less_probable(lm) -> None:
    good, bad = zip(*PAIRS, strict=True)
    assert np.all(feature(lm, list(good), "logprob_mean") > feature(lm, list(bad), "logprob_mean"))
    assert np.all(feature(lm, list(good), "slor") > feature(lm, list(bad), "slor"))


def test_a_cut_off_sentence_is_unlikely_to_end_there(lm) -> None:
    whole, cut = feature(lm, ["I put the book on the table.", "I put the book on the"], "end_logprob")
    assert whole > cut + 2.0


def test_features_have_the_documented_width(lm) -> None:
    rows = lm.features(["Short.", GOOD, " "])
    assert rows.shape == (3, lm.width)
    assert lm.layers == [14, 19]  # the middle third of SmolLM2's 30 layers
    assert np.isfinite(rows).all()


def test_fluency_prefers_the_grammatical_member_of_minimal_pairs(fluency) -> None:
    scores = [result.value for result in fluency.run_batch([text for pair in PAIRS for text in pair])]
    assert all(good > bad for good, bad in zip(scores[::2], scores[1::2], strict=True))


def test_a_long_text_is_the_mean_of_its_sentences_by_their_words(fluency) -> None:
    broken = "Him go store yesterday buyed apple many."
    text = " ".join([GOOD] * 40 + [broken] * 10)  # ~600 tokens: past any single window
    scored = fluency.run_batch([text, GOOD, broken])
    [whole, good, bad] = [result.value for result in scored]
    assert good > 0.7 and bad < 0.5
    # Every sentence counts, the broken tail included, as much as it is long.
    good_words, bad_words = len(GOOD.split()), len(broken.split())
    expected = (40 * good_words * good + 10 * bad_words * bad) / (40 * good_words + 10 * bad_words)
    # A sentence's score moves a little with the batch it is read in (the int8 model scales each
    # batch by its own range): up to 2.4e-4 seen on a CPU with AMX, against about 0.03 between this mean
    # and one that does not weigh sentences by their words.
    assert whole == pytest.approx(expected, abs=5e-4)
    assert whole == pytest.approx(float(fluency.predictor().predict([text])[0]), abs=1e-4)
    # The evidence is each broken sentence, where it stands, and no fluent one.
    spans = scored[0].spans
    assert [text[span.start : span.end] for span in spans] == [broken] * 10
    assert all(span.label == "not fluent" and span.score == pytest.approx(bad, abs=2e-4) for span in spans)
    # A fluent text shows its least fluent sentence, over the threshold like the value.
    assert [(span.label, span.score >= 0.5) for span in scored[1].spans] == [("least fluent", True)]


def test_a_greeting_weighs_as_little_as_it_says(fluency) -> None:
    reply = f"{GOOD} {GOOD}"
    plain, greeted = fluency.run_batch([reply, "Hi Anna! " + reply])
    assert greeted.value == pytest.approx(plain.value, abs=0.15), "two words of twenty"


def test_case_does_not_move_the_value(fluency) -> None:
    plain, lower, upper = fluency.run_batch([GOOD, GOOD.lower(), GOOD.upper()])
    assert lower.value == pytest.approx(plain.value, abs=0.05) and upper.value == pytest.approx(plain.value, abs=0.05)


def test_spacing_does_not_move_the_value(fluency) -> None:
    plain, spaced = fluency.run_batch([GOOD, "  " + GOOD.replace(" after ", "   after\n ") + "\n"])
    assert plain.value == pytest.approx(spaced.value, abs=1e-3)


def test_model_id_names_the_lm_its_precision_and_the_head(fluency) -> None:
    bf16 = r"\+bf16" if causal_lm.precision() == "bf16" else ""
    assert re.fullmatch(rf"SmolLM2-135M-Instruct-Q4_1{DIGEST}{bf16}\+fluency-head{DIGEST}", fluency.model_id())


def test_the_precision_is_read_without_importing_torch() -> None:
    # The planner and the pages ask for Fluency's model id in processes that never load the model.
    code = (
        "import sys; from properties.scorers.runtime import causal_lm; "
        "causal_lm.precision(); print('torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_bfloat16_is_an_operators_switch_and_values_stay_close_to_float32(fluency, monkeypatch) -> None:
    monkeypatch.setenv(causal_lm.BF16_VARIABLE, "0")
    assert causal_lm.precision() == "fp32" and "+bf16" not in fluency.model_id()
    lm = causal_lm.packaged_lm("fluency")
    texts = [GOOD, "Me and him goes to the store yesterday for buy some food and and the."]
    was = lm.bf16
    try:
        lm.bf16 = False
        full = [score.value for score in fluency.run_batch(texts)]
        lm.bf16 = True
        half = [score.value for score in fluency.run_batch(texts)]
    finally:
        lm.bf16 = was
    assert all(abs(a - b) < 0.03 for a, b in zip(full, half, strict=True)), (full, half)


def test_bfloat16_weight_copies_give_autocasts_numbers_and_release_the_float32_ones(fluency, monkeypatch) -> None:
    import torch

    lm = causal_lm.packaged_lm("fluency")
    ids = torch.tensor([lm.tokenizer(GOOD, add_special_tokens=False)["input_ids"]])
    monkeypatch.setattr(lm, "bf16", True)
    with torch.inference_mode():
        float32 = lm.float32_model()(input_ids=ids).logits
        with causal_lm.autocast(True):
            autocast = lm.model(input_ids=ids).logits
            monkeypatch.setattr(lm, "_bf16_weights", None)  # the next pass makes the copies afresh
            copies = lm._run(input_ids=ids).logits
    assert lm._bf16_weights is not None and copies.dtype == torch.bfloat16
    # The same matrix products on the same bfloat16 numbers; a tolerance, as threads may split
    # the sums differently between the two passes.
    assert torch.allclose(copies.float(), autocast.float(), rtol=0.01, atol=0.05)
    attention = lm.model.model.layers[0].self_attn.q_proj
    assert attention.weight.numel() == 0, "a linear layer's float32 weights are released once copied"
    assert lm.model.lm_head.weight.numel() > 0, "the output layer's weights are the embeddings', which stay"
    monkeypatch.setattr(lm, "bf16", False)
    assert attention.weight.dtype == torch.float32 and attention.weight.numel() > 0, "read again for float32"
    with torch.inference_mode():
        assert torch.equal(lm._run(input_ids=ids).logits, float32)


@pytest.fixture(scope="session")
def local_lm_folder(lm, tmp_path_factory) -> str:
    """A user's local causal LM folder: the packaged SmolLM2 saved in Hugging Face format."""
    from transformers import AutoModelForCausalLM

    folder = tmp_path_factory.mktemp("causal-lm")
    # The GGUF-loaded model refuses to be saved as quantized: rebuild it plain, same fp32 weights.
    packaged = lm.float32_model()
    config = packaged.config.to_dict()
    config.pop("quantization_config", None)
    model = AutoModelForCausalLM.from_config(type(packaged.config).from_dict(config))
    model.load_state_dict(packaged.state_dict())
    model.save_pretrained(folder)
    lm.tokenizer.save_pretrained(folder)
    return str(folder)


def test_a_folders_weights_are_read_into_memory_of_their_own(local_lm_folder) -> None:
    """Not views of one mapping of the whole file, which would keep every weight in memory until
    the last one goes: the float32 weights released for their bfloat16 copies could not go."""
    import torch
    from transformers import AutoModelForCausalLM

    model = causal_lm._float32_model(local_lm_folder, None)
    mapped = AutoModelForCausalLM.from_pretrained(local_lm_folder, dtype="float32")
    assert model.lm_head.weight is model.get_input_embeddings().weight, "tied weights stay one tensor"
    for (name, tensor), (_, same) in zip(model.state_dict().items(), mapped.state_dict().items(), strict=True):
        assert torch.equal(tensor, same), name
        assert tensor.untyped_storage().nbytes() == tensor.nbytes, name


def test_a_local_causal_lm_needs_a_head_trained_on_it(local_lm_folder) -> None:
    with pytest.raises(ScorerUnavailable, match=r"fluency: .*a head trained on it .*python -m properties.training"):
        Fluency(model=local_lm_folder).run_batch(["Some text."])


def test_a_local_causal_lm_with_its_own_head(local_lm_folder, tmp_path) -> None:
    good, bad = (list(side) for side in zip(*PAIRS, strict=True))
    good += [
        "The train left the station on time.",
        "We never found any of the unicorns.",
        "It rained all day in the hills.",
    ]
    bad += ["u r gr8 lol", "lol wat dat", "omg ppl r so dum smh"]
    user_lm = causal_lm.user_lm("fluency", local_lm_folder)
    head, _ = train_head(good + bad, np.array([1] * len(good) + [0] * len(bad)), user_lm)
    head.save(tmp_path / "head.npz")

    scorer = Fluency(model=local_lm_folder, head=str(tmp_path / "head.npz"))
    fluent, chat = (result.value for result in scorer.run_batch([GOOD, "idk lol u r gr8"]))
    assert fluent > chat
    bf16 = r"\+bf16" if causal_lm.precision() == "bf16" else ""
    assert re.fullmatch(rf"{re.escape(local_lm_folder)}{DIGEST}\+head{DIGEST}{bf16}", scorer.model_id())


def test_an_untrained_adapter_reproduces_the_frozen_layers(lm, monkeypatch) -> None:
    """LoRA starts at zero: the adapted copies then compute what the LM's own layers do, for texts
    of different lengths in one padded batch (in float32, as the adapter is trained)."""
    import torch

    monkeypatch.setattr(lm, "bf16", False)
    adapter = lm_adapter.Adapter(lm.model, extra_width=3)
    assert (adapter.first, adapter.last) == (14, 20)
    texts = [GOOD, "Short one.", "A somewhat longer sentence than the short one, with a clause."]
    _, states = lm.read(texts, adapter.first)
    with torch.inference_mode():
        adapted = adapter.adapted_states(states)
        for row, text in enumerate(texts):
            ids = [lm.boundary, *lm.tokenizer(text, add_special_tokens=False)["input_ids"], lm.boundary]
            frozen = lm.model(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states[adapter.last]
            assert torch.allclose(adapted[row, : len(ids)], frozen[0], atol=1e-3)


def test_a_sentence_value_is_the_mean_of_head_and_adapter(fluency, lm, monkeypatch) -> None:
    monkeypatch.setattr(lm, "bf16", False)  # the parts below run outside the predictor's precision
    predictor = fluency.predictor()
    assert predictor.adapter is not None  # the packaged head file holds the trained adapter
    units = [GOOD, "The dog chased cat the into garden the."]
    features, states = read_units(units, lm, predictor.adapter.first)
    from_head = predictor.head.predict(features)
    from_adapter = predictor.adapter.predict(states, adapter_extra(features))
    assert np.allclose(predictor.predict_units(units), (from_head + from_adapter) / 2)
    assert from_adapter[0] > 0.5 > from_adapter[1]


def test_the_de_quantised_lm_is_cached_and_reads_the_same(lm, tmp_path) -> None:
    """The session's first load converted the GGUF file and kept the fp32 weights; a new process
    (here: a load that bypasses the in-process cache) reads them back and computes the same numbers."""
    import torch

    gguf = causal_lm._packaged_gguf("fluency")
    folder = causal_lm.models.conversion_cache() / f"{causal_lm.PACKAGED_LM}-{causal_lm.models.weights_digest(gguf)}"
    assert causal_lm._verified(folder)
    again = causal_lm._load_packaged("fluency", gguf, lm.model_id, "")
    # The weights read back are the weights kept, to the bit: reading a file is exact. Through
    # `float32_model`: a pass in bfloat16 releases the float32 linear weights (`CausalLM._run`).
    kept, read = lm.float32_model().state_dict(), again.float32_model().state_dict()
    assert sorted(kept) == sorted(read)
    assert [name for name in kept if not torch.equal(kept[name], read[name])] == []
    # Features are forward passes, which threads and load order may round differently in
    # bfloat16: close, within a tolerance far below what another model or text would move.
    texts = [GOOD, PAIRS[0][1]]
    features, features_again = lm.features(texts), again.features(texts)
    assert np.allclose(features_again, features, rtol=0.02, atol=0.02), np.abs(features_again - features).max()
    assert not np.allclose(features[0], features[1], rtol=0.02, atol=0.02), "the tolerance tells two texts apart"
    # An altered copy is not trusted: it would be converted again from the GGUF file.
    altered = tmp_path / folder.name
    altered.mkdir()
    (altered / "manifest.json").write_text(
        (folder / "manifest.json").read_text().replace('"sha256": "', '"sha256": "0')
    )
    (altered / "model.safetensors").symlink_to(folder / "model.safetensors")
    assert not causal_lm._verified(altered)
