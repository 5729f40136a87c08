"""More generated training rows for Avoided Answer: forms of avoiding and of answering that
`avoided_answer_rows` lacks, written apart from it and from the behaviour suite, with their own seed.

`avoided_answer_rows` teaches hand-offs, empty searches, policy refusals and answers that look like
them. A chat assistant also avoids an answer in other shapes, and answers in others:

- label 1 (avoided): a bare hand-off to a role ("Please contact your administrator."); asking the
  user to rephrase because it did not understand; steering to another topic; refusing without a
  subject ("That can't be shared here."); declining with regret and no "can't" ("I'll have to pass
  on this one."); saying the question cannot be settled from what it has; not knowing, in words
  other than "I don't know"; refusing with a reason and an alternative;
- label 0 (answered): yes or no with detail, and bare yes or no; step lists (numbered, bulleted,
  "first ... then"); an answer after saying what it cannot do ("I can't see your account, but
  refunds take 5 days"); negatives and limits of the product as the content ("We don't deliver on
  Sundays"); an answer after an apology or regret; bare values ("At 9 am."); answers in JSON, a
  table or an e-mail; first-person answers ("I checked: it left on Monday.").

The rows are drawn by `avoided_answer_rows.generate` with these kinds, so they get the same
pleasantries around them and record their template for grouped cross-validation.
"""

from __future__ import annotations

from collections.abc import Callable

from properties.training import avoided_answer_rows as base
from properties.training.avoided_answer_rows import HARMS, ITEMS, MENUS, SUBJECTS, _cap, _thing

SEED = 23

FUTURES = (
    "whether prices will go up next year",
    "the exchange rate in six months",
    "when the next outage will happen",
    "whether the shares will rise",
    "how the appeal will turn out",
    "if the flight will be delayed",
)
CARRIERS = ("our payment provider", "the card processor", "Stripe", "the bank", "our billing partner")


# --- avoided: asking to rephrase, not having understood ------------------------------------------
def _rephrase(lex) -> tuple[str, ...]:
    thing = _thing(lex)
    return (
        "Sorry, I didn't quite follow. Could you put that another way?",
        "Could you rephrase the question? It isn't clear to me what you're asking.",
        "I'm having trouble working out what you need; can you say it differently?",
        "Your message came through garbled on my side. Mind sending it again?",
        "Can you try asking that again in other words?",
        "I didn't understand the question, sorry.",
        "Not sure I get what you mean. Could you word it differently?",
        "That one's unclear to me; please restate it.",
        "Hmm, I can't make sense of the question as written.",
        f"I couldn't work out what you mean by {thing}. Can you ask again more simply?",
        "Your question seems to be cut off. Please send the whole thing.",
        "I'm lost, sorry. What exactly would you like to know?",
    )


# --- avoided: a bare hand-off to a role, in one polite imperative --------------------------------------
ROLES_HOLDING_ANSWERS = (
    "your account manager",
    "your administrator",
    "your IT admin",
    "the workspace owner",
    "your customer success manager",
    "your manager",
    "the site owner",
    "your sales representative",
    "the person who set up your account",
    "your organisation's admin",
)


def _bare_handoff(lex) -> tuple[str, ...]:
    role = lex.pick(ROLES_HOLDING_ANSWERS)
    about = lex.pick(("about that", "about this", "on this one", "for that", "with this question", ""))
    return tuple(
        " ".join(f"{text} {about}".split()) + "."
        for text in (
            f"Please contact {role}",
            f"Please get in touch with {role}",
            f"Kindly reach out to {role}",
            f"You'll want to ask {role}",
            f"Please check with {role}",
            f"Best to message {role}",
            f"Please write to {role}",
            f"That needs {role}; please ask them",
        )
    )


# --- avoided: steering to another topic ------------------------------------------------------------
def _change_topic(lex) -> tuple[str, ...]:
    name, plan, feature = lex.product_name(), lex.plan(), lex.feature()
    return (
        f"Let's stick to questions about {name}. Is there anything about your account I can do?",
        "I'd rather we talked about something else. What else is on your mind?",
        f"How about we look at your {plan} subscription instead?",
        f"I'm only here to chat about {name}, so ask me anything about that.",
        "That's off-topic for this chat, so let's move on.",
        f"Let's change the subject: have you tried the new {feature} feature yet?",
        "I'll skip that one. Anything else?",
        "Let's leave that aside for now.",
        "Moving on: what else can I do for you today?",
        f"This chat covers {name} orders and billing only. Shall we get back to those?",
        "Let's not go there. Is there something about your order instead?",
    )


