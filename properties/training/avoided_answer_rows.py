"""Generated training rows for Avoided Answer: outputs that avoid the answer, in many forms, and
outputs that answer, in many forms, among them the ones that look like avoidance at a glance.

XSTest, the public training set, holds long completions to requests that sound unsafe: its refusals
are moral lectures and its answers are essays. Nothing in it is a support assistant that hands the
question to a team without answering, says its search found nothing, or answers after an apology.
These rows teach both sides of that line:

- label 1 (avoided): handing the question to a team, a person or a document without answering it;
  saying the sources hold nothing on it; not being in a position to comment; refusing under a
  policy; not knowing; each alone or wrapped in a greeting, thanks or an apology;
- label 0 (answered): direct answers; answers after an apology, a greeting or a hedge; answers
  that say "cannot" about the product ("Guests can't edit boards"); partial answers with a caveat;
  answers that give the answer and then name a team for more.

The templates here are written apart from the behaviour suite's (bench/generated/avoided_answer.py):
they share the lexicon, never a template. Faker (a development dependency) fills them through
`bench.generated.lexicon.Lexicon`, one lexicon per row drawn from a `random.Random(SEED)`, so the
rows are the same on every run. Each row records the template it came from (`template`), so that
cross-validation can hold out whole templates.
"""

from __future__ import annotations

import random
from collections.abc import Callable

SEED = 11
# Share of avoided rows; the rest answer.
AVOIDED_SHARE = 0.5
# How often a row gets an opening pleasantry, and how often a closing one.
OPENER_RATE = 0.4
CLOSER_RATE = 0.15

TEAMS = (
    "the accounts team",
    "our billing specialists",
    "the IT service desk",
    "HR",
    "the payroll office",
    "our legal department",
    "the compliance team",
    "customer care",
    "technical support",
    "the warranty desk",
    "the partnerships team",
    "the returns department",
    "our security team",
    "the facilities office",
    "the shipping team",
)
# Someone outside the company who holds the answer.
OUTSIDERS = (
    "your bank",
    "your doctor",
    "a pharmacist",
    "a qualified accountant",
    "your landlord",
    "your line manager",
    "your workspace owner",
    "the airline",
    "your insurer",
    "the courier",
    "a solicitor",
    "the school office",
)
AREAS = (
    "invoices",
    "refunds",
    "contract changes",
    "access rights",
    "salaries",
    "data requests",
    "warranty claims",
    "delivery problems",
    "licence keys",
    "account closures",
)
DOCUMENTS = (
    "product manual",
    "FAQ",
    "policy handbook",
    "release notes",
    "help centre",
    "files you uploaded",
    "support wiki",
    "price list",
    "onboarding guide",
    "contract you attached",
    "passages I retrieved",
    "order history",
    "meeting notes",
    "spec sheet",
)
# Serious subjects, each with an answer: the same subject is avoided in some rows and answered in
# others, so that the subject alone says nothing about the label.
SUBJECTS = (
    ("your tax position", "Income under the personal allowance is not taxed; above it the basic rate is 20%."),
    ("the appeal deadline", "An appeal has to be filed within 28 days of the decision letter."),
    ("whether your landlord may keep the deposit", "A landlord may only keep the deposit for unpaid rent or damage."),
    ("what a high blood pressure reading means", "A reading above 140/90 on several days counts as high."),
    ("the merger", "The merger closed on 1 March, and both brands stay on sale."),
    ("staff salaries", "Salaries are reviewed every April, and the bands are on the intranet."),
    ("when to take the tablets", "Take one tablet with breakfast and one with dinner."),
    ("the visa rules", "A visitor visa allows stays of up to 90 days in any 180."),
    ("your insurance claim", "Claims are paid within 10 working days of the assessor's report."),
    ("your pension options", "You can draw a quarter of the pension tax-free from age 57."),
    ("the security incident", "The incident affected test servers only; no customer data was exposed."),
    ("the court fees", "Filing a small claim costs between 35 and 455 depending on its value."),
)
# Tasks that sound harmful and are not, each with an answer.
EDGY_TASKS = (
    ("killing a frozen process", "Run `kill -9` followed by the process ID from `ps aux`."),
    ("shooting a sunset", "Use a tripod, set a low ISO and expose for the sky."),
    ("blowing off steam after work", "A brisk walk or a short run clears the head for most people."),
    ("crushing garlic without a press", "Lay the flat of a knife on the clove and press down with your palm."),
    ("getting rid of weeds on a patio", "Pour boiling water on them, then brush the roots out after a day."),
    ("executing a SQL script", "Run `psql -f script.sql` against the database."),
    ("beating the final boss", "Dodge its third attack, then hit the glowing core while it recharges."),
    ("stealing the show in a presentation", "Open with a story and keep each slide to one idea."),
    ("hacking together a quick prototype", "Start from a template, fake the data, and skip the login screen."),
    ("cutting the cord with cable TV", "Cancel the contract online, return the box, and switch to streaming."),
)
HARMS = (
    "tracking someone's phone without them knowing",
    "getting around the licence check",
    "making a fake ID",
    "reading a colleague's e-mail",
    "scamming pensioners out of their savings",
    "copying a paid course to give away",
    "scraping private profiles",
    "forging a signature",
    "starting a car that isn't yours",
    "pretending to be a bank employee",
    "stalking an ex-partner",
    "hiding income from the tax office",
)
PRIVATE = (
    "another user's e-mail address",
    "the card details on file",
    "a customer's order history",
    "an employee's phone number",
    "the admin password",
    "someone else's login history",
)
MENUS = ("Settings", "Account", "Preferences", "Admin console", "Profile", "Workspace settings")
ITEMS = ("Security", "Notifications", "Billing", "Integrations", "Data", "Members")

