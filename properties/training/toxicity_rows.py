"""Generated training rows for Toxicity: what the public sets leave out, with the contrasts that keep
the head from learning words instead of intent.

Davidson is tweets and HateCheck is 3,700 short test cases about seven groups. Between them there are
no threats to the person addressed, few threats without violent words, few insults without swear
words, no hate about any other group, few sentences that name a group or swear without being hateful,
and no one- or two-word sentences. Trained on them alone, the head read a group's name as hateful
unless a kind word came with it, a swear word as offensive wherever it was aimed, a denial of hate
as hate, and a threat in calm words as harmless. These rows follow HateCheck's functionalities
(Röttger et al., ACL 2021), each filled for many protected groups:

- toxic (label 1): threats, direct and implicit (the second without violent words), to the person
  addressed, to people in general and to a group; insults without profanity, to the reader, to a
  named person and implied ("only a fool would ..."); obscene abuse aimed at someone; hate as an
  expressed emotion; dehumanisation; negative attributes, also with what is done about them; hate
  said as an opinion or a question; a kind word negated ("not welcome here"); short exclamations at
  someone ("Imbecile!");
- not toxic (label 0): counter-speech that quotes or names hate to reject it, negated hate, neutral
  and positive statements about the same groups (alone and several together), the same words of
  hate aimed at things ("roadworks make my skin crawl"), profanity aimed at no one or at oneself,
  harsh criticism of a product, a plan or an idea, blunt replies and technical text with harsh words
  (`DELETE`, `kill -9`), violent words in everyday use, threats reported or denied, insults denied,
  support replies and short ones ("No."), and sentences that share a threat's words without
  threatening (an address on file, advice to lock the door).

Most hateful claims are written once and placed in three kinds of frame: said ("Let's face it,
{claim}"), denied ("It's a myth that {claim}") and countered ("Anyone who thinks {claim} should go
and meet a few"), so that the claim's words alone decide nothing.

Each row says what it reads as (`reads_as`): one of the kinds of toxic text the head tells apart, or
one of three kinds of harmless text (about a group, profanity at no one, other). The templates are
written apart from the behaviour suite's (bench/generated/toxicity.py): they share the lexicon, never
a template. `bench.generated.lexicon.Lexicon` (Faker, a development dependency) fills them, with a
fixed seed: the same rows on every run. Each row records its kind and template, by which training
keeps a template within one cross-validation fold.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable

SEED = 11

# Protected groups, as a sentence names them in the plural: HateCheck's seven, and the religions,
# origins, nationalities, sexualities, disabilities and ages the public sets do not cover.
GROUPS = (
    "women",
    "trans people",
    "gay people",
    "black people",
    "disabled people",
    "Muslims",
    "immigrants",
    "lesbians",
    "bisexual people",
    "gay men",
    "trans women",
    "Jews",
    "Christians",
    "Catholics",
    "Hindus",
    "Sikhs",
    "Buddhists",
    "atheists",
    "Mormons",
    "refugees",
    "asylum seekers",
    "migrants",
    "foreigners",
    "Arabs",
    "Asians",
    "Latinos",
    "Hispanics",
    "Mexicans",
    "Chinese people",
    "Indians",
    "Pakistanis",
    "Africans",
    "Nigerians",
    "Somalis",
    "Romanians",
    "Poles",
    "Albanians",
    "Roma",
    "Irish people",
    "Turks",
    "Kurds",
    "Filipinos",
    "Vietnamese people",
    "Koreans",
    "Brazilians",
    "Indigenous people",
    "Native Americans",
    "white people",
    "old people",
    "blind people",
    "deaf people",
    "autistic people",
    "wheelchair users",
    "single mothers",
)
# What a hateful claim says a group is.
FAULTS = (
    "liars",
    "thieves",
    "lazy",
    "stupid",
    "dirty",
    "violent",
    "dishonest",
    "useless",
    "criminals",
    "filthy",
    "mentally inferior",
    "a danger to our children",
    "too dumb to think for themselves",
    "a drain on the rest of us",
    "incapable of honest work",
    "born to steal",
)
# What a dehumanising claim calls a group.
VERMIN = (
    "rats",
    "cockroaches",
    "vermin",
    "animals",
    "a plague",
    "a disease",
    "subhuman",
    "a cancer",
    "pests",
    "maggots",
    "scum",
    "savages",
    "leeches",
    "insects",
    "a virus",
)
# Hateful claims about a group, each said, denied or countered by the frames below.
CLAIMS = (
    "{g} are {fault}",
    "{g} are {vermin}",
    "{g} should be kicked out of the country",
    "{g} ruin every street they move into",
    "{g} can't be trusted with money",
    "{g} are all {fault}",
    "{g} are worth less than dogs",
    "{g} don't deserve to vote",
    "{g} should not be allowed near schools",
    "{g} are the reason this country is falling apart",
    "{g} spread disease wherever they go",
    "{g} should be locked up",
    "the world would be better off without {g}",
    "{g} are a stain on society",
    "{g} are too lazy to work",
    "{g} are less than human",
    "no sane person would hire {g}",
    "{g} deserve to suffer",
)
SAID = (
    "{Claim}.",
    "I think {claim}.",
    "In my opinion, {claim}.",
    "I truly believe {claim}.",
    "If you ask me, {claim}.",
    "Don't you agree that {claim}?",
    "Isn't it true that {claim}?",
    "Let's face it, {claim}.",
    "Everyone knows {claim}.",
    "I'm sorry, but {claim}.",
    "Honestly, {claim}.",
    "Facts are facts: {claim}.",
    "My whole life has taught me that {claim}.",
    "It's obvious that {claim}.",
    "Wake up, people: {claim}.",
    "I'll say it again, {claim}.",
    "{Claim}, and that's the truth.",
    "Nobody wants to admit it, but {claim}.",
)
DENIED = (
    "It's a myth that {claim}.",
    "It is simply untrue that {claim}.",
    "I don't believe for a second that {claim}.",
    "Nobody in this office thinks {claim}.",
    "It's not the case that {claim}.",
    "I refuse to accept that {claim}.",
    "Only a bigot would claim {claim}.",
    "The data do not show that {claim}; they show the opposite.",
    "I have never once thought that {claim}.",
    "We do not agree that {claim}.",
    "Who still believes {claim}? Nobody should.",
    "No evidence suggests {claim}.",
)
COUNTERED = (
    "Anyone who thinks {claim} should go and meet a few.",
    "People who say {claim} are spreading hate.",
    "The leaflet claimed {claim}, and the council had it removed.",
    "Saying {claim} is racist nonsense.",
    'We deleted a post that said "{claim}" because it broke our rules.',
    "The lie that {claim} has been used to justify violence.",
    "My uncle insists {claim}, and I told him he's wrong.",
    "When someone shouts that {claim}, stand up and say no.",
    "The historian explains how propaganda taught people that {claim}.",
    "A caller said {claim}; we ended the call and reported it.",
    "Stop repeating that {claim}.",
    "The idea that {claim} is hateful and false.",
)
# Hate as an emotion or a degrading claim, denied by the speaker.
NEGATED = (
    "I have never hated {g}.",
    "Hate {g}? Not me, not ever.",
    "I don't feel any hatred towards {g}.",
    "I do not despise {g} at all.",
    "{G} have never disgusted me.",
    "I've got nothing against {g}, honestly.",
    "{G} are not {fault}.",
    "{G} are no more {lazy} than anyone else.",
    "{G} aren't {vermin}, they're people like us.",
    "Not one of the {g} I know is {fault}.",
    "I wouldn't dream of calling {g} {vermin}.",
    "No, {g} are not a threat to anyone.",
    "I would never wish harm on {g}.",
    "Of course {g} aren't {fault}; that's a stereotype.",
    "I don't loathe {g}, whatever my cousin claims.",
    "Me, hate {g}? Never.",
)
# Hate said without an insult: what a group is worth, where it belongs, what the speaker would never do.
IMPLICIT_DEROGATION = (
    "My cat is cleverer than any of the {g} I've met.",
    "I'd rather starve than eat food cooked by {g}.",
    "I'd never sit next to one of the {g} on a bus.",
    "Letting {g} into politics will wreck this country.",
    "Who cares what happens to {g}?",
    "Nobody would miss {g} if they vanished tomorrow.",
    "If my son married one of the {g}, I'd disown him.",
    "A stray dog's life is worth more than the lives of {g}.",
    "Landlords are right to refuse {g}; I would too.",
    "Why do we let {g} breathe the same air as us?",
    "Schools would be better if they kept {g} out.",
    "Hiring {g} was the worst mistake this company made.",
)
# A kind word about a group, negated: hateful.
NEGATED_RESPECT = (
    "{G} are not welcome here.",
    "I will never respect {g}.",
    "{G} will never be equal to the rest of us.",
    "I refuse to treat {g} as human beings.",
    "There is no place in this town for {g}.",
    "Not a single one of the {g} deserves respect.",
    "{G} aren't worth the air they breathe.",
    "I'd never lift a finger to help {g}.",
    "No decent person would ever marry one of the {g}.",
    "{G} don't deserve any rights.",
    "The lives of {g} are worth nothing to me.",
    "{G} will never belong in this country.",
)
# Things, habits and ideas, for the same words of hate aimed at what is no one.
OBJECTS = (
    "Mondays",
    "traffic jams",
    "spreadsheets",
    "tax forms",
    "pop-up ads",
    "open-plan offices",
    "mosquitoes",
    "reality shows",
    "airport queues",
    "long meetings",
    "parking meters",
    "printers",
    "automated phone menus",
    "diesel cars",
    "cold showers",
    "terms and conditions",
    "slot machines",
    "energy drinks",
    "roadworks",
    "scratchy jumpers",
)
OBJECT_CLAIMS = (
    "{G} are a plague.",
    "{G} are the worst invention of all time.",
    "The world would be better off without {g}.",
    "{G} should be banned for good.",
    "{G} ruin every weekend.",
    "{G} are useless garbage.",
    "We should get rid of {g} once and for all.",
    "{G} are a cancer on modern life.",
    "Burn all the {g}, I say.",
    "{G} are absolutely despicable.",
)
# Love and respect for a group, with the same openers as hate.
LIKED = (
    "I love {g}",
    "I adore {g}",
    "I admire {g}",
    "I have so much respect for {g}",
    "I am proud of {g}",
    "I feel nothing but warmth towards {g}",
    "{G} make me smile",
    "{G} make my day",
    "{G} fill me with hope",
    "Nothing makes me happier than {g}",
    "Seeing {g} on my street makes my whole day",
    "My heart is full every time I see {g}",
)
# Swearing at or about oneself, and abuse reported rather than made.
SELF_AND_REPORTED = (
    "I'm such an idiot, I left my keys in the car again.",
    "Sorry, I was being a total dumbass yesterday.",
    "My stupid self forgot to save the file.",
    "He told me to go to hell, so I hung up.",
    "A customer called me a moron today, which was not fun.",
    "I felt like a complete fool after the interview.",
    "She said I was a useless clown, and I cried in the car.",
    "Let me know if I'm being a pain about this.",
    "I'm a mess today, ignore me.",
    "The kids keep calling each other idiots and I've had enough.",
    "What a dumbass move on my part.",
    "My brother told me to shut the hell up, then apologised.",
)
# Harm wished on people in general, or on a person spoken about.
PEOPLE_THREATS = (
    "I want to hurt someone today, anyone will do.",
    "Some days I want to make every one of them bleed.",
    "I'm going to make them all suffer for this.",
    "I feel like killing everybody in this office.",
    "I'll find him and make sure he never walks again.",
    "One day I'm going to hurt her so badly she'll never forget it.",
    "They'll all be sorry when I come back with a gun.",
    "I'd love to beat the lot of them until they beg.",
    "I'm going to get {name} alone and make him pay.",
    "Everyone who laughed at me is going to get hurt.",
)
# A demand backed by a threat: "Refund me or I'll ...".
DEMANDS = (
    "Refund me today",
    "Give me my money back",
    "Fix my account by tonight",
    "Cancel the fine",
    "Answer my ticket",
    "Delete that photo",
    "Pay what you owe me",
    "Stop calling my house",
)
# A degrading claim followed by what is done about it.
CLAIM_CONSEQUENCES = (
    "{G} are {vermin}, which is why we turn them away at the door.",
    "{G} are {fault}, so I never rent to them.",
    "{G} are {fault} and I won't sell to them.",
    "{G} are {vermin}, so keep them off the team.",
    "{G} are {fault}; that's why nobody hires them.",
    "Since {g} are {vermin}, the school should keep them out.",
)
# A short answer that mentions a group, and what comes after it.
SHORT_ANSWERS = ("Mostly {g}", "Yes, a few {g}", "About half of them are {g}", "Two {g} applied", "Some {g}")
HATEFUL_AFTER = (
    "and {g} are {vermin}",
    "and {g} are all {fault}",
    "and you know how {fault} {g} are",
    "and I despise {g}",
)
NEUTRAL_AFTER = (
    "and {g} are welcome like everyone else",
    "and they start on {weekday}",
    "and the team is glad to have them",
    "and we are proud of that",
)
# Insults and degrading words denied or negated, about a person or a team.
NEGATED_INSULTS = (
    "The night shift isn't lazy; they cleared the whole backlog.",
    "You're not stupid, you just need more practice.",
    "The new hires aren't useless, they're still learning.",
    "Nobody here thinks you're an idiot, {name}.",
    "I never said you were a liar.",
    "{name} is not a coward, whatever people say.",
    "Our support staff are anything but lazy.",
    "You are not a failure because one project went wrong.",
    "The interns are far from dumb; they found the bug first.",
    "Calling the drivers lazy is unfair: they work twelve-hour shifts.",
)
# Statements that name several groups together.
SEVERAL_GROUPS = (
    "The club is open to everyone, {g} and {h} included.",
    "Our staff includes {g}, {h} and many others.",
    "Any family can join, including {g} and {h}.",
    "The survey covered {g}, {h} and the general public.",
    "We hire {g} and {h} on exactly the same terms as anyone else.",
    "The festival celebrates {g} and {h} alike.",
)
# Hate as an emotion, put together: how strongly, what is felt, about whom.
EMOTION_OPENERS = ("", "Honestly, ", "I'll be frank: ", "God, ", "Truth is, ", "To be perfectly honest, ")
FELT = (
    "I hate {g}",
    "I despise {g}",
    "I loathe {g}",
    "I detest {g}",
    "I am sickened by {g}",
    "I am repulsed by {g}",
    "I have nothing but contempt for {g}",
    "I've had it up to here with {g}",
    "I can't bear to be in the same room as {g}",
    "I feel nothing but hatred for {g}",
    "I am so fed up with {g}",
    "{G} make my skin crawl",
    "{G} make me want to vomit",
    "{G} make my stomach turn",
    "{G} fill me with rage",
    "{G} revolt me",
    "There is nothing I hate more than {g}",
    "The sight of {g} makes me furious",
    "Seeing {g} on my street ruins my whole day",
    "My blood boils every time I see {g}",
)
EMOTION_TAILS = (
    " and always will.",
    " more than anything.",
    " with a passion.",
    ", every last one of them.",
    " so much it hurts.",
    ", and I'm not ashamed of it.",
)
DEHUMANISING = (
    "{G} are {vermin}.",
    "{G} are nothing more than {vermin}.",
    "{G} are a disease spreading through our towns.",
    "{G} breed like rabbits and live like pigs.",
    "{G} aren't people, they're {vermin}.",
    "Calling {g} human is an insult to humans.",
    "{G} belong in cages.",
    "{G} are parasites feeding on decent folk.",
    "Those {g} are subhuman filth.",
    "Our country is infested with {g}.",
    "{G} are like a swarm of {vermin}.",
    "The {g} in this town are {vermin}, all of them.",
    "{G} are vermin who should be exterminated.",
    "Treat {g} like the {vermin} they are.",
    "{G} are animals, plain and simple.",
    "I've seen cleaner pigs than {g}.",
)
ATTRIBUTES = (
    "{G} are born liars.",
    "Keep your wallet close around {g}; stealing is in their blood.",
    "{G} are too stupid to hold down a real job.",
    "All the {g} I've ever met were dishonest.",
    "{G} are violent by nature.",
    "{G} only care about living off benefits.",
    "{G} are incapable of telling the truth.",
    "No company should ever hire {g}, they're useless.",
    "{G} smell and never wash.",
    "{G} are mentally inferior to the rest of us.",
    "Typical {g}: lazy, loud and dishonest.",
    "{G} should never be allowed to vote, they're too dim.",
    "Of course it was the {g}; they're always {fault}.",
    "{G} can't be trusted to look after children.",
    "Give {g} a job and they'll rob you blind.",
    "{G} are all the same: sly, greedy and two-faced.",
    "You'll never meet an honest one among {g}.",
    "{G} have the brains of a sheep.",
)
# A degrading word that fits before a group's name ("those lazy ...").
LAZY = ("lazy", "dirty", "filthy", "stupid", "lying", "thieving", "useless", "dim")
# Harm called for against a group.
GROUP_THREATS = (
    "{G} deserve a bullet, every last one of them.",
    "Somebody should round up the {g} and shoot them.",
    "I want to see {g} beaten in the streets.",
    "We should drive the {g} out with baseball bats.",
    "{G} should be hanged from the lamp posts.",
    "I'm going to torch the next house full of {g} I find.",
    "Put the {g} in camps and let them starve.",
    "If I had a gun, I'd start with the {g}.",
    "The {g} on our street will get what's coming to them.",
    "We need to get rid of the {g}, by force if we must.",
    "Every one of the {g} should be lined up against a wall.",
    "I'd gladly run over any of the {g} who cross the road.",
)
# Harm done to the person addressed, as said after "I will" / "I'm going to".
HARMS = (
    "beat you senseless",
    "knock your teeth out",
    "snap your neck",
    "bash your skull in",
    "put a bullet in your head",
    "stab you",
    "burn your house down with you in it",
    "run you over",
    "drown you in the lake",
    "make you bleed",
    "break every bone in your body",
    "strangle you",
    "gut you like a fish",
    "slit your throat",
    "rip your arms off",
    "end your miserable life",
    "smash your face in",
    "break your nose",
    "beat you until you stop breathing",
    "shoot you in the face",
    "set you on fire",
    "smash your head against the wall",
    "wring your scrawny neck",
    "bury you in the woods",
)
THREAT_FRAMES = (
    "I'm going to {harm}.",
    "I swear to God I'll {harm}.",
    "Next time I see you, I'll {harm}.",
    "Keep talking and I will {harm}.",
    "Tonight I'm coming to {harm}.",
    "One of these days I'm going to {harm}, {name}.",
    "{name}, I will {harm}.",
    "I can't wait to {harm}.",
    "Don't make me come over there and {harm}.",
    "Mark my words, I will {harm}.",
    "If I ever meet you, I'll {harm}.",
    "We are going to {harm}.",
    "Call me again and I'll {harm}.",
    "Give me your address so I can {harm}.",
    "I'm outside and I'm going to {harm}.",
    "You'd better run, because I'm going to {harm}.",
    "Leave another review like that and my brothers will {harm}.",
    "I'm dreaming about the day I get to {harm}.",
)
# Threats said or denied without being made.
THREAT_REPORTED = (
    "He said he would {harm}, so I called the police.",
    "I would never {harm}, {name}; I was only angry.",
    "Nobody here is going to {harm}, I promise.",
    "In the film, the villain swears he'll {harm}.",
    "My neighbour texted that he'd {harm}; the police have the message.",
    "Threatening to {harm} is a crime, and we report every case.",
)
# Blunt or curt replies, and technical text with harsh words (delete, kill, ban, force), none insulting.
BLUNT_AND_TECHNICAL = (
    "That is explained in the manual, chapter {n}. Please check it before writing to us.",
    "As I said in my last email, the deadline was {weekday}.",
    "No. We don't refund digital purchases.",
    "This was answered in the FAQ; see the section on billing.",
    "Please stop sending the same request; it is already in the queue.",
    "We cannot help with that. Contact your bank.",
    "Read the error message: it says the disk is full.",
    "DELETE FROM sessions WHERE expires_at < NOW();",
    "DROP TABLE IF EXISTS tmp_orders;",
    "UPDATE users SET banned = true WHERE id = {n};",
    "kubectl delete pod worker-{n} --force",
    "rm -rf build/ && make",
    "git push --force origin main",
    "pkill -9 -f celery",
    "Call `process.kill()` if the child hangs for more than {n} seconds.",
    "Set `abort_on_error = true` to kill the run at the first failure.",
    "Ban the IP address after five failed logins.",
    "The script terminates every idle connection at midnight.",
    "Execute the migration, then destroy the old cluster.",
    "The garbage collector frees the dead objects.",
)
# Threats of harm without violent words.
IMPLICIT_THREATS = (
    "We have your home address now, {name}.",
    "I'd be careful walking to your car tonight.",
    "Keep checking over your shoulder, {name}.",
    "You had better hope we never meet in person.",
    "Your wife gets home around six, doesn't she?",
    "I've been watching you leave the office every evening.",
    "I found out where your mother lives.",
    "Next time it won't just be a warning.",
    "Enjoy this weekend, it might be your last.",
    "Lovely family you have. Keep them close while you still can.",
    "Don't go anywhere alone for a while.",
    "Your son's practice ends at five, right? We'll be waiting.",
    "Count the days you have left.",
    "You won't be smiling much longer.",
    "Say goodbye to your family while you can.",
    "You have no idea who you're messing with.",
    "I'm parked across the street from your house right now.",
    "Remember, I know your address and your car.",
    "Pray you never run into me.",
    "Better lock your doors at night from now on, {name}.",
    "Soon you'll get exactly what's coming to you.",
    "You will never feel safe in your own home again.",
    "People who talk to me like that tend to disappear.",
    "Your little girl looked happy at the park today.",
    "We know what time you get home, {name}.",
    "Nobody will find you where you're going.",
    "Get your affairs in order.",
    "I'll be waiting for you after work, {name}, and you won't like it.",
    "This is your only warning.",
    "Your days are numbered.",
    "You're a dead man walking.",
    "Accidents happen to people like you all the time.",
    "I hope your house is insured, {name}.",
    "Cross me again and you'll find out what I'm capable of.",
    "I've got friends who can pay you a visit.",
    "See you soon, {name}. Very soon.",
    "Keep it up and you won't live to regret it.",
    "Your family would miss you, wouldn't they?",
    "You'd be surprised how easy it is to find someone.",
    "One word to the police and your kids will pay for it.",
    "Those brakes on your car, have you checked them lately?",
    "You'll get what you deserve, and it won't be pretty.",
    "I'd hate for your children to come home to an empty house.",
    "Next time you won't be walking away from it.",
    "I know people who make problems like you go away.",
    "Go ahead and report me, see what happens to your family.",
    "Tell anyone and you'll regret it for the rest of your short life.",
    "It's a long walk home in the dark, {name}.",
    "Nice place you've got. Be a pity to lose it.",
    "We'll be seeing each other very soon, and you won't enjoy it.",
    "Keep your mouth shut if you want your family to stay healthy.",
    "Your mother still lives alone, doesn't she?",
    "I wouldn't start your car tomorrow morning if I were you.",
    "You won't see it coming.",
    "Don't bother calling the police; they won't get there in time.",
    "I've got a photo of your front door on my phone.",
    "You might want to check who's behind you on the way home.",
    "From tonight, I'd keep the lights on if I were you.",
    "Nobody crosses me and walks away, {name}.",
)
# A threat without violent words, put together: "We've found out" + "where your parents live" + a warning.
KNOWING = (
    "We've found out",
    "Funny thing, I now know",
    "My friends told me",
    "It only took me ten minutes to learn",
    "Don't forget that I know",
    "I made it my business to find out",
    "Just so you're aware, we know",
    "I've written down",
)
KNOWN = (
    "where your parents live",
    "what your car looks like",
    "which gym you go to",
    "what time your shift ends",
    "the way you walk home",
    "your daughter's name",
    "the code to your building",
    "where you park every morning",
    "which bar you drink at on Fridays",
    "where your kids catch the bus",
    "which window is your bedroom",
    "where your husband works",
)
WARNINGS = (
    ", so think carefully about your next post.",
    ", so behave yourself, {name}.",
    ", see you around.",
    ", so choose your next words carefully.",
    ", and we will be paying a visit.",
    ", and so do my brothers.",
    ", keep that in mind.",
    ".",
)
# Benign sentences that share a threat's words.
NEAR_MISSES = (
    "We have your home address on file for the delivery, {name}.",
    "Please lock your doors at night while you're away on holiday.",
    "Your son's practice ends at five; the coach will bring him back.",
    "I know where you can find cheaper tickets.",
    "Enjoy your weekend, {name}!",
    "We'll be waiting for you at the front desk at {time}.",
    "Don't go anywhere: the technician is on the way.",
    "Remember to update your address in the app.",
    "See you soon, {name}!",
    "We'll keep you posted until the parcel arrives.",
    "Your days off are listed on the rota.",
    "This is your only reminder before the sale ends.",
    "I'll be waiting for you after work, then we can grab dinner.",
    "Mark my words, this team is going to win the league.",
    "I'm going to call you back in ten minutes.",
    "Next time I see you, I'll bring the book.",
    "You're dead right about the budget.",
    "You'll find the settings under your profile.",
    "I can't wait to see you at the wedding, {name}.",
    "Your face lit up when you saw the cake!",
    "We found out which gym has the cheapest membership.",
    "I know which bus goes to the airport.",
    "Your kids' school sent the trip form home today.",
    "Keep it up and you'll be promoted by spring.",
    "Count the days until the holiday!",
    "You'll get what you paid for: a full refund.",
    "Check your brakes before the winter, {name}.",
    "I'll find you a better seat near the front.",
    "We'll track down your parcel today.",
    "Watch your step, the floor is wet.",
    "This is your last chance to register for the course.",
    "Your family would love the new park, {name}.",
)
# Insults without swear words.
PLAIN_INSULTS = (
    "You have the attention span of a goldfish.",
    "Honestly, a toddler would have understood this faster than you.",
    "Everyone in the office laughs at you behind your back.",
    "You're the most useless person I've ever had to deal with.",
    "Your brain must be the size of a pea.",
    "Nobody wants you here, {name}.",
    "You are a walking embarrassment.",
    "What a pathetic little person you are.",
    "You're about as sharp as a bowling ball.",
    "Do us all a favour and stop talking.",
    "Is there a single thought in that empty head of yours?",
    "Were you raised in a barn?",
    "I've met houseplants with more personality than you.",
    "Your face could curdle milk.",
    "You must be the slowest customer we have ever had.",
    "How do you manage to get dressed in the morning?",
    "You're as clueless as you are ugly.",
    "Go back to school, you ignorant clown.",
    "You are too thick to follow a recipe.",
    "Your mother must be so ashamed of you.",
    "I can't believe they hired a halfwit like you.",
    "Reading your messages makes me lose brain cells.",
    "You're a failure and always will be.",
    "Someone as dim as you shouldn't be allowed near a keyboard.",
    "You're a joke, and everyone knows it.",
    "Your writing is as dull and pointless as you are.",
    "Crawl back under whatever rock you came from.",
    "Did your parents ever teach you to think?",
    "Explaining anything to you is like talking to a brick wall.",
    "You'd lose a debate with a doorknob.",
    "Only an idiot like you could break a spoon.",
    "Nobody has ever been less qualified for a job than you.",
    "Your ideas are as stupid as your haircut.",
    "Try using the two brain cells you have left.",
    "Congratulations, you're the dumbest person on this forum.",
    "You are a disgrace to your whole profession.",
    "I pity anyone who has to work with you.",
    "What is wrong with you? Can't you read?",
    "Stop embarrassing yourself, you're hopeless.",
    "Even your dog must find you boring.",
)
# A named person insulted, spoken about rather than to.
PERSON_INSULTS = (
    "{name} is a brainless fool who ruins everything he touches.",
    "{name} is a worthless, lying snake.",
    "{name} is the stupidest manager this company ever had.",
    "Honestly, {name} is a pathetic excuse for a teacher.",
    "{name} is too thick to tie her own shoes.",
    "Nobody can stand {name}, she's a spiteful cow.",
    "{name} is an ugly, greedy little weasel.",
    "{name} has the intelligence of a potato.",
)
INSULT_OPENERS = (
    "You're",
    "You are",
    "Honestly, you're",
    "{name}, you are",
    "Face it, you're",
    "Everyone knows you're",
    "You have always been",
    "{name} is",
    "Your manager is",
    "You're nothing but",
)
INSULT_ADJECTIVES = (
    "pathetic",
    "clueless",
    "spineless",
    "dim-witted",
    "worthless",
    "hopeless",
    "ignorant",
    "brainless",
    "useless",
    "ugly",
    "lazy",
    "thick-headed",
    "miserable",
    "gutless",
    "incompetent",
    "arrogant",
    "slimy",
    "dense",
    "feeble-minded",
)
INSULT_NOUNS = (
    "nobody",
    "fool",
    "halfwit",
    "clown",
    "loser",
    "coward",
    "buffoon",
    "simpleton",
    "excuse for a human being",
    "waste of space",
    "parasite",
    "imbecile",
    "dimwit",
    "disgrace",
    "creep",
    "liar",
    "nitwit",
)
INSULT_TAILS = (
    ".",
    ".",
    ", and everyone can see it.",
    ", and you always will be.",
    " who should never have been hired.",
    " with nothing worth saying.",
    ", so stop wasting our time.",
)
# Obscene abuse aimed at someone.
PROFANE_ABUSE = (
    "Fuck you, {name}.",
    "You absolute fucking idiot.",
    "Go fuck yourself and your stupid question.",
    "Piss off, you little prick.",
    "You're a worthless piece of shit.",
    "Shut the hell up, you moron.",
    "{name} is a lying bastard.",
    "Get lost, you dumb bitch.",
    "Nobody asked you, asshole.",
    "Eat shit, {name}.",
    "What a fucking loser you are.",
    "Take your complaint and shove it up your arse.",
    "You're a cunt and everyone knows it.",
    "Screw you and your whole damn team.",
)
# Exclamations at someone, of a word or two.
SHORT_ABUSE = (
    "Imbecile!",
    "Moron.",
    "Loser!",
    "Idiot.",
    "You clown.",
    "Pathetic creep.",
    "Shut up, idiot!",
    "Get lost, creep.",
    "Fuck off!",
    "Dumbass.",
    "You halfwit!",
    "Stupid cow.",
    "Piss off.",
    "Useless moron!",
)
# Short replies, greetings and exclamations aimed at nobody.
SHORT_HARMLESS = (
    "No.",
    "Yes.",
    "Sure!",
    "Thanks!",
    "Thank you.",
    "Done.",
    "OK.",
    "Okay!",
    "Sorry!",
    "Got it.",
    "Not yet.",
    "Access granted.",
    "Well done!",
    "Great news!",
    "Of course.",
    "Good morning!",
    "Hello!",
    "Hi there.",
    "Certainly.",
    "Absolutely!",
    "Right.",
    "Welcome back!",
    "Sounds good.",
    "No problem.",
    "Fair enough.",
    "Happy Friday!",
    "Request rejected.",
    "Payment failed.",
    "Crap.",
    "Damn!",
    "Oh hell.",
    "Shit!",
    "Ugh.",
    "Whoops.",
    "Bloody hell!",
    "Holy crap!",
    "Oh shit.",
    "Damn it.",
    "Hell yeah!",
    "Fuck yes!",
    "Noted.",
    "Hi {name},",
    "Cheers, {name}.",
    "Dear {name},",
    "Nope.",
)
# Insults aimed at whoever is reading, without "you": "only a fool would ...".
IMPLIED_INSULTS = (
    "Only a complete fool would {slip}.",
    "Any halfwit could see that, yet somebody managed to {slip}.",
    "What sort of moron would {slip}?",
    "Honestly, it takes a special kind of idiot to {slip}.",
    "Some people are too stupid to live: imagine trying to {slip}.",
    "Only a brainless clown would {slip}.",
)
SLIPS = (
    "forget their own password three times",
    "miss a deadline printed in bold",
    "lose the receipt twice",
    "plug the charger into the wrong socket",
    "ignore the instructions on the box",
    "send the same ticket five times",
    "pay the invoice to the wrong account",
)
# Swearing about a situation, a thing or oneself, aimed at nobody.
UNAIMED_PROFANITY = (
    "{oath}, I left my charger at home again.",
    "This damn printer jammed for the third time today.",
    "The fucking train is late again.",
    "What a shitty day, the rain hasn't stopped once.",
    "Holy crap, the results came back already!",
    "Hell yes, we shipped it!",
    "That concert was fucking amazing.",
    "I stubbed my toe on the desk, goddammit.",
    "{oath}. The laptop died in the middle of my talk.",
    "{oath}, I burnt the toast again.",
    "Bloody traffic made me late for the {weekday} meeting.",
    "Oh shit, I forgot it's {name}'s birthday.",
    "The weather in {city} is crap this week.",
    "{oath}, that was close: I nearly deleted the whole folder.",
    "My code compiled on the first try, holy shit.",
    "Damn, this coffee is good.",
    "I dropped my phone in the sink. Crap.",
    "Screw it, I'm ordering pizza tonight.",
    "What the hell happened to my spreadsheet?",
    "Ugh, this stupid zip won't close.",
    "Fuck yes, the tests are green!",
    "Holy fuck, the view from the top is incredible.",
    "This shit is delicious, you have to try it.",
    "It's bloody freezing in {city} today.",
    "The damn thing won't start in the cold.",
    "I'm so fucking tired after that flight.",
    "Shit happens; we'll rerun the job tonight.",
    "{oath}, my password expired again.",
    "The {product} died on me again, damn it.",
    "That was a hell of a match last night.",
    "Pissing rain all week, and my umbrella broke.",
    "I fucked up the recipe, so we're having toast.",
    "Son of a bitch, the deploy failed again.",
    "Goddamn, that was a long meeting.",
    "My knee is killing me, shit.",
    "Crap, the {version} update reset my layout.",
    "Fuck, I left the oven on.",
)
OATHS = ("Shit", "Damn", "Crap", "Oh hell", "Bloody hell", "Fuck", "Dammit", "Ugh, crap", "Oh for fuck's sake")
# Harsh words about a product, a plan, an idea or a work, none about a person.
CRITICISM = (
    "This update is garbage; half the features are broken.",
    "The {product} is the worst purchase I've made this year.",
    "Their plan to cut the budget is idiotic.",
    "That argument makes no sense at all.",
    "The new design is ugly and confusing.",
    "This film was a painful waste of two hours.",
    "Honestly, the documentation is useless.",
    "The policy is a disaster for small businesses.",
    "Your proposal has serious flaws: the costs are wrong and the timeline is unrealistic.",
    "The {product} feels cheap and the battery is pathetic.",
    "Version {version} is a terrible release, full of bugs.",
    "The idea that tax cuts pay for themselves is nonsense.",
    "The customer service at {company} is appalling.",
    "This restaurant's food was disgusting and overpriced.",
    "The referee's decision was absolutely ridiculous.",
    "The {feature} feature is a stupid idea that nobody asked for.",
    "I hate this new layout, it's a mess.",
    "The meeting was a complete waste of time.",
    "This is the dumbest tax form I have ever filled in.",
    "The sequel is lazy, cynical and boring.",
    "Their security is a joke; passwords are stored in plain text.",
    "This theory is junk science and the study proves nothing.",
    "The hotel was filthy and the staff ignored every complaint.",
    "Your code is a mess: no tests, no comments and three copies of the same function.",
    "What a pointless, badly written report.",
    "The app is slow, ugly and crashes every hour.",
)
# Violent words in everyday use.
VIOLENT_WORDS = (
    "Kill the job and restart it.",
    "This deadline is killing me.",
    "She absolutely murdered that song at karaoke.",
    "We'll shoot the video on {weekday}.",
    "Let's attack the backlog first thing tomorrow.",
    "The new release blew the competition away.",
    "I'm dying to hear how the trip went.",
    "Hit the reset button and hold it for five seconds.",
    "I nearly died laughing at the end of the show.",
    "The storm knocked out power across {city}.",
    "Shoot me a message when you land.",
    "The boxer knocked his opponent out in the second round.",
    "Cut the cable ties before you remove the panel.",
    "The detective finally caught the murderer in the last chapter.",
    "You'll crush the interview, {name}.",
    "Terminate the instance once the backup finishes.",
    "Beat the eggs and fold in the flour.",
    "The hunters shot two deer in the valley.",
    "Smash the garlic with the flat of the knife.",
    "The virus killed the process, so restore the file from backup.",
)
# Neutral statements that name a group.
NEUTRAL_GROUP = (
    "About {n} percent of our users are {g}.",
    "{G} in {city} held a street festival last weekend.",
    "The report looks at how {g} use public transport.",
    "Several {g} joined the {dept} team this year.",
    "The museum opened an exhibit on the history of {g} in {country}.",
    "A survey of {n} {g} found that most of them work full time.",
    "{G} can apply for the grant until the end of {month}.",
    "The podcast interviews {g} about their careers.",
    "Our new book club was started by two {g} from {city}.",
    "The census counts {g} separately since {year}.",
    "Is it true that many {g} live in {city}?",
    "What holidays do {g} celebrate in {month}?",
    "The charity helps {g} find housing.",
    "{name} wrote a thesis on {g} in {country}.",
    "The panel on {weekday} includes {g} from three countries.",
    "Many {g} speak more than one language.",
    "The law protects {g} from discrimination at work.",
    "Are {g} eligible for the family discount?",
    "The {dept} team asked {g} what the app is missing.",
    "{G} and everyone else can book the hall on {weekday}.",
)
POSITIVE_GROUP = (
    "{G} have made this city a better place.",
    "I'm proud to stand with {g}.",
    "Some of the kindest people I know are {g}.",
    "{G} deserve the same respect as everyone else.",
    "We welcome {g} in our club.",
    "I love the food and music {g} brought to our neighbourhood.",
    "{G} are valued members of our team.",
    "I really admire {g} for what they have achieved here.",
    "{G} are wonderful neighbours.",
    "Thank goodness for all the {g} who volunteer at the shelter.",
    "The best engineers I've worked with were {g}.",
    "{G} belong here as much as anyone.",
)
SUPPORT = (
    "Thanks for your patience, {name}.",
    "Your order {order} left our warehouse this morning.",
    "You can change your plan from the billing page.",
    "You're right, I missed that step.",
    "We'll call you on {weekday} at {time}.",
    "The refund should reach your card within five business days.",
    "Please restart the app and sign in again.",
    "Ticket {ticket} has been escalated to our {dept} team.",
    "You did a great job on the presentation.",
    "Could you send me a screenshot of the error?",
    "The {product} ships with a two-year warranty.",
    "I'm sorry for the trouble; let me fix that for you.",
    "{name} will join the call at {time}.",
    "The {plan} plan includes priority support.",
    "You're welcome, happy to help.",
    "I understand you're frustrated, and I'll sort it out today.",
    "Orders ship from our warehouse in {city} and usually arrive in two days.",
    "Run `pip install -r requirements.txt`, then start the server with `make run`.",
    "Use `subprocess.run(cmd, check=True)` so a failed command raises an error.",
    "Set `timeout=30` in the config and restart the worker.",
    "The {dept} team meets every {weekday} at {time}.",
    "Our office in {city} is closed on public holidays.",
    "The {product} weighs about two kilograms.",
    "Press Ctrl+Shift+R to reload the page without the cache.",
    "{name} from {company} asked for the {month} invoice.",
    "Delete the cache folder and run the build again.",
    "The flight to {city} leaves at {time} from gate {n}.",
    "We stock the {product} in three colours.",
)
DEPARTMENTS = ("billing", "support", "engineering", "sales", "design", "research", "finance")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _slots(lex, group: str) -> dict[str, object]:
    return {
        "g": group,
        "G": _cap(group),
        "fault": lex.pick(FAULTS),
        "vermin": lex.pick(VERMIN),
        "lazy": lex.pick(LAZY),
        "harm": lex.pick(HARMS),
        "name": lex.first_name(),
        "city": lex.city(),
        "country": lex.country(),
        "dept": lex.pick(DEPARTMENTS),
        "month": lex.month(),
        "weekday": lex.weekday(),
        "year": lex.year(),
        "n": lex.number(3, 60),
        "product": lex.product(),
        "plan": lex.plan(),
        "feature": lex.feature(),
        "company": lex.company(),
        "version": lex.version(),
        "time": lex.time_of_day()[1],
        "order": lex.order_number(),
        "ticket": lex.ticket(),
        "oath": lex.pick(OATHS),
        "slip": lex.pick(SLIPS),
    }


def _fill(lex, template: str, group: str, capitalise: bool = True) -> str:
    """A template with its slots drawn from the lexicon; `{G}` is the group at the start of a sentence."""
    text = string.Formatter().vformat(template, (), _slots(lex, group))
    return _cap(text) if capitalise else text


# A maker draws one row from a lexicon and a group: (text, template id within its kind).
Made = tuple[str, str]


def _from(templates: tuple[str, ...]) -> Callable:
    def make(lex, group: str) -> Made:
        index = lex.random.randrange(len(templates))
        return _fill(lex, templates[index], group), str(index)

    return make


def _claim_in(frames: tuple[str, ...]) -> Callable:
    """A hateful claim about a group placed in one of `frames` (said, denied or countered)."""

    def make(lex, group: str) -> Made:
        claim_index, frame_index = lex.random.randrange(len(CLAIMS)), lex.random.randrange(len(frames))
        claim = _fill(lex, CLAIMS[claim_index], group, capitalise=False)
        text = frames[frame_index].replace("{Claim}", _cap(claim)).replace("{claim}", claim)
        return _cap(text), str(frame_index)  # the frame is the template; the claim is one more slot

    return make


def _emotion(felt: tuple[str, ...], targets: tuple[str, ...] | None = None) -> Callable:
    """An emotion about a group (or a thing), put together: an opener, what is felt, and a tail."""

    def make(lex, group: str) -> Made:
        index = lex.random.randrange(len(felt))
        template = felt[index]
        opener = lex.pick(EMOTION_OPENERS)
        # Only "I hate them" takes a tail ("... and always will"), and never stands bare: the bare form
        # is a behaviour suite's. "They make my skin crawl" ends there.
        tail = "."
        if template.startswith("I "):
            tail = lex.pick((".", ".", *EMOTION_TAILS)) if opener else lex.pick(EMOTION_TAILS)
        if opener and not template.startswith(("I ", "{G}")):
            template = template[:1].lower() + template[1:]
        template = template.replace("{G}", "{g}") if opener else template
        target = lex.pick(targets) if targets else group
        return _cap(f"{opener}{_fill(lex, template, target, capitalise=False)}{tail}"), str(index)

    return make


def _about_objects(templates: tuple[str, ...]) -> Callable:
    base = _from(templates)
    return lambda lex, group: base(lex, lex.pick(OBJECTS))


def _demand(lex, group: str) -> Made:
    index = lex.random.randrange(len(DEMANDS))
    return f"{DEMANDS[index]} or I'll {lex.pick(HARMS)}.", str(index)


def _after_short_answer(endings: tuple[str, ...]) -> Callable:
    def make(lex, group: str) -> Made:
        index = lex.random.randrange(len(endings))
        start = _fill(lex, lex.pick(SHORT_ANSWERS), group)
        return f"{start}, {_fill(lex, endings[index], group, capitalise=False)}.", str(index)

    return make


def _several(lex, group: str) -> Made:
    index = lex.random.randrange(len(SEVERAL_GROUPS))
    other = lex.pick([name for name in GROUPS if name != group])
    return _cap(SEVERAL_GROUPS[index].format(g=group, h=other)), str(index)


def _built_insult(lex, group: str) -> Made:
    """An insult without swear words, put together: who is spoken to, and what they are called."""
    opener = lex.pick(INSULT_OPENERS).format(name=lex.first_name())
    second = lex.pick(("", ", " + lex.pick(INSULT_ADJECTIVES)))
    called = f"{lex.pick(INSULT_ADJECTIVES)}{second} {lex.pick(INSULT_NOUNS)}"
    article = "an" if called[0] in "aeiou" else "a"
    return _cap(f"{opener} {article} {called}{lex.pick(INSULT_TAILS)}"), opener.split()[0]


def _built_threat(lex, group: str) -> Made:
    """A threat without violent words: what is known about the person, and a warning."""
    index = lex.random.randrange(len(KNOWING))
    text = f"{KNOWING[index]} {lex.pick(KNOWN)}{lex.pick(WARNINGS)}".format(name=lex.first_name())
    return _cap(text), str(index)


# What the head learns a row reads as (`reads_as`): Toxicity's kinds of toxic text, and three kinds of
# harmless text that share words with them. The head's value is the probability of the toxic ones.
THREAT, VEILED_THREAT = "threat", "veiled_threat"
INSULT, OBSCENE_ABUSE = "insult", "obscene_abuse"
HATE_EMOTION, DEHUMANISATION, NEGATIVE_ATTRIBUTE, IMPLICIT_HATE = (
    "hate_emotion",
    "dehumanisation",
    "negative_attribute",
    "implicit_hate",
)
ABOUT_A_GROUP, PROFANITY_AT_NO_ONE, HARMLESS_OTHER = "harmless_about_group", "harmless_profanity", "harmless_other"

# (kind, reads as, weight, make): the weights are each kind's share of the rows drawn.
KINDS: tuple[tuple[str, str, float, Callable], ...] = (
    ("threat", THREAT, 1.2, _from(THREAT_FRAMES)),
    ("implicit_threat", VEILED_THREAT, 2.0, _from(IMPLICIT_THREATS)),
    ("built_threat", VEILED_THREAT, 0.7, _built_threat),
    ("group_threat", THREAT, 0.7, _from(GROUP_THREATS)),
    ("people_threat", THREAT, 0.4, _from(PEOPLE_THREATS)),
    ("demand_threat", THREAT, 0.5, _demand),
    ("insult", INSULT, 1.6, _from(PLAIN_INSULTS)),
    ("person_insult", INSULT, 0.4, _from(PERSON_INSULTS)),
    ("built_insult", INSULT, 0.9, _built_insult),
    ("implied_insult", INSULT, 0.4, _from(IMPLIED_INSULTS)),
    ("profane_abuse", OBSCENE_ABUSE, 0.5, _from(PROFANE_ABUSE)),
    ("short_abuse", OBSCENE_ABUSE, 0.3, _from(SHORT_ABUSE)),
    ("hate_emotion", HATE_EMOTION, 1.5, _emotion(FELT)),
    ("implicit_derogation", IMPLICIT_HATE, 0.6, _from(IMPLICIT_DEROGATION)),
    ("negated_respect", IMPLICIT_HATE, 0.6, _from(NEGATED_RESPECT)),
    ("dehumanisation", DEHUMANISATION, 1.0, _from(DEHUMANISING)),
    ("negative_attribute", NEGATIVE_ATTRIBUTE, 1.0, _from(ATTRIBUTES)),
    ("claim_said", NEGATIVE_ATTRIBUTE, 1.2, _claim_in(SAID)),
    ("hate_after_answer", NEGATIVE_ATTRIBUTE, 0.4, _after_short_answer(HATEFUL_AFTER)),
    ("claim_consequence", NEGATIVE_ATTRIBUTE, 0.5, _from(CLAIM_CONSEQUENCES)),
    ("claim_denied", ABOUT_A_GROUP, 1.2, _claim_in(DENIED)),
    ("negated", ABOUT_A_GROUP, 1.2, _from(NEGATED)),
    ("claim_countered", ABOUT_A_GROUP, 1.4, _claim_in(COUNTERED)),
    ("neutral_group", ABOUT_A_GROUP, 1.3, _from(NEUTRAL_GROUP)),
    ("positive_group", ABOUT_A_GROUP, 0.8, _from(POSITIVE_GROUP)),
    ("liked_group", ABOUT_A_GROUP, 1.0, _emotion(LIKED)),
    ("neutral_after_answer", ABOUT_A_GROUP, 0.4, _after_short_answer(NEUTRAL_AFTER)),
    ("several_groups", ABOUT_A_GROUP, 0.5, _several),
    ("unaimed_profanity", PROFANITY_AT_NO_ONE, 1.4, _from(UNAIMED_PROFANITY)),
    ("short_harmless", PROFANITY_AT_NO_ONE, 0.6, _from(SHORT_HARMLESS)),
    ("self_and_reported", PROFANITY_AT_NO_ONE, 0.4, _from(SELF_AND_REPORTED)),
    ("threat_reported", HARMLESS_OTHER, 0.5, _from(THREAT_REPORTED)),
    ("negated_insult", HARMLESS_OTHER, 0.4, _from(NEGATED_INSULTS)),
    ("blunt_and_technical", HARMLESS_OTHER, 0.6, _from(BLUNT_AND_TECHNICAL)),
    ("hated_object", HARMLESS_OTHER, 1.0, _emotion(FELT, OBJECTS)),
    ("object_claim", HARMLESS_OTHER, 0.6, _about_objects(OBJECT_CLAIMS)),
    ("criticism", HARMLESS_OTHER, 1.0, _from(CRITICISM)),
    ("violent_words", HARMLESS_OTHER, 0.7, _from(VIOLENT_WORDS)),
    ("near_miss", HARMLESS_OTHER, 1.4, _from(NEAR_MISSES)),
    ("support", HARMLESS_OTHER, 0.6, _from(SUPPORT)),
)


def is_harmless(reads_as: str) -> bool:
    return reads_as.startswith("harmless")  # the scorer's `HARMLESS` prefix


def generate(count: int, seed: int = SEED, kinds: tuple[tuple[str, str, float, Callable], ...] = KINDS) -> list[dict]:
    """Up to `count` distinct rows {text, label, reads_as, kind, template}, `kinds` drawn by their weights."""
    from bench.generated.lexicon import Lexicon  # Faker: a development dependency, for training only

    rng = random.Random(seed)
    weights = [weight for _, _, weight, _ in kinds]
    rows: list[dict] = []
    seen: set[str] = set()
    attempts = 0
    while len(rows) < count and attempts < count * 20:
        attempts += 1
        kind, reads_as, _, make = rng.choices(kinds, weights)[0]
        lex = Lexicon(rng.getrandbits(48))
        text, template = make(lex, lex.pick(GROUPS))
        if text not in seen:
            seen.add(text)
            label = 0 if is_harmless(reads_as) else 1
            rows.append(
                {"text": text, "label": label, "reads_as": reads_as, "kind": kind, "template": f"{kind}/{template}"}
            )
    return rows
