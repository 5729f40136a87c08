"""Formality: how formal is the output? Generated cases (see bench/generated/__init__.py).

A text is formal (0.5 and above) when it is written in the register of business letters, contracts,
policies, formal support replies, documentation and reports: full sentences, no contractions or
slang, impersonal or courteous phrasing. It is informal when it reads as chat or texting (slang,
abbreviations such as "u", "lol", "gonna"), a casual reply with contractions and emoji, or a string
of exclamations. Case and spacing do not change the register of a text; rewriting a formal sentence
as a casual message does.
"""

from __future__ import annotations

from bench.generated import Templates
from bench.generated import perturb as p
from bench.generated.lexicon import Lexicon

templates = Templates("formality", evidence={"side": "below", "threshold": 0.5}, scored_field="output")
FORMAL = {"min": 0.5}
INFORMAL = {"max": 0.5}

TITLES = ("Mr", "Ms", "Mrs", "Dr", "Professor")
DEPARTMENTS = ("billing", "support", "engineering", "sales", "security", "logistics", "legal", "finance")
REQUESTS = (
    "Write to the customer about the new quote.",
    "Reply to the supplier.",
    "Draft an email to the client.",
    "Answer the partner's letter.",
    "Send a note to the account manager.",
)
CHAT_PROMPTS = (
    "Where are you?",
    "Did it work?",
    "Can you send me the file?",
    "What's up?",
    "How was the weekend?",
    "Are you coming tonight?",
    "Did you see the update?",
    "Any news on the bug?",
)
# Business e-mail: a salutation, two sentences of the body and a closing.
EMAIL_BODY = (
    "Thank you for your letter of {date}.",
    "Please find attached the revised quotation for the {product}.",
    "I am writing to confirm our meeting on {weekday} at {time}.",
    "We would be grateful if you could return the signed contract by {date}.",
    "I should be pleased to arrange a demonstration at your convenience.",
    "Further to our telephone conversation, I enclose the invoice for order {order}.",
    "Should you have any questions, please do not hesitate to contact me.",
    "I regret that I shall be unable to attend the review on {weekday}.",
    "We are pleased to confirm that your account has been upgraded to the {plan} plan.",
)
CLOSINGS = ("Kind regards,", "Yours sincerely,", "Best regards,", "Yours faithfully,", "With kind regards,")
LEGAL = (
    "This Agreement shall commence on {date} and shall remain in force for a period of {n} months unless "
    "terminated earlier in accordance with Clause {clause}.",
    "Either party may terminate this Agreement by giving not less than {n} days' written notice to the other party.",
    "The Supplier shall not be liable for any indirect or consequential loss arising out of or in connection with "
    "this Agreement.",
    "This Agreement shall be governed by the laws of {country}, and the parties submit to the exclusive "
    "jurisdiction of its courts.",
    "The Customer hereby grants {company} a non-exclusive licence to use the data solely for the purposes set out "
    "in Schedule {clause}.",
    "Notwithstanding the foregoing, the obligations set out in Clause {clause} shall survive the termination of "
    "this Agreement.",
    "All fees are exclusive of value added tax, which shall be payable in addition at the prevailing rate.",
    "Neither party shall assign any of its rights under this Agreement without the prior written consent of the "
    "other party.",
)
POLICY = (
    "Employees must report any suspected data breach to the {department} department within 24 hours of its discovery.",
    "Access to customer records is restricted to authorised personnel and is subject to periodic review.",
    "Requests for annual leave shall be submitted to the line manager no later than {n} working days in advance.",
    "Expenses incurred in the course of official business will be reimbursed upon presentation of valid receipts.",
    "Visitors to the {city} premises must be registered at reception and accompanied at all times.",
    "Failure to comply with this policy may result in disciplinary action, up to and including dismissal.",
    "Personal data shall be retained only for as long as is necessary for the purposes for which it was collected.",
    "Contractors are required to complete the security induction before being granted access to company systems.",
)
SUPPORT = (
    "Thank you for contacting {company}. We have received your request regarding order {order} and will respond "
    "within two business days.",
    "We regret to inform you that {feature} is not available on the {plan} plan.",
    "Please accept our sincere apologies for the inconvenience caused by the delayed delivery of order {order}.",
    "Your request for a refund has been approved, and the amount of {price} will be credited to your account "
    "within five business days.",
    "We have reviewed your account and can confirm that the duplicate charge has been reversed.",
    "We appreciate your patience while our engineers investigate the matter.",
    "Should you require further assistance, please contact our {department} department, quoting reference {ticket}.",
)
DOCUMENTATION = (
    "The `export` command writes every record in the selected workspace to a CSV file.",
    "This function returns a list of the invoices issued within the specified period.",
    "The `timeout` parameter specifies the maximum number of seconds the client waits for a response before "
    "raising an error.",
    "Administrators may enable {feature} from the Security page; the setting applies to all members of the workspace.",
    "Version {version} deprecates the legacy authentication endpoint, which will be removed in a subsequent release.",
    "Requests that exceed the rate limit receive a response with status code 429 and should be retried after the "
    "interval indicated in the Retry-After header.",
    "Before upgrading to version {version}, ensure that a complete backup of the database has been created.",
    "Each {product_name} workspace may contain up to {n} projects, subject to the limits of the selected plan.",
)
REPORT = (
    "The committee convened on {date} to review the proposed budget for the forthcoming financial year.",
    "The board approved the appointment of {person} as {role} with effect from {date}.",
    "Revenue for the third quarter increased by {n} per cent compared with the same period of the previous year.",
    "Members are reminded that the annual general meeting will be held on {date} in {city}.",
    "The findings indicate that the proposed changes would reduce operating costs without affecting service levels.",
    "Following a review of the available evidence, the panel concluded that no further action was required.",
)
CHAT_SLANG = (
    "lol idk tbh",
    "omg that's insane lmao",
    "ngl the new update kinda slaps",
    "brb grabbing food",
    "fr this app is so mid",
    "ikr?? so annoying lol",
    "smh it crashed again lmao",
    "lmao no way, that's wild",
    "tbh idc, whatever works",
    "yo wassup, u free {weekday}?",
    "nvm got it lol",
    "bruh the build broke again 💀",
)
TEXTING = (
    "hey can u send me the file pls",
    "gonna be late, c u at {time}",
    "thx, ur a lifesaver",
    "wanna grab lunch tmrw?",
    "k np, will do l8r",
    "ill txt u when im home",
    "r u coming to {name}'s thing {weekday}?",
    "gotta go, talk 2 u later",
    "u still need the charger or nah",
    "cant talk rn, in a mtg",
    "omw!! b there in 5",
    "did u get my msg about {weekday}??",
)
EMOJI_REPLIES = (
    "Yeah no worries, it's all sorted now 😊",
    "Haha sure thing, I'll send it over in a sec 👍",
    "Aww thanks, you're the best! 🙌",
    "Oops, my bad 😅 I'll fix it tonight",
    "Sounds good to me 👌 see you {weekday}!",
    "Yep, got it! 😄",
    "Lol that's hilarious 😂😂",
    "Heading out now, catch you later ✌️",
    "Nope, still broken 🙃 gonna try again tomorrow",
    "Omg yes, let's do it 🎉",
)
EXCLAMATIONS = (
    "Wow!!! That's amazing!!",
    "Yay, it finally works!!!",
    "Ugh, not again!!",
    "Woohoo, we did it!!!",
    "Oh no, that's so annoying!!",
    "No way!! Seriously?!",
    "Yesss!! Best news ever!!",
    "Whoa, that was fast!!",
    "Argh!! The printer jammed again!!",
    "OMG!!! {name} got the job!!!",
)
CASUAL = (
    "Yeah, I'll take a look later, it's probably nothing.",
    "Nah, that won't work, we've tried it already.",
    "Honestly, I dunno, maybe just restart it and see?",
    "Cool, I'll grab the stuff from {name}'s place and we'll sort it out.",
    "Oh, that's just the cache acting up again, don't worry about it.",
    "Sure, I can do {weekday}, but it'll have to be quick.",
    "Hmm, not sure, I'd ask {name}, they're way better at this stuff.",
    "Yeah, it's kinda broken right now, but we're on it.",
    "Dunno why it's doing that, it was fine yesterday.",
)
# A formal sentence and its casual rewrite, with the same content.
REWRITES = (
    ("I am unable to attend the meeting on {weekday}.", "can't make it {weekday} sorry lol"),
    ("Please find attached the invoice for order {order}.", "here's the invoice for {order} 👍"),
    ("We regret to inform you that your application has not been successful.", "sorry, u didn't get it :("),
    ("Kindly confirm receipt of this message at your earliest convenience.", "lmk if u got this"),
    ("Thank you for your patience while we investigate the issue.", "thx for waiting!! we're on it 🙏"),
    ("I would be grateful if you could send me the report by {date}.", "can u send me the report by {date}? thx"),
    ("The meeting has been postponed until further notice.", "meeting's off for now, will ping u"),
    (
        "Your order has been dispatched and should arrive within three working days.",
        "ur order's on the way!! should be there in like 3 days 🚚",
    ),
    (
        "Should you require any further information, please do not hesitate to contact me.",
        "hit me up if u need anything else",
    ),
    ("We are pleased to inform you that your request has been approved.", "yay ur request got approved 🎉"),
    ("I apologise for the delay in responding to your enquiry.", "sry for the late reply haha"),
    (
        "{name} will be unavailable until {weekday} owing to annual leave.",
        "{name}'s off till {weekday}, on holiday lol",
    ),
)