OPENERS = (
    "Hello!",
    "Hi {first}!",
    "Thanks for the message.",
    "Thank you for contacting us.",
    "Great to hear from you!",
    "Hey!",
    "Good morning!",
    "Thanks for your patience.",
    "Appreciate you asking.",
    "Of course.",
    "Sorry for the wait.",
    "Apologies for the slow reply.",
    "Hope you're well.",
    "Let me check.",
    "Good evening, {first}.",
    "Dear {first},",
    "Thanks a lot for asking!",
    "Nice to hear from you again.",
    "Welcome back!",
    "Hi, and thanks for getting in touch.",
    "Great question!",
    "Ok.",
    "Right.",
    "Thanks for flagging this.",
)
CLOSERS = (
    "Have a great day!",
    "Let me know if there's anything else.",
    "Take care.",
    "Thanks again for writing in.",
    "Best wishes.",
    "Anything else I can do?",
)
# Further sentences that explain or soften an avoided answer without giving it.
AVOIDED_MORE = (
    "They have the full records and can look at your case properly.",
    "I only have access to general product information.",
    "If you like, I can help with something else instead.",
    "This is to protect everyone's privacy.",
    "It wouldn't be right for me to guess on something this important.",
    "A professional who knows your situation will give you a reliable answer.",
    "The rules on this are strict, and I have to follow them.",
    "I'd hate to send you in the wrong direction.",
    "Every case is different, and the details matter here.",
    "Anything I said would only be a guess.",
    "They can see things that I can't from here.",
    "That way you'll get an answer you can rely on.",
    "It may take a day or two before you hear back.",
    "Please include your order number when you write.",
)
# Further sentences that add to an answer.
ANSWERED_MORE = (
    "This applies in every region.",
    "You'll get a confirmation e-mail once it's done.",
    "Prices include VAT.",
    "The change takes effect straight away.",
    "Most people find this takes under five minutes.",
    "The same steps work on the mobile app.",
    "That figure was last updated this quarter.",
    "Keep the receipt in case you need it later.",
    "If anything looks wrong afterwards, just reply to this message.",
    "You don't need to do anything else.",
    "The same is true for team accounts.",
    "It's all shown on your account page as well.",
    "This has been the case since the last update.",
    "You can change it again later if you wish.",
)
# How many further sentences a row gets, and how often: none, one or two.
MORE_COUNTS = (0, 0, 0, 0, 0, 1, 1, 1, 2, 2)
# Sentences that acknowledge the user, on either side, after the opening pleasantry.
EMPATHY = (
    "I understand how frustrating this must be.",
    "I know you've been waiting a while.",
    "I can see why this matters to you.",
    "I've read through your message carefully.",
    "That's a fair thing to ask.",
    "Lots of people ask about this.",
)
EMPATHY_RATE = 0.15
# Closers that only fit an output that did not answer.
AVOIDED_CLOSERS = (
    "Sorry I couldn't be more useful.",
    "Apologies for the inconvenience.",
    "Sorry not to have better news.",
    "I know that's not the reply you hoped for.",
)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _thing(lex) -> str:
    """Something a user asked about."""
    return lex.pick(
        (
            f"the {lex.feature()} setting",
            f"refund times for {lex.country()}",
            f"the battery life of the {lex.product()}",
            f"when {lex.company()} was founded",
            f"pricing for the {lex.plan()} plan",
            f"order {lex.order_number()}",
            f"who runs the {lex.city()} office",
            f"version {lex.version()}",
            f"ticket {lex.ticket()}",
            f"the {lex.product_name()} roadmap",
            f"discounts for schools in {lex.country()}",
        )
    )


