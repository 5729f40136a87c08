"""More generated training rows for Toxicity: forms that `toxicity_rows` lacks, written apart from it
and from the behaviour suite (bench/generated/toxicity.py), with their own phrases and seed.

`toxicity_rows` teaches each of HateCheck's functionalities in a few fixed phrasings, and its harmless
sentences in the second person are mostly near-misses of threats. The head learnt from them that a
courtesy line speaking to the reader leans toxic: "Is there anything else I can help you with?" read
0.41, "Let me know if you need anything else." 0.21. These rows are put together from parts (an
opener, a core and a tail), so each kind has many phrasings:

- toxic (label 1): threats without violent words (an omen about the reader's home, family, things
  or future, with a warning or a deadline); dehumanisation with metaphors the first generator lacks
  (swarms, weeds, a tumour), and what should be done about it; a group's worth denied; insults
  built from a comparison ("You have all the charm of a parking ticket"); a degrading aside inside
  a helpful answer; and some of these in an obfuscated spelling (letters swapped for digits, a
  vowel starred, letters spaced out, a letter stretched);
- not toxic (label 0): courtesy lines (greetings, thanks, apologies, offers of more help, sign-offs)
  alone and around an answer, some in idioms with a violent verb ("Fire off a reply ..."); offers
  of help on a condition ("Send over the logs and I'll take it from there"), the mirror of a
  threat's "Post that again and ..."; what an agent looked up about the reader and found ("I pulled
  up your billing history and saw the charge was taken twice"), the mirror of "I know where you
  live"; support answers with unwelcome news (a refund refused, an account closed); criticism of
  products, policies and ideas; hate quoted in order to reject it; hate negated; and sentences that
  share an omen's words without threatening ("Pity if the rain spoiled your garden party").

The phrases share no run of four words with the behaviour suite's strings, lexicons and templates
alike (a unit test checks). Rows are drawn by `toxicity_rows.generate` with these kinds, and record
their template for grouped cross-validation.
"""

from __future__ import annotations

from collections.abc import Callable

from properties.training import toxicity_rows as base
from properties.training.toxicity_rows import _cap

SEED = 29

# --- threats without violent words: an opener, an omen, and sometimes a tail -----------------------
OMEN_OPENERS = (
    "",
    "Mark my words, ",
    "Just a friendly reminder: ",
    "Between you and me, ",
    "Last chance, {name}: ",
    "Listen carefully, ",
    "Think it over, ",
    "Consider yourself warned: ",
    "One more complaint and ",
    "Post that again and ",
)
OMENS = (
    "such a nice {thing}, pity if it got damaged",
    "your {relative} might not come home one of these nights",
    "people will be waiting outside your {place}",
    "you won't make it to {weekday}",
    "you'll wish you had never been born",
    "nobody will recognise you when we're finished",
    "this won't end well for you or your {relative}",
    "your {thing} could catch fire any night now",
    "we'll be paying your {relative} a visit",
    "you'd better stay away from windows",
    "you'll be looking for a new face",
    "someone is going to teach you a lesson you won't forget",
    "you'll sing a different tune once I'm at your door",
    "the next {thing} we leave on your doorstep won't be empty",
    "I'd keep your {relative} indoors after dark",
    "you will learn what happens to people who talk back",
    "you'll be needing a good doctor",
    "your luck is about to run out for good",
    "we've already picked out a spot for you",
    "you'll disappear and nobody will come looking",
    "I have your {relative}'s schedule memorised",
    "it's only a matter of time before we meet in the car park",
)
OMEN_TAILS = ("", "", ", {name}", ", believe me", ", and that's a promise", ", so think twice")
THINGS = ("car", "house", "shop", "garage", "dog", "bike", "garden", "flat", "van", "boat")
RELATIVES = ("wife", "husband", "kids", "daughter", "son", "mum", "dad", "sister", "brother", "grandmother")
PLACES = ("office", "flat", "front door", "gym", "school gate", "work")