def _slots(lex: Lexicon, pattern: str) -> str:
    return pattern.format(
        date=lex.date(),
        product=lex.product(),
        product_name=lex.product_name(),
        weekday=lex.weekday(),
        time=lex.time_of_day()[1],
        order=lex.order_number(),
        plan=lex.plan(),
        n=lex.number(3, 30),
        clause=lex.number(2, 19),
        country=lex.country(),
        company=lex.company(),
        department=lex.pick(DEPARTMENTS),
        city=lex.city(),
        feature=lex.feature(),
        price=lex.price(),
        ticket=lex.ticket(),
        version=lex.version(),
        person=lex.person(),
        role=lex.role(),
        name=lex.first_name(),
    )


def _sentences(lex: Lexicon, patterns: tuple[str, ...], k: int, sep: str = " ") -> str:
    """`k` of the patterns filled, in the order they are listed (a greeting first, an offer of help last)."""
    chosen = sorted(lex.sample(range(len(patterns)), k))
    return sep.join(_slots(lex, patterns[index]) for index in chosen)


def _email(lex: Lexicon) -> str:
    recipient = lex.person("en_GB" if lex.chance(0.5) else None).split()[-1]
    salutation = lex.pick((f"Dear {lex.pick(TITLES)} {recipient},", "Dear Sir or Madam,", "Dear colleagues,"))
    return f"{salutation}\n\n{_sentences(lex, EMAIL_BODY, 2)}\n\n{lex.pick(CLOSINGS)}\n{lex.person()}"