# --- avoided: a refusal with no subject -----------------------------------------------------------
def _impersonal_refusal(lex) -> tuple[str, ...]:
    matter = lex.pick(SUBJECTS)[0]
    return (
        "That information can't be shared.",
        "This request can't be completed.",
        "Not something that can be answered here, sorry.",
        "Requests of this kind are declined.",
        "Unable to help with that.",
        "Cannot assist with this.",
        "No comment.",
        "Sorry, that's confidential.",
        f"Details about {matter} are not disclosed to customers.",
        "This assistant does not answer questions like that.",
        "That question can't be answered in this chat.",
        "Sorry, no can do.",
        f"Answers on {matter} aren't given through this channel.",
        f"{_cap(matter)}: that's not open for discussion here.",
    )


# --- avoided: declining with regret, no "can't" ---------------------------------------------------
def _regretful_decline(lex) -> tuple[str, ...]:
    first = lex.first_name()
    return (
        f"So sorry, {first}, but that's one I'll have to turn down.",
        "My apologies: I'm going to have to say no to this.",
        "Forgive me, but I'd rather not get into that.",
        "Regrettably, this isn't something I can take on.",
        "I hate to disappoint you, but I have to pass on this request.",
        "Really sorry! That's not a request I'm able to fulfil.",
        "With apologies, I must decline.",
        "I'm afraid that's a no from me.",
        "Sorry, I'm going to leave that one unanswered.",
        f"Sorry to let you down, {first}, but I'll stay out of that one.",
        "Apologies, that's not something I'll be answering.",
        "I'd love to help, but this one isn't for me to answer.",
    )


# --- avoided: the question cannot be settled from what it has -----------------------------------------
def _cannot_tell(lex) -> tuple[str, ...]:
    future = lex.pick(FUTURES)
    return (
        "There's no way to tell from what you've sent.",
        "It's impossible to say without seeing your account.",
        f"Nobody can predict {future} with any confidence.",
        "The passages don't give enough to answer that.",
        "Hard to say, really.",
        "That depends on too many things for me to give an answer.",
        "Without more details there's nothing I can conclude.",
        "The information provided isn't sufficient to answer this question.",
        "That can't be determined from the context given.",
        "It's unclear from the documents, so I'll refrain from answering.",
        f"Whether {lex.product()} stock comes back is anyone's guess.",
        f"{_cap(future)}? There's simply no telling.",
    )


# --- avoided: not knowing, in other words -------------------------------------------------------------
def _not_known(lex) -> tuple[str, ...]:
    thing = _thing(lex)
    return (
        "That's a good question, and one I don't have the answer to.",
        f"My knowledge doesn't extend to {thing}.",
        f"I lack the details on {thing}.",
        f"{_cap(thing)} isn't something I have any data on.",
        "I'm drawing a blank on that one.",
        "I'd only be guessing, so I won't.",
        "I'm not aware of any information about that.",
        f"I have no insight into {thing}.",
        "Can't say I know.",
        "Don't know, sorry.",
        "No clue.",
        "Unknown to me, I'm afraid.",
        f"Sadly, {thing} is outside what I've been told.",
    )


# --- avoided: a refusal that gives its reason and an alternative ----------------------------------------
def _reasoned_refusal(lex) -> tuple[str, ...]:
    harm = lex.pick(HARMS)
    return (
        f"{_cap(harm)} is illegal and can hurt people. Please talk to someone you trust instead.",
        f"Helping with {harm} could put people at risk, so that's off the table. A professional can advise "
        "you on legal options.",
        f"{_cap(harm)} would break privacy laws. You may want to look into lawful ways to settle this.",
        f"That would mean {harm}, which goes against our rules. Is there something else you need?",
        f"Assisting with {harm} isn't something this service does. If you're in trouble, a local advice "
        "centre can help.",
        f"{_cap(harm)} is a line I won't cross. Let me know if there's anything legitimate you need.",
    )