# --- dehumanisation and worth denied, about a group ---------------------------------------------------
METAPHORS = (
    "a swarm of locusts",
    "weeds choking the garden",
    "a tumour on this nation",
    "an infestation",
    "termites eating the foundations",
    "a pack of hyenas",
    "bacteria",
    "a rot that spreads",
    "mould on the walls",
    "a horde of rodents",
    "a contagion",
    "a herd of cattle",
)
DEHUMANISING_FRAMES = (
    "{G} are {metaphor}.",
    "{G} are nothing more than {metaphor}.",
    "{G} are {metaphor}, and deserve to be dealt with as such.",
    "Every town with {g} in it ends up overrun, like {metaphor}.",
    "{G} breed like {pests}.",
    "{G} are {metaphor}, and you don't reason with that, you get rid of it.",
    "Treat {g} the way you'd treat {metaphor}.",
)
PESTS = ("rabbits", "flies", "mice", "cockroaches", "fruit flies", "lice")
WORTH_DENIED = (
    "{G} don't deserve the air they breathe.",
    "{G} will never be equal to the rest of us.",
    "{G} should have no place in a decent society.",
    "Nobody should ever have to share a street with {g}.",
    "{G} are not real people to me.",
    "I'd never let {g} anywhere near my children.",
    "Hiring {g} is a waste of a good salary.",
    "{G} should be kept out of every decent neighbourhood.",
    "The fewer {g} there are, the better off we all are.",
    "{G} have no business running anything.",
)

# --- insults built from a comparison, to the reader ----------------------------------------------------
COMPARED_OPENERS = ("You have", "You've got", "{name}, you have", "Honestly, you have", "Wow, you have")
QUALITIES = ("charm", "wit", "warmth", "brains", "personality", "common sense", "sparkle")
LOW_THINGS = (
    "a parking ticket",
    "a soggy cardboard box",
    "a broken vending machine",
    "a mouldy sandwich",
    "a dead battery",
    "a traffic cone",
    "a cold bowl of porridge",
    "an expired coupon",
)
INSULT_VERDICTS = (
    "Talking to you is like explaining colours to a brick.",
    "Whoever raised you should ask for their money back.",
    "You're the reason instruction manuals have pictures.",
    "If brains were petrol, you couldn't drive a toy car round a bowl.",
    "Your opinion matters about as much as a wrong number.",
    "You bring nothing to this team except the smell.",
    "The world would be quieter without your nonsense, {name}.",
    "You're a disgrace to everyone who ever trained you.",
    "What a spineless little worm you turned out to be.",
    "You clearly peaked in primary school.",
    "Even your own mother finds you tiresome.",
    "You're a waste of a perfectly good chair.",
)

# --- courtesy lines: openers, offers of more help, thanks, apologies and sign-offs ---------------------
GREETING_LINES = (
    "Good morning{to}!",
    "Good afternoon{to}.",
    "Good evening{to}!",
    "Hey{to}!",
    "Hello{to}, thanks for getting in touch.",
    "Hi{to}, thanks for your message.",
    "Thank you for contacting {company}.",
    "Thanks for your patience{to}.",
    "Thanks for flagging this{to}.",
    "Great question{to}.",
    "Welcome back{to}!",
    "Apologies for the wait{to}.",
    "Sorry to hear about the trouble{to}.",
    "I'm sorry for the inconvenience{to}.",
    "Of course{to}.",
    "Absolutely, I can help with that.",
    "Certainly{to}.",
    "No problem at all{to}.",
)
OFFERS = (
    "If anything else comes up, just reply to this message.",
    "Feel free to write back if you have more questions.",
    "Should you need more help, we're here {when}.",
    "Is there anything more I can do for you{to}?",
    "Can I help with anything else{to}?",
    "Do reach out again if the problem comes back.",
    "Just let us know if there's more we can do{to}.",
    "Anything else you'd like me to look into?",
    "If you need a hand with anything else, I'm around {when}.",
    "Tell me if there's anything else on your mind{to}.",
    "You can always reply here if something is unclear.",
    "Happy to help with anything else you need{to}.",
    "Please don't hesitate to get back to us{to}.",
    "Let us know how it goes{to}.",
    "Fire off a reply if the error shows up again{to}.",
    "Give me a shout once the parcel turns up.",
    "Drop us a line if the fix doesn't stick.",
    "Ping me when you've tried it and I'll check the logs.",
    "Hit reply if anything looks off{to}.",
    "Blast us a message whenever you're stuck.",
)
SIGN_OFFS = (
    "Have a lovely {weekday}!",
    "Enjoy the rest of your day{to}.",
    "Take care{to}!",
    "Best wishes from the {dept} team.",
    "Kind regards, {name}.",
    "All the best{to}.",
    "Cheers{to}!",
    "Thanks again for your patience.",
    "Speak soon{to}.",
    "Wishing you a good {weekday}.",
    "Thank you for being a customer of {company}.",
    "Have a good one{to}!",
    "See you next time{to}.",
)
# What an agent looked up about the reader and found: the harmless mirror of a threat's "I know where
# your parents live" (the first person, the reader's things, something found).
LOOKED_UP = ("I've gone through", "I looked into", "We reviewed", "I pulled up", "I went over", "We audited")
RECORDS = (
    "your billing history",
    "your last {n} orders",
    "the logs for your workspace",
    "your ticket history",
    "your delivery records",
    "the payments on your card",
)
FINDINGS = (
    "spotted a refund that never went out",
    "saw the charge was taken twice",
    "noticed the address on file is out of date",
    "found nothing unusual",
    "can confirm the parcel was delivered on {weekday}",
    "found the sync failed after version {version}",
    "see a credit of {n} dollars waiting for you",
)