def _chat(lex: Lexicon, patterns: tuple[str, ...]) -> str:
    """One chat message, or two sent one after the other."""
    return _sentences(lex, patterns, lex.pick((1, 1, 2)), sep="\n")


def _formal(lex: Lexicon) -> str:
    return lex.pick(
        (
            _email(lex),
            _sentences(lex, LEGAL, 1),
            _sentences(lex, POLICY, 2),
            _sentences(lex, SUPPORT, 2),
            _sentences(lex, DOCUMENTATION, 1),
            _sentences(lex, REPORT, 1),
        )
    )


def _informal(lex: Lexicon) -> str:
    return _chat(lex, lex.pick((CHAT_SLANG, TEXTING, EMOJI_REPLIES, EXCLAMATIONS, CASUAL)))


# --- formal texts -------------------------------------------------------------------------------------


@templates.add("business-email", fills=30, about="A business e-mail with a salutation, a formal body and a closing.")
def business_email(lex: Lexicon) -> dict:
    return {"interaction": {"input": lex.pick(REQUESTS), "output": _email(lex)}, "expect": FORMAL}


@templates.add("legal-clause", fills=25, about="A clause of a contract.")
def legal_clause(lex: Lexicon) -> dict:
    question = lex.pick(("Draft the termination clause.", "What does the contract say?", "Add the liability terms."))
    return {"interaction": {"input": question, "output": _sentences(lex, LEGAL, lex.pick((1, 2)))}, "expect": FORMAL}


@templates.add("policy-text", fills=25, about="A company policy or regulation.")
def policy_text(lex: Lexicon) -> dict:
    question = lex.pick(("What is the policy?", "Summarise the staff handbook rules.", "What are the rules for staff?"))
    return {"interaction": {"input": question, "output": _sentences(lex, POLICY, lex.pick((1, 2)))}, "expect": FORMAL}


@templates.add("formal-support-reply", fills=25, about="A formal reply from customer support.")
def formal_support_reply(lex: Lexicon) -> dict:
    question = lex.pick(("Where is my refund?", "Why was I charged twice?", "Is my order delayed?", "Can I upgrade?"))
    return {"interaction": {"input": question, "output": _sentences(lex, SUPPORT, 2)}, "expect": FORMAL}


@templates.add("documentation", fills=25, about="A passage of technical documentation.")
def documentation(lex: Lexicon) -> dict:
    question = lex.pick(("Document the API.", "What does this option do?", "Write the reference entry."))
    return {
        "interaction": {"input": question, "output": _sentences(lex, DOCUMENTATION, lex.pick((1, 2)))},
        "expect": FORMAL,
    }


@templates.add("report-or-minutes", fills=25, about="A sentence of a report, minutes or an announcement.")
def report_or_minutes(lex: Lexicon) -> dict:
    question = lex.pick(("Summarise the meeting.", "What did the report find?", "Write the announcement."))
    return {"interaction": {"input": question, "output": _sentences(lex, REPORT, lex.pick((1, 2)))}, "expect": FORMAL}