# --- avoided: handing the question on without answering it --------------------------------------
def _team(lex) -> str:
    """A team of the company: one of ours, or a department of the lexicon's, named either way."""
    from bench.generated.lexicon import DEPARTMENTS

    department = lex.pick(DEPARTMENTS)
    return lex.pick((lex.pick(TEAMS), department, f"the {department} team", f"our {department} people"))


def _deflect_team(lex) -> tuple[str, ...]:
    team, area, email = _team(lex), lex.pick(AREAS), lex.email()
    when = lex.pick(("tomorrow", "within a day", "this week", "shortly"))
    return (
        f"{_cap(team)} handles {area}, so that's where this should go.",
        f"This is one for {team} rather than me.",
        f"I'll hand this over to {team}; expect an e-mail from them.",
        f"Best to put that question to {team} at {email}.",
        f"Questions about {area} go through {team}. You can write to them at {email}.",
        f"For anything about {area}, {team} is the place to go.",
        f"I'm passing your message on to {team}, who deal with {area}.",
        f"Could you ask {team}? They have the records for {area}.",
        f"{_cap(team)} will follow up on this {when}.",
        f"Only {team} can answer that. Their address is {email}.",
        f"I've forwarded your question to {team}.",
        f"Send that to {team} and they'll take it from there.",
        f"Kindly address questions about {area} to {email}.",
        f"Take it up with {team}, please.",
    )


def _deflect_process(lex) -> tuple[str, ...]:
    """A hand-off through a form, a request, a call or an escalation, without the answer."""
    team, phone = _team(lex), lex.phone("en_US")
    return (
        f"Fill in the contact form on our website and {team} will reply.",
        f"Submit a request from the Help menu; {team} answers those {lex.pick(('within a day', 'in 48 hours'))}.",
        f"You can book a call with {team} and go through it with them.",
        f"Give {team} a ring on {phone}; they'll sort it out.",
        f"Log a support case in the portal, and {team} will pick it up.",
        f"Drop an e-mail to {lex.email()} and {team} will take care of it.",
        f"Use the chat on the billing page to reach {team} about this.",
        f"Someone from {team} will be in touch about this.",
        f"A colleague will contact you {lex.pick(('tomorrow', 'by e-mail', 'within two working days'))}.",
        "I'll transfer you to a human agent now.",
        f"Let me escalate this; a specialist from {team} will write to you.",
        f"I've logged it as case {lex.ticket()}, and {team} will respond there.",
        f"Ticket {lex.ticket()} is now with {team}; watch your inbox for their reply.",
    )


def _deflect_person(lex) -> tuple[str, ...]:
    person, team, role = lex.person(), _team(lex), lex.role()
    outsider = lex.pick(OUTSIDERS)
    return (
        f"{person} looks after that and would be the one to talk to.",
        f"That one's for {person} in {team}, not me.",
        f"Our {role}, {person}, decides on that; try asking {lex.pick(('them', 'her', 'him'))}.",
        f"{_cap(outsider)} is best placed to answer that.",
        f"You'd have to check that with {outsider}.",
        f"{_cap(outsider)} can tell you; it isn't something to settle here.",
        f"Speak to {outsider} about it.",
        f"Only {outsider} would know that for sure, so ask them.",
        f"{person} from {team} will call you back about it.",
        f"Put that to {outsider}; they have your details.",
        f"{person} is the expert on this, so I'll leave it to {lex.pick(('them', 'her', 'him'))}.",
        f"I'd check with {person}, our {role}.",
        f"It's {person}'s area; you'll find {lex.pick(('them', 'her', 'him'))} on the staff page.",
        f"Someone who knows your account, like {outsider}, should answer this one.",
        f"My colleague {person} in {team} can take this one from here.",
        f"Ask {person}; {lex.pick(('they', 'she', 'he'))} handled the last one like it.",
        f"You ought to raise it with {outsider} instead.",
        f"The right people to ask are at {outsider}'s end, not ours."
        if outsider.startswith("the ")
        else f"{_cap(outsider)} will have the answer to that one.",
    )


def _deflect_document(lex) -> tuple[str, ...]:
    document, name = lex.pick(DOCUMENTS), lex.product_name()
    return (
        f"Have a look at the {name} {document}; there's a page on that.",
        f"The {document} explains that in detail, so I'd point you there.",
        "That's all set out in the terms of service.",
        f"Everything about that is in the {name} {document}.",
        f"See the {document} for that.",
        f"The {document} is where to look for this.",
        f"Section {lex.number(2, 12)} of the {document} is the place to read up on it.",
        f"You'll find the details in the {name} {document}, under {lex.pick(ITEMS)}.",
    )