def _looked_up(lex, group: str) -> base.Made:
    looked = lex.pick(LOOKED_UP)
    return _fill(lex, f"{looked} {lex.pick(RECORDS)} and {lex.pick(FINDINGS)}.", group), looked


# An offer of help on a condition: the harmless mirror of "Post that again and ..." above.
CONDITIONS = (
    "Send over the logs",
    "If the error returns",
    "Reply with your order number",
    "Once the upgrade finishes",
    "Forward me the invoice",
    "If it happens again this week",
    "Attach a screenshot",
    "When you're back at your desk",
)
HELP_PROMISES = (
    "I'll take it from there",
    "I'll dig into it",
    "we'll get it sorted",
    "I'll chase the {dept} team",
    "I'll issue the credit",
    "we'll look again",
    "I'll call you back",
    "I'll reset it for you",
)
WHENS = ("any time", "around the clock", "on weekdays", "until {time}", "all week")

# --- support answers, with unwelcome news as often as good --------------------------------------------
ANSWERS = (
    "Your refund request was declined because the return window has closed.",
    "We can't reopen a closed account, but you can create a new one.",
    "Order {order} left our warehouse on {weekday}.",
    "The {plan} plan doesn't include {feature}, I'm afraid.",
    "Your subscription ends on {month} {n}, and it won't renew.",
    "Ticket {ticket} is closed; please open a new one for this issue.",
    "The charge will stay, since the trial ended before you cancelled.",
    "You'll receive a confirmation email within {n} minutes.",
    "I've moved your delivery to {weekday} morning.",
    "The {product} is out of stock until {month}.",
    "Invoices will be sent to your new address starting next month.",
    "Your password was reset; sign in with the temporary one we emailed.",
    "We won't be able to offer compensation for this delay.",
    "Version {version} fixes the sync error you reported.",
    "Your claim has been rejected after review.",
    "Someone from {dept} will phone before {time}.",
)

# --- a degrading aside inside an otherwise helpful answer (the answer's clause, then the aside) ---------
ANSWER_CLAUSES = (
    "The {dept} team in {city} handles that",
    "Your order ships from our {city} depot",
    "The contractors from {country} built that feature",
    "Refunds are processed by the night shift",
    "The call centre in {city} picks up after {time}",
    "Our partner agency staffs the help desk",
)
ASIDES = (
    "although {g} there are {metaphor}",
    "but, being {g}, they're {lazy} as ever",
    "though you know what {lazy} creatures {g} are",
    "even if {g} like them are {metaphor}",
    "but don't expect much, since {g} are {lazy} by nature",
)


def _aside(lex, group: str) -> base.Made:
    index = lex.random.randrange(len(ASIDES))
    return _fill(lex, f"{lex.pick(ANSWER_CLAUSES)}, {ASIDES[index]}.", group), str(index)


