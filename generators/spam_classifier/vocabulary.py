"""Word lists the message templates draw from.

Plain data, written for this project. Lists are whitespace-separated strings
so they stay compact; `words()` turns one into a tuple. Every entry is ASCII on
purpose: non-ASCII characters are added only by the noise step, so that a test
can recognise mojibake by its marker characters.
"""

from __future__ import annotations

FIRST_NAMES = """
aaron abby adam adrian aisha alan albert alex alice alina amir amy ana andre andrew
angela anna anton april arjun arthur ben bianca bill bruno caleb camila carl carla
carmen carol celia chen chloe chris claire clara colin connor dan dana daniel david
dean diana diego dylan eddie elena eli elias ella emily emma eric erin ethan eva
farah felix fiona frank gabriel gail george gina grace greg hana hannah harry hassan
helen henry hugo ian ingrid irene isaac ivan jack jacob jade james jamie jane jason
javier jean jenna jess jim joan joe john jonas jordan jose julia julian june karen
karl kate keith kenji kevin kim kira laura lee leo leon liam lily linda lisa logan
lucas lucy luis luke maya marco maria mark marta mary mateo max megan mia michael
mike mila mina nadia nancy naomi nathan neil nick nina noah nora oliver olga omar
oscar owen pablo paul paula peter petra priya quinn rachel rafael raj ravi rebecca
rita rob robin rosa ruby ryan sam sara sean selma simon sofia sophie stella steve
susan tara ted theo tina tom tony uma vera victor vince walter wendy will xavier
yara yusuf zach zoe
"""

LAST_NAMES = """
abbott acosta adams ahmed alvarez andersen archer arnold bailey baker banks barnes
bauer bell bennett berg bishop black blake bose boyd brandt brooks brown bryant
burke burns byrne campbell carter castillo chan chapman clark cole collins cooper
cruz dalton davies dawson diaz dixon doyle duncan edwards ellis evans farrell
fischer fleming flores ford foster fox fraser garcia gibson gill gomez gordon
graham grant gray green gupta hall hansen hart hayes henderson hill hoffman holmes
howard hughes hunt iyer jensen johnson jones kaur keller kelly khan kim klein
knight kumar lambert lane larsen lawson lewis lindqvist lopez lucas lynch marsh
martin mason meyer miller mills mitchell moore morales moreno morgan murphy nash
nelson nguyen novak obrien olsen ortiz owens park parker patel pearson perez perry
peters porter powell price quinn ramos reed reyes richter rivera roberts rossi
russell ryan sanchez santos schmidt scott shah sharma shaw silva singh smith
stewart sullivan tanaka taylor thomas torres turner vargas vogel wagner walker
wallace ward watson weber wells white wilson wong wright young zhang
"""

CITIES = """
amsterdam athens austin berlin bogota boston brisbane brussels budapest cairo
calgary chicago copenhagen dallas delhi denver dublin edinburgh glasgow hamburg
helsinki houston istanbul jakarta leeds lima lisbon liverpool london lyon madrid
manchester marseille melbourne miami milan montreal mumbai munich nairobi naples
oslo ottawa paris perth phoenix porto prague quito rome rotterdam seattle seoul
seville singapore sofia stockholm sydney tallinn tokyo toronto turin utrecht
valencia vancouver vienna vilnius warsaw zurich
"""

DAYS = "monday tuesday wednesday thursday friday saturday sunday"

MONTHS = "january february march april may june july august september october november december"

# Company names are compounds of a prefix and a suffix ("Northgate", "Bluefield").
COMPANY_PREFIXES = """
north south east west blue green red silver gold iron stone river lake hill oak
pine cedar maple bright clear swift true first prime star sun moon cloud harbor
bay brook field glen high long new old summit ridge vale wood crest rock
"""

COMPANY_SUFFIXES = """
gate field works point line bridge stone way port well wood side view craft
forge hub labs mark path shore tech ware worth dale haven ford
"""

# Spam brand names are compounds too, with a different flavour ("Vitaboost", "Slimrx").
BRAND_PREFIXES = """
vita slim max mega ultra turbo hyper power flex pro nutri keto lux glow zen
bio derma cash coin lotto win lucky fast easy quick smart
"""