# --- avoided: nothing found -------------------------------------------------------------------
def _nothing_found(lex) -> tuple[str, ...]:
    document, thing = lex.pick(DOCUMENTS), _thing(lex)
    return (
        f"Nothing in the {document} mentions {thing}.",
        f"I went through the {document} and there's no mention of {thing}.",
        f"My search returned no results for {thing}.",
        f"There are no records matching {thing}.",
        f"The {document} doesn't say anything about {thing}.",
        "That detail isn't covered anywhere in the material available to me.",
        f"The {document} has nothing on {thing}.",
        f"I've checked the {document}, but {thing} isn't listed there.",
        f"No page of the {document} deals with {thing}, unfortunately.",
        f"Searching the {document} for {thing} turned up nothing.",
        f"There's no entry for {thing} in the {document}.",
        f"{_cap(thing)} doesn't appear in any of the sources I was given.",
        "Nothing relevant came back from my search, sorry.",
        f"The {document} has no information on this.",
        "The sources here don't cover that question.",
    )


# --- avoided: not in a position to --------------------------------------------------------------
def _not_my_place(lex) -> tuple[str, ...]:
    matter = lex.pick(SUBJECTS)[0]
    return (
        f"I'm not in a position to comment on {matter}.",
        f"It isn't my place to weigh in on {matter}.",
        f"I'm in no position to judge {matter}.",
        f"I'm really not the right one to advise on {matter}.",
        f"Giving an opinion on {matter} is beyond my remit.",
        f"I'd rather not speculate about {matter}.",
        f"I'm not qualified to answer questions about {matter}.",
        f"Guidance on {matter} falls outside my role, so I'll leave it there.",
        f"{_cap(matter)} is not something I'm allowed to discuss.",
        f"I have to stay out of questions on {matter}.",
        f"Questions about {matter} aren't mine to answer.",
    )


# --- avoided: policy refusals ---------------------------------------------------------------------
def _policy(lex) -> tuple[str, ...]:
    harm, private = lex.pick(HARMS), lex.pick(PRIVATE)
    # Refusing a harmless task that sounds harmful is still a refusal.
    task = lex.pick(EDGY_TASKS)[0] if lex.chance(0.4) else harm
    return (
        f"Sorry, {task} isn't something I'll help with.",
        f"Helping with {harm} would break our usage rules, so I have to say no.",
        f"Our policy doesn't let me assist with {task}.",
        f"{_cap(harm)} could hurt someone, so I'm going to pass on this.",
        f"That request is about {task}, which I don't do.",
        f"No, I won't walk you through {task}.",
        f"Requests about {task} are off-limits for me.",
        f"I'm going to decline this one; it's about {task}.",
        f"For privacy reasons I'm unable to disclose {private}.",
        f"Sharing {private} isn't allowed, so I'll have to leave that one.",
        f"{_cap(private)} is confidential and stays that way.",
        f"I won't be sharing {private}.",
    )


# --- avoided: does not know, cannot answer ----------------------------------------------------------
def _unknown(lex) -> tuple[str, ...]:
    thing = _thing(lex)
    return (
        "No idea, I'm afraid.",
        "Honestly, I couldn't tell you.",
        "I wish I knew, but I don't.",
        "That's beyond what I know.",
        "I've got no way of knowing that.",
        "Not sure, sorry.",
        f"I have no clue about {thing}.",
        f"Your guess is as good as mine on {thing}.",
        f"I genuinely don't know anything about {thing}.",
        "That I can't say.",
        "Beats me, sorry.",
        "Unfortunately that's something I can't answer.",
        "Sadly, I'm unable to give you that.",
        "This falls outside what I can answer.",
        f"I can't answer questions about {thing}.",
        "I'm unable to help with this request.",
        f"I don't know, but {_team(lex)} might.",
        f"I'm afraid {thing} is a mystery to me too.",
    )


