"""Cue-led fact slots (:func:`trigger_slots`): where the user lives and comes from, employer,
occupation, name and pets, in English and Chinese. Pure."""

from __future__ import annotations

import re
from dataclasses import replace

from ..lexicon import JOB_HEADS_EN, is_place, topic_of
from ..segment import REGION_PREFIX_ZH as _REGION_PREFIX
from ..segment import strip_time, zh_city, zh_place, zh_words, zh_workplace
from .diet import DIET
from .holder import health_holder
from .model import Slot, bound_open, clean_value
from .preference import TZ_EN, said_timezone

_MONTHS_EN = (
    "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    "|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_NOT_BASED_EN = (
    "plant|home|remote|office|cloud|web|browser|server|desktop|terminal|evidence|research|value"
    "|team|community|faith|skill|merit|rule|text|token|data|cash|water|oil|paper|gas|soy|milk"
    "|fruit|sugar|commission|performance|location|role|subscription|usage|credit|agent|event"
    "|project|app|java|python|linux|windows|unix|react|node|cookie|film|tea|coffee|science"
    "|market|risk|usage|seat|time|task|fee|grant|tuition|school|church|campus|family"
)
"""Words before "-based" that name no place ("plant-based", "home-based", "evidence-based")."""
_PLACE_EN = r"(?P<o>[A-Z][\w'.-]+(?:\s(?:[A-Z][\w'.-]+|de|do|da|on|upon))*)"
_LOCATION_EN = re.compile(
    r"(?:\b(?i:live|living|lives|based|located|settled|moved|relocated|relocating|staying)"
    r"\s+(?:here\s+|back\s+|over\s+)?(?:from\s+[A-Z][\w'.-]*(?:\s[A-Z][\w'.-]*)?\s+)?(?:in|to|too|out\s+of)"
    r"|\bwork(?:ing)?\s+remote(?:ly)?\s+from|\bcall\s+(?=[A-Z][\w'.-]*(?:\s[A-Z][\w'.-]*)?\s+home\b)"
    r"|(?:^|[,;—–]\s*)(?:(?i:but|and)\s+)?(?i:now)\s+(?:(?i:living|based)\s+)?in"
    r"|\b(?i:i'm|i am|we're|we are)\s+(?:now\s+)?in"
    r"|\b(?i:i've|i have|we've|we have)\s+(?:been\s+)?(?:living\s+|based\s+)?in"
    r"|\b(?:flat|apartment|house|home)\s+in|\b(?i:here|out\s+here|over\s+here)\s+in"
    r"|\b(?i:for\s+(?:me|us))\s+(?:(?i:here|out\s+here|over\s+here)\s+)?in"
    r"|\b(?:ended|wound|winding|ending)\s+up\s+(?:living\s+|settling\s+)?in|\blanded\s+in)"
    r"(?!\s*(?:the\s+)?(?:ER|ICU|A&E|(?i:hospital|emergency))\b)\s*(?:the\s+)?"
    + r"(?:"
    + _PLACE_EN
    + r"|(?P<z>[\u4e00-\u9fff]{2,8}))"
    + r"|(?:\b(?i:i'm|i am|we're|we are|for\s+context,?)\s+|(?:^|[,.;:!?—–(，。；：、|]\s*))"
    r"(?!(?i:" + _NOT_BASED_EN + r")[- ]based)(?P<b>[A-Z][\w.]+(?:\s[A-Z][\w.]+)?)[- ]based\b"
    r"(?!\s+(?i:on|off|upon|around|startup|company|firm|agency|client|team|studio|band|brand"
    r"|shop|business|customer|bank|fintech|org|organi[sz]ation|nonprofit|charity|group)\b)"
)
_SPAN_EN = (
    r"(?:(?:for|about|almost|nearly|over|like|going\s+on)\s+){0,2}(?:\d+|a|an|one|two|three|four"
    r"|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a\s+few|a\s+couple(?:\s+of)?"
    r"|several|many)\+?\s*(?:years?|yrs?|decades?)\b|since\s+(?:\d{4}|(?i:" + _MONTHS_EN + r")\b"
    r"|(?:high\s+school|college|uni|university|grad\s+school|the\s+pandemic|covid))"
)
"""How long the user has lived somewhere ("4 yrs", "for a decade", "since 2019"): years, not a
stay of days or weeks."""
_STAYED_EN = re.compile(
    r"(?:^|[,.;:!?—–]\s*|\b(?i:i've|i have|we've|we have|i|we)\s+)"
    r"(?:(?i:been\s+(?:living\s+|based\s+)?in)\s+(?:the\s+)?"
    + _PLACE_EN
    + r"\s+(?:(?i:now|already)\s+)?(?i:"
    + _SPAN_EN
    + r")"
    r"|(?i:lived\s+in)\s+(?:the\s+)?"
    + _PLACE_EN.replace("?P<o>", "?P<o2>")
    + r"\s+(?i:"
    + _SPAN_EN
    + r")\s+(?i:now|so\s+far|and\s+counting|already)\b)"
)
""""Lived in Montreal for 8 years now", "Been in Glasgow 3 years now": a place the user has
lived in for years (said without "I've", or with a plain past that reaches "now")."""
_GREETED_FROM = re.compile(
    r"(?i:\b(?:greetings|hello|hi|hey|howdy|waving|writing|cheers|love))\s+(?i:from)\s+"
    r"(?i:(?:sunny|rainy|snowy|freezing|foggy|beautiful|lovely|gorgeous|cold|hot|humid|windy"
    r"|grey|gray|good\s+old)\s+)?"
    r"(?:(?P<o>[A-Z][\w'.-]+(?:\s[A-Z][\w'.-]+)?)|(?P<z>[\u4e00-\u9fff]{2,8}))"
)
""""Greetings from NYC", "Hello from 上海": a place the user writes from, which is where they
live only when they say they have been there for years (:data:`_BEEN_HERE`)."""
_BEEN_HERE = re.compile(
    r"(?i:\b(?:been|lived|living|based|settled)\s+(?:(?:over\s+)?here|here|in\s+(?:this|that)"
    r"\s+(?:city|town))\s+(?:(?:now|already)\s+)?(?:" + _SPAN_EN + r")"
    r"|\b(?:been|lived)\s+(?:(?:over\s+)?here)\s+(?:" + _SPAN_EN + r")"
    r"|\bhere\s+(?:for\s+|since\s+)(?:"
    + _SPAN_EN
    + r")|\b(?:been\s+)?living\s+here\b|\bcall\s+(?:it|this\s+place)\s+home\b)"
    r"|在这(?:边|里|儿)(?:已经)?(?:待|呆|住|生活|定居)了?(?:快|有|差不多|整整)?"
    r"[\d一二三四五六七八九十两几半]+(?:多)?年|来这(?:边|里|儿)(?:都|已经)?(?:快|有)?"
    r"[\d一二三四五六七八九十两几半]+(?:多)?年|(?:定居|扎根)(?:在)?这(?:边|里|儿)"
)
""""been here 4 yrs now", "been living here since 2019", "在这边待了三年了": the place the
clause names is the user's home (years there, not a trip's days)."""


def here_place(clause: str) -> Slot | None:
    """The location of a clause that names where the user writes from and says they have
    lived "here" for years ("Greetings from NYC 🗽 — been here 4 yrs now", "Hello from
    Melbourne, been living here since 2019", "Greetings from 上海，在这边待了三年了"); None when
    either is missing (a trip: "greetings from Barcelona, here for a wedding")."""
    m = _GREETED_FROM.search(clause)
    if m is None or not _BEEN_HERE.search(clause, m.end()):
        return None
    if m.group("z"):
        place = zh_place(m.group("z")) or _named_place(m.group("z"), strong=True)
        return Slot("user", "location", _city(place)) if place else None
    value = clean_value(m.group("o"))
    if not value or value.lower() in _NOT_A_SUBJECT_EN or TZ_EN.fullmatch(value):
        return None
    return Slot("user", "location", value)


def continues_here(previous: str, clause: str) -> bool:
    """True when ``clause`` only says how long the user has been "here" and ``previous`` (the
    sentence before it) names where they write from ("Greetings from Oslo! Been here about
    six years now."): the two sentences are read as one (see :func:`here_place`)."""
    m = _BEEN_HERE.match(clause.strip()) or re.match(r"(?i)\s*(?:i've|i have|we've)\s+", clause)
    if m is None or not _BEEN_HERE.search(clause):
        return False
    greeted = _GREETED_FROM.search(previous)
    return greeted is not None and here_place(f"{previous} {clause}") is not None


_HOMETOWN_EN = re.compile(
    r"\b(?i:originally\s+from|i'm\s+(?:originally\s+)?from|i am\s+(?:originally\s+)?from|grew up in"
    r"|spent\s+my\s+(?:childhood|early\s+years|whole\s+childhood)\s+in"
    r"|born and raised in|(?:i\s+was\s+|i'm\s+|i\s+am\s+)?born\s+in|my hometown is|i come from"
    r"|(?:i\s+was\s+)?raised\s+in"
    r"|hail from)\s+(?:the\s+)?(?!(?i:" + _MONTHS_EN + r")\b)"
    r"(?i:(?:a\s+)?(?:small\s+|tiny\s+|little\s+)?(?:town|village|city|place)\s+(?:near|outside"
    r"(?:\s+of)?|in|close to|called|named)\s+)?(?:" + _PLACE_EN + r"|(?P<z>[\u4e00-\u9fff]{2,8}))"
)
""""I'm originally from Porto", "I'm from 西安 originally" (a Chinese place after English
words): where the user is from."""
_EMPLOYER_EN = re.compile(
    r"(?:\b(?i:work|working|works)\s+(?:(?i:remotely|full-?time|part-?time)\s+)?(?:at|for)"
    r"|\b[Ii]'m\s+(?:now\s+)?at|\bjoined|\bjob\s+at|\b(?:started|starting|start)\s+at"
    r"|\b(?i:i've|i have)\s+been\s+at"
    r"|\b(?:engineer|developer|designer|manager|analyst|lead|scientist|nurse|teacher|doctor"
    r"|accountant|consultant|researcher|intern|director|architect|editor|writer|practitioner"
    r"|assistant|technician|specialist|student)\s+at"
    r"|\b(?:head|director|vp|chief)\s+of\s+[a-z][\w-]*\s+at"
    r"|\b(?i:employed)\s+(?:by|at)|\b(?i:my)\s+(?i:company|employer|startup|firm|workplace)\s*,"
    r"|\b(?:company|startup|firm|agency|fintech|bank|studio|shop)\s+(?:called|named)"
    r"|\b(?i:i'm|im|i’m|i am)\s+(?i:a|an)\s+(?:[\w-]+\s){0,3}?[\w-]+\s+(?i:at|for))\s+"
    r"(?P<o>[A-Z][\w&.'-]*(?:\s[A-Z][\w&.'-]*)*|[\u4e00-\u9fff]{2,8}(?=\s*(?:[，,。!！]|$)))"
)
_OCCUPATION_EN = re.compile(
    r"(?i)\b(?:i'm|i’m|im|i am"
    r"|(?:i\s+)?(?:work|working|freelance|freelancing|moonlight|moonlighting"
    r"|employed)(?:\s+(?:nights|days|weekends|part-?time|full-?time|remotely|mostly))?\s+as"
    r"|(?:i've|i have|i’ve)?\s*been)"
    r"\s+(?:(?:now|finally|currently|actually|officially|still|also|just|basically)\s+)?"
    r"(?:a|an|the)\s+"
    r"(?P<o>(?:head|director|vp|chief)\s+of\s+[a-z][\w-]*"
    r"|(?:stay-at-home|stay\s+at\s+home|full-time|work-from-home)\s+(?:dad|mom|mum|parent|father"
    r"|mother)|homemaker|housewife|househusband"
    r"|(?:[\w-]+\s){0,3}?(?:engineer|developer|programmer|teacher|doctor|nurse|designer"
    r"|student|scientist|manager|lawyer|analyst|researcher|writer|accountant|consultant"
    r"|architect|professor|chef|pilot|illustrator|translator|lead|owner|freelancer|editor"
    r"|pharmacist|therapist|electrician|plumber|founder|intern|officer|artist|photographer"
    r"|musician|librarian|paramedic|firefighter|vet|dentist|surgeon|tester|admin|barista|dev"
    r"|physio|midwife|carer|caregiver|assistant|technician|specialist|hygienist)(?:\s(?:engineer|developer|designer|manager|analyst|scientist"
    r"|architect|consultant|researcher|nurse|practitioner|assistant|technician|specialist"
    r"|student|lead))?)\b"
)
_JOB_STOP_EN = (
    r"(?=\s*(?:[,.;:!?—–()]|\s-\s|$|\s(?:and|but|so|which|since|because|at|in|for|from|on"
    r"|with|last|this|next|yesterday|today|now|there|here|lol|haha)\b))"
)
_ORG_AS_JOB_EN = re.compile(
    r"\b(?i:at|for|with|join(?:ed|ing)?)\s+(?P<org>[A-Z][\w&.'-]*(?:\s[A-Z][\w&.'-]*){0,3})\s+"
    r"(?i:(?:(?:next|this|last)\s+\w+|in\s+\w+|on\s+\w+|tomorrow|today|now)\s+)?"
    r"(?i:as)\s+(?i:(?:a|an|the|their|our|its|my)\s+)?(?i:(?:new|first|only|sole)\s+)?"
    r"(?P<job>[A-Za-z][\w-]*(?:\s[A-Za-z][\w-]*){0,3}?)" + _JOB_STOP_EN
)
""""I start at Globex on Monday as their new head of design", "still at Monzo as a product
manager": the organisation and the job it names, whatever the verb (typos included)."""
_JOB_AT_EN = re.compile(
    r"(?i)(?:^|[—–,:;(]\s*|\s-\s|\bas\s+(?:a|an)\s+)(?P<job>(?:[a-z][\w-]*\s){0,3}?(?:engineer|developer|designer"
    r"|manager|analyst|scientist|lead|researcher|consultant|architect|nurse|teacher|accountant"
    r"|writer|editor|producer|director|intern|officer|admin|dev|pm|sre|qa|cto|ceo|cfo|coo|dba))\s+"
    r"(?:at|for|with)\s+(?:[A-Z]|(?:a|an)\s+(?:[\w-]+\s+){1,2}?(?:called|named)\s+[A-Z])"
)
""""senior QA engineer at Vandelay" said as a part of its own, or "a new job as a product
designer at Loomly": the job."""
_PROMOTED_EN = re.compile(
    r"(?i)\b(?:promoted|bumped(?:\s+up)?|moved\s+up|stepped\s+up)\s+to\s+(?:(?:a|an|the)\s+)?"
    r"(?P<job>[a-z][\w-]*(?:\s[a-z][\w-]*){0,3}?)" + _JOB_STOP_EN
)
""""got promoted to staff engineer last week": the job the user holds now."""
_NAME_EN = re.compile(
    r"(?i:\bname'?s|\bmy name is|\bi go by|\bcall me|\bit's"
    r"|\b(?:everyone|everybody|people|folks|most people)\s+calls?\s+me)\s+"
    r"(?!(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun))"
    r"(?P<o>[A-Z][a-z]+)\b(?!\s*\d)(?!\s+now\b)"
)
_NOT_INTRO = (
    "Fine|Good|Sorry|Back|Here|Done|Ready|Tired|Okay|Ok|Sure|Not|So|Just|Also|Still|Really|Very"
    "|New|Happy|Glad|Excited|Vegan|Vegetarian|Allergic|Originally|From|In|At|On|The|A|An"
)
_INTRO_NAME_EN = re.compile(
    r"^(?i:(?:hi|hey|hello)[,!.]*\s+)?(?i:i'm|i am|this is)\s+(?!(?:" + _NOT_INTRO + r")\b)"
    r"(?P<o>[A-Z][a-z]+)(?=\s*(?:[—–,.!;]|\s-\s|\bhere\b|\bfrom\s+the\b|$))"
)
""""I'm Tom — …", "Hi, this is Priya.": a name introduced at the start of a turn."""
_PETS = (
    "golden retriever|labrador|beagle|corgi|poodle|husky|dachshund|greyhound|terrier|bulldog"
    "|shiba|border collie|collie|pug|chihuahua|shih tzu|dalmatian|schnauzer|maine coon"
    "|siamese cat|persian cat|ragdoll cat|tabby cat|ginger cat|siamese|ragdoll|tabby"
    "|cockatiel|gecko|lizard|snake|iguana|chinchilla|hedgehog|axolotl"
    "|puppy|kitten|dog|cat|rabbit|bunny|hamster|parrot|budgie|guinea pig|tortoise|turtle"
    "|goldfish|ferret"
)
_GENERIC_PETS = frozenset({"puppy", "kitten", "狗狗", "猫咪"})
"""Pet words another pet named in the same clause makes more specific ("a new puppy!! a
little corgi" → corgi)."""
_PET_EN = re.compile(
    rf"(?i)\b(?:have|has|got|adopted|getting|own)\s+(?:a|an|two|three|\d+|my|our)?\s*"
    rf"(?:(?:little|new|old|rescue|sweet|\d+-year-old)\s+)*(?P<o>{_PETS})s?\b"
    rf"|\b(?:a|an|our|my)\s+(?:(?:little|new|old|rescue|sweet|fat|\d+-year-old)\s+)*"
    rf"(?P<o2>{_PETS})\s+(?:named|called)\b"
)
_MY_PET_EN = re.compile(
    rf"(?i)\b(?:my|our)\s+(?:(?:little|new|old|rescue|sweet|fat|senior|\d+-year-old)\s+)*"
    rf"(?P<o>{_PETS})\b(?=\s+(?-i:[A-Z][a-z]+)\b|\s+(?:is|was|has|had|just|keeps|ate|loves|hates)\b"
    r"|(?:'s|’s)\s+name\b)"
)
""""my dog Biscuit ate my charger", "my cat is 12 now": a pet the user has, by name or by what
it is or does (not "my dog allergy", "my cat food order")."""
_ALSO_PET_EN = re.compile(rf"(?i)\b(?:and|&)\s+(?:a|an|two|three|\d+)\s+(?P<o>{_PETS})s?\b")
_COUNTED_PETS_EN = re.compile(
    rf"(?i)^(?:(?:we|i)\s+(?:have|got|own)\s+)?(?:two|three|four|five|\d+)\s+(?P<o>{_PETS})s\b"
    r"(?=\s*,\s*[A-Z])"
)
""""two rabbits, Pip and Juniper, basically run my kitchen": pets counted and then named."""
_PETS_ZH = (
    "金毛|拉布拉多|柯基|泰迪|哈士奇|柴犬|比格|边牧|布偶猫|布偶|英短蓝猫|英短|美短|暹罗猫|暹罗|橘猫"
    "|狸花猫|蓝猫|加菲猫|萨摩耶|博美|比熊|雪纳瑞|法斗|德牧|阿拉斯加|秋田|龙猫|刺猬|金鱼|蜥蜴"
    "|土狗|猫|狗|兔子|仓鼠|鹦鹉|乌龟"
)
_PET_ZH = re.compile(
    rf"(?:养了?|有|领养了?|收养了?)(?:一只|只|两只|一条|条|个)?(?:老|小|大|胖)?\s*(?P<o>{_PETS_ZH}"
    rf"|(?i:{_PETS})(?![A-Za-z]))"
    rf"|(?:我家|我们家|家里|我的)(?:的|那|这|那只|这只|那条|这条|两只|俩|那俩)?\s*(?P<o2>{_PETS_ZH}"
    rf"|(?i:{_PETS})(?![A-Za-z]))"
    rf"|(?<![不])是(?:一)?(?:只|条)(?P<o3>{_PETS_ZH})"
)
_LOCATION_ZH = re.compile(
    r"(?<![不没])(?:住在|住|定居在?|搬到了?|搬去了?|人在|生活在|来到了?|坐标|常驻|在"
    r"|(?i:\bbased?)\s*(?:在|in)?\s*)(?P<o>[^，,。！!？?\s]{2,10})"
)
_ZH_JOBS = (
    "工程师|程序员|老师|教师|医生|护士|设计师|学生|研究生|博士生|经理|律师助理|律师|研究员|分析师|会计师"
    "|会计|作家|架构师|教授|厨师|产品经理|运营|销售|司机|记者|编辑|主播|店主|老板|后端开发|前端开发"
    "|全栈开发|开发|测试开发|测试|运维|产品|翻译|公务员|警察|消防员|药剂师|咖啡师|理发师|摄影师|导游"
    "|飞行员|空乘|客服|教练|主编|自由职业者|自由职业|程序猿|码农|实习生|助理|秘书|保安|快递员|外卖员"
    "|全职妈妈|全职爸爸|全职太太|全职奶爸|家庭主妇|家庭主夫|宝妈|班主任|辅导员|插画师|画师|剪辑师|调酒师"
)
OCC_ZH = re.compile(
    r"(?:我(?:是|现在是|目前是|在做|做|当|干|是干|是搞)|本人(?:是)?|转行(?:做|当)了?|(?<![叫让])(?:当|做|干)了?)"
    r"(?:了?(?:快|近|将近|整整)?[\d一二三四五六七八九十两几半]+\s*(?:多)?(?:年|个月)(?:多)?(?:的)?)?"
    r"(?:一名|一个|个|名)?"
    rf"\s*(?P<o>(?:[A-Za-z][\w-]*\s*){{0,2}}?[\u4e00-\u9fff]{{0,4}}?(?:{_ZH_JOBS}))"
    r"(?![\u4e00-\u9fff]*?(?:的事|的活|饭|菜))"
)
_HEAD_JOB_ZH = re.compile(
    rf"的\s*(?P<o>[\u4e00-\u9fff]{{0,4}}?(?:{_ZH_JOBS})|[\u4e00-\u9fff]{{1,4}}?(?:师|员))"
    r"(?=\s*(?:[，,。！!？?；;]|$|了|呢|啊|吧))"
)
""""自由职业的摄影师": after a job word that only qualifies ("自由职业的"), the job it qualifies."""
_JOB_SUFFIX_ZH = re.compile(
    r"(?:^|[，,。\s])(?:我(?:其实|现在|目前)?是|本人(?:是)?|现在是|目前是|准确说是|升(?:职)?(?:成|为)了?)"
    r"(?:一名|一个|个|名)?\s*"
    r"(?P<o>[\u4e00-\u9fff]{1,6}?(?:师|员|士|长|工|官|生|警|医|家))(?=[，,。！!？?；;]|的|了|$)"
    r"|我(?:是)?(?:做|干|搞)(?P<o2>[\u4e00-\u9fff]{2,8}?)的"
)
"""A job said with the shape of a job word ("本人护士", "准确说是护士长", "我是做医疗器械销售的"):
a noun ending on a job suffix after "我是/本人", or what the user "does" (我是做X的)."""
_NOT_JOB_ZH = re.compile(r"^(?:人|男生|女生|新生|独生|一家|北京|上海|本地|外地|老家|学生家)|人$")
_JOB_SUFFIX_EN = re.compile(
    r"(?i)\b(?:i'm|i’m|im|i am)\s+(?:now\s+|actually\s+|currently\s+)?(?:a|an)\s+"
    r"(?P<o>(?:[\w-]+\s){0,2}?[a-z-]+(?:er|or|ist|ian|ant|ent|wife|man|woman|smith|eer|ic))\b"
    r"(?!\s+(?:of|fan|lover|person|type|kind)\b)"
)
"""A job said as "I'm a/an <noun>" whose head has the shape of a job word (-er, -or, -ist…):
"I'm a midwife", "I'm an actuary" is not matched; see :data:`_NOT_JOBS_EN`."""
_NOT_JOBS_EN = frozenset(
    {
        "vegetarian", "vegan", "pescatarian", "mother", "father", "brother", "sister",
        "daughter", "member", "beginner", "fan", "lover", "believer", "user", "customer",
        "owner", "partner", "parent", "grandparent", "foreigner", "newcomer", "introvert",
        "extrovert", "morning", "night", "quick", "fast", "slow", "early", "late", "big",
        "huge", "total", "former", "other", "winner", "loser", "player", "reader", "learner",
        "speaker", "native", "resident", "citizen", "student", "patient", "adult", "teenager",
        "person", "human", "man", "woman", "gentleman", "christian", "muslim", "libertarian",
        "vet", "veteran", "lefty", "smoker", "drinker", "runner", "swimmer", "gamer",
        "minimalist", "perfectionist", "optimist", "pessimist", "realist", "tourist",
        "australian", "canadian", "italian", "brazilian", "indian", "norwegian", "iranian",
        "russian", "belgian", "egyptian", "hungarian", "peruvian", "colombian", "croatian",
        "american", "african", "asian", "european", "german",
    }
)  # fmt: skip
_EN_JOB_WORDS = JOB_HEADS_EN
_OCC_MIXED = re.compile(
    r"(?:做|当|是)\s*(?:一名|一个|个)?\s*(?P<o>(?:[A-Za-z][\w-]*\s+){0,3}"
    rf"(?:(?i:{_EN_JOB_WORDS})|PM|SRE|QA|HR|CTO|CEO|CFO|DBA|UX|UI|PO|BA))(?![\w])"
)
"""An English job inside a Chinese sentence ("在一家 startup 做 PM", "做 data analyst")."""
_ZH_JOB_IN_EN = re.compile(
    rf"\b(?i:i'm|i am|i work as)\s+(?:(?i:a|an)\s*)?(?P<o>[\u4e00-\u9fff]{{0,4}}?(?:{_ZH_JOBS}))"
)
""""I'm a 老师, teaching math": a Chinese job in an English sentence."""
_TEACH_ZH = re.compile(
    r"(?:我|在[^，,。！!？?\s]{1,10}?)教(?P<o>语文|数学|英语|物理|化学|生物|历史|地理|政治|音乐|美术|体育"
    r"|编程|钢琴|舞蹈|瑜伽|英文|中文|日语)"
)
_TEACH_EN = re.compile(r"(?i)\bi\s+(?:currently\s+|now\s+)?teach\s+(?P<o>[\w -]+)")
_AS_JOB = re.compile(
    r"(?i)(?:^|(?<=[,:;—–(])\s*|\s-\s|\b(?P<self>speaking|talking|writing|asking)\s+)as\s+(?:a|an)\s+"
    rf"(?P<o>(?:[a-z][\w-]*\s){{0,3}}?(?:{_EN_JOB_WORDS}|[a-z-]+(?:ist|ian))s?"
    r"|[\u4e00-\u9fff]{0,4}?(?:" + _ZH_JOBS + r"))(?![\w-])"
    r"|作为(?:一名|一个|一位|名|个)?\s*(?P<z>(?:[A-Za-z][\w-]*\s+){0,3}?(?i:" + _EN_JOB_WORDS + r")"
    r"|[\u4e00-\u9fff]{0,6}?(?:" + _ZH_JOBS + r"))(?![\w-])"
)
"""A job the user speaks as ("as a middle-school science teacher I grade…", "Speaking as a
backend developer, …", "作为一名小学英语老师，我…"): the user's own when the first person follows
(or the speaker says they speak as one), not "As a teacher, what would you do?"."""
_AS_ME = re.compile(
    r"(?i)\s*(?:(?:with|of|in|at|for|on)\s+[^,.;!?，。]{1,40}?)?\s*[,，]?\s*(?:i|i'm|i've|i'd|my|me)\b"
    r"|[^。！!？?]{0,4}?我"
)
_JOB_AFTER_NOUN_ZH = re.compile(
    r"(?:^|[，,。；;\s]|后|本人|我是)\s*(?P<o>(?:(?![我是])[\u4e00-\u9fff]){0,4}?(?:"
    + _ZH_JOBS
    + r"))\s*"
    r"(?:一枚|一名|一只|出身)(?=[，,。！!？?；;\s~]|$)"
)
"""A job said as a noun before 一枚 / 一名 / 出身 ("95后程序员一枚", "会计出身"): the user's."""
_FIELD_ZH = re.compile(
    r"(?:我|还是|一直|主要|专门|目前|现在|本职|平时)(?:是)?(?:在)?(?:做|搞|干)"
    r"(?P<o>(?:前端|后端|全栈|嵌入式|算法|客户端|移动端|大数据|数据分析|数据挖掘|机器学习|深度学习"
    r"|硬件|风控|审计|投行|咨询|测试|运维)(?:开发|工程师)?)"
    r"(?=[，,。！!？?；;\s]|$|的|了|这块|方面|相关)"
)
"""A line of work said after 做/搞 ("还是做前端", "我主要做嵌入式"): the user's job."""


def colloquial_job(clause: str) -> str | None:
    """The job a clause says in a colloquial shape (:data:`_AS_JOB`,
    :data:`_JOB_AFTER_NOUN_ZH`, :data:`_FIELD_ZH`), or None."""
    for m in _AS_JOB.finditer(clause):
        job = m.group("o") or m.group("z")
        head = job.split()[-1].lower() if job.split() else ""
        if head in _NOT_JOBS_EN or DIET.search(job):
            continue  # "as a vegetarian, I…", "as a beginner"
        if m.group("self") or _AS_ME.match(clause, m.end()):
            return job.lower() if job.isascii() else job
    said = _JOB_AFTER_NOUN_ZH.search(clause) or _FIELD_ZH.search(clause)
    return said.group("o") if said else None


_PARK = re.compile(r"(?:科技园|产业园|工业园|软件园|创业园|园区|大厦|写字楼|商务区|(?i:CBD))$")


def park_city(span: str) -> str | None:
    """The city of a workplace said as a business park or office building ("深圳南山科技园",
    "望京SOHO大厦" has none): the place where the user works, not an organisation; None when
    ``span`` names no such park."""
    span = re.sub(r"^在", "", span.strip())
    if not _PARK.search(span):
        return None
    place = zh_place(span)
    city = _city(place) if place else None
    if city and _PARK.search(city):  # "苏州工业园区" read as one place: its first place word
        first = next((w for w in zh_words(city) if w[0].strip()), None)
        if first and first[0] == city:  # one word for it all: the city its name starts with
            heads = [city[:n] for n in (2, 3) if [f for _, f in zh_words(city[:n])] == ["ns"]]
            city = heads[0] if heads else None
        else:
            city = first[0] if first and first[1] == "ns" and len(first[0]) >= 2 else None
    return city if city and not _PARK.search(city) else None


def city_of(place: str) -> str:
    """The city of a Chinese place (:func:`_city`), for the rule tables."""
    return _city(place)


def _city(place: str) -> str:
    """The city of a Chinese place said with its province or country first ("山东青岛" →
    青岛, "美国西雅图" → 西雅图), its district after it ("深圳南山区" → 深圳), or a district or
    landmark jieba tags as a place of its own ("杭州西湖" → 杭州, "北京海淀" → 北京)."""

    city = zh_city(_REGION_PREFIX.sub("", place) or place)
    words = [w for w in zh_words(city) if w[0].strip()]
    if len(words) >= 2 and len(words[0][0]) >= 2 and all(f == "ns" for _, f in words):
        return words[0][0]  # "杭州西湖", "北京海淀": the city, then a place inside it
    return city


def _region_only(place: str) -> bool:
    """True when ``place`` is a province, region or country alone ("东北", "河南省"): a
    hometown that a city said beside it makes more specific."""
    m = _REGION_PREFIX.match(place + "城市")  # the prefix needs a city after it
    return m is not None and m.end() == len(place)


_BORN_PLACE_EN = re.compile(
    r"(?:^|[,.;:!?—–]\s*)(?!(?:My|Our|The|A|An|I|We|His|Her|Their|Your|Not|Am)\b)"
    r"(?P<o>[A-Z][\w'.-]+(?:\s[A-Z][\w'.-]+)?)[- ]"
    r"(?i:born(?:\s+and\s+(?:raised|bred))?"
    r"|native|raised)\b"
)
""""Chicago born and raised", "Glasgow-born": the hometown said before "born"."""
_LATIN_PLACE_ZH = r"[A-Z][A-Za-z'’.-]*[A-Za-z](?:\s[A-Z][A-Za-z'’.-]*[A-Za-z])?"
"""A place written in Latin letters inside a Chinese clause ("Xi'an", "New York")."""
_HOMETOWN_ZH = re.compile(
    r"(?:老家|家乡)(?:是|在)?(?P<o>[^，,。！!？?\s]{2,8})|我(?:们)?(?:是|一个|这个)?(?P<o2>[^，,。！!？?\s的是]{2,5}?)人(?![家们])"
    r"|(?:来自|出生在|出生于|生在|长在)(?P<o3>[^，,。！!？?\s]{2,8})"
    r"|(?:^|[，,。；;\s])(?P<o4>[\u4e00-\u9fff]{2,4}?)人(?=[，,。！!？?；;\s]|$)"
    r"|(?:我们家|我家|我)(?:是|就是)(?!在|从)(?P<o5>[\u4e00-\u9fff]{2,6}?)的(?:人)?(?=[，,。！!？?；;\s]|$)"
    r"|(?:老家|家乡)\s*(?:是|在)?\s*(?P<o6>" + _LATIN_PLACE_ZH + r")"
    r"|我(?:是|也是|本来是|其实是|原本是)?从\s*(?P<o7>"
    + _LATIN_PLACE_ZH
    + r"|[\u4e00-\u9fff]{2,8}?)\s*"
    r"(?:过)?来的"
    r"|在\s*(?P<o8>" + _LATIN_PLACE_ZH + r"|[\u4e00-\u9fff]{2,8}?)\s*(?:长大|土生土长)"
)
"""Where the user is from: "老家…", "我是X人", "来自…", "我是X的", "我从X来的", "(从小)在X长大"."""
_CAME_TO_ZH = re.compile(
    r"(?:来|到|搬来|搬到)(?P<o>[^，,。！!？?\s]{2,6}?)(?:都|已经|也)?(?:快|有|差不多|整整)?"
    r"[\d一二三四五六七八九十两几半]+(?:多)?(?:年|个月)"
)
""""来广州都快五年了": the user has lived there that long."""
_WORK_ZH = re.compile(
    r"(?<![现正实存好所])在\s*(?P<o>[^，,。！!？?\s]{2,12}?|[A-Za-z][\w&.-]*(?: [A-Z][\w&.-]*)*)\s*"
    r"(?:上班|工作|工做|做|当|任职|干)"
)
_JOINED_ZH = re.compile(
    r"(?:跳槽?到了?|离职去了?|入职了?|加入了?|(?i:\bjoin(?:ed)?)\s+|去了?(?=\S{2,12}?(?:上班|工作)))"
    r"\s*(?P<o>[A-Za-z][\w&.-]*(?: [A-Z][\w&.-]*)*|[\u4e00-\u9fff]{2,12}?)"
    r"\s*(?:上班|工作|了|啦|$|[，,。！!])"
)
"""A move to an organisation ("去年跳到了美团", "离职去拼多多了", "已经 join Stripe 了")."""
_AT_ORG_ZH = re.compile(
    r"(?:^|[，,。；;\s])(?:但|不过)?(?:现在|目前|如今|眼下)?(?:人)?在\s*"
    r"(?P<o>[A-Z][\w&.-]*(?:\s[A-Z][\w&.-]*)*|[\u4e00-\u9fff]{2,8}?)\s*(?:了|呢|啦)?\s*(?=[，,。!！;；]|$)"
)
"""A part that is only "在 <X>" ("我是 senior frontend engineer，在 Shopee", "从阿里离职了，现在在
美团"): the user's workplace when the clause names their job or a job they left."""
_NOT_AN_ORG_ZH = re.compile(r"当|做|干|教|上班|工作|写|画|读|学|家")
"""Words that make "在 X" a deed ("在上海当律师", "在家接单"), not a workplace."""
_LEFT_JOB_ZH = re.compile(r"离职|辞职|跳槽|跳到|裸辞|不干了|走人了|(?i:\bleft\b|\bquit\b)")
_NAME_ZH = re.compile(
    r"(?:^|[，,。\s])(?:我是|我叫|叫我|(?i:i'm|i am))\s*(?P<o>[A-Z][a-z]+|[\u4e00-\u9fff]{2,3})"
    r"(?=\s*(?:[，,。!！;；]|$|就(?:好|行|可以)|好了))"
)
"""A self-introduction in a Chinese or mixed clause ("我是张伟，…", "我是 Kevin, …", "叫我 Kevin
就好")."""
_ROLE_ZH = re.compile(
    r"(?:做|当|任职|担任)\s*(?P<r>[^，,。！!？?；;]{1,20}?)(?:的工作|工作|的)?(?=[，,。！!？?；;]|$)"
)
"""The job after "在<org>做/当…" ("在平安做理赔", "在字节做 backend engineer")."""


NOT_A_JOB_EN = re.compile(
    r"(?i)^(?:well|usual|always|before|such|much|soon|long|far|good|much|part|one|a|it|that|this"
    r"|well as|of|per|if|though|planned|expected|promised)\b|\b(?:time|day|week|month|year)s?$"
)
"""Words after "as" / "promoted to" that are no job ("as well", "as usual", "as planned")."""


_PROMOTED_ZH = re.compile(
    r"(?:升职|晋升|升|转正)(?:成了?|为|到了?|当上了?|做了?)|当上了|(?i:promoted?|promote了)\s*(?:成|为|to)?"
)
_JOB_AFTER_ZH = re.compile(
    r"\s*(?P<o>[A-Za-z][A-Za-z-]*(?:\s[A-Za-z][A-Za-z-]*){0,3}?|[\u4e00-\u9fff]{2,8}?)"
    r"\s*(?=\s*(?:了|啦|[，,。！!？?；;]|$))"
)
""""刚升职当上了技术总监", "刚promote成senior engineer了": the job after a promotion."""
_ORG_JOB_ZH = re.compile(
    r"我是(?:一名|一个|一位|个|名)?(?P<org>[\u4e00-\u9fffA-Za-z]{2,10}?)的(?P<job>[\u4e00-\u9fffA-Za-z]{1,8}?"
    r"(?:主管|经理|总监|工程师|设计师|老师|医生|护士|律师|会计|分析师|运营|销售|专员|助理|顾问"
    r"|架构师|开发|测试|主任|组长|负责人|CEO|CTO|PM))(?=[，,。！!；;\s]|$)"
)
""""我是华信物流的运营主管": the organisation and the job."""
_GENERIC_ORG_ZH = re.compile(
    r"(?:一家|一所|一个)?(?:小|大|私立|公立|本地|当地)?(?:小学|中学|初中|高中|大学|学校|医院|公司|银行"
    r"|律所|工厂|药店|诊所|幼儿园|外企|国企|私企|创业公司)"
)
"""A kind of organisation, not its name ("一家医院", "小学"): no employer."""
_SCHOOL_GRADE_ZH = re.compile(
    r"(?:小学|初中|高中|大学)?(?:[初高大][一二三四]|[一二三四五六七八九]年级|毕业班|实验班)(?:的)?"
)
"""A school grade ("初二", "高三", "五年级"), which a job may be of, never an organisation."""
_NAMED_ORG_ZH = re.compile(
    r"叫\s*(?P<o>[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z&.\s]{1,11}?)\s*的"
    r"(?:公司|企业|单位|工作室|创业公司)"
    r"|(?:公司|企业|单位|工作室|律所|事务所|所)(?:[^。！!？?；;]{0,12}?[，,])?\s*"
    r"(?:(?:的)?(?:名字?|全称|名称)(?:是|叫)|叫)\s*"
    r"(?P<o2>[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z&.\s]{1,15}?)"
    r"(?=[，,。！!；;]|$)"
)
""""一家叫云帆科技的公司", "一家做跨境电商的公司，叫海贝", "公司全称是星河科技有限公司",
"所名叫明德律师事务所": the organisation by its name."""
_MOVED_LATIN_ZH = re.compile(
    r"(?:搬(?:去|到|来)了?|(?i:mov(?:e|ed|ing))\s*(?:到|去)|住在|住|定居在?|生活在|人在|坐标|常驻)\s*"
    r"(?P<o>[A-Z][A-Za-z]+(?:\s[A-Z][A-Za-z]+)?)"
)
""""上个月搬去Singapore了": a move to a place written in Latin letters."""
_LIVES_LATIN_ZH = re.compile(
    r"在\s*(?P<o>" + _LATIN_PLACE_ZH + r")\s*"
    r"(?:(?P<study>读书|念书|读博|读研|上学|上大学|留学|读PhD|读 PhD)|生活|定居|住|待着|呆着)"
    r"(?!的时候|的那几年)"
)
""""现在在 London 读书", "在 Munich 读博", "在 Lisbon 生活": where the user studies or lives,
written in Latin letters (a school's acronym, "在 MIT 读书", is no place)."""


_PAST = re.compile(
    r"(?i)\b(?:used to|previously|formerly|back then|my (?:old|last|previous) (?:job|place|company)"
    r"|old job|last job)\b|以前|之前|曾经|原来|过去|上一家|老东家|前东家"
)
"""A past state ("I used to live in Lyon", "以前在上海", "之前在 Toronto"): a value said in a part
with one of these words is never the current value."""
_PART_END = re.compile(r"[,，;；。.!！?？]|\s(?:but|and now|now)\s|\s-\s|[—–]")


_JOB_IN_EN = re.compile(
    rf"(?:\b(?i:{_EN_JOB_WORDS}|teacher|nurse|physio|chef|barista)s?"
    r"|\b(?i:teach(?:es|ing)?)\s+[\w -]{1,40}?)"
    r"(?:\s+(?i:at|for)\s+(?i:a|an|the)\s+(?:[\w-]+\s+){0,3}?)?\s+(?i:in)\s+(?:the\s+)?"
    r"(?:(?P<o>[A-Z][\w'.-]+(?:\s[A-Z][\w'.-]+)?)|(?P<z>[\u4e00-\u9fff]{2,5}))"
)
""""I'm a nurse in Leeds", "I teach chemistry at a high school in Ghent", "math teacher in 南京":
the place a job is done in is where the user lives."""


_NOT_A_SUBJECT_EN = frozenset(
    {"it", "this", "that", "here", "there", "home", "which", "what", "where", "who", "i", "we"}
)
_VALUE_FIRST_EN = re.compile(
    r"(?:^|[,.;:!?—–]\s*|\s-\s)(?:(?i:honestly|so|well|anyway|btw|fyi|yeah|and|but),?\s+)?"
    r"(?P<o>[A-Z][\w'.&-]*(?:\s(?:[A-Z][\w'.&-]*|de|da|do|of|on|upon|and|&)){0,3}?)"
    r"(?:'s|’s|\s+is|\s+has\s+been)\s+(?i:(?:now|still|basically|officially|currently|finally|"
    r"where\s+(?:i|we)\s+(?:(?:now|currently|still|actually)\s+)?(?:call\s+)?)\s*)*"
    r"(?i:(?P<loc>live|lives|living|'m\s+based|am\s+based|are\s+based|'re\s+based|stay|home"
    r"|my\s+(?:home|city|base|home\s+base)|our\s+(?:home|city|base))"
    r"|(?P<work>work|my\s+(?:employer|company|workplace)|i\s+work)"
    r"|(?P<from>grew\s+up|was\s+born|'m\s+from|am\s+from|come\s+from"
    r"|my\s+(?:hometown|home\s+town)))\b"
)
""""Acme is where I work", "Lisbon is home now", "Denver's where I live", "Porto is my
hometown": a proper name said before the words that make it the user's employer, home or
hometown (the value first, the attribute after it)."""
_VALUE_FIRST_ZH = re.compile(
    r"(?P<o>[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z&. ]{1,11}?)(?:就)?是我(?:们)?"
    r"(?:现在|目前|一直)?"
    r"(?:(?P<work>上班|工作|任职)|(?P<loc>住|生活|定居)|(?P<from>长大|出生))的地方"
)
""""腾讯是我上班的地方", "成都是我现在住的地方": the value first, then what it is to the user."""


def value_first_slots(clause: str) -> list[Slot]:
    """The employer, home or hometown of a clause that says the value before the attribute
    (:data:`_VALUE_FIRST_EN`, :data:`_VALUE_FIRST_ZH`): the name must be a proper name (capitalised,
    no pronoun or "home") in English, a place or an organisation jieba reads in Chinese."""
    out: list[Slot] = []
    for m in [*_VALUE_FIRST_EN.finditer(clause), *_VALUE_FIRST_ZH.finditer(clause)]:
        value = clean_value(m.group("o"))
        if not value or value.lower() in _NOT_A_SUBJECT_EN or TZ_EN.fullmatch(value):
            continue
        predicate = "employer" if m.group("work") else "location" if m.group("loc") else "hometown"
        if not value.isascii():
            place = zh_place(value)
            if predicate != "employer":
                if place is None:
                    continue
                value = _city(place)
        out.append(Slot("user", predicate, value))
    return out


_PET_NAME = re.compile(
    r"\b(?i:named|called|name\s+is|name's|name’s|names\s+are)\s+"
    r"(?P<o>[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?(?:(?:\s*,\s*|\s+(?:and|&)\s+|,\s*and\s+)[A-Z][\w'-]*)*"
    r"|(?!(?:after|for|by|it|him|her|them|that|this|a|an|the)\b)[a-z][\w'-]*(?=\s*(?:[,.;!?]|$)))"
    r"|(?i:\b(?:my|our)\s+(?:(?:little|new|old|rescue|sweet|fat|senior)\s+)?(?:" + _PETS + r"))\s+"
    r"(?P<p>[A-Z][a-z]+)\b"
    r"|(?:叫|名字(?:是|叫)|名叫)(?:它|他|她)?\s*"
    r"(?P<z>[A-Za-z][\w'-]*|[\u4e00-\u9fff]{1,4}?)"
    r"(?=\s*(?:[，,。！!？?；;~]|$|的|了|吧|哦|呢|(?:另)?一只|还有|和|跟))"
)
""""a cat named Pickle", "her name is Luna", "叫豆豆", "名字叫 Max": the name given to a pet."""


def pet_name_slots(clause: str) -> list[Slot]:
    """The names the user gives the pets named in ``clause`` (:data:`_PET_NAME`: "a cat named
    Pickle", "一只叫芝麻一只叫汤圆"), once a pet is found there; none when no name follows a
    naming word ("named after my grandma"). Two names are two values (multi-valued)."""
    names: list[str] = []
    for m in _PET_NAME.finditer(clause):
        if re.search(r"叫我|我叫", clause[max(0, m.start() - 1) : m.end()]):
            continue
        said = m.group("o") or m.group("p") or m.group("z") or ""
        for name in re.split(r"\s*(?:,\s*and\s+|,\s*|\s+(?:and|&)\s+)", said):
            name = clean_value(name)
            if name and name not in names:
                names.append(name)
    return [Slot("user", "pet_name", n, multi_valued=len(names) > 1) for n in names]


def pet_name_slot(clause: str) -> Slot | None:
    """The first of :func:`pet_name_slots`, or None."""
    found = pet_name_slots(clause)
    return found[0] if found else None


_MINE_CALLED = re.compile(
    r"\b(?i:mine|my\s+own)(?:'s|’s|\s+is)\s+(?i:called|named)\s+(?P<o>[A-Z][\w'-]*|[a-z][\w'-]*(?=\s*(?:[,.;!?]|$)))"
)
_PET_WORD = re.compile(rf"(?i)\b(?:{_PETS})s?\b|{_PETS_ZH}")


def pet_name_correction(clause: str) -> Slot | None:
    """The pet's name a correction gives ("Pepper is my sister's cat, mine's called Ziggy",
    "no, her name's Momo. Mochi was my sister's cat"): the name after "mine's called", or
    after a naming word in a clause that names a pet; None otherwise."""
    m = _MINE_CALLED.search(clause)
    if m is not None:
        return Slot("user", "pet_name", m.group("o"))
    return pet_name_slot(clause) if _PET_WORD.search(clause) else None


_DATE_EN = (
    r"(?:(?i:" + _MONTHS_EN + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?i:" + _MONTHS_EN + r")(?:,?\s+\d{4})?"
    r"|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?)"
)
_DATE_ZH = (
    r"(?:(?:农历|阴历|公历|阳历)?(?:\d{4}年|[一二三四五六七八九〇零]{4}年)?"
    r"(?:(?:\d{1,2}|[一二三四五六七八九十]{1,3})月|正月|腊月|冬月)(?:\d{1,2}|[一二三四五六七八九十]{1,3}|初[一二三四五六七八九十])[日号]?)"
)
_WEEKDAYS_EN = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_REL_DATE_EN = (
    r"(?:(?:next|this|coming)\s+(?:(?i:" + _WEEKDAYS_EN + r")|week|month|weekend)|tomorrow"
    r"|the\s+day\s+after\s+tomorrow|(?:on\s+)?(?i:" + _WEEKDAYS_EN + r"))"
)
_REL_DATE_ZH = (
    r"(?:(?:下|这|本|上)个?月(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号]?"
    r"|(?:下|这|本)(?:周|星期|礼拜)[一二三四五六日天]|明天|后天|大后天)"
)
_BORN_ON = re.compile(
    r"\b(?i:born(?:\s+on)?|my\s+(?:birthday|bday|b-day)(?:'s|’s|\s+is|\s+falls)?"
    r"(?:\s+(?:coming\s+up|coming|next|this\s+year))?\s+on|my\s+(?:birthday|bday"
    r"|b-day)(?:'s|’s|\s+is))\s+(?i:the\s+)?(?P<o>" + _DATE_EN + r")\b"
    r"|(?P<o2>" + _DATE_EN + r")\s+(?i:is)\s+(?i:my)\s+(?i:birthday|bday|b-day)\b"
    r"|\b(?i:my\s+(?:birthday|bday|b-day)(?:'s|’s|\s+is))\s+(?P<o3>(?i:" + _REL_DATE_EN + r"))\b"
    r"|(?P<z5>" + _DATE_ZH + "|" + _REL_DATE_ZH + r")(?:就)?是我(?:的)?生日"
    r"|我(?:是|的)?(?P<z3>" + _DATE_ZH + r")(?:的)?生日"
    r"|(?:我是|我)?(?P<z>" + _DATE_ZH + r")(?:出生|生)的"
    r"|出生(?:于|在|日期是)(?P<z2>" + _DATE_ZH + r")"
    r"|(?:我是|我)?(?P<z4>\d{4}年(?:\d{1,2}|[一二三四五六七八九十]{1,3})月)份?(?:出生|生)的"
    r"|我的?生日(?:是|在|就在|就是|是在)?(?:[^，。,.!?！？]{0,6}[，,]\s*)?(?P<z6>" + _DATE_ZH + r")"
)
""""I was born on March 5th", "born 1990-04-17", "我是3月5号出生的", "出生于1990年5月3日",
"我是1995年7月出生的": the user's birthday as said (a place after "born in" is a hometown)."""