# --- informal texts -----------------------------------------------------------------------------------


@templates.add("chat-slang", fills=25, about="Chat slang: lol, idk, tbh, ngl, brb.")
def chat_slang(lex: Lexicon) -> dict:
    return {"interaction": {"input": lex.pick(CHAT_PROMPTS), "output": _chat(lex, CHAT_SLANG)}, "expect": INFORMAL}


@templates.add("texting-style", fills=25, about="Texting style: u, ur, gonna, pls, thx, l8r.")
def texting_style(lex: Lexicon) -> dict:
    return {"interaction": {"input": lex.pick(CHAT_PROMPTS), "output": _chat(lex, TEXTING)}, "expect": INFORMAL}


@templates.add("casual-reply-with-emoji", fills=25, about="A casual reply with contractions and emoji.")
def casual_emoji(lex: Lexicon) -> dict:
    return {"interaction": {"input": lex.pick(CHAT_PROMPTS), "output": _chat(lex, EMOJI_REPLIES)}, "expect": INFORMAL}


@templates.add("exclamations", fills=25, about="Exclamations with repeated exclamation marks.")
def exclamations(lex: Lexicon) -> dict:
    return {"interaction": {"input": lex.pick(CHAT_PROMPTS), "output": _chat(lex, EXCLAMATIONS)}, "expect": INFORMAL}


@templates.add(
    "casual-spoken-reply", fills=25, about="A casual spoken-style reply: yeah, nah, dunno, kinda, contractions."
)
def casual_spoken(lex: Lexicon) -> dict:
    return {"interaction": {"input": lex.pick(CHAT_PROMPTS), "output": _chat(lex, CASUAL)}, "expect": INFORMAL}


# --- invariance and direction -------------------------------------------------------------------------


@templates.add("formal-spacing-invariance", fills=25, about="A formal text with other spacing.")
def formal_spacing(lex: Lexicon) -> dict:
    text = _formal(lex)
    return {
        "kind": "INV",
        "interaction": {"output": text},
        "variant": {"output": p.change_spacing(lex, text)},
        "expect": {"tolerance": 0.15},
    }


@templates.add("informal-case-and-spacing-invariance", fills=25, about="An informal text in other case or spacing.")
def informal_case_and_spacing(lex: Lexicon) -> dict:
    text = _informal(lex)
    change = lex.pick((p.change_case, p.change_spacing))
    return {
        "kind": "INV",
        "interaction": {"output": text},
        "variant": {"output": change(lex, text)},
        "expect": {"tolerance": 0.15},
    }


@templates.add("formal-sentence-rewritten-casually", fills=30, about="A formal sentence rewritten as a casual message.")
def formal_rewritten(lex: Lexicon) -> dict:
    formal, casual = lex.pick(REWRITES)
    slots = {"weekday": lex.weekday(), "order": lex.order_number(), "date": lex.date(), "name": lex.first_name()}
    return {
        "kind": "DIR",
        "interaction": {"output": formal.format(**slots)},
        "variant": {"output": casual.format(**slots)},
        "expect": {"direction": "down", "by": 0.2},
    }


@templates.add("business-email-rewritten-as-chat", fills=20, about="A business e-mail rewritten as a chat message.")
def email_as_chat(lex: Lexicon) -> dict:
    first, time, order = lex.first_name(), lex.time_of_day()[1], lex.order_number()
    weekday, sender = lex.weekday(), lex.person()
    formal, casual = lex.pick(
        (
            (
                f"Dear {first},\n\nI am writing to confirm our meeting on {weekday} at {time}. Please let me know "
                f"should this time no longer be convenient.\n\nKind regards,\n{sender}",
                f"hey {first}! still on for {weekday} at {time}? lmk if that doesn't work 👍",
            ),
            (
                f"Dear {first},\n\nFurther to our conversation, please find attached the invoice for order {order}. "
                f"I would be grateful if you could arrange payment at your earliest convenience.\n\n"
                f"Yours sincerely,\n{sender}",
                f"yo {first}, here's the invoice for {order}, pay when u can thx!!",
            ),
            (
                f"Dear {first},\n\nThank you for your enquiry. I regret to inform you that the item you requested is "
                f"currently out of stock.\n\nBest regards,\n{sender}",
                f"hey {first} sry, that thing's sold out rn 😕",
            ),
        )
    )
    return {
        "kind": "DIR",
        "interaction": {"output": formal},
        "variant": {"output": casual},
        "expect": {"direction": "down", "by": 0.2},
    }