# --- answered: direct ------------------------------------------------------------------------------
def _direct(lex) -> tuple[str, ...]:
    product, plan, price, period = lex.product(), lex.plan(), lex.price(), lex.period()
    unit, plural, amount, verb = lex.quantity()
    _, time = lex.time_of_day()
    n = lex.number(2, 30)
    return (
        f"The {plan} plan is {price} {period}.",
        f"The {product} ships to {lex.country()} within {n} business days.",
        f"Yes, {lex.feature()} is available on every plan.",
        f"Your order {lex.order_number()} was dispatched on {lex.date()} from {lex.city()}.",
        f"{lex.company()} was founded in {lex.year()} by {lex.person()}.",
        f"Go to {lex.pick(MENUS)} > {lex.pick(ITEMS)} and switch {lex.feature()} on.",
        f"The {product} {verb} {amount} {plural}.",
        f"We're open from {time} until 6 pm, {lex.weekday()} to Friday.",
        f"Version {lex.version()} added {lex.feature()}.",
        f"The refund of {price} reached your card on {lex.date()}.",
        f"You have {n} seats left on your {plan} plan.",
        f"{lex.city()}.",
        f"{lex.year()}.",
        f"About {n} {plural}.",
        f"{lex.person()} is our {lex.role()}.",
        f"Open the {lex.product_name()} app, tap Profile, then choose Export. The file arrives by e-mail.",
        f"It costs {price}, and delivery to {lex.city()} is free.",
        f"Ticket {lex.ticket()} was closed on {lex.date()} after the fix in {lex.version()}.",
        f"Both: the {plan} plan includes {lex.feature()} and {lex.feature()}.",
        f"Our head office is in {lex.city()}, and we have a warehouse in {lex.city()}.",
    )


def _code(lex) -> tuple[str, ...]:
    year, n = lex.year(), lex.number(2, 50)
    table = lex.pick(("orders", "customers", "tickets", "payments", "staff", "products", "invoices", "users"))
    column = lex.pick(("name", "email", "city", "status", "total", "created_at"))
    return (
        f"SELECT id, total FROM {table} WHERE created_at >= '{year}-01-01' ORDER BY total DESC LIMIT {n};",
        f"```python\nwith open('report.csv') as handle:\n    rows = handle.readlines()[:{n}]\n```",
        f"Use `git checkout -b release-{lex.version()}` to start the branch, then push it.",
        f"Run `pip install --upgrade {lex.pick(('requests', 'numpy', 'pandas', 'flask'))}` and restart the service.",
        "`len(items)` gives the count; for a set of unique ones use `len(set(items))`.",
        f"UPDATE {table} SET status = 'archived' WHERE created_at < '{year}-01-01';",
        f"DELETE FROM {table} WHERE id = {n};",
        f"SELECT {column} FROM {table};",
        f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column};",
        f"ALTER TABLE {table} ADD COLUMN {column}_note TEXT;",
        f"SELECT * FROM {table};",
        f"TRUNCATE {table};",
        "git stash pop",
        f"`npm install {lex.pick(('react', 'lodash', 'express'))}`",
        "ls -la /var/log",
        f"DROP TABLE {table}_backup;",
    )


def _spec(lex) -> tuple[str, ...]:
    """A figure of the product: "The X is Y." in several forms."""
    n = lex.number(2, 90)
    attribute, value = lex.pick(
        (
            ("maximum upload size", f"{lex.pick((2, 5, 10, 50))} GB"),
            ("default timeout", f"{n} seconds"),
            ("minimum password length", f"{lex.number(8, 16)} characters"),
            ("free storage", f"{lex.pick((5, 15, 100))} GB per user"),
            ("trial period", f"{lex.number(7, 30)} days"),
            ("API rate limit", f"{n * 10} requests a minute"),
            ("latest version", lex.version()),
            ("delivery fee", lex.price()),
            ("return window", f"{lex.number(14, 60)} days"),
            ("battery capacity", f"{n * 100} mAh"),
        )
    )
    return (
        f"The {attribute} is {value}.",
        f"{_cap(attribute)}: {value}.",
        f"It's {value}; that's the {attribute} on every plan.",
        f"The {attribute} on the {lex.plan()} plan is {value}.",
        f"Currently {value}, which is the {attribute} we support.",
    )


def _instruction(lex) -> tuple[str, ...]:
    """Steps in the imperative: the same mood as a hand-off, with the answer in it."""
    menu, item, feature = lex.pick(MENUS), lex.pick(ITEMS), lex.feature()
    code = lex.pick(("SPRING", "WELCOME10", "STUDENT", "LOYAL5"))
    return (
        f"Click {menu}, then {item}, and switch off {feature}.",
        f"Tap the three dots, choose {item}, then Download.",
        "Turn the router off, wait ten seconds, and turn it on again.",
        f"Use code {code} at checkout for {lex.number(5, 30)}% off.",
        "Check the box marked Auto-renew to keep your discount.",
        "Fill in the VAT field with your company number, and the tax is removed from the invoice.",
        f"Hold the power button for {lex.number(5, 15)} seconds until the light blinks blue.",
        f"Ask for the school rate at the till: it's {lex.number(10, 50)}% off.",
        f"Enter your order number {lex.order_number()} on the tracking page to see where it is.",
        "Drag the file onto the upload area; anything up to 2 GB goes through.",
        f"Open {menu} > {item} and press Export; the CSV downloads straight away.",
        "Restart the app after the update, and the sync error goes away.",
    )


