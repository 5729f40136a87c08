"""What the pages call a property value: the property's display name ("Grounded in Context"), with
its field where the property is computed on more than one ("PII Risk (output)").

Addresses (`grounded_in_context.output`) stay what users type: the filter language, the API, the
CLI and the rules YAML use them, so the pages show them where a user writes a filter and in tooltips.
"""

from __future__ import annotations

from dataclasses import dataclass

from properties.models import Project, PromptProperty
from properties.projects import project_templates
from properties.scorers import registry

# A project that names no key properties: the key ones of the templates, in their order, that it scores.
PREFERRED = [
    name
    for slug in ("rag", "summarisation", "chat", "structured")
    for name in project_templates.get(slug).key_properties
]


@dataclass(frozen=True)
class PropertyName:
    address: str
    display_name: str
    # The field, shown only when the property has values on several fields ("input", "output").
    field: str = ""

    def __str__(self) -> str:
        return f"{self.display_name} ({self.field})" if self.field else self.display_name

    @property
    def described(self) -> str:
        """The name and the address to type in a filter: "Grounded in Context — grounded_in_context.output"."""
        return f"{self} — {self.address}"


def split_address(address: str) -> tuple[str, str]:
    """`toxicity.output` is (toxicity, output); `retrieval_relevance` is on the whole interaction."""
    prop, _, field = address.partition(".")
    return prop, field or "interaction"


def names_for(project: Project, addresses: list[str]) -> dict[str, PropertyName]:
    """The names of these addresses, in the order given; a project's prompt properties by their own name."""
    prompts = dict(PromptProperty.objects.filter(project=project).values_list("property_name", "name"))
    return {address: _name_of(address, prompts) for address in addresses}


def _name_of(address: str, prompts: dict[str, str]) -> PropertyName:
    prop, field = split_address(address)
    if prop in prompts:
        return PropertyName(address, prompts[prop])
    try:
        cls = registry.get(prop)
    except registry.RegistryError:
        # A property no longer installed still has stored values: its name is all there is.
        return PropertyName(address, prop, "" if field == "interaction" else field)
    several = len(cls.fields) > 1
    return PropertyName(address, registry.display_name(cls), field if several else "")


def key_names(project: Project) -> list[str]:
    """The project's key properties in its order (its template's, unless the user changed it)."""
    return project.key_properties or [name for name in dict.fromkeys(PREFERRED) if name in project.enabled_properties]


def key_first(project: Project, addresses: list[str]) -> list[str]:
    """Addresses in the order the pages show them: the key properties first, in the project's
    order, then the others alphabetically. Never alphabetical alone: a table keeps the template's order."""
    rank = {name: at for at, name in enumerate(key_names(project))}
    last = len(rank)
    return sorted(addresses, key=lambda address: (rank.get(split_address(address)[0], last), address))
