"""The migration that takes provider keys out of plain text: prompt-property keys and `api_key` in
project configurations become encrypted project keys, and operator-only options leave configurations."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("properties", "0006_prompt_properties_llm_usage")]
AFTER = [("properties", "0007_provider_keys_prompt_previews")]
PROMPT_KEY = "sk-prompt-0123456789PLAIN"
CONFIG_KEY = "sk-config-0123456789PLAIN"


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_plain_keys_become_encrypted_project_keys():
    old = migrate(BEFORE)
    try:
        project = old.get_model("properties", "Project").objects.create(
            name="p",
            property_config={
                "llm_hallucination_free": {"model_id": "openai/gpt-4o-mini", "api_key": CONFIG_KEY},
                "invalid_links": {"allow_private_addresses": True, "timeout": 3},
            },
        )
        old.get_model("properties", "PromptProperty").objects.create(
            project=project,
            name="Polite",
            property_name="prompt_polite",
            template="{output}",
            model_id="m",
            api_key=PROMPT_KEY,
        )
        new = migrate(AFTER)
        project = new.get_model("properties", "Project").objects.get()
        keys = {key.name: key.encrypted for key in new.get_model("properties", "ProjectKey").objects.all()}
        prompt = new.get_model("properties", "PromptProperty").objects.get()
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    from properties import provider_keys

    assert project.property_config == {
        "llm_hallucination_free": {"model_id": "openai/gpt-4o-mini", "api_key_name": "llm_hallucination_free"},
        "invalid_links": {"timeout": 3},
    }
    assert set(keys) == {"llm_hallucination_free", "prompt_polite"}
    assert provider_keys.decrypt(keys["llm_hallucination_free"]) == CONFIG_KEY
    assert provider_keys.decrypt(keys["prompt_polite"]) == PROMPT_KEY
    assert PROMPT_KEY not in "".join(keys.values()) and CONFIG_KEY not in "".join(keys.values())
    assert prompt.project_key_id is not None
