"""Generated training rows for Fluency in the form of chat replies, fluent and made disfluent.

`fluency_rows.py` writes single sentences of support, RAG, e-mail and report prose. What an
assistant writes in a chat looks different: a greeting or a short fragment that is fine in a reply
("Sure thing!", "Good catch."), steps one after the other, commands and code inline, figures with
their units, product names with versions and odd capitals, reference codes, and headings. The LM
reads many of those tokens as rare, and a head that has seen few of them in fluent text takes their
rarity for disfluency: a support reply with an order reference and a small town's name read 0.30 to
0.42, and the same reply in lower case lost up to 0.25.

These rows pair each fluent reply (label 1) with the same reply made disfluent (label 0) by one
perturbation applied to every one of its sentences, so that every unit the scorer reads alone
carries its row's label: words scrambled, words written twice, words dropped, agreement broken,
function words removed, or machine-translation-like word salad (wrong prepositions, lost articles,
verbs left in the infinitive). Both sides of a pair hold the same codes, figures and names, and the
same share of both is written all in lower case, all in capitals or with a lower-case first letter,
so that neither rare tokens nor case carries a label.

The phrasings and word lists are this module's own, written apart from the behaviour suite
(bench/generated/) and from `fluency_rows.py`; one `random.Random(SEED)` draws everything, so the
rows are the same on every run.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

SEED = 47
# Rows generated, half fluent and half disfluent (each disfluent row is the fluent one before it, broken).
ROWS = 800
# Share of both sides written in another case (all lower, all capitals, lower-case first letter).
CASE_RATE = 0.3
# Share of fluent replies that start with a short fragment ("Sure thing!") or a heading.
OPENER_RATE = 0.3

HELPERS = (
    "Marisol", "Teodor", "Ingrid", "Kofi", "Leilani", "Radu", "Sunniva", "Tobias", "Ayesha", "Florin",
    "Nkechi", "Ottilie", "Caspian", "Mireille", "Eulalie", "Stellan",
)  # fmt: skip
TOWNS = (
    "Ludlow", "Vaasa", "Kinsale", "Oamaru", "Trondheim", "Bayonne", "Hobart", "Lillehammer", "Pécs", "Ghent",
    "Olomouc", "Tralee", "Matera", "Kalmar", "Bendigo", "Zwolle", "Lugano", "Ipoh", "Arequipa", "Moncton",
)  # fmt: skip
APPS = (
    "NimbusDB", "QuillPad", "Ferrolink", "OrbitDesk", "CanvasKit", "Tallyho", "PixelForge", "Moorcast", "SnapLedger",
    "HiveSync", "Lumio", "TerraNote", "ByteHarbor", "Greenlight CRM", "iCue Studio",
)  # fmt: skip
DEVICES = (
    "the thermostat", "the soundbar", "the mesh node", "the e-reader", "the dashcam", "the smart plug",
    "the baby monitor", "the doorbell camera", "the drawing tablet", "the heat pump",
)  # fmt: skip
SETTINGS_PAGES = ("Preferences", "Account settings", "Privacy & Security", "Billing", "Notifications", "Integrations")
BUTTONS = ("Save", "Apply", "Export", "Sync now", "Sign out", "Reset", "Add member", "Confirm")
COMMANDS = (
    "git stash pop", "pip install --upgrade pandas", "docker compose up -d", "npm ci", "brew services restart redis",
    "kubectl get pods -n staging", "cargo build --release", "systemctl status nginx", "poetry lock --no-update",
    "terraform plan", "ssh-keygen -t ed25519", "python -m venv .venv", "rsync -av backup/ /mnt/usb",
)  # fmt: skip
CODE_BITS = (
    "fetchOrders()", "retry_count", "UserProfile", "is_active", "parseDate()", "config.toml", "settings.json",
    "__init__.py", "onSubmit", "MAX_UPLOAD_MB", "useEffect", "df.groupby()", "HTTP 429", "SELECT *",
)  # fmt: skip
DAYS_OF_WEEK = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
FRAGMENTS = (
    "Sure thing!", "Good catch.", "Happy to help!", "Great question.", "Yes, exactly.", "Not quite.", "Got it.",
    "No problem at all.", "Glad that worked!", "Short answer: yes.", "Thanks, that helps.", "Of course!",
    "Absolutely.", "Done!", "Almost there.", "Fair point.",
)  # fmt: skip
HEADINGS = (
    "Quick fix", "Before you start", "What changed", "Troubleshooting", "Option 2: the command line",
    "Step 1: back up your data", "Pros and cons", "Summary", "Known issues", "How billing works",
)  # fmt: skip


class Slots:
    """The slots of one reply, drawn from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: tuple[str, ...]) -> str:
        return self.rng.choice(options)

    def n(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def reference(self) -> str:
        """A reference code in one of many shapes: letters and digits, slashes, spaces, hex."""
        r = self.rng
        letters = "".join(r.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(r.randint(2, 4)))
        shapes = (
            f"{letters}-{r.randint(10000, 999999)}",
            f"{letters}{r.randint(100, 99999)}",
            f"{letters.lower()}_{r.randint(1000, 99999)}",
            f"{r.randint(2020, 2026)}/{letters}/{r.randint(10, 9999)}",
            f"{r.randint(100, 999)}-{letters}-{r.randint(10, 99)}",
            f"{r.randint(0, 16**6 - 1):06x}",
            f"{letters[:2]}{r.randint(10, 99)} {r.randint(1, 9)}{letters[-2:]}",
        )
        return r.choice(shapes)

    def power(self) -> str:
        return self.rng.choice((f"{self.n(5, 95)} W", f"{self.n(1, 2)}.{self.n(1, 9)} kW"))

    def capacity(self) -> str:
        r = self.rng
        return r.choice((f"{r.randint(1, 12)} TB", f"{r.randint(2, 64)} GB of RAM", f"{r.randint(50, 940)} Mbps"))

    def weight(self) -> str:
        return self.rng.choice((f"{self.n(2, 40)} kg", f"{self.n(180, 950)} g", f"{self.n(1, 9)}.{self.n(1, 9)} lb"))

    def temperature(self) -> str:
        return self.rng.choice((f"{self.n(15, 30)} °C", f"{self.n(60, 85)} °F"))

    def cost(self) -> str:
        r = self.rng
        return r.choice(
            (f"${r.randint(4, 480)}", f"€{r.randint(4, 480)}.{r.randint(10, 99)}", f"{r.randint(4, 90)} CHF")
        )

    def app(self) -> str:
        name = self.pick(APPS)
        return self.rng.choice((name, f"{name} {self.n(2, 9)}.{self.n(0, 12)}", name))


# Each kind returns the sentences of one reply; a disfluent reply breaks every one of them.
Reply = Callable[[Slots], list[str]]


def _steps(s: Slots) -> list[str]:
    page, button = s.pick(SETTINGS_PAGES), s.pick(BUTTONS)
    return s.rng.choice(
        (
            [f"First, open {page} in {s.app()}.", f"Then change the value you need and click {button}."],
            [f"Go to {page} and scroll down to the bottom.", f"You should see a button labelled {button} there."],
            [f"To pair {s.pick(DEVICES)}, hold its top button until the light blinks twice.", "Then tap Add device."],
            [f"Unplug {s.pick(DEVICES)}, wait about a minute and plug it back in.", "Most sync errors clear up then."],
            [f"Sign in on the web, open {page} and pick the workspace you want to leave."],
            [f"Once the update finishes, restart {s.app()} so that the new settings take effect."],
        )
    )


def _commands(s: Slots) -> list[str]:
    command, bit = s.pick(COMMANDS), s.pick(CODE_BITS)
    return s.rng.choice(
        (
            [f"Run `{command}` from the project folder, then try again."],
            [f"The error comes from `{bit}`, which expects a string but gets a number here."],
            [f"You can check what went wrong with `{command}`.", "It prints the last few lines of the log."],
            [f"Rename the variable to `{bit}` and the linter will stop complaining."],
            [f"If `{command}` hangs, press Ctrl+C and run it again with the verbose flag."],
            [f"Move the call to `{bit}` inside the loop; otherwise it only runs once."],
        )
    )


def _figures(s: Slots) -> list[str]:
    return s.rng.choice(
        (
            [f"It draws about {s.power()} when it runs flat out, so any ordinary socket will do."],
            [f"The base model has {s.capacity()}, which is plenty for browsing and office work."],
            [f"At {s.weight()} it is lighter than the previous version and a little cheaper at {s.cost()}."],
            [f"Your plan includes {s.capacity()}, and extra capacity costs {s.cost()} a month."],
            [f"The cable is rated for {s.n(2, 10)} Gbps, so it will not slow your connection down."],
            [f"Keep the room below {s.temperature()} while the paint dries, which takes around {s.n(2, 8)} hours."],
            [f"Each box weighs {s.weight()} and holds {s.n(6, 48)} cans of {s.n(250, 500)} ml."],
            [f"The charger puts out {s.power()}, so a full charge takes about {s.n(40, 150)} minutes."],
        )
    )


def _accounts(s: Slots) -> list[str]:
    ref, town, day = s.reference(), s.pick(TOWNS), s.pick(DAYS_OF_WEEK)
    return s.rng.choice(
        (
            [f"Your ticket {ref} is with our team in {town}, and someone will reply by {day}."],
            [f"I found booking {ref} under your name; it is for {s.n(2, 6)} guests in {town}."],
            [f"The package {ref} was scanned in {town} this morning and is out for delivery."],
            [f"Refund {ref} for {s.cost()} went through on {day}, so it may take a few days to show up."],
            [f"{s.pick(HELPERS)} in {town} has reopened case {ref} and will keep you posted."],
            [f"Licence key {ref} is tied to your old laptop, so I have released it for the new one."],
        )
    )


def _products(s: Slots) -> list[str]:
    app, other = s.app(), s.pick(APPS)
    return s.rng.choice(
        (
            [f"{app} now exports straight to {other}, so you no longer need the plug-in."],
            [f"Yes, {app} works offline, but comments only sync when you are back online."],
            [f"The free tier of {app} keeps your history for {s.n(7, 90)} days."],
            [f"I would pick {other} for a small team and {app} if you need audit logs."],
            [f"{app} and {other} both support single sign-on, but only {other} includes it in the basic plan."],
            [f"The latest {app} release fixes the crash you saw when opening large files."],
        )
    )


KINDS: dict[str, Reply] = {
    "steps": _steps,
    "commands": _commands,
    "figures": _figures,
    "accounts": _accounts,
    "products": _products,
}


# --- the perturbations that make a reply disfluent -------------------------------------------------
ARTICLES = frozenset(("a", "an", "the"))
SMALL_WORDS = ARTICLES | frozenset(
    ("to", "of", "in", "on", "at", "for", "with", "by", "from", "is", "are", "was", "and", "it", "so", "that")
)
WRONG_PREPOSITION = {
    "in": "at",
    "on": "in",
    "at": "on",
    "for": "of",
    "to": "for",
    "with": "by",
    "from": "of",
    "by": "with",
}
AGREEMENT_SWAPS = {
    "is": "are", "are": "is", "was": "were", "has": "have", "have": "has", "does": "do", "it": "they",
    "needs": "need", "takes": "take", "works": "work", "keeps": "keep", "includes": "include", "expects": "expect",
}  # fmt: skip
BARE_VERBS = {
    "draws": "draw", "has": "have", "goes": "go", "runs": "run", "fixes": "fix", "comes": "come", "prints": "print",
    "went": "go", "was": "be", "is": "be", "will": "to", "found": "find", "released": "release",
}  # fmt: skip


def _plain(word: str) -> str:
    return re.sub(r"[^\w']", "", word).lower()


def _movable(word: str) -> bool:
    """A word that may be moved or dropped: no code, figure, unit or reference in it."""
    return bool(re.fullmatch(r"[A-Za-z']+[,;:]?", word))


def _rejoin(words: list[str], like: str) -> str:
    """Words back into a sentence with the original's first-letter case and final stop."""
    words = [word.rstrip(".?!") if index == len(words) - 1 else word for index, word in enumerate(words)]
    text = " ".join(words).rstrip(",;:")
    if like[:1].isupper():
        text = text[:1].upper() + text[1:]
    return text + (like[-1] if like[-1:] in ".?!" else "")


def scramble(rng: random.Random, sentence: str) -> str | None:
    """Its movable words shuffled among their places."""
    words = sentence.split()
    spots = [i for i, word in enumerate(words) if _movable(word.rstrip(".?!"))]
    if len(spots) < 4:
        return None
    # Names keep their capitals; only a capital that the first word had for starting the sentence goes.
    original = [words[i].rstrip(".?!,;:") for i in spots]
    moved = [word.lower() if i == 0 and word[1:].islower() else word for i, word in zip(spots, original, strict=True)]
    unmoved = list(moved)
    for _ in range(5):
        rng.shuffle(moved)
        if moved != unmoved:
            break
    for spot, word in zip(spots, moved, strict=True):
        words[spot] = word
    return _rejoin(words, sentence)


def double_words(rng: random.Random, sentence: str) -> str | None:
    """Two or three of its words written twice."""
    words = sentence.split()
    if len(words) < 4:
        return None
    twice = set(rng.sample(range(len(words) - 1), min(len(words) - 1, rng.choice((2, 3)))))
    out: list[str] = []
    for index, word in enumerate(words):
        out += [word.rstrip(",;:"), word] if index in twice else [word]
    return _rejoin(out, sentence)


def drop_words(rng: random.Random, sentence: str) -> str | None:
    """A third of its movable words left out."""
    words = sentence.split()
    spots = [i for i, word in enumerate(words[:-1]) if _movable(word)]
    if len(spots) < 4:
        return None
    gone = set(rng.sample(spots, max(2, len(spots) // 3)))
    return _rejoin([word for i, word in enumerate(words) if i not in gone], sentence)


def break_agreement(rng: random.Random, sentence: str) -> str | None:
    """A verb or pronoun that no longer agrees, and a determiner that no longer fits its noun."""
    words = sentence.split()
    spots = [i for i, word in enumerate(words) if _plain(word) in AGREEMENT_SWAPS and _movable(word)]
    if not spots:
        return None
    for i in rng.sample(spots, min(len(spots), 2)):
        swapped = AGREEMENT_SWAPS[_plain(words[i])]
        words[i] = (swapped.capitalize() if words[i][:1].isupper() else swapped) + words[i][len(_plain(words[i])) :]
    return _rejoin(words, sentence)


def strip_function_words(rng: random.Random, sentence: str) -> str | None:
    """Every article, preposition and auxiliary removed: telegraphic, not a sentence."""
    words = sentence.split()
    kept = [word for word in words if _plain(word) not in SMALL_WORDS or not _movable(word.rstrip(".?!"))]
    if len(words) - len(kept) < 2 or len(kept) < 3:
        return None
    return _rejoin(kept, sentence)


def word_salad(rng: random.Random, sentence: str) -> str | None:
    """Translation-like: prepositions swapped for wrong ones, articles lost, verbs left bare."""
    words = sentence.split()
    changed = 0
    out: list[str] = []
    for word in words:
        plain, tail = _plain(word), word[len(_plain(word)) :] if _movable(word.rstrip(".?!")) else ""
        if not _movable(word.rstrip(".?!")):
            out.append(word)
        elif plain in WRONG_PREPOSITION:
            out.append(WRONG_PREPOSITION[plain] + tail)
            changed += 1
        elif plain in ARTICLES:
            changed += 1
        elif plain in BARE_VERBS:
            out.append(BARE_VERBS[plain] + tail)
            changed += 1
        else:
            out.append(word)
    if changed < 2:
        return None
    if len(out) > 4 and rng.random() < 0.5:  # and one pair of neighbours the wrong way round
        i = rng.randrange(1, len(out) - 2)
        out[i], out[i + 1] = out[i + 1], out[i]
    return _rejoin(out, sentence)


PERTURBATIONS: tuple[Callable[[random.Random, str], str | None], ...] = (
    scramble,
    double_words,
    drop_words,
    break_agreement,
    strip_function_words,
    word_salad,
)


# --- what leaves a reply fluent -------------------------------------------------------------------
def recase(rng: random.Random, text: str) -> str:
    return rng.choice((text.lower(), text.upper(), text[:1].lower() + text[1:]))


def _opener(rng: random.Random) -> str:
    """A greeting, a short fragment or a heading on its own line."""
    draw = rng.random()
    if draw < 0.25:
        return rng.choice(("Hi {name}!", "Hey {name},", "Hello {name}.", "Morning {name}!")).format(
            name=rng.choice(HELPERS)
        )
    if draw < 0.65:
        return rng.choice(FRAGMENTS)
    return rng.choice(HEADINGS) + "\n"


def _broken_opener(rng: random.Random, opener: str) -> str:
    """A fragment or heading made disfluent: its words doubled and the wrong way round."""
    words = opener.split()
    end = opener.rstrip()[-1] if opener.rstrip()[-1:] in ".!" else ""
    plain = [word.rstrip(".!,") for word in words]
    broken = list(reversed(plain)) + [plain[0]]
    return " ".join(broken) + end + ("\n" if opener.endswith("\n") else "")


def _disfluent(rng: random.Random, sentences: list[str]) -> tuple[list[str], str] | None:
    """Every sentence broken by one perturbation (the same for the reply), or None where one resists it."""
    for perturb in rng.sample(PERTURBATIONS, len(PERTURBATIONS)):
        broken = [perturb(rng, sentence) for sentence in sentences]
        if all(new is not None and new != old for new, old in zip(broken, sentences, strict=True)):
            return [new for new in broken if new is not None], perturb.__name__
    return None


def generate(count: int = ROWS, seed: int = SEED) -> list[tuple[str, int, str]]:
    """`count` rows (text, label, kind): each fluent reply, then it made disfluent."""
    rng = random.Random(seed)
    rows: list[tuple[str, int, str]] = []
    seen: set[str] = set()
    while len(rows) < count:
        kind = rng.choice(sorted(KINDS))
        sentences = KINDS[kind](Slots(rng))
        fluent = " ".join(sentences)
        made = _disfluent(rng, sentences)
        if fluent in seen or made is None:
            continue
        seen.add(fluent)
        broken_sentences, how = made
        broken = " ".join(broken_sentences)
        if rng.random() < OPENER_RATE:
            opener = _opener(rng)
            fluent = f"{opener} {fluent}".replace("\n ", "\n")
            broken = f"{_broken_opener(rng, opener)} {broken}".replace("\n ", "\n")
        if rng.random() < CASE_RATE:
            fluent = recase(rng, fluent)
        if rng.random() < CASE_RATE:
            broken = recase(rng, broken)
        rows.append((fluent, 1, kind))
        rows.append((broken, 0, f"{kind}/{how}"))
    return rows[:count]
