"""The app's models, one module per aggregate (its label and migrations are the app's):
- projects: projects, their members and runs, and the test suites stored as projects;
- interactions: a run's interactions, their annotations and the values computed on them, and each
  run's statistics of those values kept for comparisons;
- jobs: scoring jobs, the chunks they are sent in, and the workers' heartbeats;
- uploads: uploaded files and what became of them;
- tokens: API tokens, stored hashed;
- saved_views: the Data Screen's named views of a project (filter, columns, sort);
- llm: provider keys, prompt properties and their previews, each run's LLM usage and budget.

Everything is imported here: code and migrations name `properties.models.<Name>`.

May import: properties.provider_keys and properties.scorers only; every other package of the app
imports the models.
"""

from properties.models.interactions import (
    Annotation,
    AnnotationSource,
    Interaction,
    InteractionQuerySet,
    PropertyValue,
    PropertyValueQuerySet,
    RunValueSummary,
    input_hash,
    new_interaction_id,
)
from properties.models.jobs import ScoringChunk, ScoringChunkQuerySet, ScoringJob, WorkerHeartbeat
from properties.models.llm import ProjectKey, PromptPreview, PromptProperty, RunBudget, RunLLMUsage
from properties.models.projects import (
    Membership,
    Project,
    ProjectQuerySet,
    Run,
    RunQuerySet,
    TestSuite,
    ThresholdChange,
)
from properties.models.saved_views import SavedView
from properties.models.tokens import ApiToken, ApiTokenQuerySet, hash_token
from properties.models.uploads import Upload, upload_path

__all__ = [
    "Annotation",
    "AnnotationSource",
    "ApiToken",
    "ApiTokenQuerySet",
    "Interaction",
    "InteractionQuerySet",
    "Membership",
    "Project",
    "ProjectKey",
    "ProjectQuerySet",
    "PromptPreview",
    "PromptProperty",
    "PropertyValue",
    "PropertyValueQuerySet",
    "Run",
    "RunBudget",
    "RunLLMUsage",
    "RunQuerySet",
    "RunValueSummary",
    "SavedView",
    "ScoringChunk",
    "ScoringChunkQuerySet",
    "ScoringJob",
    "TestSuite",
    "ThresholdChange",
    "Upload",
    "WorkerHeartbeat",
    "hash_token",
    "input_hash",
    "new_interaction_id",
    "upload_path",
]