def birthday_slot(clause: str) -> Slot | None:
    """The birthday ``clause`` tells by the day the user was born (:data:`_BORN_ON`), or None."""
    m = _BORN_ON.search(clause)
    if m is None:
        return None
    said = next(
        g for g in (m.group(k) for k in ("o", "o2", "o3", "z", "z2", "z3", "z4", "z5", "z6")) if g
    )
    return Slot("user", "birthday", said.strip())


_STUDIED_ZH = re.compile(
    r"\s*(?:(?:上|读|念)(?:的|过|了)(?:大学|高中|初中|中学|小学|研究生|博士|硕士|书|学)"
    r"|(?:上|读|念)(?:大学|高中|初中|中学|小学|研究生|博士|硕士|书|学|研|博)的时候)"
)
""""在郑州上的大学", "在北京读过书", "在武汉读书的时候": schooling in a place, an event of
the past ("在南京读书" is where the user studies now, so lives)."""
_RAISED_ZH = re.compile(r"\s*(?:长大|土生土长|出生|生的|出生的)")
""""在大连长大", "在青岛出生": where the user grew up or was born, a hometown."""
_LIVES_AFTER_ZH = re.compile(
    r"(?:读书|念书|读博|读研|上学|上大学|留学|生活|定居|住|待|呆|这边|那边|了|呢|啦|哦)+"
)
"""What may follow a place named by a word jieba reads as a person's name ("人在西雅图",
"在柏林读书"): a verb of living or studying there."""


