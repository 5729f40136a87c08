"""`from evalsite.scorers import HallucinationFreeScorer`: the documented import path of Weave's
built-in scorer classes, whose code is in evalsite/sdk/weave_scorers.py."""

from evalsite.sdk.weave_scorers import (
    ContextEntityRecallScorer,
    ContextRelevancyScorer,
    EmbeddingSimilarityScorer,
    HallucinationFreeScorer,
    OpenAIModerationScorer,
    PydanticScorer,
    SummarizationScorer,
    ValidJSONScorer,
    ValidXMLScorer,
    WeaveScorer,
)

__all__ = [
    "ContextEntityRecallScorer",
    "ContextRelevancyScorer",
    "EmbeddingSimilarityScorer",
    "HallucinationFreeScorer",
    "OpenAIModerationScorer",
    "PydanticScorer",
    "SummarizationScorer",
    "ValidJSONScorer",
    "ValidXMLScorer",
    "WeaveScorer",
]