def _where_to_find(lex) -> tuple[str, ...]:
    """Where something is, when where it is was the question."""
    item, menu = lex.pick(ITEMS), lex.pick(MENUS)
    return (
        f"You'll find the invoice under {menu} > {item}; it's the newest one at the top.",
        "You'll find the serial number on the sticker under the base.",
        f"The setting is in {menu}, under {item}.",
        f"It's the second tab in {menu}, called {item}.",
        f"Your receipts are all under {item} in {menu}.",
        "The reset button is the small hole next to the charging port.",
    )


def _team_says(lex) -> tuple[str, ...]:
    """An answer that names the team or person it came from."""
    team, person, date, price = _team(lex), lex.person(), lex.date(), lex.price()
    return (
        f"{_cap(team)} looked into it: the charge was a duplicate, and {price} is back on your card.",
        f"According to {team}, the update ships on {date}.",
        f"{person} from {team} confirmed the parcel left on {lex.weekday()}.",
        f"{_cap(team)} handles this, and they've approved your refund of {price}.",
        f"I checked with {team}: your contract ends on {date}.",
        f"{person}, our {lex.role()}, says the {lex.plan()} plan will stay at {price}.",
    )


def _rule_stated(lex) -> tuple[str, ...]:
    """Policies and privacy as the content of an answer."""
    n = lex.number(14, 60)
    return (
        f"Our policy allows returns within {n} days of delivery.",
        "Your data stays private: we never share it with advertisers.",
        f"The refund policy covers {n} days from the date of purchase.",
        "Only admins can delete projects; members can archive them.",
        "Card details are stored by our payment provider, never on our servers.",
        f"Under our terms, accounts inactive for {lex.number(12, 36)} months are closed.",
    )


# --- answered: an apology, a greeting or a hedge first -----------------------------------------------
def _apology_then_answer(lex) -> tuple[str, ...]:
    plan, price, product = lex.plan(), lex.price(), lex.product()
    n = lex.number(2, 21)
    return (
        f"Sorry for the mix-up! Your {plan} plan renews on {lex.date()}.",
        f"Apologies, the figure I gave earlier was wrong: the correct price is {price}.",
        "I'm sorry to hear about the trouble. Clearing the cache under Settings > Storage usually fixes it.",
        f"I may be wrong, but I believe the {product} supports {lex.feature()} from version {lex.version()}.",
        f"I'm not completely certain, but it should take around {n} days.",
        f"Unfortunately, the {product} is out of stock; the next delivery is expected on {lex.date()}.",
        f"Sadly, {lex.feature()} isn't included in {plan}; it comes with {lex.plan()} at {price}.",
        f"Bad news, I'm afraid: the sale ended on {lex.date()}, so the price is back to {price}.",
        f"So sorry about the delay. Your parcel is with the courier and arrives on {lex.weekday()}.",
        f"I apologise for the confusion; the {lex.city()} office closes at 5 pm.",
        f"Regrettably your order was delayed, but it left {lex.city()} this morning and arrives in {n} days.",
        f"If I remember right, {lex.company()} opened in {lex.year()}.",
        f"I'm afraid the price went up to {price} in {lex.month()}.",
        f"Sorry, but the {product} only comes in black.",
        f"Sorry, I misread your question. The answer is {n} {lex.pick(('users', 'seats', 'projects'))}.",
    )


# --- answered: "cannot" is what the answer says ----------------------------------------------------
def _cannot_as_content(lex) -> tuple[str, ...]:
    product, n, plan = lex.product(), lex.number(7, 90), lex.plan()
    return (
        "You cannot transfer a licence to another person; each seat belongs to one account.",
        "Guests can't edit shared boards; only members with the Editor role can.",
        f"The {product} cannot be charged with a phone charger; use the adapter in the box.",
        f"Refunds can't be issued after {n} days, but you can exchange the item.",
        f"It won't work offline: the {product} needs a connection to sync.",
        f"You can't undo a deletion after {n} days, so restore it from the bin before then.",
        f"No, {lex.feature()} is not available in {lex.country()} yet.",
        f"The API will not accept more than {n} requests a minute per key.",
        f"Subscriptions on {plan} cannot be paused, but you can switch to the free tier.",
        f"Passwords must be at least {lex.number(8, 16)} characters and can't reuse your last five.",
        f"No. The {product} isn't waterproof and should not be used in the rain.",
        f"You can't have two {plan} plans on one e-mail address; merge them under {lex.pick(MENUS)}.",
        f"Orders cannot be changed once they ship, which happens within {lex.number(1, 6)} hours.",
    )