def _named_place(span: str, *, strong: bool) -> str | None:
    """A place jieba tags as a proper name but not as a place ("西雅图", "柏林" read ``nr``):
    the first word of ``span``, 2-4 Chinese characters, when only a verb of living or studying
    follows it (:data:`_LIVES_AFTER_ZH`) — or nothing, after a strong cue of living
    (``strong``: "人在", "住在", "坐标", not a bare "在"); None otherwise."""
    words = [w for w in strip_time(zh_words(span.strip())) if w[0].strip()]
    if not words:
        return None
    word, flag = words[0]
    if not re.fullmatch(r"[\u4e00-\u9fff]{2,4}", word) or flag not in _PROPER_FLAGS:
        return None
    rest = "".join(w for w, _ in words[1:])
    if (not rest and strong) or (rest and _LIVES_AFTER_ZH.fullmatch(rest)):
        return word
    return None


_PROPER_FLAGS = frozenset({"ns", "nr", "nrt", "nrfg", "nz"})
_TOOL_DOES = re.compile(r"(?:用|拿|使用|靠)\s*[^，,。！!？?；;]{1,20}?\s*(?:来)?(?:做|当)了?$")
""""我们用 Jest 做单元测试": the tool does the work; what follows 做 is a task, not a job."""


_APPOSED_JOB = re.compile(
    rf"(?i)^(?:(?:and|these days|now|currently|by day)\s+)*(?:a|an)\s+"
    rf"(?P<o>(?:[\w-]+\s+){{0,3}}?(?:{JOB_HEADS_EN}))s?\b(?!-)"
)