BRAND_SUFFIXES = """
boost max plus rx pro zone flow fit gain pure life burn core wave line direct
deal cash bit pay
"""

# Work, school and family life: what ham is about.
HAM_NOUNS = """
agenda appointment approval assignment audit backlog badge benchmark birthday
booking briefing brochure budget building calendar campaign candidate catalogue
chapter checklist client colleague committee conference contract course dashboard
database deadline deck deliverable department deposit diagram draft estimate
exhibition expense feedback figures forecast form handbook handover headcount
hearing homework hotel interview inventory invoice itinerary kickoff laptop
lecture lease lunch manuscript milestone minutes mockup newsletter notes offsite
onboarding outline parcel payroll permit pitch planning playbook policy portfolio
poster presentation printer proposal prototype quarter questionnaire receipt
recipe recording release renovation rent report reservation review roadmap roster
rota schedule semester seminar shift shipment slides spreadsheet sprint statement
storyboard summary supplier survey syllabus tenant thesis ticket timesheet
timeline training transcript tutorial upgrade vendor venue visa warehouse
webinar whiteboard workshop
"""

HAM_VERBS = """
review update confirm schedule share send attach check discuss finish prepare
approve sign forward print book cancel move postpone organise submit upload
draft edit proofread summarise test fix deploy merge plan cover collect deliver
arrange invite remind follow clarify compare renew order return reschedule
"""

HAM_ADJECTIVES = """
quarterly weekly monthly annual final revised updated shared internal external
current previous upcoming latest early late short long quick brief detailed
rough clean formal informal new old small large spare extra second third
"""

HAM_PLACES = """
kitchen lobby library office cafeteria basement garage studio lab gym reception
canteen boardroom attic garden patio corridor classroom
"""

HAM_LEISURE = """
hiking cycling football tennis chess baking gardening swimming climbing running
painting pottery knitting fishing sailing camping yoga karaoke trivia bowling
"""

HAM_FOOD = """
pizza sandwiches coffee tea cake bagels salad soup pasta curry tacos sushi
cookies muffins croissants noodles dumplings pancakes
"""

HAM_TEAMS = """
finance marketing sales design engineering support legal operations research
procurement logistics facilities security admissions accounts analytics
"""

# Prizes, pills, money and urgency: what spam is about.
SPAM_NOUNS = """
prize jackpot reward bonus voucher coupon giftcard sweepstakes lottery winner
inheritance beneficiary fortune payout refund rebate cashback discount bargain
clearance deal offer trial sample subscription membership upgrade password login
account verification suspension security alert wallet crypto bitcoin token
investment portfolio returns profit income loan mortgage credit debt approval
pills supplement capsules formula cream serum diet weightloss wrinkles hair
viagra pharmacy prescription replica watches handbags sunglasses casino slots
spins poker betting webcam singles dating romance
"""

SPAM_VERBS = """
claim win unlock activate redeem grab secure verify confirm reactivate restore
double triple earn boost burn lose shrink erase reverse cure melt order subscribe
join register download install click reply call act hurry
"""

SPAM_ADJECTIVES = """
exclusive limited guaranteed instant free amazing incredible exciting secret
unbelievable risk-free miracle premium luxury cheap discounted lowest biggest
fastest urgent final important confidential selected lucky special certified
approved clinical natural powerful proven
"""

SPAM_URGENCY = """
today tonight now immediately urgently quickly asap
"""

WEEKDAY_TIMES = "9:00 9:30 10:00 10:30 11:00 11:30 12:00 13:00 13:30 14:00 14:30 15:00 15:30 16:00 16:30 17:00"


def words(block: str) -> tuple[str, ...]:
    """The words of one whitespace-separated list, in order, without duplicates."""
    return tuple(dict.fromkeys(block.split()))


def compounds(prefixes: str, suffixes: str) -> tuple[str, ...]:
    """Every prefix+suffix pair, capitalised: a large vocabulary of plausible names."""
    return tuple(p.capitalize() + s for p in words(prefixes) for s in words(suffixes))
