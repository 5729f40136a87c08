"""Character Count: the length of a text in characters, a sanity check on any run."""

from properties.scorers.base import Score, Scorer
from properties.scorers.registry import builtin


@builtin
class CharCount(Scorer):
    display_name = "Character Count"
    description = "Number of characters (Unicode code points) in the text. 0 for empty text."
    fields = ("input", "output")

    @staticmethod
    def name() -> str:
        return "char_count"

    @staticmethod
    def requires_reference() -> bool:
        return False

    def run_batch(self, candidate_batch, reference_batch=None, input_text_batch=None, context_batch=None):
        return [Score(value=float(len(text))) for text in candidate_batch]