def apposed_job(part: str) -> Slot | None:
    """The occupation of a part that is only "a <job>…" said in apposition to the user ("I'm
    Hannah, 34, a pastry chef in Montreal", "Berlin based, these days a product manager at
    Zalando"): the job, cut before "in"/"at"; None for any other part."""
    m = _APPOSED_JOB.match(part.strip())
    return Slot("user", "occupation", m.group("o").lower()) if m else None


def _in_past(clause: str, start: int) -> bool:
    """True when the value at ``start`` is in a part of ``clause`` (cut at punctuation and
    "but") that says a past state (:data:`_PAST`)."""
    cuts = [m.end() for m in _PART_END.finditer(clause, 0, start)]
    begin = cuts[-1] if cuts else 0
    end_m = _PART_END.search(clause, start)
    end = end_m.start() if end_m else len(clause)
    return bool(_PAST.search(clause[begin:end]))


def _current(pattern: re.Pattern[str], clause: str) -> re.Match[str] | None:
    """The first match of ``pattern`` in ``clause`` that is not said of the past ("I used to
    work at Deloitte but now I'm at Brightwave" → Brightwave), else None."""
    for m in pattern.finditer(clause):
        if not _in_past(clause, m.start()):
            return m
    return None


def trigger_slots(clause: str) -> list[Slot]:
    """Locations, employers, occupations, names and pets named anywhere in ``clause`` ("my
    partner and I share a flat in Manchester" → location Manchester; "我是护士，在市一院上班"
    → employer 市一院); only used once the classifier has read the clause as a fact."""

    found: dict[str, Slot] = {}
    for pattern, predicate in (
        (_INTRO_NAME_EN, "name"),
        (_EMPLOYER_EN, "employer"),
        (_LOCATION_EN, "location"),
        (_HOMETOWN_EN, "hometown"),
        (_OCCUPATION_EN, "occupation"),
        (_NAME_EN, "name"),
    ):
        current = predicate in {"location", "employer", "occupation"}
        m = _current(pattern, clause) if current else pattern.search(clause)
        if m is not None and predicate in _PLACE_PREDICATES:
            # "my sister is based in Austin, I'm in Dallas": the user's own place, if any;
            # "I'm in Paris for a conference": a trip, no place the user lives in
            own = [
                o
                for o in pattern.finditer(clause)
                if not (current and _in_past(clause, o.start()))
                and not (predicate == "location" and _on_a_trip(clause, o.end()))
            ]
            if not own:
                continue
            m = next((o for o in own if _place_holder(clause, o.group(0)) is None), own[0])
        zh = m.groupdict().get("z") if m else None
        if zh:  # "based in 新加坡": a Chinese place after English words
            place = zh_place(zh)
            if place:
                found.setdefault(predicate, Slot("user", predicate, _city(place)))
            continue
        if m and (m.groupdict().get("o") or m.groupdict().get("b")):
            value = clean_value(m.group("o") or m.group("b"))
            # "in Tucson. So that's home": the sentence ends the place ("St. Louis" does not)
            value = re.sub(r"(?<=\w{4})\.\s.*$", "", value)
            if predicate in {"location", "hometown"} and TZ_EN.fullmatch(value):
                continue  # "I'm in PST": a timezone, not a place
            if value and len(value.split()) <= 4:
                value = value.lower() if predicate == "occupation" else value
                found.setdefault(predicate, Slot("user", predicate, value))
    m = _ORG_AS_JOB_EN.search(clause)
    if m and not NOT_A_JOB_EN.search(m.group("job")):
        found.setdefault("employer", Slot("user", "employer", clean_value(m.group("org"))))
        found.setdefault("occupation", Slot("user", "occupation", m.group("job").lower()))
    m = _JOB_AT_EN.search(clause)
    if m and not NOT_A_JOB_EN.search(m.group("job")):
        found.setdefault("occupation", Slot("user", "occupation", m.group("job").lower()))
    m = _PROMOTED_EN.search(clause)
    if m and not NOT_A_JOB_EN.search(m.group("job")):
        found.setdefault("occupation", Slot("user", "occupation", m.group("job").lower()))
    m = _PROMOTED_ZH.search(clause)
    after = _JOB_AFTER_ZH.match(clause, m.end()) if m else None
    if after is not None and not _NOT_JOB_ZH.search(after.group("o")):
        found.setdefault("occupation", Slot("user", "occupation", after.group("o")))
    m = _ORG_JOB_ZH.search(clause)
    if m and _SCHOOL_GRADE_ZH.fullmatch(m.group("org")):  # "初二的班主任": the job is all of it
        job = f"{m.group('org')}的{m.group('job')}"
        found.setdefault("occupation", Slot("user", "occupation", job))
    elif m:
        if not _GENERIC_ORG_ZH.fullmatch(m.group("org")):  # "小学的数学老师": no name
            found.setdefault("employer", Slot("user", "employer", m.group("org")))
        found.setdefault("occupation", Slot("user", "occupation", m.group("job")))
    m = _NAMED_ORG_ZH.search(clause)
    if m:
        org = (m.group("o") or m.group("o2") or "").strip()
        found.setdefault("employer", Slot("user", "employer", org))
    m = _current(_STAYED_EN, clause) if "location" not in found else None
    stayed = clean_value(m.group("o") or m.group("o2")) if m is not None else ""
    if stayed and not TZ_EN.fullmatch(stayed):
        found["location"] = Slot("user", "location", stayed)
    here = here_place(clause) if "location" not in found else None
    if here is not None:
        found["location"] = here
    m = _current(_JOB_IN_EN, clause)
    if m and "location" not in found:
        at = clean_value(m.group("o") or zh_place(m.group("z") or "") or "")
        if at and not TZ_EN.fullmatch(at) and topic_of(at) is None:  # not "in Python"
            found["location"] = Slot("user", "location", _city(at) if m.group("z") else at)
    m = _MOVED_LATIN_ZH.search(clause)
    if m and "location" not in found:
        found.setdefault("location", Slot("user", "location", m.group("o")))
    m = _current(_LIVES_LATIN_ZH, clause)
    if m and "location" not in found and not (m.group("study") and m.group("o").isupper()):
        found["location"] = Slot("user", "location", m.group("o"))
    for slot in value_first_slots(clause):
        found.setdefault(slot.predicate, slot)
    m = _BORN_PLACE_EN.search(clause)
    if (
        m
        and m.group("o").lower() not in _NOT_A_SUBJECT_EN
        and not re.fullmatch(rf"(?i){_MONTHS_EN}", m.group("o"))
    ):
        found.setdefault("hometown", Slot("user", "hometown", m.group("o")))
    born = birthday_slot(clause)
    if born is not None:
        found.setdefault("birthday", born)
    pets = [*_PET_EN.finditer(clause), *_PET_ZH.finditer(clause), *_MY_PET_EN.finditer(clause)]
    pets += [*_COUNTED_PETS_EN.finditer(clause)]
    if any(not m.groupdict().get("o3") for m in pets):  # "我家有只猫叫年糕，是只英短蓝猫": one cat
        pets = [m for m in pets if not m.groupdict().get("o3")]
    pets += [p for p in _ALSO_PET_EN.finditer(clause) if pets]  # "2 cats and a rabbit"
    named = [
        (m.group("o") or m.groupdict().get("o2") or m.groupdict().get("o3") or "").lower()
        for m in pets
    ]
    if any(n not in _GENERIC_PETS for n in named):
        named = [n for n in named if n not in _GENERIC_PETS]  # the breed, not "puppy"
    for value in named:
        if value:
            found.setdefault(f"pet:{value}", Slot("user", "pet", value, multi_valued=True))
    for pet_name in pet_name_slots(clause) if any(named) else []:
        found.setdefault(f"pet_name:{pet_name.object}", pet_name)
    m = OCC_ZH.search(clause)
    if m and not _TOOL_DOES.search(clause[: m.start("o")]):
        head = _HEAD_JOB_ZH.match(clause, m.end("o"))
        job = head.group("o") if head else m.group("o").rsplit("的", 1)[-1]  # "兼职的摄影师"
        found.setdefault("occupation", Slot("user", "occupation", job))
    m = _JOB_SUFFIX_ZH.search(clause)
    if m and "occupation" not in found:
        job = (m.group("o") or m.group("o2") or "").rsplit("的", 1)[-1]  # "兼职的摄影师"
        if job and not _NOT_JOB_ZH.search(job):
            found["occupation"] = Slot("user", "occupation", job)
    m = _JOB_SUFFIX_EN.search(clause)
    if m and "occupation" not in found:
        job = m.group("o").lower()
        if not set(job.split()) & _NOT_JOBS_EN and not DIET.search(job):
            found["occupation"] = Slot("user", "occupation", job)
    m = _ZH_JOB_IN_EN.search(clause)
    if m:
        found.setdefault("occupation", Slot("user", "occupation", m.group("o")))
    m = _OCC_MIXED.search(clause)
    if m and re.search(r"[\u4e00-\u9fff]", clause):
        found.setdefault("occupation", Slot("user", "occupation", m.group("o")))
    m = _TEACH_ZH.search(clause)
    if m and "occupation" not in found:
        found["occupation"] = Slot("user", "occupation", f"{m.group('o')}老师")
    m = _TEACH_EN.search(clause)
    if m and "occupation" not in found:
        found["occupation"] = Slot("user", "occupation", _teacher_of(m.group("o")))
    spoken_as = colloquial_job(clause) if "occupation" not in found else None
    if spoken_as:
        found["occupation"] = Slot("user", "occupation", spoken_as)
    m = _NAME_ZH.search(clause)
    if m and "name" not in found and _person_name(m.group("o")):
        found["name"] = Slot("user", "name", m.group("o"))
    m = _JOINED_ZH.search(clause)
    if m and "employer" not in found:
        work = zh_workplace(m.group("o"))
        if work is not None and work[0] == "employer":
            found["employer"] = Slot("user", "employer", work[1])
    m = _WORK_ZH.search(clause)
    if m:
        park = park_city(m.group("o"))
        work = ("location", park) if park else zh_workplace(m.group("o"))
        if work is not None:
            found.setdefault(work[0], Slot("user", work[0], work[1]))
        role = _ROLE_ZH.match(clause, m.end() - 1)
        if role is not None and "occupation" not in found:
            job = bound_open(role.group("r"))
            if (
                1 < len(job) <= 20
                and not re.match(r"[这那]|事|饭|菜|作业", job)
                and not re.search(r"(?:公司|企业|单位|机构)$", job)
            ):
                found["occupation"] = Slot("user", "occupation", job)
    for m in _HOMETOWN_ZH.finditer(clause) if "hometown" not in found else ():
        latin = next((g for g in (m.group("o6"), m.group("o7"), m.group("o8")) if g), "")
        if latin.isascii() and latin:  # "老家 Guangzhou 的": the place as written in Latin letters
            found["hometown"] = Slot("user", "hometown", latin)
            break
        said = m.group("o") or m.group("o2") or m.group("o3") or m.group("o4") or latin
        place = zh_place(said) or (_named_place(said, strong=True) if latin else None)
        place = place or zh_place(m.group("o5") or "")
        if place and said_timezone(place) is not None:
            continue  # "我是东八区的": a timezone, not a place
        if place and (not m.group("o5") or place == m.group("o5")):
            found.setdefault("hometown", Slot("user", "hometown", _city(place)))
            if not _region_only(_city(place)):
                found["hometown"] = Slot("user", "hometown", _city(place))
                break  # "我是东北的，哈尔滨人": the city, not the region it is in
    m = _current(_AT_ORG_ZH, clause)
    if m and "employer" not in found and ("occupation" in found or _LEFT_JOB_ZH.search(clause)):
        said = m.group("o")
        work = None if _NOT_AN_ORG_ZH.search(said) or zh_place(said) else zh_workplace(said)
        if work is not None and work[0] == "employer" and not is_place(work[1]):
            found["employer"] = Slot("user", "employer", work[1])
    m = _CAME_TO_ZH.search(clause)
    if m and "location" not in found:
        place = zh_place(m.group("o"))
        if place:
            found["location"] = Slot("user", "location", _city(place))
    starts = range(len(clause)) if "location" not in found else range(0)
    held: Slot | None = None
    for m in (_LOCATION_ZH.match(clause, i) for i in starts):
        if m is None or _in_past(clause, m.start()):  # "以前在上海，现在在深圳": 深圳
            continue
        if held is not None and _place_holder(clause, m.group(0)) is not None:
            continue  # "我妈住在哈尔滨，我在深圳": a second place of someone else's
        cue = clause[m.start() : m.start("o")]
        place = zh_place(m.group("o"))  # "现在住在杭州": "在住在…" is no place, "住在杭州" is
        if place is None and not re.match(r"\s*来到", cue):  # "人在西雅图": jieba's "nr"
            bare = cue.strip() == "在" and not re.search(
                r"(?:我|人|现在|目前|一直)\s*$", clause[: m.start()]
            )
            place = _named_place(m.group("o"), strong=not bare)
        place = re.sub(r"(?:长大|出生)$", "", place or "") or None  # jieba: "长大" ns
        place_end = m.start("o") + len(place or "")
        if place and _on_a_trip(clause, place_end):
            continue  # "下周在上海开会": a trip
        if _STUDIED_ZH.match(clause, place_end) or _RAISED_ZH.match(clause, place_end):
            continue  # "在郑州上的大学", "在大连长大": where the user studied or grew up
        if place and _REGION_PREFIX.match(m.group("o")):  # "人在美国西雅图": 西雅图
            rest = _REGION_PREFIX.sub("", m.group("o"))
            city = re.fullmatch(r"[\u4e00-\u9fff]{2,4}", rest)
            place = zh_place(rest) or (rest if city else place)
        if place and said_timezone(place) is not None:
            continue  # "我在东八区": a timezone, not a place
        if place and _city(place) != getattr(found.get("hometown"), "object", None):
            slot = Slot("user", "location", _city(place))
            if held is None and _place_holder(clause, m.group(0)) is not None:
                held = slot  # someone else's place: the user's own may follow
                continue
            found["location"] = slot
            break
    if held is not None and "location" not in found:
        found["location"] = held
    return [_held(clause, slot) for slot in found.values()]


