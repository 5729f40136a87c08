"""Word Count: the number of words of a text, the cheapest sanity check on any run."""

from properties.scorers.base import Scorer
from properties.scorers.registry import builtin


@builtin
class WordCount(Scorer):
    display_name = "Word Count"
    description = "Number of whitespace-separated words in the text. 0 for empty text; no upper bound."
    fields = ("input", "output")

    @staticmethod
    def name() -> str:
        return "word_count"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def run_batch(self, candidate_batch, reference_batch=None, input_text_batch=None, context_batch=None):
        return [float(len(text.split())) for text in candidate_batch]
