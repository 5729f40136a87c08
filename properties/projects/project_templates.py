"""Project templates: the properties a kind of LLM application is scored on, and its key ones.

A template is plain data. It fills a new project's enabled properties and its key properties:
the Data Screen's default columns and the comparison's default properties. After that the
project's own settings rule; the project remembers which template it started from.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

# Properties a new project scores when the settings name none.
DEFAULT_PROPERTIES = [
    "invalid_links",
    "reading_ease",
    "sentiment",
    "content_type",
    "compression_ratio",
    "valid_json",
    "valid_xml",
    "word_count",
    "toxicity",
    "fluency",
    "formality",
    "avoided_answer",
    "pii_risk",
    "relevance",
    "grounded_in_context",
    "information_density",
]


def default_properties() -> list[str]:
    return list(settings.EVALSITE_DEFAULT_PROPERTIES or DEFAULT_PROPERTIES)


@dataclass(frozen=True)
class ProjectTemplate:
    slug: str
    name: str
    description: str
    properties: tuple[str, ...]
    key_properties: tuple[str, ...]

    def enabled_properties(self) -> list[str]:
        return list(self.properties) if self.properties else default_properties()


TEMPLATES: dict[str, ProjectTemplate] = {
    template.slug: template
    for template in (
        ProjectTemplate(
            "rag",
            "RAG question answering",
            "Answers written from retrieved documents: are they grounded in them, was the retrieval relevant, "
            "does the answer address the question, does it refuse or leak personal data.",
            (
                "grounded_in_context",
                "retrieval_relevance",
                "context_relevancy",
                "relevance",
                "information_density",
                "pii_risk",
                "avoided_answer",
                "toxicity",
            ),
            ("grounded_in_context", "retrieval_relevance", "context_relevancy", "relevance", "avoided_answer"),
        ),
        ProjectTemplate(
            "summarisation",
            "Summarisation",
            "Summaries of a source (the input or the retrieved documents): do they keep its main content, "
            "stay faithful to it, and make it shorter.",
            ("coverage", "summarization", "grounded_in_context", "compression_ratio", "fluency"),
            ("coverage", "summarization", "grounded_in_context", "compression_ratio"),
        ),
        ProjectTemplate(
            "chat",
            "Chat or support bot",
            "Conversations with users: relevant, polite, fluent answers that do not refuse needlessly, "
            "leak personal data or send broken links.",
            (
                "relevance",
                "avoided_answer",
                "toxicity",
                "fluency",
                "sentiment",
                "pii_risk",
                "information_density",
                "invalid_links",
                "reading_ease",
            ),
            ("relevance", "avoided_answer", "toxicity", "fluency"),
        ),
        ProjectTemplate(
            "structured",
            "Structured output",
            "Outputs another program reads: valid JSON or XML, matching a schema (configure Schema's "
            "json_schema or pydantic_model), of the expected content type.",
            ("valid_json", "valid_xml", "schema", "content_type"),
            ("valid_json", "schema", "content_type"),
        ),
        ProjectTemplate(
            "custom",
            "Custom",
            "The general-purpose default properties; choose your own on the project page.",
            (),
            (),
        ),
    )
}
DEFAULT_TEMPLATE = "custom"


def get(slug: str) -> ProjectTemplate:
    return TEMPLATES.get(slug) or TEMPLATES[DEFAULT_TEMPLATE]


def choices() -> list[tuple[str, str]]:
    return [(template.slug, template.name) for template in TEMPLATES.values()]


def apply(project, slug: str) -> None:
    """Fill an unsaved project's properties from a template (before its first save)."""
    template = get(slug)
    project.template = template.slug
    project.enabled_properties = template.enabled_properties()
    project.key_properties = list(template.key_properties)