# --- criticism of products, policies and ideas, and hate quoted or negated ------------------------------
CRITIQUES = (
    "This update made the {product} slower than ever.",
    "Honestly, the new pricing is daylight robbery.",
    "The {feature} screen is a confusing mess.",
    "Whoever designed this checkout should be embarrassed by it.",
    "Your delivery service has been a total shambles this month.",
    "The manual is useless and the support line is worse.",
    "That plan is a terrible idea and will cost us a fortune.",
    "The {product} broke after {n} days, which is pathetic for the price.",
    "This policy is short-sighted and frankly stupid.",
    "Worst onboarding I've sat through in years.",
)
QUOTED_HATE = (
    'Someone in the comments wrote "{g} are {metaphor}", and it was rightly removed.',
    'A poster saying "{g} don\'t deserve the air they breathe" was taken down after complaints.',
    'Calling {g} "{metaphor}" strips them of dignity, so those posts come down.',
    'Our moderators delete posts like "{g} should be kept out" as soon as they see them.',
    'Phrases such as "{g} are {metaphor}" have a long and ugly history.',
    "He was banned for writing that {g} are {metaphor}.",
)
NEGATED_HATE = (
    "{G} are not {metaphor}; they are our neighbours.",
    "I don't accept for a second that {g} are worth less than anyone else.",
    "Nobody here thinks {g} should be kept out.",
    "It's simply false that {g} don't deserve equal rights.",
    "No one should treat {g} as if they were {metaphor}.",
    "{G} are as much a part of this country as anyone.",
)
# Sentences that share an omen's words without threatening anyone.
OMEN_NEAR_MISSES = (
    "Pity if the rain spoiled your garden party.",
    "Pack an umbrella before you set off, {name}.",
    "We'll be waiting outside the {place} with your parcel at {time}.",
    "Your {relative} can collect the order from the front desk.",
    "I'd keep the receipt until the warranty runs out.",
    "Mark my words, this year's harvest will be a good one.",
    "Nobody will recognise the old {place} after the renovation.",
    "Last chance to claim your discount before {weekday}!",
    "The courier left the box on your doorstep at {time}.",
    "We've already picked out a table for you by the window.",
)


def _parts(lex) -> dict[str, object]:
    to = lex.pick(("", "", f", {lex.first_name()}"))
    return {
        "thing": lex.pick(THINGS),
        "relative": lex.pick(RELATIVES),
        "place": lex.pick(PLACES),
        "metaphor": lex.pick(METAPHORS),
        "pests": lex.pick(PESTS),
        "to": to,
        "when": lex.pick(WHENS).format(time=lex.time_of_day()[1]),
    }


def _fill(lex, template: str, group: str) -> str:
    text = template.format(**{**base._slots(lex, group), **_parts(lex)})
    return _cap(text)


def _from(templates: tuple[str, ...]) -> Callable:
    def make(lex, group: str) -> base.Made:
        index = lex.random.randrange(len(templates))
        return _fill(lex, templates[index], group), str(index)

    return make


def _omen(lex, group: str) -> base.Made:
    """A threat without violent words: an opener, an omen about the reader, a tail."""
    index = lex.random.randrange(len(OMENS))
    text = f"{lex.pick(OMEN_OPENERS)}{OMENS[index]}{lex.pick(OMEN_TAILS)}."
    return _fill(lex, text, group), str(index)


def _compared(lex, group: str) -> base.Made:
    """An insult built from a comparison: "You have all the charm of a wet sock"."""
    quality = lex.pick(QUALITIES)
    text = f"{lex.pick(COMPARED_OPENERS)} all the {quality} of {lex.pick(LOW_THINGS)}."
    return _fill(lex, text, group), quality


def _courtesy(lex, group: str) -> base.Made:
    """One courtesy line alone, or two around nothing: what is said before and after an answer."""
    lines = (GREETING_LINES, OFFERS, SIGN_OFFS)
    which = lex.random.randrange(len(lines))
    return _fill(lex, lex.pick(lines[which]), group), str(which)


def _conditional_help(lex, group: str) -> base.Made:
    """ "Send over the logs and I'll take it from there": an offer of help on a condition."""
    condition, prefix = lex.pick(CONDITIONS), lex.pick(("", "Sure, ", "Sure thing: "))
    joint = ", and " if condition.startswith(("If", "Once", "When")) else " and "
    condition = condition if not prefix else condition[:1].lower() + condition[1:]
    promise = lex.pick(HELP_PROMISES)
    return _fill(lex, f"{prefix}{condition}{joint}{promise}.", group), promise


