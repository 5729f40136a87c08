"""Generated chat answers for Relevance, in many domains and forms, with their own vocabulary.

`relevance_rows.py` teaches short answers about products, companies and accounts. Chat answers are
broader: a recipe's steps, a travel tip, a shell command, a sum of money, a yes or no with its
reason, a recommendation, a question asked back about the user's problem; and they come dressed, with
a greeting before, a closing after, or background sentences around the part that answers. A chat
answer of 80 words that never restates the question addresses it as much as one of four words.

Each subject (a dish, a city, a tool, a policy ...) has several questions, each with answers in
several forms and background sentences that answer none of them. A row pairs a question with one of
its answers (label 1) or with an answer to another question about the same subject (label 0, two
thirds) or about another subject (one third), dressed the same way, so that neither the dressing nor
the subject's words tell the label. A few replies that answer nothing (a refusal, small talk) are
negatives.

Written apart from the behaviour suites (bench/generated/, tests/behavior/): its own subjects,
phrasings and structures, and no import from them. Faker draws people's names; everything comes
from one seeded `random.Random`, so the rows are the same on every run.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

SEED = 11


@dataclass(frozen=True)
class Fact:
    """One question about a subject: ways to ask it, ways to answer it."""

    asks: tuple[str, ...]
    answers: tuple[str, ...]


@dataclass(frozen=True)
class Subject:
    facts: tuple[Fact, ...]
    background: tuple[str, ...]  # true of the subject, answers none of its questions


class Draw:
    """The seeded choices a subject is built from."""

    def __init__(self, rng: random.Random) -> None:
        from faker import Faker  # a development dependency, for training only

        self.rng = rng
        self.faker = Faker(["en_US", "en_GB", "en_AU", "en_IN"])
        self.faker.seed_instance(rng.getrandbits(32))

    def pick(self, options):
        return options[self.rng.randrange(len(options))]

    def sample(self, options, k: int) -> list:
        return self.rng.sample(list(options), k)

    def number(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def person(self) -> str:
        return self.faker.name()

    def first_name(self) -> str:
        return self.faker.first_name()


def steps_text(draw: Draw, steps: list[str]) -> str:
    """A list of steps in one of the ways people write them."""
    style = draw.pick(("numbered", "parenthesis", "bullets", "prose", "step"))
    if style == "numbered":
        return "\n".join(f"{k}. {step}." for k, step in enumerate(steps, 1))
    if style == "parenthesis":
        return "\n".join(f"{k}) {step}" for k, step in enumerate(steps, 1))
    if style == "bullets":
        return "\n".join(f"{draw.pick(('-', '*', '•'))} {step}" for step in steps)
    if style == "step":
        return " ".join(f"Step {k}: {step}." for k, step in enumerate(steps, 1))
    first, *middle, last = steps
    middle_text = "".join(f" Then {step[0].lower()}{step[1:]}." for step in middle)
    return f"First, {first[0].lower()}{first[1:]}.{middle_text} Finally, {last[0].lower()}{last[1:]}."


# --- Subjects -----------------------------------------------------------------------------------

DISHES = (
    ("lentil soup", "soup", ("lentils", "carrots", "onion", "cumin"), 35, None),
    ("banana bread", "loaf", ("ripe bananas", "flour", "eggs", "butter"), 60, 175),
    ("mushroom risotto", "risotto", ("arborio rice", "mushrooms", "stock", "parmesan"), 30, None),
    ("roast chicken", "bird", ("a whole chicken", "lemon", "garlic", "thyme"), 80, 200),
    ("shortbread", "biscuits", ("butter", "sugar", "flour"), 20, 160),
    ("vegetable curry", "curry", ("chickpeas", "coconut milk", "spinach", "curry paste"), 40, None),
    ("focaccia", "bread", ("flour", "yeast", "olive oil", "rosemary"), 25, 220),
    ("chili con carne", "chili", ("minced beef", "kidney beans", "tomatoes", "chili powder"), 90, None),
    ("apple crumble", "crumble", ("apples", "oats", "brown sugar", "butter"), 45, 180),
    ("pancakes", "batter", ("flour", "milk", "eggs", "baking powder"), 15, None),
)
SWAPS = (("butter", "olive oil or coconut oil"), ("eggs", "a flax egg: a tablespoon of ground flax in three of water"))


def dish_subject(draw: Draw) -> Subject:
    name, thing, ingredients, minutes, oven = draw.pick(DISHES)
    servings, days = draw.number(2, 8), draw.number(2, 5)
    swap, replacement = draw.pick(SWAPS)
    method = [
        f"Prepare the {ingredients[0]} and the {ingredients[1]}",
        f"Combine them with the {ingredients[2]}",
        f"Cook for about {minutes} minutes" if oven is None else f"Bake at {oven}°C for {minutes} minutes",
        "Let it rest before serving",
    ]
    facts = [
        Fact(
            (f"How long does {name} take to cook?", f"What's the cooking time for {name}?"),
            (f"About {minutes} minutes.", f"Roughly {minutes} min.", f"Give it {minutes} minutes, plus prep."),
        ),
        Fact(
            (f"How do I make {name}?", f"Can you give me a simple {name} recipe?", f"{name.capitalize()} recipe?"),
            (steps_text(draw, method),),
        ),
        Fact(
            (f"Can I freeze {name}?", f"Does {name} freeze well?"),
            (
                f"Yes, it keeps for {days} months in the freezer.",
                "Yes, just cool it completely first and use an airtight container.",
                "Not really; the texture suffers once it thaws.",
            ),
        ),
        Fact(
            (f"What can I use instead of {swap} in {name}?", f"Is there a substitute for {swap} in {name}?"),
            (f"{replacement[0].upper()}{replacement[1:]}.", f"Try {replacement}; it works fine."),
        ),
        Fact(
            (f"How many people does one batch of {name} feed?", f"How many servings is a {name} recipe?"),
            (f"{servings}.", f"Around {servings} portions.", f"It serves {servings} people."),
        ),
        Fact(
            (f"What goes into {name}?", f"What are the main ingredients of {name}?"),
            (", ".join(ingredients[:-1]) + f" and {ingredients[-1]}.",),
        ),
    ]
    background = (
        f"{name.capitalize()} is a favourite for weeknight cooking.",
        f"Many families have their own version of this {thing}.",
        "Good ingredients make the biggest difference.",
    )
    return Subject(tuple(facts), background)


CITIES = (
    ("Lisbon", "Portugal", "euro", "Humberto Delgado", "spring or early autumn"),
    ("Kyoto", "Japan", "yen", "Kansai", "late March or November"),
    ("Reykjavik", "Iceland", "Icelandic króna", "Keflavík", "June to August"),
    ("Marrakesh", "Morocco", "dirham", "Menara", "March to May"),
    ("Vancouver", "Canada", "Canadian dollar", "YVR", "July and August"),
    ("Hanoi", "Vietnam", "dong", "Noi Bai", "October to December"),
    ("Edinburgh", "Scotland", "pound", "Edinburgh Airport", "May to September"),
    ("Cape Town", "South Africa", "rand", "Cape Town International", "November to March"),
    ("Krakow", "Poland", "złoty", "John Paul II", "May or September"),
    ("Oaxaca", "Mexico", "peso", "Xoxocotlán", "October to April"),
)


def city_subject(draw: Draw) -> Subject:
    city, country, currency, airport, season = draw.pick(CITIES)
    minutes, fare, nights = draw.number(15, 60), draw.number(3, 40), draw.number(2, 5)
    dish = draw.pick(("grilled fish", "street noodles", "a local stew", "pastries", "dumplings"))
    facts = [
        Fact(
            (f"When is the best time to visit {city}?", f"What month should I go to {city}?"),
            (
                f"{season[0].upper()}{season[1:]}.",
                f"I'd go in {season}, when the weather is mild and crowds are smaller.",
            ),
        ),
        Fact(
            (f"How do I get from the airport to central {city}?", f"{airport} airport to downtown {city}: best way?"),
            (
                f"Take the express bus; it takes {minutes} minutes and costs about {fare} {currency}s.",
                f"A taxi is quickest, around {minutes} minutes.",
                f"Train or bus, both about {minutes} min.",
            ),
        ),
        Fact(
            (f"What currency do they use in {city}?", f"Which money should I bring to {city}?"),
            (f"The {currency}.", f"{currency[0].upper()}{currency[1:]}; cards are widely accepted too."),
        ),
        Fact(
            (f"How many days do I need in {city}?", f"Is a weekend enough for {city}?"),
            (
                f"{nights} or {nights + 1} days is ideal.",
                f"A weekend covers the highlights, but {nights} nights is more relaxed.",
            ),
        ),
        Fact(
            (f"What food should I try in {city}?", f"Any must-eat dishes in {city}?"),
            (
                f"Definitely {dish}, and whatever the market stalls are selling that day.",
                f"Try {dish} near the old town.",
            ),
        ),
        Fact(
            (f"Do I need a visa to visit {country}?", f"Is a visa required for {country}?"),
            (
                "It depends on your passport; many visitors can stay up to 90 days without one.",
                "Probably not for a short stay, but check the embassy's website before you book.",
            ),
        ),
    ]
    background = (
        f"{city} is one of the most visited places in {country}.",
        "Many travellers come back more than once.",
        "The old town is easy to explore on foot.",
    )
    return Subject(tuple(facts), background)


COMMANDS = (
    ("undo my last git commit", "git", "git reset --soft HEAD~1"),
    ("see which process uses port 8080", "Linux", "lsof -i :8080"),
    ("list all docker containers, including stopped ones", "Docker", "docker ps -a"),
    ("install a package globally with npm", "npm", "npm install -g <package>"),
    ("count the lines in a file", "bash", "wc -l file.txt"),
    ("create a new branch and switch to it", "git", "git checkout -b feature/login"),
    ("find files bigger than 100 MB", "Linux", "find / -type f -size +100M"),
    ("delete unused docker images", "Docker", "docker image prune -a"),
)
SNIPPETS = (
    ("check if a string starts with a prefix", "Python", 'if name.startswith("Dr. "):\n    title = True'),
    ("get the length of an array", "JavaScript", "const n = items.length;"),
    ("read an environment variable", "Python", 'import os\n\ntoken = os.environ.get("API_TOKEN")'),
    ("sleep for one second", "Go", "time.Sleep(time.Second)"),
    ("make a list of squares", "Python", "squares = [n * n for n in range(10)]"),
    ("format a date as YYYY-MM-DD", "JavaScript", "const day = new Date().toISOString().slice(0, 10);"),
    ("catch an exception", "Java", "try {\n    run();\n} catch (IOException e) {\n    log.error(e);\n}"),
    ("filter a vector", "Rust", "let even: Vec<i32> = v.into_iter().filter(|n| n % 2 == 0).collect();"),
    ("merge two dictionaries", "Python", "merged = {**defaults, **overrides}"),
    ("trim whitespace from a string", "C#", "var clean = input.Trim();"),
)
ERRORS = (
    ("KeyError", "Python", "the key you looked up is not in the dictionary; use .get() or check with `in` first"),
    ("NullPointerException", "Java", "you called a method on a variable that is null"),
    ("undefined is not a function", "JavaScript", "you are calling something that is not a function, often a typo"),
    ("segmentation fault", "C", "the program touched memory it does not own, such as a freed or null pointer"),
    ("borrow of moved value", "Rust", "the value was moved into another variable and can no longer be used"),
)


def code_subject(draw: Draw) -> Subject:
    (task, tool, command), (snippet_task, language, code) = draw.pick(COMMANDS), draw.pick(SNIPPETS)
    error, error_language, meaning = draw.pick(ERRORS)
    fence = draw.pick(("```", f"```{language.lower()}"))
    facts = [
        Fact(
            (f"How do I {task}?", f"What's the {tool} command to {task}?", f"{tool}: {task}?"),
            (command, f"`{command}`", f"Run:\n\n    {command}", f"Use `{command}`."),
        ),
        Fact(
            (f"How can I {snippet_task} in {language}?", f"{language} code to {snippet_task}?"),
            (f"{fence}\n{code}\n```", code, f"Something like:\n{fence}\n{code}\n```"),
        ),
        Fact(
            (f"What does {error} mean in {error_language}?", f"Why am I getting a {error}?"),
            (f"It means {meaning}.", f"{meaning[0].upper()}{meaning[1:]}."),
        ),
    ]
    background = (
        f"{language} is used in many kinds of projects.",
        "The official documentation has more examples.",
        "Reading other people's code is a good way to learn.",
    )
    return Subject(tuple(facts), background)


APPS = ("Paperkite", "Brightdesk", "Tallyho", "Inkwell", "Dockyard", "Fernway", "Plumline", "Quayside")
APP_KINDS = ("invoicing app", "help desk", "time tracker", "CRM", "website builder", "form builder", "wiki")
INTEGRATIONS = ("Slack", "Google Drive", "Zapier", "Salesforce", "Jira", "Dropbox", "Microsoft Teams")
SETTINGS = (
    ("turn on dark mode", ["Open Preferences", "Choose Appearance", "Select Dark"]),
    ("add a custom domain", ["Go to Settings, then Domains", "Enter your domain", "Add the CNAME record we show you"]),
    ("export everything as CSV", ["Open Reports", "Pick the date range", "Click Download CSV"]),
    ("invite a colleague", ["Open Members", "Click Add member", "Type their e-mail and choose a role"]),
    ("change the language", ["Click your avatar", "Open Language", "Pick one from the list and save"]),
)


def app_subject(draw: Draw) -> Subject:
    app, kind = draw.pick(APPS), draw.pick(APP_KINDS)
    integration, (action, steps) = draw.pick(INTEGRATIONS), draw.pick(SETTINGS)
    seats, price, trial, limit = draw.number(3, 25), draw.number(5, 60), draw.pick((7, 14, 30)), draw.number(2, 50)
    facts = [
        Fact(
            (f"How do I {action} in {app}?", f"Where can I {action} in {app}?"),
            (steps_text(draw, steps), f"{steps[0]}, then {steps[1][0].lower()}{steps[1][1:]}."),
        ),
        Fact(
            (f"Does {app} integrate with {integration}?", f"Can I connect {app} to {integration}?"),
            (
                f"Yes: add it under Integrations and sign in to {integration}.",
                "Not directly, but it works through a webhook.",
                "Yes, on every paid plan.",
            ),
        ),
        Fact(
            (f"How much does {app} cost per user?", f"What's {app}'s pricing?"),
            (f"${price} per user a month.", f"From ${price}/user/month, billed yearly.", f"${price}."),
        ),
        Fact(
            (f"Is there a free trial of {app}?", f"Can I try {app} before paying?"),
            (f"Yes, {trial} days, no card needed.", f"{trial} days free.", "Yes, and you can extend it once."),
        ),
        Fact(
            (f"How many files can I attach to a record in {app}?", f"Is there an attachment limit in {app}?"),
            (f"Up to {limit} per record.", f"{limit}, each at most 25 MB."),
        ),
        Fact(
            (f"What is the smallest team {app} sells to?", f"Is there a minimum number of seats for {app}?"),
            (f"{seats} seats.", f"You need at least {seats} seats on the team plan."),
        ),
    ]
    background = (
        f"{app} is a {kind} used by small and mid-sized teams.",
        f"Thousands of companies rely on {app} every day.",
        f"{app} releases an update every few weeks.",
    )
    return Subject(tuple(facts), background)


def policy_subject(draw: Draw) -> Subject:
    leave, weeks, hours, amount = draw.number(20, 30), draw.number(8, 26), draw.number(30, 40), draw.number(50, 500)
    manager = draw.person()
    facts = [
        Fact(
            ("How many days of annual leave do I get?", "What's our holiday allowance?"),
            (f"{leave} days a year.", f"{leave}, plus public holidays.", f"You get {leave} days."),
        ),
        Fact(
            ("How long is parental leave here?", "What is the parental leave policy?"),
            (f"{weeks} weeks at full pay.", f"{weeks} weeks, which you can split over the first year."),
        ),
        Fact(
            ("How do I submit an expense claim?", "What's the process for expenses?"),
            (
                steps_text(draw, ["Photograph the receipt", "Fill in the claim form", "Send it to your manager"]),
                "Upload the receipt in the finance portal; it is paid with your next salary.",
            ),
        ),
        Fact(
            ("Who approves my time off?", "Who do I ask for a day off?"),
            (f"{manager}.", "Your line manager.", f"{manager} signs off on leave for the team."),
        ),
        Fact(
            ("How many hours is a full-time week?", "What counts as full time?"),
            (f"{hours} hours.", f"{hours} hours a week, flexible around core hours."),
        ),
        Fact(
            ("Is there a budget for training courses?", "Can the company pay for a course?"),
            (f"Yes, up to {amount * 10} a year per person.", "Yes, ask your manager before you enrol."),
        ),
    ]
    background = (
        "The staff handbook covers this in more detail.",
        "Policies are reviewed every January.",
        "Teams sometimes agree their own arrangements.",
    )
    return Subject(tuple(facts), background)


PLANTS = (
    ("tomatoes", "full sun", "every two or three days", "spring, after the last frost"),
    ("lavender", "full sun", "once a week at most", "late spring"),
    ("a fiddle-leaf fig", "bright, indirect light", "when the top 3 cm of soil is dry", "any time indoors"),
    ("roses", "at least six hours of sun", "deeply, twice a week", "autumn or early spring"),
    ("mint", "partial shade", "often; it likes moist soil", "spring"),
    ("an orchid", "indirect light", "once a week, by soaking the roots", "any time indoors"),
)


def plant_subject(draw: Draw) -> Subject:
    plant, light, water, season = draw.pick(PLANTS)
    facts = [
        Fact(
            (f"How often should I water {plant}?", f"How much water does {plant} need?"),
            (f"{water[0].upper()}{water[1:]}.", f"Water {water}."),
        ),
        Fact(
            (f"Where should I put {plant}?", f"How much light does {plant} need?"),
            (f"{light[0].upper()}{light[1:]}.", f"Somewhere with {light}."),
        ),
        Fact(
            (f"When should I plant {plant}?", f"What's the best time to plant {plant}?"),
            (f"{season[0].upper()}{season[1:]}.", f"In {season}."),
        ),
        Fact(
            (f"Why are the leaves of my {plant.removeprefix('a ').removeprefix('an ')} turning yellow?",),
            (
                "Usually too much water; let the soil dry out and check that the pot drains.",
                "Overwatering or not enough light.",
                "How often are you watering it, and does the pot have a drainage hole?",
            ),
        ),
    ]
    background = (
        f"Gardeners have grown {plant} for centuries.",
        "Healthy soil makes most plants easier to keep.",
        "Local garden centres are happy to give advice.",
    )
    return Subject(tuple(facts), background)


ORDERS = ("a sofa", "running shoes", "a laptop", "concert tickets", "a gift card", "a bike helmet")


def order_subject(draw: Draw) -> Subject:
    item, days, window = draw.pick(ORDERS), draw.number(2, 10), draw.pick((14, 30, 60))
    reference = f"{draw.pick('ABCDEFGHJK')}{draw.number(10000, 99999)}"
    facts = [
        Fact(
            (f"When will {item} arrive?", f"How long is delivery for {item}?", f"Where is my order {reference}?"),
            (f"In {days} working days.", f"It left the warehouse today; expect it within {days} days."),
        ),
        Fact(
            (f"Can I return {item}?", f"What's the return policy for {item}?"),
            (f"Yes, within {window} days, unused and in its box.", f"{window} days, free of charge."),
        ),
        Fact(
            ("Can I change the delivery address?", f"I need {item} sent somewhere else."),
            (
                "Yes, until it ships: edit it under Orders.",
                "Which address should we use instead?",
                "It has already shipped, so the courier will need to redirect it.",
            ),
        ),
        Fact(
            ("Do you offer gift wrapping?", f"Can {item} be gift-wrapped?"),
            ("Yes, for $4 at checkout.", "No, sorry, not at the moment."),
        ),
        Fact(
            ("Which payment methods do you accept?", "Can I pay with PayPal?"),
            ("Cards, PayPal and bank transfer.", "Yes, PayPal works, as do all major cards."),
        ),
    ]
    background = (
        f"Order {reference} was placed online.",
        "Our customer service team answers within a day.",
        "We ship from two warehouses.",
    )
    return Subject(tuple(facts), background)


KNOWLEDGE = (
    (
        ("Why is the sky blue?", "What makes the sky look blue?"),
        (
            "Sunlight scatters off air molecules, and blue light scatters the most.",
            "Rayleigh scattering: short blue wavelengths bounce around the atmosphere more than red ones.",
        ),
    ),
    (
        ("How far is the Moon from Earth?", "Distance to the Moon?"),
        ("About 384,000 km.", "Roughly 384,400 kilometres on average."),
    ),
    (
        ("Who wrote Pride and Prejudice?", "Author of Pride and Prejudice?"),
        ("Jane Austen.", "Jane Austen, in 1813."),
    ),
    (
        ("What is photosynthesis?", "How do plants make food?"),
        ("Plants turn light, water and carbon dioxide into sugar and oxygen.", "Using sunlight to make sugar."),
    ),
    (
        ("How many bones are in the human body?", "How many bones does an adult have?"),
        ("206.", "An adult has 206; babies have more that later fuse."),
    ),
    (
        ("What's the boiling point of water in Fahrenheit?", "At what temperature does water boil in °F?"),
        ("212 °F at sea level.", "212."),
    ),
    (
        ("Why do cats purr?", "What does it mean when a cat purrs?"),
        ("Mostly contentment, but also to calm themselves when stressed.", "They're usually relaxed and happy."),
    ),
    (
        ("What is inflation?", "Explain inflation simply."),
        ("Prices rising over time, so the same money buys less.", "A general increase in prices."),
    ),
    (
        ("How long should I sleep each night?", "How much sleep do adults need?"),
        ("Seven to nine hours for most adults.", "7-9 hours."),
    ),
    (
        ("How often should I stretch?", "Is it good to stretch every day?"),
        ("Daily is fine; hold each stretch for about 30 seconds.", "Yes, a few minutes a day helps."),
    ),
    (
        ("What's a good way to start running?", "Tips for a beginner runner?"),
        (
            "Alternate a minute of running with two of walking, three times a week, and build up slowly.",
            "Start slow, get proper shoes, and rest between runs.",
        ),
    ),
    (
        ("How much should I keep in an emergency fund?", "How big should an emergency fund be?"),
        ("Three to six months of expenses.", "Enough to cover 3-6 months of essential costs."),
    ),
    (
        ("Should I pay off debt or save first?", "Save or pay down my credit card?"),
        (
            "Pay off high-interest debt first, but keep a small cushion of savings.",
            "Debt first if the interest is above what savings earn.",
        ),
    ),
    (
        ("How do I fix a dripping tap?", "My faucet keeps dripping, how do I repair it?"),
        (
            "Turn off the water, take the handle off, and replace the worn washer or cartridge.",
            "Usually a new washer fixes it.",
        ),
    ),
    (
        ("How often should I feed a puppy?", "How many meals a day for a puppy?"),
        ("Three to four small meals a day until six months old.", "3 times a day."),
    ),
    (
        ("Recommend a book for learning statistics.", "Any good intro statistics books?"),
        ("Try 'The Art of Statistics' by David Spiegelhalter.", "'Naked Statistics' is a friendly start."),
    ),
    (
        ("What's a fun weekend activity for kids?", "Ideas for a rainy weekend with children?"),
        ("Build a blanket fort and have a picnic inside.", "A museum visit, baking, or a board game afternoon."),
    ),
    (
        ("Write a haiku about autumn.", "Can you write a short poem about autumn?"),
        ("Red leaves drift and fall\nthe wind counts them one by one\nthe branches grow light",),
    ),
    (
        ("Translate 'good morning' into Spanish.", "How do you say good morning in Spanish?"),
        ("Buenos días.", "'Buenos días'."),
    ),
    (
        ("Give me a synonym for happy.", "Another word for happy?"),
        ("Cheerful.", "Joyful, content or glad."),
    ),
)


def knowledge_subject(draw: Draw) -> Subject:
    """Questions of general knowledge and advice, each its own subject: their negatives are answers
    to unrelated questions, as in a chat log."""
    chosen = draw.sample(KNOWLEDGE, 4)
    facts = tuple(Fact(asks, answers) for asks, answers in chosen)
    return Subject(facts, ("That's a common question.", "People ask this a lot.", "There is more to say on it."))


def problem_subject(draw: Draw) -> Subject:
    """A user reports a problem: a fix, or a question back about that problem, answers it."""
    device = draw.pick(("printer", "laptop", "phone", "smart TV", "router", "headphones", "car"))
    symptom, fix, probe = draw.pick(
        (
            ("won't turn on", "Hold the power button for 15 seconds, then plug it in again.", "Is the light on"),
            ("keeps disconnecting from Wi-Fi", "Forget the network and join it again.", "Does it happen on"),
            ("is very slow", "Restart it and close the apps running in the background.", "Since when is"),
            ("makes a clicking noise", "That is usually a loose part; have it checked.", "Where exactly is"),
        )
    )
    facts = [
        Fact(
            (f"My {device} {symptom}.", f"Help, my {device} {symptom}!", f"{device.capitalize()} {symptom}, what now?"),
            (
                fix,
                f"{probe} your {device} {draw.pick(('now', 'every time', 'after an update'))}?",
                f"Which model of {device} is it?",
                f"Sorry to hear that. {fix}",
            ),
        ),
        Fact(
            (f"How do I reset my {device} to factory settings?", f"Factory reset for a {device}?"),
            (
                steps_text(draw, ["Back up your data", "Open Settings and choose Reset", "Confirm and wait"]),
                "Settings > System > Reset, then confirm.",
            ),
        ),
        Fact(
            (f"How long does a {device} usually last?", f"When should I replace my {device}?"),
            (f"About {draw.number(3, 8)} years.", "When repairs cost more than half the price of a new one."),
        ),
    ]
    background = (
        f"The {device} is under warranty for two years.",
        "The manual is also online.",
        "Our repair shop is open on weekdays.",
    )
    return Subject(tuple(facts), background)


SUBJECTS: tuple[Callable[[Draw], Subject], ...] = (
    dish_subject,
    city_subject,
    code_subject,
    app_subject,
    policy_subject,
    plant_subject,
    order_subject,
    knowledge_subject,
    problem_subject,
)

# --- Dressing: how a chat answer comes, whatever it answers -------------------------------------

LEADS = (
    "Sure!",
    "Good question.",
    "Happy to help.",
    "Absolutely.",
    "Here's what I know:",
    "Short answer:",
    "Great question!",
    "Of course.",
    "Thanks for asking.",
    "Hi there!",
    "Let me check.",
)
CLOSINGS = (
    "Hope that helps!",
    "Let me know if you need anything else.",
    "Anything else I can do?",
    "Good luck!",
    "Enjoy!",
    "Feel free to ask if something is unclear.",
    "Have a great day.",
)
NON_ANSWERS = (
    "I'm sorry, but I can't help with that.",
    "I'm not able to answer that.",
    "Thanks for your message!",
    "Have a lovely day!",
    "Hello! How can I help you today?",
    "I don't have information about that.",
)


def dress(draw: Draw, answer: str, background: tuple[str, ...]) -> str:
    """The answer as a chat reply: bare, or after a lead, before a closing, with background."""
    form = draw.pick(("bare", "bare", "lead", "closing", "lead and closing", "background", "long"))
    if form == "bare":
        return answer
    if form == "lead":
        return f"{draw.pick(LEADS)} {answer}"
    if form == "closing":
        return f"{answer} {draw.pick(CLOSINGS)}"
    if form == "lead and closing":
        return f"{draw.pick(LEADS)} {answer}\n\n{draw.pick(CLOSINGS)}"
    extra = " ".join(draw.sample(background, draw.number(1, len(background))))
    if form == "background":
        return f"{answer} {extra}" if draw.chance(0.5) else f"{extra} {answer}"
    return f"{draw.pick(LEADS)} {extra}\n\n{answer}\n\n{draw.pick(CLOSINGS)}"


def generate(count: int, seed: int = SEED) -> list[dict]:
    """About `count` rows {input, output, label, kind (the subject, for grouped checks)}: half answers
    to their question, half replies to
    another question about the same subject (two thirds) or another subject (one third), or replies
    that answer nothing."""
    rng = random.Random(seed)
    draw = Draw(rng)
    rows: list[dict] = []
    previous: Subject | None = None
    while len(rows) < count:
        make = draw.pick(SUBJECTS)
        kind, subject = "chat/" + make.__name__.removesuffix("_subject"), make(draw)
        for index, fact in enumerate(subject.facts):
            question = draw.pick(fact.asks)
            rows.append({"input": question, "output": dress(draw, draw.pick(fact.answers), subject.background)})
            rows[-1].update(label=1, kind=kind)
            same = [answer for k, other in enumerate(subject.facts) if k != index for answer in other.answers]
            if draw.chance(0.06):
                negative, background = draw.pick(NON_ANSWERS), subject.background
            elif previous is not None and (not same or draw.chance(1 / 3)):
                negative, background = draw.pick(draw.pick(previous.facts).answers), previous.background
            else:
                negative, background = draw.pick(same), subject.background
            rows.append({"input": question, "output": dress(draw, negative, background), "label": 0, "kind": kind})
        previous = subject
    return rows[:count]