_PLACE_PREDICATES = frozenset({"location", "hometown"})
_TRIP = re.compile(
    r"(?i)\s*(?:(?:for|on|at)\s+(?:a|an|the|my|our|this|that|some|his|her)?\s*(?:[\w'-]+\s+){0,2}?"
    r"(?:conference|trip|wedding|workshop|meetings?|summit|offsite|off-site|holidays?|vacation|business"
    r"|few\s+days|couple\s+(?:of\s+)?days|week|weekend|days?|nights?|layover|stopover|visit|tour"
    r"|festival|show|gig|match|game|training|course|hackathon|interview|funeral|honeymoon)\b"
    r"|(?:this|next)\s+(?:week|weekend|month)\b|(?:until|till|through)\s+\w+|today\b|tonight\b"
    r"|tomorrow\b|right\s+now\s+for\b)"
    r"|\s*(?:出差|旅游|旅行|开会|度假|玩|参加|参会|转机|过周末|办事|看展|看演唱会|培训|考试|面试|待几天|呆几天)"
)
"""What follows a place when the user is only passing through ("I'm in Paris for a
conference", "in London next week", "在上海开会", "在成都出差"): a trip, not where they live."""


def _on_a_trip(clause: str, at: int) -> bool:
    """True when the words right after a place ending at ``at`` make it a trip (:data:`_TRIP`)."""
    return _TRIP.match(clause, at) is not None