def _answer_with_courtesy(lex, group: str) -> base.Made:
    """A support answer with a courtesy line before it, after it, or both."""
    answer = _fill(lex, lex.pick(ANSWERS), group)
    before = _fill(lex, lex.pick(GREETING_LINES), group) + " " if lex.chance(0.5) else ""
    after = " " + _fill(lex, lex.pick(OFFERS + SIGN_OFFS), group) if not before or lex.chance(0.5) else ""
    return f"{before}{answer}{after}", f"{bool(before)}{bool(after)}"


def _with_omen_after_answer(lex, group: str) -> base.Made:
    """A support answer followed by a threat without violent words."""
    text, template = _omen(lex, group)
    return f"{_fill(lex, lex.pick(ANSWERS), group)} {text}", template


# Spellings that hide a word: digits for letters, a starred vowel, spaced letters, a stretched letter.
_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5"})


def _obfuscate(lex, text: str) -> str:
    words = text.split()
    candidates = [index for index, word in enumerate(words) if len(word) >= 5 and word.isalpha()]
    if not candidates:
        return text
    index = lex.pick(candidates)
    word = words[index]
    how = lex.random.randrange(4)
    if how == 0:
        word = word.translate(_LEET)
    elif how == 1:
        vowel = next((at for at in range(1, len(word)) if word[at] in "aeiou"), 1)
        word = word[:vowel] + "*" + word[vowel + 1 :]
    elif how == 2:
        word = " ".join(word)
    else:
        word = word[:-1] + word[-1] * 4
    words[index] = word
    return " ".join(words)


def _obfuscated(make: Callable) -> Callable:
    def obfuscated(lex, group: str) -> base.Made:
        text, template = make(lex, group)
        return _obfuscate(lex, text), template

    return obfuscated


KINDS: tuple[tuple[str, str, float, Callable], ...] = (
    ("omen", base.VEILED_THREAT, 1.6, _omen),
    ("omen_after_answer", base.VEILED_THREAT, 0.5, _with_omen_after_answer),
    ("obfuscated_omen", base.VEILED_THREAT, 0.3, _obfuscated(_omen)),
    ("metaphor", base.DEHUMANISATION, 1.0, _from(DEHUMANISING_FRAMES)),
    ("obfuscated_metaphor", base.DEHUMANISATION, 0.3, _obfuscated(_from(DEHUMANISING_FRAMES))),
    ("worth_denied", base.IMPLICIT_HATE, 0.8, _from(WORTH_DENIED)),
    ("aside_in_answer", base.NEGATIVE_ATTRIBUTE, 0.6, _aside),
    ("compared_insult", base.INSULT, 0.6, _compared),
    ("insult_verdict", base.INSULT, 0.6, _from(INSULT_VERDICTS)),
    ("obfuscated_insult", base.INSULT, 0.3, _obfuscated(_from(INSULT_VERDICTS))),
    ("courtesy", base.HARMLESS_OTHER, 1.6, _courtesy),
    ("answer_with_courtesy", base.HARMLESS_OTHER, 1.0, _answer_with_courtesy),
    ("answer", base.HARMLESS_OTHER, 0.8, _from(ANSWERS)),
    ("conditional_help", base.HARMLESS_OTHER, 0.6, _conditional_help),
    ("looked_up", base.HARMLESS_OTHER, 0.6, _looked_up),
    ("critique", base.HARMLESS_OTHER, 0.6, _from(CRITIQUES)),
    ("omen_near_miss", base.HARMLESS_OTHER, 0.6, _from(OMEN_NEAR_MISSES)),
    ("quoted_hate", base.ABOUT_A_GROUP, 0.6, _from(QUOTED_HATE)),
    ("negated_hate", base.ABOUT_A_GROUP, 0.6, _from(NEGATED_HATE)),
)


def generate(count: int, seed: int = SEED) -> list[dict]:
    """Up to `count` distinct rows, as `toxicity_rows.generate` gives them, of these kinds."""
    return base.generate(count, seed, KINDS)
