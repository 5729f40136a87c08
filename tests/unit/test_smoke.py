from properties.scorers import registry


def test_registry_has_builtins():
    assert "word_count" in registry.all_scorers()