_SELF = re.compile(r"(?i)\b(?:i|i'm|im|i've|we|we're|we've)\b|我(?!妈|爸|家|们家)")
_JOINT = re.compile(
    r"(?i)\b(?:i|me)\s+(?:and|&)\s+(?:my|our)\b|\b(?:and|&)\s+(?:i|me|myself)\b"
    r"|我(?:和|跟|与|同|还有)|(?:和|跟|与|同)我(?![的们])"
)
"""A person named together with the user ("my partner and I", "我和老婆"): a place said of them
both is the user's too."""


def _place_holder(clause: str, said: str) -> str | None:
    """The relation (``sister``, ``mother``…) a place said in ``clause`` (at ``said``, the
    words naming it) belongs to: the last of the user's people mentioned before it in its
    sentence ("my sister is based in Austin", "我妈是在哈尔滨长大的"); None for the user's own
    place, or one they share ("my wife and I live in Denver", "我和老婆住在深圳")."""
    who = health_holder(clause, said)
    if who is None or _SELF.search(said):  # "…, but I'm in Chicago": the user's own
        return None
    at = clause.find(said)
    head = clause[: at if at >= 0 else len(clause)]
    return None if _JOINT.search(head) else who


def _held(clause: str, slot: Slot) -> Slot:
    """``slot`` as the guide names it when the place is one of the user's people's
    (``sister_location``, ``mother_hometown``): see :func:`_place_holder`."""
    if slot.predicate not in _PLACE_PREDICATES:
        return slot
    who = _place_holder(clause, slot.object)
    return replace(slot, predicate=f"{who}_{slot.predicate}") if who else slot