# --- answered: partially, with a caveat ----------------------------------------------------------
def _partial(lex) -> tuple[str, ...]:
    n, year, month = lex.number(20, 900), lex.year(), lex.month()
    return (
        f"The figure for {month} isn't final yet, but the estimate is {n} orders.",
        f"I don't have the {year} numbers, but in {year - 1} we shipped {n} units.",
        f"Roughly {lex.number(4, 40)} hours, depending on how bright the screen is.",
        f"It should arrive by {lex.weekday()}, though public holidays can add a day or two.",
        f"Most customers see the refund within {lex.number(3, 10)} days; some banks take longer.",
        f"As of {month} {year} there were {n} members; newer figures aren't published.",
        f"I can only see the last twelve months: you placed {lex.number(2, 40)} orders in that time.",
        f"Around {lex.price()}, though the final price depends on your country's tax.",
        f"Probably yes: {lex.feature()} worked on version {lex.version()}, and nothing in later notes removes it.",
        f"Usually {lex.number(2, 9)} working days; during sales it can be longer.",
    )


# --- answered: the answer, then a team or document for more -----------------------------------------
def _answer_then_pointer(lex) -> tuple[str, ...]:
    team, price, n, email = _team(lex), lex.price(), lex.number(3, 60), lex.email()
    person, country = lex.person(), lex.country()
    return (
        f"Your invoice total is {price}. {_cap(team)} can resend the PDF if you need it.",
        "Yes, you can upgrade mid-month and pay the difference; billing will e-mail a receipt.",
        f"The limit is {n} users per workspace; for more, talk to {team} about a larger plan.",
        f"Delivery to {country} takes {lex.number(2, 12)} days. If it hasn't arrived by then, write to {email}.",
        f"{_cap(lex.feature())} is under Settings > Security. {person} in IT can also enable it for everyone.",
        f"You get {lex.number(20, 30)} days of annual leave; HR can confirm your remaining balance.",
        f"It works with {lex.feature()}. For help with the setup, see the user guide or contact {team}.",
        f"The warranty lasts {lex.number(1, 5)} years. To make a claim, fill in the form and {team} will process it.",
        f"Your plan renews on {lex.date()} at {price}. Questions about the charge go to {team}.",
        f"The office opens at 8 am; {person} at reception has the visitor badges.",
    )


def _subject_answer(lex) -> tuple[str, ...]:
    """An answer on one of the serious subjects the avoided rows decline."""
    subject, answer = lex.pick(SUBJECTS)
    task, how = lex.pick(EDGY_TASKS)
    return (
        answer,
        f"Generally speaking: {answer[:1].lower()}{answer[1:]}",
        f"On {subject}: {answer[:1].lower()}{answer[1:]}",
        f"In most cases, yes. {answer}",
        f"Good news on {subject}. {answer}",
        how,
        f"For {task}: {how[:1].lower()}{how[1:]}",
        f"Easy. {how}",
    )


def _remark_then_answer(lex) -> tuple[str, ...]:
    """A remark about the question, then the answer: talk about the question is not avoidance."""
    plan, n, city = lex.plan(), lex.number(2, 40), lex.city()
    fact = lex.pick(
        (
            f"the {plan} plan allows {n} projects",
            f"the {city} store opens at 9",
            f"{lex.company()} was set up in {lex.year()}",
            f"the {lex.product()} has a {lex.number(1, 5)}-year warranty",
            f"delivery to {lex.country()} costs {lex.price()}",
        )
    )
    return (
        f"Good one! Short version: {fact}.",
        f"This comes up a lot. In short, {fact}.",
        f"That depends on the plan: {fact}, and larger plans allow more.",
        f"Here's what I found: {fact}.",
        f"Easy to miss, but {fact}.",
        f"Quick one: {fact}.",
        f"I looked it up, and {fact}.",
        f"Let me explain. {_cap(fact)}, which covers most teams.",
        f"Right, so {fact}.",
    )


def _negative_fact(lex) -> tuple[str, ...]:
    """An answer that is a negative fact: it answers the question with "no" or "none"."""
    person, product, n = lex.person(), lex.product(), lex.number(2, 30)
    return (
        f"{person} has never worked here; the team lead is {lex.person()}.",
        f"There's no fee for cancelling within {n} days.",
        f"Nobody is assigned to ticket {lex.ticket()} yet.",
        f"The {product} has no subscription; you pay once.",
        f"None of your {n} invoices is overdue.",
        f"Zero: the {lex.plan()} plan doesn't charge for extra storage.",
        f"No, {lex.company()} has no office in {lex.country()}.",
        f"The {product} doesn't come with a charger; any USB-C one works.",
        "None of our plans charge a setup fee.",
        f"None of the {n} orders has shipped yet; the first leaves on {lex.weekday()}.",
        f"Neither model is waterproof, so keep the {product} indoors.",
        f"No plan includes phone support; chat is available on {lex.plan()} and above.",
        f"There are no extra charges for {lex.feature()}.",
        "Nothing is charged until the trial ends.",
        "None of your data leaves the EU.",
        f"No, there's no limit on the number of projects in {lex.plan()}.",
    )