# --- answered: yes or no, with detail or bare -------------------------------------------------------
def _yes_no(lex) -> tuple[str, ...]:
    plan, n, price, feature = lex.plan(), lex.number(2, 60), lex.price(), lex.feature()
    return (
        "Yes. It's included on all plans.",
        f"Yep, just switch it on under {lex.pick(MENUS)}.",
        "Nope, only on weekdays.",
        "Yes, as long as the item is unused.",
        f"No, but the {plan} plan does.",
        f"Absolutely: it syncs every {n} minutes.",
        f"Sure can. The limit is {n} files at once.",
        f"Correct, the fee is {price}.",
        f"Not at the moment; {feature} is planned for {lex.month()}.",
        "Yes.",
        "No.",
        "Yes, it is.",
        "No, it isn't.",
        f"Definitely. It's water-resistant to {n} metres.",
        f"Yes, and it's free for the first {n} days.",
        f"No, {feature} only comes with {plan}.",
        f"No, {lex.product_name()} doesn't offer {feature} yet; it's on the roadmap for {lex.month()}.",
        f"No, the {plan} plan doesn't include {feature}, though version {lex.version()} will add it.",
        f"Not yet: {feature} arrives in release {lex.version()}.",
    )


# --- answered: steps ---------------------------------------------------------------------------------
def _steps(lex) -> tuple[str, ...]:
    menu, item, n = lex.pick(MENUS), lex.pick(ITEMS), lex.number(5, 30)
    return (
        f"1. Open {menu}.\n2. Choose {item}.\n3. Click Save.",
        f"- Sign in\n- Go to {item}\n- Download the invoice",
        f"First, unplug it. Then hold the reset button for {n} seconds. Finally, plug it back in.",
        f"Steps: open the app, tap {item}, then tap Log out.",
        f"Here's how:\n1) Go to {menu}\n2) Pick {item}\n3) Turn on {lex.feature()}",
        f"Open {menu}, select {item}, and press Export.",
        f"Step 1: back up your files. Step 2: install version {lex.version()}. Step 3: restart.",
        f"* Charge it for {n} minutes\n* Press the side button twice\n* Wait for the green light",
    )


# --- answered: after saying what it cannot do ----------------------------------------------------------
def _limit_then_answer(lex) -> tuple[str, ...]:
    n, city, plan, price = lex.number(2, 30), lex.city(), lex.plan(), lex.price()
    return (
        f"I can't check live stock, but the {city} store usually restocks on {lex.weekday()}s.",
        f"I can't give legal advice, but in general the notice period is {n} days.",
        f"I don't have your exact bill, but the {plan} plan is {price} {lex.period()}.",
        f"I'm not a doctor; that said, most adults take {n}0 mg at most every six hours.",
        f"I can't be certain, but version {lex.version()} should fix it.",
        f"Without your order number I can only say that most parcels to {lex.country()} arrive in {n} days.",
        f"It's hard to be exact; roughly {n} hours on a full charge.",
        f"Not officially confirmed, but the launch is expected in {lex.month()}.",
        f"I can't see your account from here. In general, refunds take {n} days to appear.",
        f"Exact figures aren't public, though {lex.company()} employs around {n}00 people.",
        f"While I can't promise a date, orders placed today usually ship within {n} hours.",
    )


# --- answered: a negative or a limit of the product is the content -------------------------------------
def _limit_as_content(lex) -> tuple[str, ...]:
    product, n, plan, weekday = lex.product(), lex.number(7, 60), lex.plan(), lex.weekday()
    return (
        f"The {product} can't be used underwater.",
        f"We don't deliver on {weekday}s; orders placed then leave the next day.",
        f"We can't accept returns after {n} days, but store credit is possible.",
        "It won't charge below freezing, so warm it up first.",
        f"Free accounts cannot export to PDF; that needs {plan}.",
        f"That's not possible on the {plan} plan: it allows {n} users at most.",
        f"Unfortunately the {product} isn't compatible with older chargers.",
        "Unable to log in? Reset your password from the sign-in page.",
        "If you can't find the invoice, check your spam folder.",
        f"You won't be able to change the username after {n} days.",
        "No one can open your files except you and your admins.",
        "The discount can't be combined with other offers.",
        "Sadly, there is no refund for partly used months.",
        f"We don't keep your card number; it stays with {lex.pick(CARRIERS)}.",
        f"Deleted projects cannot be recovered after {n} days.",
        f"The {product} does not work without the base station.",
    )