def _person_name(word: str) -> bool:
    """True when ``word`` reads as a person's name: a capitalised Latin word that is no
    common word of an introduction, or Chinese jieba tags as a person name (``nr``)."""
    if word.isascii():
        return not re.fullmatch(_NOT_INTRO, word)
    if len(word) >= 3 and word.endswith("人"):
        stem = [w for w in zh_words(word[:-1]) if w[0].strip()]
        if len(stem) == 1 and stem[0][1] == "ns":
            return False  # "我是山东人": where the user is from, jieba tags it ``nr``
    tagged = [w for w in zh_words(word) if w[0].strip()]
    return (len(tagged) == 1 and tagged[0][1] == "nr") or (
        len(tagged) == 2 and tagged[0][1] == "nr" and len(word) <= 3
    )


def _teacher_of(taught: str) -> str:
    """The job of "I teach <taught>": ``<subject> teacher`` ("high school chemistry" →
    "chemistry teacher"), else ``teacher`` ("5th grade", "kids")."""
    words = re.sub(r"(?i)\b(?:at|in|for|to|since|with)\b.*$", "", taught).split()
    word = words[-1].lower() if words else ""
    if word.isalpha() and word not in {"grade", "school", "kids", "children", "students", "part"}:
        return f"{word} teacher"
    return "teacher"


__all__ = [
    "OCC_ZH",
    "apposed_job",
    "city_of",
    "continues_here",
    "here_place",
    "park_city",
    "pet_name_correction",
    "trigger_slots",
]