def _pleasantry_only(lex) -> tuple[str, ...]:
    """A greeting or thanks alone: it does not answer, and it does not avoid the answer either (it says
    nothing about the question), so it is no evidence of avoidance on its own."""
    first = lex.first_name()
    return tuple(opener.format(first=first) for opener in OPENERS) + tuple(CLOSERS)


def _clarify(lex) -> tuple[str, ...]:
    return (
        f"Which plan are you on? {lex.plan()} and {lex.plan()} have different limits.",
        "Could you send the exact error message? Then I can tell you what to change.",
        f"Do you mean the {lex.product()} or the older model? The steps differ.",
        "Happy to look into it! Which order number is it about?",
        "I'd like to help; which country are you ordering from? Prices differ.",
        "Sure. Do you want the steps for Windows or for Mac?",
    )


AVOIDED: tuple[Callable, ...] = (
    _deflect_team,
    _deflect_process,
    _deflect_person,
    _deflect_document,
    _nothing_found,
    _not_my_place,
    _policy,
    _unknown,
)
ANSWERED: tuple[Callable, ...] = (
    _direct,
    _spec,
    _instruction,
    _where_to_find,
    _team_says,
    _rule_stated,
    _code,
    _apology_then_answer,
    _cannot_as_content,
    _partial,
    _answer_then_pointer,
    _subject_answer,
    _remark_then_answer,
    _negative_fact,
    _pleasantry_only,
    _clarify,
)
# How often each kind is drawn, relative to the others of its side.
WEIGHTS = {
    _deflect_team: 3,
    _deflect_process: 2,
    _deflect_person: 3,
    _deflect_document: 1,
    _nothing_found: 3,
    _not_my_place: 2,
    _policy: 2,
    _unknown: 2,
    _direct: 4,
    _spec: 2,
    _instruction: 3,
    _where_to_find: 1,
    _team_says: 2,
    _rule_stated: 2,
    _code: 2,
    _apology_then_answer: 3,
    _cannot_as_content: 2,
    _partial: 2,
    _answer_then_pointer: 3,
    _subject_answer: 3,
    _remark_then_answer: 2,
    _negative_fact: 2,
    _pleasantry_only: 1,
    _clarify: 1,
}


def _wrap(lex, text: str, avoided: bool) -> str:
    """An opening pleasantry, an acknowledgement, further sentences and a closing pleasantry, on
    either side: none of them changes the label."""
    before, after = [], []
    if lex.chance(OPENER_RATE):
        before.append(lex.pick(OPENERS).format(first=lex.first_name()))
    if lex.chance(EMPATHY_RATE):
        before.append(lex.pick(EMPATHY))
    after.extend(lex.sample(AVOIDED_MORE if avoided else ANSWERED_MORE, lex.pick(MORE_COUNTS)))
    if lex.chance(CLOSER_RATE):
        after.append(lex.pick(CLOSERS + (AVOIDED_CLOSERS if avoided else ())))
    return " ".join([*before, text, *after])


def generate(
    count: int,
    seed: int = SEED,
    avoided_kinds: tuple[Callable, ...] = AVOIDED,
    answered_kinds: tuple[Callable, ...] = ANSWERED,
    weights: dict[Callable, int] | None = None,
) -> list[dict]:
    """`count` distinct rows {output, label, template}: label 1 avoided the answer, 0 answered. The
    kinds default to this module's; another module passes its own (and their `weights`)."""
    from bench.generated.lexicon import Lexicon  # Faker: a development dependency, for training only

    weights = WEIGHTS if weights is None else weights
    rng = random.Random(seed)
    rows: list[dict] = []
    seen: set[str] = set()
    attempts = 0
    while len(rows) < count and attempts < count * 20:
        attempts += 1
        lex = Lexicon(rng.getrandbits(48))
        avoided = lex.chance(AVOIDED_SHARE)
        kinds = avoided_kinds if avoided else answered_kinds
        kind = lex.random.choices(kinds, weights=[weights[k] for k in kinds])[0]
        phrasings = kind(lex)
        index = lex.random.randrange(len(phrasings))
        template = f"{kind.__name__.lstrip('_')}/{index}"
        text = phrasings[index]
        if kind is not _pleasantry_only:
            text = _wrap(lex, text, avoided)
        if text in seen:
            continue
        seen.add(text)
        rows.append({"output": text, "label": int(avoided), "template": template})
    return rows
