"""Scorer plugins: the evalsite.scorers entry-point group and dotted paths, a broken one skipped."""

from __future__ import annotations

import logging
import sys
import textwrap

import pytest

from properties.scorers import registry

PLUGIN = """
from properties.scorers import Scorer


class ShoutCount(Scorer):
    @staticmethod
    def name():
        return "shout_count"

    @staticmethod
    def requires_reference():
        return False

    def run_batch(self, candidate_batch, reference_batch=None, input_text_batch=None, context_batch=None):
        return [float(text.count("!")) for text in candidate_batch]
"""


@pytest.fixture
def plugin_dist(tmp_path, monkeypatch):
    """An installed distribution in a temporary folder: a module and a dist-info with entry points."""
    (tmp_path / "shout_plugin.py").write_text(PLUGIN)
    dist_info = tmp_path / "shout_plugin-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: shout-plugin\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text(
        textwrap.dedent("""
        [evalsite.scorers]
        shout_count = shout_plugin:ShoutCount
        broken = shout_plugin:DoesNotExist
        """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    _reload_plugins(monkeypatch)
    yield
    registry.unregister("shout_count")
    sys.modules.pop("shout_plugin", None)
    monkeypatch.setattr(registry, "_plugins_loaded", False)


def _reload_plugins(monkeypatch) -> None:
    monkeypatch.setattr(registry, "_plugins_loaded", False)


def test_an_entry_point_plugin_is_registered_and_a_broken_one_logged_and_skipped(plugin_dist, caplog):
    with caplog.at_level(logging.ERROR, logger="properties.scorers.registry"):
        scorers = registry.all_scorers()
    assert scorers["shout_count"]().run_batch(["hey!!", "calm"]) == [2.0, 0.0]
    assert not registry.is_builtin("shout_count")
    assert "skipping scorer plugin shout_plugin:DoesNotExist" in caplog.text
    assert "word_count" in scorers  # the built-ins are still there


def test_dotted_paths_from_settings_are_loaded(monkeypatch, caplog):
    # tests/environment.py sets EVALSITE_SCORERS to two test scorers.
    assert {"slow_word_count", "fails_on_boom"} <= set(registry.all_scorers())
    previous = list(registry._dotted_paths)
    try:
        registry.configure_dotted_paths([*previous, "tests.plugins.Missing", "no_such_module.Scorer"])
        with caplog.at_level(logging.ERROR, logger="properties.scorers.registry"):
            assert "slow_word_count" in registry.all_scorers()
        assert "skipping scorer plugin tests.plugins.Missing" in caplog.text
        assert "skipping scorer plugin no_such_module.Scorer" in caplog.text
    finally:
        registry.configure_dotted_paths(previous)
