"""The scoring library's layout: no Django anywhere in it, and the shared packages keep their place."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from properties.scorers import builtins, registry

SCORERS = Path(__file__).resolve().parents[3] / "properties" / "scorers"
PACKAGES = ("runtime", "text", "llm", "net")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted(SCORERS.rglob("*.py")), ids=lambda p: str(p.relative_to(SCORERS)))
def test_no_module_of_the_scoring_library_imports_django(path):
    bad = {name for name in imported_modules(path) if name.split(".")[0] == "django"}
    bad |= {
        name
        for name in imported_modules(path)
        if name.startswith("properties.") and not name.startswith("properties.scorers")
    }
    assert not bad, f"{path.name} imports {sorted(bad)}"


@pytest.mark.parametrize("package", PACKAGES)
def test_shared_packages_never_import_a_property_module(package):
    property_modules = {f"properties.scorers.{path.stem}" for path in SCORERS.glob("*.py")} - {
        "properties.scorers.__init__",
        "properties.scorers.base",
        "properties.scorers.registry",
        "properties.scorers.builtins",
    }
    for path in (SCORERS / package).rglob("*.py"):
        assert not imported_modules(path) & property_modules, f"{package}/{path.name} imports a property module"


# The only properties not in a module of their own name, as the package docstring says.
SHARED_MODULES = {
    "hallucination_free": "grounded_in_context",
    "llm_hallucination_free": "llm.judges",
    "llm_summarization": "llm.judges",
    "llm_context_entity_recall": "llm.judges",
    "llm_context_relevancy": "llm.judges",
}


def test_every_builtin_property_lives_in_a_module_named_after_it():
    for name, cls in registry.all_scorers().items():
        if registry.is_builtin(name):
            assert cls.__module__ == f"properties.scorers.{SHARED_MODULES.get(name, name)}", name


def test_the_builtin_table_lists_exactly_what_the_modules_register():
    registry.all_scorers()
    registered = {name for name, cls in registry.all_scorers().items() if cls.__module__.startswith("properties.")}
    assert registered - {"prompt_property"} == set(builtins.MODULES)


def test_a_cheap_property_loads_no_model_library():
    code = (
        "import sys; from properties.scorers import registry; "
        "[registry.get(n) for n in ('word_count', 'valid_json', 'reading_ease', 'content_type', 'invalid_links')]; "
        "print(sorted(m for m in ('torch', 'transformers', 'spacy', 'onnxruntime', 'litellm') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