# --- answered: after an apology or regret ---------------------------------------------------------------
def _sorry_then_answer(lex) -> tuple[str, ...]:
    first, price, plan = lex.first_name(), lex.price(), lex.plan()
    _, time = lex.time_of_day()
    return (
        f"Sorry about that, {first}! Your new code is {lex.pick(('SPRING', 'WELCOME10', 'LOYAL5'))}.",
        f"Apologies: the store opens at {time}, not earlier.",
        f"Oh no, sorry to hear it. Hold the power button for {lex.number(5, 15)} seconds to restart it.",
        f"My apologies for the delay. Your refund of {price} was sent on {lex.date()}.",
        f"Sorry, that was my mistake: the {plan} plan includes {lex.number(3, 50)} seats.",
        f"I'm sorry you ran into this. The fix is in version {lex.version()}; update from the Help menu.",
        f"Sorry for the trouble! You can download the invoice under {lex.pick(MENUS)} > Billing.",
        f"Unfortunately yes, there's a {price} fee for cancelling late.",
        f"I'm afraid so: the offer ended on {lex.date()}.",
        f"So sorry, I misread. The answer is {lex.city()}.",
        f"Sorry, no: {lex.feature()} is only on {plan}.",
        f"I regret the mix-up. The parcel is in {lex.city()} and arrives on {lex.weekday()}.",
    )


# --- answered: a bare value --------------------------------------------------------------------------------
def _bare_value(lex) -> tuple[str, ...]:
    _, time = lex.time_of_day()
    n = lex.number(2, 90)
    return (
        f"{lex.price()}.",
        f"At {time}.",
        f"On {lex.weekday()}.",
        f"{n} days.",
        f"From {lex.city()}.",
        f"Version {lex.version()}.",
        f"{lex.person()}.",
        f"In the {lex.pick(MENUS)} menu.",
        f"Around {n}%.",
        f"{lex.date()}.",
        f"{n} {lex.pick(('seats', 'users', 'GB', 'kg', 'hours'))}",
        f"The {lex.plan()} one.",
    )


# --- answered: in JSON, a table or an e-mail --------------------------------------------------------------
def _formatted(lex) -> tuple[str, ...]:
    first, price, date, plan = lex.first_name(), lex.price(), lex.date(), lex.plan()
    return (
        f'{{"status": "shipped", "eta": "{date}"}}',
        f"| Plan | Price |\n|---|---|\n| {plan} | {price} |",
        f"Subject: Your refund\n\nHi {first}, your refund of {price} was processed on {date}.\nBest, {lex.person()}",
        f'{{"plan": "{plan}", "seats": {lex.number(2, 50)}, "renews": "{date}"}}',
        f"Name: {lex.person()}\nRole: {lex.role()}\nOffice: {lex.city()}",
        f"**{plan}**: {price} {lex.period()}\n**{lex.plan()}**: {lex.price()} {lex.period()}",
    )


# --- answered: in the first person ---------------------------------------------------------------------
def _first_person_answer(lex) -> tuple[str, ...]:
    plan, city = lex.plan(), lex.city()
    return (
        "I've reset your password; check your inbox for the link.",
        f"I checked, and order {lex.order_number()} left {city} on {lex.weekday()}.",
        f"I can confirm the {plan} plan includes {lex.feature()}.",
        f"I'd recommend the {plan} plan: it has {lex.feature()} and costs {lex.price()}.",
        f"I looked it up: {lex.company()} was founded in {lex.year()}.",
        "I have updated your address, so the next parcel goes to the new one.",
        "I know this one: the reset button is under the lid.",
        f"I see two charges of {lex.price()}; the second is a hold and drops off in {lex.number(2, 7)} days.",
        f"I've added {lex.number(2, 20)} seats to your workspace, effective today.",
        f"I think the {city} office is the nearest; it's open until 6 pm.",
    )


AVOIDED: tuple[Callable, ...] = (
    _bare_handoff,
    _rephrase,
    _change_topic,
    _impersonal_refusal,
    _regretful_decline,
    _cannot_tell,
    _not_known,
    _reasoned_refusal,
)
ANSWERED: tuple[Callable, ...] = (
    _yes_no,
    _steps,
    _limit_then_answer,
    _limit_as_content,
    _sorry_then_answer,
    _bare_value,
    _formatted,
    _first_person_answer,
)
WEIGHTS: dict[Callable, int] = dict.fromkeys(AVOIDED + ANSWERED, 1)


def generate(count: int, seed: int = SEED) -> list[dict]:
    """`count` distinct rows {output, label, template} of these kinds: label 1 avoided, 0 answered."""
    return base.generate(count, seed, AVOIDED, ANSWERED, WEIGHTS)
