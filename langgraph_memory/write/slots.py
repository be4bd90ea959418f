"""Generic slot extraction: the ``(subject, predicate, object)`` of a clause no rule knows.

Used when the clause classifier says a clause is worth remembering and no rule of
:class:`~langgraph_memory.write.extract.RuleExtractor` produced a candidate, to add the
attributes a rule missed, and to sharpen a rule's catch-all ``note``. Pure functions, no
state:

* constraints → the user's diet, allergen or what they cannot eat or drink
  (``dietary_restriction``: "can't eat gluten", "不吃牛肉"), else ``("assistant", "must" |
  "must_not", <the rule in the user's words>)``; the polarity comes from prohibition markers
  ("never", "don't", "avoid", "不要", "别", "禁止", "不得"…), everything else is an obligation;
* preferences → a typed value, else ``likes`` / ``dislikes`` with the liked thing (cut before
  its reason or comparison), else ``prefers`` with the clause;
* stable facts → typed values, timezones, spoken languages, places, employers, jobs, pets;
  else, part by part (the clause cut at commas and dashes), "my/our/the <attribute> is
  <value>", "我的/我们的<属性>是/用/叫<值>", counts and ages ("我们组一共九个人"), "我是<值>",
  "I have <value>", a name after a preposition ("sits behind Cloudflare"); otherwise ``note``
  with the clause (the user's own words, so nothing is paraphrased);
* corrections → the new and the old value when both are named ("Graz, not Linz",
  "是糯米不是米糕"), a bare new value ("打错了，是小闵"), else the facts of the clause.

Values are kept as the user said them (``topic_surface``: "green tea", "冰美式", "MySQL
8.0", "PST", "咖啡") and stop where the value stops: trailing time expressions ("last month",
"上个月"), explanations after a comma or dash, articles and politeness tails are cut. The
resolver stores the lexicon's canonical form beside the value (``metadata["canonical"]``).

Typed predicates of the labelling guide are found by meaning as well as by the lexicon:
answer length in words no table lists (:func:`length_slot`: "short and to the point", "别啰嗦",
"越细越好"), tools named by common words after a verb that takes a tool ("written in Go",
"i run arch"), cuisines ("Thai is my favourite cuisine"), a language named in a short
preference clause (:func:`language_preference`), Chinese hometowns and homes ("老家…", "我是X人",
"来X三年了", bounded by jieba and reduced to the city), jobs ("转行做了产品经理", "做 UX
designer", "I teach biology"), several allergens in one clause (:func:`allergy_slots`).

Values are also found by their type and grammar rather than by a cue list: budgets and
deadlines as money and date tokens in a spending or due clause (:func:`quantity_slot`, see
:mod:`~langgraph_memory.write.spans`: "$2,500, not $2,000" → "$2,500"), diets described by
what is not eaten (:func:`described_diet`: "I don't eat meat or fish" → vegetarian), jobs by
the shape of a job word ("本人护士", "I'm a midwife"), names by jieba's person tag ("我是张伟"),
a move to an organisation ("跳槽到了美团", "join Stripe"). A constraint clause that words no
obligation or prohibition (:data:`_RULE_WORDS`) is the typed fact it states. Attributes left by
chunking that name nothing ("对了我", "oops", "以前") are dropped (:func:`meaningful_predicate`),
and so are values that are only particles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .lexicon import LANGUAGES, RELATIONS, TOPICS, ZH_ATTRIBUTE_NAMES, _alias_re, attribute_of
from .segment import strip_time, topic_surface, zh_city, zh_place, zh_words, zh_workplace
from .spans import budget_value, deadline_value

_PROHIBIT = re.compile(
    r"(?i)\b(?:never|don't|do not|dont|avoid|no more|stop|must not|mustn't|shouldn't|should not"
    r"|not allowed|refrain from)\b|^no\s+\w+"
    r"|不要|别|绝对不|不得|禁止|不准|不许|千万别|严禁|不能|勿|拒绝"
)
_LEAD_MARKERS = re.compile(
    r"(?i)^(?:(?:please|pls|plz|and|also|but|so|ok(?:ay)?|oh|hey|btw|fyi|remember|note|"
    r"keep in mind|from now on|going forward|in (?:the )?future|for future reference|always|"
    r"make sure (?:to|that|you)?|be sure to|you should|you must|i need you to|i want you to|"
    r"记住|请记住|记得|以后|今后|从现在(?:开始|起)|往后|请|麻烦|务必|一定要|必须)\b[\s,:：，-]*)+"
)
_TIME_TAIL = re.compile(
    r"(?i)\s*(?:,\s*)?(?:(?:since|as of|starting|from)\s+\w+(?:\s+\d{4})?|last\s+(?:week|month|year"
    r"|night|weekend)|yesterday|today|recently|a\s+(?:week|month|year)\s+ago|\d+\s+\w+\s+ago"
    r"|this\s+(?:week|month|year)|now|these days|nowadays|anymore)$"
    r"|(?:上个?月|上周|去年|前年|昨天|今天|最近|现在|目前|已经|了)$"
)
_POLITE_TAIL = re.compile(
    r"(?i)[\s,.;:!?，。；：！？~…]+$|\s+(?:please|thanks|thank you|thx|ok|okay)$"
    r"|(?:吧|哦|啊|呢|哈|呀|啦|嘛|谢谢|哈哈)$"
)
_LIKE_EN = re.compile(
    r"(?i)^i\s+(?:really\s+|absolutely\s+|totally\s+|kinda\s+|do\s+)?(?:like|love|enjoy|adore"
    r"|prefer|am into|'m into|am a (?:big |huge )?fan of|'m a (?:big |huge )?fan of)\s+(?P<o>.+)$"
)
_DISLIKE_EN = re.compile(
    r"(?i)^i\s+(?:really\s+)?(?:hate|dislike|can't stand|cannot stand|don't like|do not like"
    r"|am not a fan of|'m not a fan of|detest)\s+(?P<o>.+)$"
)
_LIKE_ZH = re.compile(
    r"^我?(?:很|特别|超|超级|真的|一直|比较|最)?(?:喜欢|爱|偏爱|偏好|热爱|迷上了?)(?P<o>.+)$"
)
_DISLIKE_ZH = re.compile(r"^我?(?:很|特别|超|真的|最)?(?:不喜欢|讨厌|受不了|反感|不爱)(?P<o>.+)$")
_MY_ATTR_EN = re.compile(
    r"(?i)^(?P<who>my|our|the|this|(?!(?:it|that|this|there|he|she|they|what|which|who|i|we"
    r"|you|everything|nothing|something|anything)\b)(?=[a-z]))\s*"
    r"(?P<attr>(?:[\w-]+(?:'s|’s)?\s+){0,3}?[\w-]+?)(?:\s+(?:is|are|was)|'s|’s)\s+(?:now\s+|still\s+)?"
    r"(?:called\s+|named\s+)?(?P<o>.+)$"
)
_MY_ATTR_IS_EN = re.compile(
    r"(?i)^(?P<who>my|our|the|this)\s+(?P<attr>(?:[\w-]+(?:'s|’s)?\s+){0,3}?[\w-]+?)"
    r"\s+(?:is|are|was)\s+(?:now\s+|still\s+)?(?:called\s+|named\s+)?(?P<o>.+)$"
)
_WE_VERB_EN = re.compile(
    r"(?i)^(?:we|our (?:team|company|group|org|project))\s+(?:usually\s+|always\s+|all\s+)?"
    r"(?P<verb>[a-z]+?)(?:s|es)?\s+(?P<prep>on|in|at|to|with|every|using|via)\s+(?P<o>.+)$"
)
_I_HAVE_EN = re.compile(
    r"(?i)^i\s+(?:also\s+)?(?P<verb>use|run|drive|own|have|got|speak|play|study|practice)\s+"
    r"(?P<o>.+)$"
)
_MY_ATTR_ZH = re.compile(
    r"^(?P<who>我们|咱们|我|本人)?(?:的)?\s*(?:家|公司|团队|项目|组|产品|服务|系统)?(?:的)?\s*"
    r"(?P<attr>[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z ]{0,11}?)"
    r"\s*(?:其实|现在|目前|今年|一共|总共|也|都|一般|主要)?\s*"
    r"(?:用的是|用的|是|叫|在|为|锁在|定在|用|使用|采用)\s*(?P<o>.+)$"
)
_I_HAVE_ZH = re.compile(r"^我?(?:家)?(?P<verb>有|养了?|开|用)(?P<o>.+)$")
_COUNT_ZH = re.compile(
    r"^(?P<who>我们|咱们|我)?(?:的)?\s*(?P<attr>[\u4e00-\u9fffA-Za-z]{1,6}?)\s*"
    r"(?:今年|一共|总共|共|现在|目前|其实)?\s*(?:是|有)?\s*"
    r"(?P<o>[\d一二三四五六七八九十两百几]+\s*(?:个人|个|人|岁|位|名)?)(?:了|啦)?$"
)
"""A count or an age said without a verb ("我们团队一共十五个人", "女儿今年9岁")."""
_I_AM_ZH = re.compile(r"^我(?:其实|本身)?是(?P<o>[^，,。\s的]{2,8})(?:的)?$")
_I_AM_EN = re.compile(r"(?i)^i(?:'m| am)\s+(?P<o>\d{1,3}|[a-z]+(?:-[a-z]+)+(?:\s+[a-z]+)?)$")
_NAMED_EN = re.compile(
    r"(?<![\w.])(?P<o>(?:[A-Z][\w.+#-]*|[a-z]+[A-Z][\w-]*|\d+(?:\.\d+)+)"
    r"(?:\s+(?:[A-Z][\w.+#-]*|\d+(?:\.\d+)*))*)"
)
_NAMED_AFTER = re.compile(r"(?i)\b(?:on|in|with|behind|via|using|through|a|an)\s+(?=[A-Z0-9])")
_HAS_EN = re.compile(
    r"(?i)^my\s+(?P<rel>[a-z]+)(?:\s+(?:has|had|is)|'s|’s|s)\s+(?:a\s+|an\s+)?(?P<o>.+)$"
)
_IS = re.compile(r"(?i)\b(?:is|are|was|were)\b")
_ZH_PARTICLE_TAIL = re.compile(r"(?:了|的|啦|哈|呢|啊|吧|哦|嘛|呀)+$")

_ATTR_NORMAL = {
    "birthday": "birthday",
    "bday": "birthday",
    "生日": "birthday",
    "名字": "name",
    "email": "email",
    "phone": "phone",
    "公司": "employer",
    "单位": "employer",
    "职业": "occupation",
    "专业": "major",
    "时区": "timezone",
    "timezone": "timezone",
    "time_zone": "timezone",
    "hometown": "hometown",
    "老家": "hometown",
    "家乡": "hometown",
    "budget": "budget",
    "预算": "budget",
    "deadline": "deadline",
    "base": "location",
    "based": "location",
    "现居": "location",
    "住址": "location",
    "坐标": "location",
}


_TYPED_ATTRIBUTE = re.compile(
    r"(?i)(?P<budget>budget|预算)|(?P<deadline>deadline|ddl|截止日期|截止时间|交付日期)"
)


def _typed_attribute(attr: str) -> str | None:
    """The guide's ``budget`` / ``deadline`` for an attribute that names one ("offsite
    budget", "budget for the trip", "team的deadline"), else None."""
    m = _TYPED_ATTRIBUTE.search(attr)
    return None if m is None else "budget" if m.group("budget") else "deadline"


MAX_FREE_TEXT = 300
"""Longest clause kept in the user's words (``note``/``prefers``/``must``): longer text is a
pasted document, not a fact."""


@dataclass(frozen=True, slots=True)
class Slot:
    """A generic ``(subject, predicate, object)`` for one clause."""

    subject: str
    predicate: str
    object: str
    multi_valued: bool = False
    scope_level: str = "user"
    corrects: str | None = None
    """The old value a correction names ("Houston, not Austin" → ``Austin``)."""


def clean_value(value: str) -> str:
    """``value`` without quotes, politeness and trailing time expressions."""
    value = value.strip().strip("\"'“”‘’「」")
    for _ in range(4):
        new = _POLITE_TAIL.sub("", value).strip()
        new = _TIME_TAIL.sub("", new).strip() if len(new) > 3 else new
        if new == value:
            break
        value = new
    return value


_OPEN_TAIL = re.compile(
    r"(?i)\s*(?:\(.*|（.*|\s[—–-]\s.*|[—–].*|;.*|；.*|,(?!\d{3}\b).*|，.*|\s+(?:so|because|since|which|who|but"
    r"|when|where|for context|btw|fyi|lol|haha|and i|and we|and my)\b.*)$"
)


_LIKE_TAIL = re.compile(
    r"(?i)\s*(?:[—–;；,，。(（]|\s-\s).*$|\s+(?:so|because|since|when|whenever|if possible"
    r"|if you can|way more than|much more than|more than|rather than|than|instead of|tbh"
    r"|to be honest)\b.*$"
)


def bound_liking(value: str) -> str:
    """A liked or disliked thing without the reason or comparison after it ("small boutique
    hotels way more than big chains" → "small boutique hotels"; "async — suggest a Slack
    message…" → "async"); unchanged when nothing would be left."""
    cut = clean_value(_LIKE_TAIL.sub("", value))
    return cut if len(cut) >= 2 else value


def bound_open(value: str) -> str:
    """An open attribute's value cut where it stops: before a comma, a dash, a bracket or a
    clause that explains it ("type 1 diabetes, so carb counting…" → "type 1 diabetes"), and
    without a leading article or a trailing time expression or particle."""
    value = _OPEN_TAIL.sub("", clean_value(value)).strip()
    value = re.sub(r"(?i)^(?:(?:a|an|the|about|around|roughly|approximately)\s+|~\s*)", "", value)
    value = re.sub(r"^(?:大概|大约|差不多|约)(?=\S)", "", value)
    value = re.sub(r"^(?:on|at|in|by)\s+(?=[A-Z0-9])", "", value)  # "on Friday" → "Friday"
    if re.search(r"[\u4e00-\u9fff]", value):
        words = list(zh_words(value))
        while len(words) > 1 and strip_time(tuple(words[:1])) == ():
            words = words[1:]  # "上个月跳到美团": a leading time word; "下周三" stays whole
        value = "".join(w for w, _ in words) or value
        value = _ZH_PARTICLE_TAIL.sub("", value) or value
    return clean_value(value)


def snake(words: str) -> str:
    """``"daughter's birthday"`` → ``daughter_birthday``; CJK kept as is."""
    words = re.sub(r"'s\b", "", words.strip().lower())
    return re.sub(r"[^\w]+", "_", words).strip("_") or "note"


def strip_lead(clause: str) -> str:
    """The clause without leading discourse / "remember" / "from now on" markers."""
    return _LEAD_MARKERS.sub("", clause.strip()).strip()


_ANSWERS = re.compile(
    r"(?i)\b(?:answer|repl|respon|write|talk|speak|chat|explain|messages?)|回答|回复|答复|回我|说|写|聊"
    r"|交流|解释"
)
_NEGATED = re.compile(
    r"(?i)(?:\bnot|\bno|n't|\bnever|\binstead of|\bover|\brather than|\bthan|\bhate|\bavoid"
    r"|不是|不用|不要|别|而不是|不喜欢|讨厌)\s*(?:plain\s+|the\s+|a\s+)?$"
)


def _first_alias(text: str, table: dict[str, tuple[str, ...]]) -> tuple[int, str] | None:
    """``(position, canonical)`` of the earliest alias of ``table`` in ``text`` that is not
    negated ("vim, not emacs" → vim; "TypeScript instead of JavaScript" → TypeScript)."""
    best: tuple[int, int, str] | None = None
    for canonical, aliases in table.items():
        for alias in aliases:
            for m in _alias_re(alias).finditer(text):
                if _NEGATED.search(text[max(0, m.start() - 16) : m.start()]):
                    continue
                key = (m.start(), -len(alias), canonical)
                if best is None or key < best:
                    best = key
                break
    return (best[0], best[2]) if best else None


_PLACE_EN = r"(?P<o>[A-Z][\w'.-]+(?:\s(?:[A-Z][\w'.-]+|de|do|da|on|upon))*)"
_LOCATION_EN = re.compile(
    r"(?:\b(?:live|living|lives|based|located|settled|moved|relocated|relocating|staying)"
    r"\s+(?:here\s+)?(?:in|to)|\bwork(?:ing)?\s+remote(?:ly)?\s+from"
    r"|\b(?i:i'm|i am|we're|we are)\s+(?:now\s+)?in"
    r"|\b(?i:i've|i have|we've|we have)\s+(?:been\s+)?(?:living\s+|based\s+)?in"
    r"|\b(?:flat|apartment|house|home)\s+in)\s+(?:the\s+)?"
    + _PLACE_EN
    + r"|\b(?i:i'm|i am|we're|we are)\s+(?P<b>[A-Z][\w.]+(?:\s[A-Z][\w.]+)?)[- ]based\b"
)
_HOMETOWN_EN = re.compile(
    r"\b(?i:originally\s+from|i'm\s+(?:originally\s+)?from|i am\s+(?:originally\s+)?from|grew up in"
    r"|born and raised in|my hometown is|i come from|hail from)\s+(?:the\s+)?"
    r"(?i:(?:a\s+)?(?:small\s+|tiny\s+|little\s+)?(?:town|village|city|place)\s+(?:near|outside"
    r"(?:\s+of)?|in|close to)\s+)?" + _PLACE_EN
)
_EMPLOYER_EN = re.compile(
    r"(?:\b(?:work|working|works)\s+(?:at|for)|\b[Ii]'m\s+(?:now\s+)?at|\bjoined|\bjob\s+at"
    r"|\b(?:engineer|developer|designer|manager|analyst|lead|scientist)\s+at"
    r"|\b(?:company|startup|firm|agency|fintech|bank|studio|shop)\s+(?:called|named))\s+"
    r"(?P<o>[A-Z][\w&.'-]*(?:\s[A-Z][\w&.'-]*)*|[\u4e00-\u9fff]{2,8}(?=\s*(?:[，,。!！]|$)))"
)
_OCCUPATION_EN = re.compile(
    r"(?i)\b(?:i'm|i’m|im|i am|i work as|work as|working as)\s+(?:a|an)\s+"
    r"(?P<o>(?:[\w-]+\s){0,3}?(?:engineer|developer|programmer|teacher|doctor|nurse|designer"
    r"|student|scientist|manager|lawyer|analyst|researcher|writer|accountant|consultant"
    r"|architect|professor|chef|pilot|illustrator|translator|lead|owner|freelancer|editor"
    r"|pharmacist|therapist|electrician|plumber|founder|intern|officer|artist|photographer"
    r"|musician|librarian|paramedic|firefighter|vet|dentist|surgeon|tester|admin|barista))\b"
)
_NAME_EN = re.compile(
    r"(?i:\bname'?s|\bmy name is|\bi go by|\bcall me|\bit's)\s+"
    r"(?!(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun))"
    r"(?P<o>[A-Z][a-z]+)\b(?!\s*\d)"
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
    "|shiba|border collie|collie|pug|chihuahua|shih tzu|dalmatian|schnauzer|maine coon|siamese"
    "|ragdoll|tabby|cockatiel|gecko|lizard|snake|iguana|chinchilla|hedgehog|axolotl"
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
_ALSO_PET_EN = re.compile(rf"(?i)\b(?:and|&)\s+(?:a|an|two|three|\d+)\s+(?P<o>{_PETS})s?\b")
_PETS_ZH = (
    "金毛|拉布拉多|柯基|泰迪|哈士奇|柴犬|比格|边牧|布偶猫|布偶|英短蓝猫|英短|美短|暹罗猫|暹罗|橘猫"
    "|狸花猫|蓝猫|加菲猫|萨摩耶|博美|比熊|雪纳瑞|法斗|德牧|阿拉斯加|秋田|龙猫|刺猬|金鱼|蜥蜴"
    "|猫|狗|兔子|仓鼠|鹦鹉|乌龟"
)
_PET_ZH = re.compile(
    rf"(?:养了?|有|领养了?|收养了?)(?:一只|只|两只|一条|条|个)?(?P<o>{_PETS_ZH})"
    rf"|(?:我家|我们家|家里)(?:的|那|这|那只|这只|那条|这条|两只|俩|那俩)?(?P<o2>{_PETS_ZH})"
)
_LOCATION_ZH = re.compile(
    r"(?<![不没])(?:住在|住|定居在?|搬到了?|搬去了?|人在|生活在|来到了?|在)(?P<o>[^，,。！!？?\s]{2,10})"
)
_ZH_JOBS = (
    "工程师|程序员|老师|教师|医生|护士|设计师|学生|研究生|博士生|经理|律师助理|律师|研究员|分析师|会计师"
    "|会计|作家|架构师|教授|厨师|产品经理|运营|销售|司机|记者|编辑|主播|店主|老板|后端开发|前端开发"
    "|全栈开发|开发|测试开发|测试|运维|产品|翻译|公务员|警察|消防员|药剂师|咖啡师|理发师|摄影师|导游"
    "|飞行员|空乘|客服|教练|主编|自由职业者|自由职业|程序猿|码农|实习生|助理|秘书|保安|快递员|外卖员"
)
_OCC_ZH = re.compile(
    r"(?:我(?:是|现在是|目前是|在做|做|当)|转行(?:做|当)了?|(?<![叫让])(?:当|做)了?)(?:一名|一个|个|名)?"
    rf"(?P<o>[\u4e00-\u9fff]{{0,4}}?(?:{_ZH_JOBS}))(?![\u4e00-\u9fff]*?(?:的事|的活|饭|菜))"
)
_JOB_SUFFIX_ZH = re.compile(
    r"(?:^|[，,。\s])(?:我(?:其实|现在|目前)?是|本人|现在是|目前是|准确说是|升(?:职)?(?:成|为)了?)"
    r"(?:一名|一个|个|名)?\s*"
    r"(?P<o>[\u4e00-\u9fff]{1,6}?(?:师|员|士|长|工|官|生|警|医|家))(?=[，,。！!？?；;]|的|了|$)"
    r"|我是做(?P<o2>[\u4e00-\u9fff]{2,8}?)的"
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
_EN_JOB_WORDS = (
    "engineer|developer|dev|programmer|designer|manager|analyst|scientist|researcher|consultant"
    "|architect|teacher|nurse|doctor|lawyer|accountant|writer|editor|intern|lead|director|admin"
    "|administrator|specialist|coordinator|officer|founder|owner|tester"
)
_OCC_MIXED = re.compile(
    r"(?:做|当|是)\s*(?:一名|一个|个)?\s*(?P<o>(?:[A-Za-z][\w-]*\s+){0,3}"
    rf"(?:(?i:{_EN_JOB_WORDS})|PM|SRE|QA|HR|CTO|CEO|CFO|DBA|UX|UI|PO|BA))(?![\w])"
)
"""An English job inside a Chinese sentence ("在一家 startup 做 PM", "做 data analyst")."""
_TEACH_ZH = re.compile(
    r"(?:我|在[^，,。！!？?\s]{1,10}?)教(?P<o>语文|数学|英语|物理|化学|生物|历史|地理|政治|音乐|美术|体育"
    r"|编程|钢琴|舞蹈|瑜伽|英文|中文|日语)"
)
_TEACH_EN = re.compile(r"(?i)\bi\s+(?:currently\s+|now\s+)?teach\s+(?P<o>[\w -]+)")
_REGIONS_ZH = (
    "山东|湖南|湖北|广东|广西|河南|河北|山西|陕西|江苏|浙江|安徽|福建|江西|四川|贵州|云南|辽宁|吉林|黑龙江"
    "|甘肃|青海|海南|台湾|内蒙古|新疆|西藏|宁夏|东北|美国|英国|日本|德国|法国|加拿大|澳大利亚|澳洲|韩国"
    "|意大利|西班牙|荷兰|瑞士|瑞典|新西兰|马来西亚|泰国|越南|印度"
)
_REGION_PREFIX = re.compile(rf"^(?:{_REGIONS_ZH})(?:省|州)?(?=[\u4e00-\u9fff]{{2}})")


def _city(place: str) -> str:
    """The city of a Chinese place said with its province or country first ("山东青岛" →
    青岛, "美国西雅图" → 西雅图) or its district after it ("深圳南山区" → 深圳)."""

    return zh_city(_REGION_PREFIX.sub("", place) or place)


_HOMETOWN_ZH = re.compile(
    r"(?:老家|家乡)(?:是|在)?(?P<o>[^，,。！!？?\s]{2,8})|我是(?P<o2>[^，,。！!？?\s的]{2,5}?)人(?![家们])"
    r"|(?:来自|出生在|出生于|生在|长在)(?P<o3>[^，,。！!？?\s]{2,8})"
)
_CAME_TO_ZH = re.compile(
    r"(?:来|到|搬来|搬到)(?P<o>[^，,。！!？?\s]{2,6}?)(?:都|已经|也)?(?:快|有|差不多|整整)?"
    r"[\d一二三四五六七八九十两几半]+(?:多)?(?:年|个月)"
)
""""来广州都快五年了": the user has lived there that long."""
_WORK_ZH = re.compile(
    r"在\s*(?P<o>[^，,。！!？?\s]{2,12}?|[A-Za-z][\w&.-]*(?: [A-Z][\w&.-]*)*)\s*"
    r"(?:上班|工作|工做|做|当|任职|干)"
)
_JOINED_ZH = re.compile(
    r"(?:跳槽?到了?|离职去了?|入职了?|加入了?|(?i:\bjoin(?:ed)?)\s+|去了?(?=\S{2,12}?(?:上班|工作)))"
    r"\s*(?P<o>[A-Za-z][\w&.-]*(?: [A-Z][\w&.-]*)*|[\u4e00-\u9fff]{2,12}?)"
    r"\s*(?:上班|工作|了|啦|$|[，,。！!])"
)
"""A move to an organisation ("去年跳到了美团", "离职去拼多多了", "已经 join Stripe 了")."""
_NAME_ZH = re.compile(
    r"(?:^|[，,。\s])(?:我是|我叫|(?i:i'm|i am))\s*(?P<o>[A-Z][a-z]+|[\u4e00-\u9fff]{2,3})"
    r"(?=\s*(?:[，,。!！;；]|$))"
)
"""A self-introduction in a Chinese or mixed clause ("我是张伟，…", "我是 Kevin, …")."""
_ROLE_ZH = re.compile(
    r"(?:做|当|任职|担任)\s*(?P<r>[^，,。！!？?；;]{1,20}?)(?:的工作|工作|的)?(?=[，,。！!？?；;]|$)"
)
"""The job after "在<org>做/当…" ("在平安做理赔", "在字节做 backend engineer")."""


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
        m = pattern.search(clause)
        if m and (m.groupdict().get("o") or m.groupdict().get("b")):
            value = clean_value(m.group("o") or m.group("b"))
            if predicate in {"location", "hometown"} and _TZ_EN.fullmatch(value):
                continue  # "I'm in PST": a timezone, not a place
            if value and len(value.split()) <= 4:
                value = value.lower() if predicate == "occupation" else value
                found.setdefault(predicate, Slot("user", predicate, value))
    pets = [*_PET_EN.finditer(clause), *_PET_ZH.finditer(clause)]
    pets += [p for p in _ALSO_PET_EN.finditer(clause) if pets]  # "2 cats and a rabbit"
    named = [(m.group("o") or m.groupdict().get("o2") or "").lower() for m in pets]
    if any(n not in _GENERIC_PETS for n in named):
        named = [n for n in named if n not in _GENERIC_PETS]  # the breed, not "puppy"
    for value in named:
        if value:
            found.setdefault(f"pet:{value}", Slot("user", "pet", value, multi_valued=True))
    m = _OCC_ZH.search(clause)
    if m:
        found.setdefault("occupation", Slot("user", "occupation", m.group("o")))
    m = _JOB_SUFFIX_ZH.search(clause)
    if m and "occupation" not in found:
        job = m.group("o") or m.group("o2") or ""
        if not _NOT_JOB_ZH.search(job):
            found["occupation"] = Slot("user", "occupation", job)
    m = _JOB_SUFFIX_EN.search(clause)
    if m and "occupation" not in found:
        job = m.group("o").lower()
        if not set(job.split()) & _NOT_JOBS_EN and not _DIET.search(job):
            found["occupation"] = Slot("user", "occupation", job)
    m = _OCC_MIXED.search(clause)
    if m and re.search(r"[\u4e00-\u9fff]", clause):
        found.setdefault("occupation", Slot("user", "occupation", m.group("o")))
    m = _TEACH_ZH.search(clause)
    if m and "occupation" not in found:
        found["occupation"] = Slot("user", "occupation", f"{m.group('o')}老师")
    m = _TEACH_EN.search(clause)
    if m and "occupation" not in found:
        found["occupation"] = Slot("user", "occupation", _teacher_of(m.group("o")))
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
        work = zh_workplace(m.group("o"))
        if work is not None:
            found.setdefault(work[0], Slot("user", work[0], work[1]))
        role = _ROLE_ZH.match(clause, m.end() - 1)
        if role is not None and "occupation" not in found:
            job = bound_open(role.group("r"))
            if 1 < len(job) <= 20 and not re.match(r"[这那]|事|饭|菜|作业", job):
                found["occupation"] = Slot("user", "occupation", job)
    m = _HOMETOWN_ZH.search(clause)
    if m and "hometown" not in found:
        place = zh_place(m.group("o") or m.group("o2") or m.group("o3") or "")
        if place:
            found["hometown"] = Slot("user", "hometown", _city(place))
    m = _CAME_TO_ZH.search(clause)
    if m and "location" not in found:
        place = zh_place(m.group("o"))
        if place:
            found["location"] = Slot("user", "location", _city(place))
    starts = range(len(clause)) if "location" not in found else range(0)
    for m in (_LOCATION_ZH.match(clause, i) for i in starts):
        if m is None:
            continue
        place = zh_place(m.group("o"))  # "现在住在杭州": "在住在…" is no place, "住在杭州" is
        if place and _city(place) != getattr(found.get("hometown"), "object", None):
            found["location"] = Slot("user", "location", _city(place))
            break
    return list(found.values())


def _person_name(word: str) -> bool:
    """True when ``word`` reads as a person's name: a capitalised Latin word that is no
    common word of an introduction, or Chinese jieba tags as a person name (``nr``)."""
    if word.isascii():
        return not re.fullmatch(_NOT_INTRO, word)
    tagged = [w for w in zh_words(word) if w[0].strip()]
    return (len(tagged) == 1 and tagged[0][1] == "nr") or (
        len(tagged) == 2 and tagged[0][1] == "nr" and len(word) <= 3
    )


def _teacher_of(taught: str) -> str:
    """The job of "I teach <taught>": ``<subject> teacher`` ("high school chemistry" →
    "chemistry teacher"), else ``teacher`` ("5th grade", "kids")."""
    words = re.sub(r"(?i)\bat\b.*$", "", taught).split()
    word = words[-1].lower() if words else ""
    if word.isalpha() and word not in {"grade", "school", "kids", "children", "students", "part"}:
        return f"{word} teacher"
    return "teacher"


SWITCHED = re.compile(
    r"(?i)换成了?|改成了?|改用了?|换到了?|切到了?|切换到了?|迁移到了?|升级到了?|转向了?|改喝了?"
    r"|\b(?:switched|moved|migrated|changed|upgraded|converted|went)\s+(?:over\s+)?(?:back\s+)?"
    r"(?:from\s+[\w.+#-]+(?:\s[\w.+#-]+)?\s+)?to\b"
    r"|\bnow\s+(?:i\s+)?(?:use|using|on|prefer)\b"
)
"""A switch: the value after it is the current one ("拿铁喝着胃不舒服，换成美式了")."""


_LENGTH_CONTEXT = re.compile(
    r"(?i)\b(?:answers?|repl(?:y|ies)|responses?|explanations?|explain\w*|messages?|summar\w+"
    r"|keep (?:it|them|things)|write-?ups?)\b|回答|回复|答复|解释|讲|说|写|总结|回我"
    r"|\bto the point\b|\bno fluff\b|\btl;?dr\b|\bgo (?:deep|deeper)\b"
    r"|啰嗦|言简意赅|长话短说|越细越好"
)
_CONCISE_CUE = re.compile(
    r"(?i)\bto the point\b|\bno (?:fluff|essays?|rambling|walls? of text)\b|\bshort\b"
    r"|\bbrief(?:ly)?\b|\btl;?dr\b|\b(?:not|never) (?:too |so )?(?:long|wordy|verbose)\b"
    r"|\btoo (?:long|wordy|verbose)\b|(?:别|不要|少)(?:太)?啰嗦|啰嗦|言简意赅|长话短说"
    r"|简单说|简单讲"
    r"|短点|短些|简练|少废话|(?:别|不要|不用)(?:写|讲|说)?(?:太|那么)?长|一两句"
)
_DETAILED_CUE = re.compile(
    r"(?i)\bgo (?:deep|deeper|in-?depth)\b|\bin-?depth\b|\bin (?:great |full )?detail\b"
    r"|\b(?:long|longer|thorough|exhaustive|comprehensive)\b|\b(?:not|never) (?:too |so )?short\b"
    r"|细一点|细一些|越细越好|越详细越好|讲透|说透|展开(?:讲|说)|深入|不怕长|(?:别|不要)(?:太)?短"
)


def length_slot(clause: str) -> Slot | None:
    """``response_length`` when ``clause`` says how long answers should be in words the
    lexicon does not list ("short and to the point", "go deep", "别啰嗦", "越细越好"): only
    when it speaks of answers or explanations (or "keep it …"), so "a short trip" is not."""
    if not _LENGTH_CONTEXT.search(clause):
        return None
    concise, detailed = _CONCISE_CUE.search(clause), _DETAILED_CUE.search(clause)
    if concise and (detailed is None or concise.start() <= detailed.start()):
        return Slot("user", "response_length", "concise")
    if detailed:
        return Slot("user", "response_length", "detailed")
    return None


_CASED_TOOLS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "programming_language",
        re.compile(
            r"(?:\b(?i:in|with|write|writes|writing|written|code|coding|program|programming|use"
            r"|using|learn|learning|love|prefer|like|mostly|mainly)\s+|[写用学是爱欢]\s*)"
            r"(?P<o>Go)(?![\w.+#-])"
        ),
    ),
    (
        "editor",
        re.compile(
            r"(?:\b(?i:use|using|in|to|with|prefer|love|like)\s+|[用是到成在]\s*)"
            r"(?P<o>Zed|Cursor)(?![\w-])"
        ),
    ),
    (
        "operating_system",
        re.compile(
            r"(?i)(?:\b(?:run|runs|running|use|using|on|daily-?drive|installed)\s+|[用是装]\s*)"
            r"(?P<o>arch)(?![\w-])"
        ),
    ),
    (
        "database",
        re.compile(
            r"(?:\b(?i:on|use|using|in|with|is|run|runs)\s+|[用是在]\s*)"
            r"(?P<o>Oracle(?:\s+\d+[a-z]?)?)(?![\w-])"
        ),
    ),
)
"""Tool names that are also common words ("go", "zed", "arch", "oracle"): a value only when
written as a name right after a verb or preposition that takes a tool ("written in Go",
"我主要写 Go", "i run arch")."""


def _cased_tool(clause: str) -> Slot | None:
    for predicate, pattern in _CASED_TOOLS:
        m = pattern.search(clause)
        if m and not _NEGATED.search(clause[max(0, m.start("o") - 16) : m.start("o")]):
            value = m.group("o")
            return Slot("user", predicate, "Arch" if value.lower() == "arch" else value)
    return None


def typed_slot(clause: str) -> Slot | None:
    """A typed slot of the labelling guide named in ``clause``: the answer language when the
    clause is about replies, else the earliest non-negated topic value (editor, database,
    UI theme, indentation, drink, cuisine...) — after a switch ("换成…", "switched to…") the
    value it switches to, naming the one before as the old value; else the answer length in
    words the lexicon does not list (:func:`length_slot`), a tool named by a common word
    ("written in Go"), a cuisine ("Thai is my favourite cuisine")."""
    lang = _first_alias(clause, LANGUAGES)
    if lang is not None and _ANSWERS.search(clause):
        return Slot("user", "answer_language", lang[1])
    switch = SWITCHED.search(clause)
    if switch is not None:
        after = _topic_in(clause[switch.end() :])
        if after is not None:
            head = clause[: switch.end()]  # "from X to": the old value is in the switch
            before = _topic_in(head, only=after[1])
            value = topic_surface(clause[switch.end() :], after[1], after[2])[0]
            old = topic_surface(head, *before[1:])[0] if before else None
            return Slot("user", after[1], value, after[1] in {"cuisine", "pet"}, corrects=old)
    found = _topic_in(clause)
    if found is None:
        return (
            length_slot(clause)
            or _cased_tool(clause)
            or _cuisine_slot(clause)
            or quantity_slot(clause)
        )
    value = topic_surface(clause, found[1], found[2])[0]
    return Slot("user", found[1], value, multi_valued=found[1] in {"cuisine", "pet"})


_CUISINE_EN = re.compile(
    r"(?i)^(?P<o>[a-z][\w'-]*(?:\s[a-z][\w'-]*)?)\s+(?:food\s+)?(?:is|are)\s+(?:hands\s+down\s+|easily\s+"
    r"|probably\s+|definitely\s+)?my\s+(?:absolute\s+|all-time\s+)?(?:favou?rite|fave|go-to)"
    r"\s+(?:cuisine|food|kind of food)\b"
)


def _cuisine_slot(clause: str) -> Slot | None:
    """The cuisine of "<X> is my favourite cuisine" when no lexicon cuisine is named."""
    m = _CUISINE_EN.match(clause.strip())
    if m is None or m.group("o").lower() in {"it", "this", "that", "what", "which"}:
        return None
    return Slot("user", "cuisine", m.group("o"), multi_valued=True)


def _topic_in(text: str, only: str | None = None) -> tuple[int, str, str] | None:
    """``(position, predicate, canonical)`` of the earliest non-negated topic value in
    ``text`` (of the predicate ``only`` when given)."""
    found: tuple[int, str, str] | None = None
    for predicate, table in TOPICS.items():
        if only is not None and predicate != only:
            continue
        hit = _first_alias(text, table)
        if hit is not None and (found is None or hit[0] < found[0]):
            found = (hit[0], predicate, hit[1])
    return found


_DIET = re.compile(
    r"(?i)\b(?P<en>vegetarian|vegan|pescatarian|halal|kosher)\b|(?P<zh>纯素|吃素|素食|清真)"
)
_DIET_ZH = {"纯素": "vegan", "吃素": "vegetarian", "素食": "vegetarian", "清真": "halal"}
_ALLERGY = re.compile(
    r"(?i)\ball?er?gic to (?P<a>[\w -]+?(?:(?:,\s*|\s+and\s+|\s+or\s+)(?!so\b|but\b)[\w-]+"
    r"(?:\s[\w-]+)?)*?)(?=[.;!?(—–]|\s-\s|,\s*(?:so|but|which|and i)\b"
    r"|[,，]\s*(?:所以|但|因为|不过)|\s+(?:so|but|which)\b|$)"
    r"|\b(?P<b>[a-z-]+(?: [a-z-]+)?) allergy\b"
    r"|过敏(?:的|源)(?:是|为)(?P<e>[\u4e00-\u9fff]{1,6}?)(?=[，,。！!？?；;]|$)"
    r"|我?对(?P<c>[\u4e00-\u9fff、和]{1,12}?)(?:都|也)?过敏"
    r"|我?(?P<d>[\u4e00-\u9fff]{1,4}?)(?:类)?(?:都|也)?过敏"
    r"|(?<![A-Za-z])(?P<g>[A-Za-z][\w-]*(?: [A-Za-z][\w-]*)?)\s*(?:都|也)?过敏"
)
_LIST_SPLIT = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|、|和|跟|及)\s*")


def allergy_slots(clause: str) -> list[Slot]:
    """Each allergen named in ``clause`` ("allergic to shellfish and sesame" → shellfish,
    sesame; "过敏的是核桃" → 核桃; "对花生和芒果过敏" → 花生, 芒果)."""
    m = _ALLERGY.search(clause)
    if m is None:
        return []
    raw = next(g for g in m.groups() if g)
    if m.group("b") and re.match(r"(?i)\s+to\s+\w", clause[m.end() :]):
        # "mild allergy to penicillin": the allergen follows, the words before qualify it
        raw = re.match(r"(?i)\s+to\s+(?P<a>[\w -]+?)(?=[,.;!?(—–]|\s-\s|$)", clause[m.end() :])
        raw = raw.group("a") if raw else ""
    raw = re.split(r"\s*(?:[—–(（]|\s-\s)", raw)[0]  # "shellfish — shrimp, crab": shellfish
    raw = re.sub(r"(?i)\s+(?:fyi|btw|lol|too|as well|though)$", "", raw.strip())
    raw = re.sub(r"^(?:.*[是就])(?=[\u4e00-\u9fff]{1,6}$)", "", raw)  # "查出来是坚果" → 坚果
    raw = re.sub(r"^[\u4e00-\u9fff]*?对(?=[\u4e00-\u9fff])", "", raw)  # "而且对芒果" → 芒果
    out: list[Slot] = []
    for part in _LIST_SPLIT.split(raw):
        value = clean_value(re.sub(r"(?i)^(?:a|an|the|severe|serious|my|all)\s+", "", part))
        if value and value.lower() not in {"serious", "severe", "food", "an", "the", "我"}:
            out.append(Slot("user", "allergy", value.lower(), multi_valued=True))
    return out


_FOODS = (
    "dairy|gluten|lactose|sugar|caffeine|alcohol|nuts|peanuts|shellfish|eggs?|soy|pork|beef|meat"
    "|fish|seafood|spicy food|salt|wheat|garlic|onions?|red meat|raw fish|sushi|coffee|milk"
)
_RESTRICTION = re.compile(
    r"(?i)\b(?:i\s+)?(?:can't|cannot|can not|don't|do not|never|shouldn't|mustn't)\s+(?:eat|drink)"
    r"\s+(?P<a>[\w -]+?)(?=[,.;!?(—–]|\s+(?:and|so|but|because|for|anymore)\b|$)"
    r"|\bnothing\s+(?:with\s+)?(?P<b>[a-z-]+(?: [a-z-]+)?)\s+(?:for me|in my|in the|please)\b"
    r"|^nothing\s+(?:with\s+)?(?P<g>[a-z-]+)(?=[,.;!?]|$)"
    r"|\bno\s+(?P<h>[a-z-]+(?: [a-z-]+)?)\s+in\s+(?:my|the|our)\s+(?:meals?|meal plans?|recipes?"
    r"|food|dishes|menu|diet)\b"
    r"|\b(?P<c>gluten|dairy|lactose|nut|egg|soy|sugar|meat|pork|alcohol|caffeine)-free\b"
    r"|\b(?P<d>lactose|gluten|fructose) intolerant\b"
    r"|(?:不能|不可以|不敢|不让|别让我|从不|不)我?(?:吃|喝|碰)(?P<e>[\u4e00-\u9fff]{1,6}?)"
    r"(?=[，,。！!？?；;了的]|$)"
    r"|(?P<f>乳糖|麸质|酒精)不耐受?"
    r"|\bcan(?:'t|not| not)\s+(?:have|tolerate|handle|do)\s+(?P<i>" + _FOODS + r")\b"
    r"|\b(?:on\s+an?\s+)?(?P<j>low-?\s?(?:sodium|salt|sugar|carb|fat|fodmap))\s+diet\b"
    r"|\bno\s+(?P<k>" + _FOODS + r")(?:\s+after\s+\w+)?\s+for\s+me\b"
    r"|(?P<l>(?:(?!我)[\u4e00-\u9fffA-Za-z]){1,6}?)\s*我?\s*"
    r"(?:(?:一点都|一点也|一点儿都|完全|都|也)不能(?:碰|吃|喝)|不能碰)"
    r"|(?:医生让我|得|要)少(?P<m>盐|油|糖|吃辣)|忌口(?:的是)?(?P<n>[\u4e00-\u9fff]{1,4}?)(?=[，,。！!？?；;]|$)"
    r"|戒了?(?P<p>糖|酒|咖啡|奶茶|碳水|辣)"
)
"""What the user cannot eat or drink ("can't eat gluten", "no dairy for me", "不吃牛肉",
"医生不让喝咖啡", "lactose intolerant" → lactose)."""


_NOT_FOOD_ZH = frozenset({"太多", "很多", "多", "太晚", "太饱", "东西", "饭", "太快"})


def restriction_slot(clause: str) -> Slot | None:
    """What the user cannot eat or drink, as said (kind ``constraint``), or None."""
    m = _RESTRICTION.search(clause)
    if m is None:
        return None
    value = next(g for g in m.groups() if g)
    value = clean_value(re.sub(r"(?i)^(?:any|anything with|a|an|the)\s+", "", value))
    if not value or value.lower() in {"it", "that", "this", "them", "much", "more", "too"}:
        return None
    if _ZH_PARTICLE_TAIL.fullmatch(value) or value in _NOT_FOOD_ZH:
        return None  # "JS 我基本不碰了", "周末不能吃太多": nothing eaten is named
    return Slot("user", "dietary_restriction", value.lower(), multi_valued=True)


_NO_EAT = re.compile(
    r"(?i)\b(?:don't|do not|dont|never|can't|cannot|won't|no longer|stopped|avoid|cut out|gave up"
    r"|give up|not even|without|no)\b|不吃|不碰|不沾|不能吃|戒了|不要|不含|都不|也不|不"
)
_MEAT = re.compile(r"(?i)\b(?:meat|beef|pork|chicken|poultry|lamb)\b|肉|荤")
_FISH = re.compile(r"(?i)\b(?:fish|seafood|shellfish)\b|鱼|海鲜|水产")
_ANIMAL = re.compile(r"(?i)\banimal (?:products?|foods?)|动物(?:制品|产品|性食品)")
_EGG_DAIRY = re.compile(r"(?i)\b(?:dairy|eggs?|milk|cheese|honey)\b|蛋|奶|蜂蜜")
_DIET_PARTS = re.compile(r"(?i)[,，;；.。!！]|\bbut\b|\bexcept\b|但是?|不过|倒是|除了")
_PLANT_BASED = re.compile(r"(?i)\bplant[- ]based\b|\bfully plant\b|植物性饮食|全素")


def described_diet(clause: str) -> str | None:
    """The guide's diet word for a diet described rather than named, read part by part (the
    clause cut at commas and "but"): the foods of a part with a negation are excluded, those of
    a part without one are eaten. No animal products (or no meat and no eggs or dairy), or
    "plant-based" → ``vegan``; no meat and no fish → ``vegetarian``; no meat but fish eaten →
    ``pescatarian`` ("I'll eat fish but no other meat", "只吃鱼，其他肉都不吃"); else None
    (one food avoided is a ``dietary_restriction``)."""
    if _PLANT_BASED.search(clause):
        return "vegan"
    excluded: set[str] = set()
    eaten: set[str] = set()
    for part in _DIET_PARTS.split(clause):
        found = {
            name
            for name, pattern in (
                ("meat", _MEAT),
                ("fish", _FISH),
                ("animal", _ANIMAL),
                ("egg_dairy", _EGG_DAIRY),
            )
            if pattern.search(part)
        }
        (excluded if _NO_EAT.search(part) else eaten).update(found)
    if "animal" in excluded or {"meat", "egg_dairy"} <= excluded:
        return "vegan"
    if "meat" in excluded and "fish" in excluded:
        return "vegetarian"
    if "meat" in excluded and "fish" in eaten:
        return "pescatarian"
    return None


def diet_or_allergy_slot(clause: str) -> Slot | None:
    """The user's diet (``vegetarian``…), an allergen, or what they cannot eat or drink
    named in ``clause``."""
    allergens = allergy_slots(clause)
    if allergens:
        return allergens[0]
    m = _DIET.search(clause)
    if m:
        value = m.group("en").lower() if m.group("en") else _DIET_ZH[m.group("zh")]
        return Slot("user", "diet", value)
    described = described_diet(clause)
    if described is not None:
        return Slot("user", "diet", described)
    return restriction_slot(clause)


def quantity_slot(clause: str) -> Slot | None:
    """The budget or deadline ``clause`` states (:func:`~.spans.budget_value`,
    :func:`~.spans.deadline_value`: the amount or date as written), or None."""

    budget = budget_value(clause)
    if budget is not None:
        return Slot("user", "budget", budget)
    deadline = deadline_value(clause)
    if deadline is not None:
        return Slot("user", "deadline", deadline)
    return None


def constraint_slot(clause: str) -> Slot | None:
    """The rule a constraint clause states, as ``must`` / ``must_not`` on the assistant (an
    obligation about the answer language or length is that preference instead)."""
    body = clean_value(strip_lead(clause))
    if len(body) < 2:
        return None
    health = diet_or_allergy_slot(clause)
    if health is not None:
        return health
    quantity = quantity_slot(clause)
    if quantity is not None:
        return quantity  # "keep the trip under €1,200": the budget, not the rule's words
    prohibits = bool(_PROHIBIT.search(clause))
    typed = None if prohibits else typed_slot(clause)
    if typed is not None and typed.predicate in {"answer_language", "response_length"}:
        return typed
    if len(body) > MAX_FREE_TEXT:
        return None
    predicate = "must_not" if prohibits else "must"
    return Slot("assistant", predicate, body[:200].lower(), multi_valued=True)


_NOT_ANSWERS = re.compile(
    r"(?i)\b(?:speak|spoke|learn|learning|study|studying|native|fluent|class|course|lesson"
    r"|exam|movies?|films?|songs?|music|books?|food|bbq|barbecue|dramas?|shows?|restaurants?"
    r"|friends?|people)\b|会说|会讲|在学|学了|母语|课|考试|电影|歌|书|菜|料理|剧|餐厅|朋友"
)


def language_preference(clause: str) -> Slot | None:
    """``answer_language`` for a preference clause that names a language and nothing that
    makes it a language the user speaks or learns ("算了还是中文吧", "English is fine again"),
    else None. Only for clauses already read as a preference."""
    lang = _first_alias(clause, LANGUAGES)
    if lang is None or _NOT_ANSWERS.search(clause):
        return None
    rest = clause[: lang[0]] + " " + clause[lang[0] :].split(None, 1)[-1]
    if re.search(r"[\u4e00-\u9fff]", clause):
        rest = "".join(ch for ch in clause if "\u4e00" <= ch <= "\u9fff")
        if len(rest) > 14:
            return None  # a long clause that names a language says more than the answers'
    elif len(re.findall(r"[A-Za-z']+", rest)) > 5:
        return None
    return Slot("user", "answer_language", lang[1])


def preference_slot(clause: str) -> Slot | None:
    """A typed preference, a language to answer in, a like / dislike, or the preference in
    the user's words."""
    body = strip_lead(clause)
    typed = typed_slot(body) or language_preference(body)
    if typed is not None:
        return typed
    for pattern, predicate in (
        (_DISLIKE_EN, "dislikes"),
        (_LIKE_EN, "likes"),
        (_DISLIKE_ZH, "dislikes"),
        (_LIKE_ZH, "likes"),
    ):
        m = pattern.match(body)
        if m:
            value = bound_liking(clean_value(m.group("o")))
            if value:
                return Slot("user", predicate, value.lower(), multi_valued=True)
    body = clean_value(body)
    if not 2 <= len(body) <= MAX_FREE_TEXT:
        return None
    return Slot("user", "prefers", body, multi_valued=True)


_NOT_FACT_TOPICS = frozenset({"pet", "cuisine", "drink"})
"""Topic values that name a liking, not a fact ("coffee" in a fact clause is not a drink
preference); pets are found by :func:`trigger_slots` with their breed."""


_PARTS = re.compile(
    r"\s*(?:,(?!\d{3}\b)|[，;；]|\s[—–-]\s|[—–])\s*|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])"
)
_TZ_EN = re.compile(
    r"(?<![\w+-])(?P<o>(?:UTC|GMT)\s?[+-]\s?\d{1,2}(?::?\d{2})?|[PMCE][SD]T|CET|CEST|EAT|WAT|JST|KST"
    r"|IST|BST|AEST|AEDT|NZST|SGT|HKT|(?i:pacific|eastern|central|mountain)(?:\s+time)?)"
    r"(?:\s+(?:time\s*zone|timezone))?(?![\w+-])",
)
_TZ_CUE = re.compile(
    r"(?i)time\s*zone|\btime\b|\bi'?m\s+(?:on|in)\b|\bon\s+[A-Z]{3}\b|时区|时间|东.区|西.区"
)
_TZ_ZH = re.compile(
    r"(?P<o>东[一二三四五六七八九十]{1,2}区|西[一二三四五六七八九十]{1,2}区|北京时间|东京时间|美东时间|美西时间)"
)
_SPEAK = re.compile(r"(?i)\bi\s+(?:can\s+)?speak\s+(?P<en>.+)$|我(?:会说|会讲|会)(?P<zh>[^，,。]+)")


def split_parts(clause: str) -> list[str]:
    """``clause`` cut at commas, semicolons and dashes (and at spaces between Chinese
    words), empty parts dropped."""
    return [p for p in _PARTS.split(clause) if p and len(p.strip()) >= 2]


def said_timezone(text: str) -> str | None:
    """The timezone named in ``text`` as written ("UTC+8", "PST", "东八区", "Eastern time"),
    or None."""
    m = _TZ_ZH.search(text) or _TZ_EN.search(text)
    if m is None:
        return None
    return re.sub(r"(?i)\s+(?:time\s*zone|timezone)$", "", m.group("o"))


def timezone_slot(clause: str) -> Slot | None:
    """The user's timezone named in ``clause``, as said ("PST", "UTC+2", "Eastern time",
    "东八区"); the resolver keeps its ``UTC±h`` form beside it."""
    m = _TZ_ZH.search(clause)
    if m:
        return Slot("user", "timezone", m.group("o"))
    m = _TZ_EN.search(clause)
    if m and _TZ_CUE.search(clause):
        value = re.sub(r"(?i)\s+(?:time\s*zone|timezone)$", "", m.group("o"))
        if value.isalpha() and value.islower() and "time" not in m.group(0).lower():
            return None  # "pacific" alone, lower-case: an ocean more likely than a zone
        return Slot("user", "timezone", value)
    return None


def speaks_slots(clause: str) -> list[Slot]:
    """Each language the user says they speak, as they name it ("我会粤语和普通话" → 粤语,
    普通话; "I speak Portuguese, and some French" → Portuguese, French)."""
    m = _SPEAK.search(clause)
    if m is None:
        return []
    span = m.group("en") or m.group("zh") or ""
    found: list[tuple[int, str]] = []
    for aliases in LANGUAGES.values():
        for alias in aliases:
            for hit in _alias_re(alias).finditer(span):
                if not any(s <= hit.start() < s + len(v) for s, v in found):
                    found.append((hit.start(), span[hit.start() : hit.end()]))
    found.sort()
    kept = [
        (at, v)
        for at, v in found
        if not any(o != at and at < o + len(w) and o <= at for o, w in found)
    ]
    return [Slot("user", "speaks", v, multi_valued=True) for _, v in kept]


def fact_slots(clause: str, *, liking: bool = False) -> list[Slot]:
    """Every attribute a fact clause names (a typed value, then locations, employers…;
    "我是护士，在市一院上班" → occupation and employer); else, part by part (the clause cut at
    commas and dashes), the attribute and value of each "my/our/the X is Y", "我的X是Y",
    "X叫Y", "we … on <Name>"-shaped part; else the clause as a ``note``. ``liking``: a drink,
    dish or pet named is a value too (a correction of one: "换成美式了"), as it is after a
    switch."""
    body = strip_lead(clause)
    typed = typed_slot(body)
    liked = liking or (typed is not None and typed.corrects is not None)
    many = (
        [typed] if typed is not None and (liked or typed.predicate not in _NOT_FACT_TOPICS) else []
    )
    spoken = speaks_slots(body)
    if spoken:  # "I speak Portuguese" names a language the user speaks, not the answers'
        many = [m for m in many if m.predicate != "answer_language"] + spoken
    tz = timezone_slot(body)
    if tz is not None:
        many.append(tz)
    health = diet_or_allergy_slot(body)  # "pescatarian here": the diet whatever the kind read
    if health is not None and health.predicate in {"diet", "allergy"}:
        many += allergy_slots(body) or [health]
    have = {m.predicate for m in many}
    many += [t for t in trigger_slots(body) if t.predicate not in have]
    parts = split_parts(body)
    if many and all(m.predicate == "pet" for m in many):
        # "我家兔子叫年糕": the pet, and its name as the clause's own attribute
        named = [slot for part in parts if (slot := _shaped_fact(strip_lead(part))) is not None]
        many += [n for n in named if n.predicate not in {"pet", "has"}]
    if many:
        return _dedupe(many)
    shaped = [slot for part in parts if (slot := _shaped_fact(strip_lead(part))) is not None]
    if shaped:
        return _dedupe([one for slot in shaped for one in _listed(slot)])
    note = clean_value(body)
    if not 2 <= len(note) <= MAX_FREE_TEXT:
        return []
    return [Slot("user", "note", note, multi_valued=True)]


def _listed(slot: Slot) -> list[Slot]:
    """A value that lists names joined by "+" as one slot per name ("React 18 + Vite" →
    "React 18", "Vite")."""
    names = [n.strip() for n in slot.object.split("+")]
    if len(names) < 2 or not all(names) or not all(_named(n) for n in names):
        return [slot]
    return [replace(slot, object=n, multi_valued=True) for n in names]


def _dedupe(slots: list[Slot]) -> list[Slot]:
    """``slots`` without repeats of one ``(subject, predicate, object)``."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for slot in slots:
        key = (slot.subject, slot.predicate, slot.object.casefold())
        if key not in seen:
            seen.add(key)
            out.append(slot)
    return out


def fact_slot(clause: str) -> Slot | None:
    """The first of :func:`fact_slots` (``None`` when nothing is left)."""
    slots = fact_slots(clause)
    return slots[0] if slots else None


def _named(value: str) -> bool:
    """True when ``value`` reads as a name or a quantity ("GitHub Actions", "8.0", "阿里云",
    "eu-central-1"), not a state ("totally fine")."""
    return bool(re.match(r"[A-Z0-9\u4e00-\u9fff]", value)) or bool(re.search(r"\d", value))


def _relation_predicate(word: str, attr: str) -> str | None:
    """``daughter_birthday`` for "daughter" + "birthday"; None when ``word`` is no relation."""
    rel = RELATIONS.get(word.lower())
    if rel is None:
        return None
    attr = ZH_ATTRIBUTE_NAMES.get(attr, attr)
    return f"{rel}_{snake(attr)}"


def _zh_noun(attr: str) -> bool:
    """True when ``attr`` ends on a noun as jieba tags it ("线上环境", "专业", "region"): an
    attribute, not a verb or an adverb ("准确说", "已经不")."""
    if attr.isascii():
        return True
    words = [(w, f) for w, f in zh_words(attr) if w.strip() and w != "_"]
    flags = ("n", "eng", "vn", "j", "r", "f", "s", "zg", "q")
    return bool(words) and words[-1][1].startswith(flags)


_PET_WORDS = frozenset({"猫", "狗", "猫咪", "狗狗", "cat", "dog", "puppy", "kitten"})


_FILLER_PREDICATES = frozenset(
    {
        "oops", "ok", "okay", "yes", "yeah", "yep", "sorry", "btw", "lol", "haha", "hmm", "well",
        "so", "actually", "also", "and", "but", "anyway", "fyi", "wait", "no", "nope", "hey",
        "hi", "hello", "thanks", "this", "that", "it", "there", "here", "what",
    }
)  # fmt: skip
_ZH_NOT_ATTRIBUTE = re.compile(r"[了我你他她吧呢啊吗嘛呀哦就还也都又]|^(?:对|嗯|哦|啊|好|哈|说|是)")
_LEAD_CONJUNCTION = re.compile(r"(?i)^(?:但是?|而且?|可是|不过|并且|and|but|so)[\s_]*")


def meaningful_predicate(predicate: str) -> bool:
    """True when ``predicate`` names an attribute: a word of the guide's table or one the
    lexicon knows, else an open name of at least 3 letters that is no filler ("oops",
    "btw") and, in Chinese, ends on a noun and holds no particle, pronoun or time word
    ("对了我", "以前", "少打了个_size" are none). Chunking leaves such pieces; a slot keyed by
    one is dropped, so a correction falls back to its bare value."""
    if predicate in _ATTR_NORMAL.values() or attribute_of(predicate.replace("_", " ")):
        return True
    words = [w for w in predicate.split("_") if w]
    if not words or words[0].lower() in _FILLER_PREDICATES:
        return False
    if predicate.isascii():
        return len(predicate) >= 3 and all(w.isalpha() for w in words)
    zh = "".join(w for w in words if not w.isascii())
    if _ZH_NOT_ATTRIBUTE.search(zh) or strip_time(tuple(zh_words(zh))) != tuple(zh_words(zh)):
        return False
    return len(predicate) >= 2 and _zh_noun(zh)


def _shaped_fact(body: str) -> Slot | None:
    """An attribute and its value when ``body`` has that shape and the attribute is a
    :func:`meaningful_predicate`, else None. The slot is the user's even for "we"/"our": a
    project-level write needs the caller's confirmation, so placing a fact at the project
    level is left to the rules that name the project."""
    slot = _shape(body)
    return slot if slot is None or meaningful_predicate(slot.predicate) else None


def _shape(body: str) -> Slot | None:
    m = _HAS_EN.match(body)
    if m and _relation_predicate(m.group("rel"), "x") and not _IS.search(m.group("o")):
        value = bound_open(m.group("o"))
        if value and len(value.split()) <= 6:
            verb = "has" if re.search(r"(?i)\bhad?s?\b", body[: m.start("o")]) else "is"
            return Slot("user", _relation_predicate(m.group("rel"), verb) or "note", value, True)
    m = _MY_ATTR_EN.match(body)
    if m and _IS.search(m.group("o")) and not _IS.search(m.group("attr")):
        m = _MY_ATTR_IS_EN.match(body) or m  # "my niece's school is …": the attribute is school
    if m:
        value = bound_open(m.group("o"))
        attr = snake(re.sub(r"(?i)^(?:his|her|their|its)\s+", "", m.group("attr")))
        who = (m.group("who") or "").lower()
        if value and len(value.split()) <= 8 and (who in {"my", "our", "the"} or _named(value)):
            predicate = (
                _ATTR_NORMAL.get(attr)
                or attribute_of(attr.replace("_", " "))
                or _typed_attribute(attr)
                or attr
            )
            rel = attr.split("_", 1)
            if who == "my" and len(rel) == 2 and _relation_predicate(rel[0], rel[1]):
                predicate = _relation_predicate(rel[0], rel[1]) or predicate
            return Slot("user", predicate, value)
    m = _WE_VERB_EN.match(body)
    if m:
        value = bound_open(m.group("o"))
        if value and len(value.split()) <= 6:
            return Slot("user", f"{m.group('verb').lower()}_{m.group('prep').lower()}", value)
    m = _I_AM_EN.match(body)
    if m:
        value = m.group("o")
        return Slot("user", "age" if value.isdigit() else "trait", value, not value.isdigit())
    m = _I_HAVE_EN.match(body)
    if m:
        value = bound_open(m.group("o"))
        if value and len(value.split()) <= 6:
            verb = m.group("verb").lower()
            predicate = {"have": "has", "got": "has", "own": "has"}.get(verb, verb + "s")
            return Slot("user", predicate, value, multi_valued=True)
    m = _MY_ATTR_ZH.match(body)
    if m:
        value = bound_open(m.group("o"))
        attr = re.sub(r"\s+", "_", _LEAD_CONJUNCTION.sub("", m.group("attr").strip()))
        if (
            value
            and len(value) <= 30
            and attr
            and attr not in {"我", "我们", "本人", "咱们"}
            and not re.search(r"[你他她它这那哪每不没]|[都也还就正现]$", attr)
            and _zh_noun(attr)
        ):
            predicate = (
                _ATTR_NORMAL.get(attr) or attribute_of(attr) or _typed_attribute(attr) or attr
            )
            if attr in _PET_WORDS and "叫" in body[m.end("attr") : m.start("o")]:
                predicate = "pet_name"
            elif _relation_predicate(attr, "x") and "叫" in body[m.end("attr") : m.start("o")]:
                predicate = _relation_predicate(attr, "name") or predicate
            return Slot("user", snake(predicate) if predicate.isascii() else predicate, value)
    m = _COUNT_ZH.match(body)
    if (
        m
        and _zh_noun(m.group("attr"))
        and m.group("attr") not in {"我", "我们"}
        and not re.search(r"是|(?:周|星期|礼拜)$", m.group("attr"))
    ):
        attr = m.group("attr")
        kind = "age" if m.group("o").endswith("岁") or "今年" in body else "size"
        owned = _relation_predicate(attr, kind)
        return Slot(
            "user", owned or f"{snake(attr) if attr.isascii() else attr}_{kind}", m.group("o")
        )
    m = _I_AM_ZH.match(body)
    if m:
        return Slot("user", "identity", m.group("o"), multi_valued=True)
    m = _I_HAVE_ZH.match(body)
    if m:
        value = bound_open(m.group("o"))
        if value and len(value) <= 20:
            return Slot("user", "has", value, multi_valued=True)
    named = _named_after(body)
    if named is not None:
        return Slot("user", "uses", named, multi_valued=True)
    return None


def _named_after(body: str) -> str | None:
    """The name a fact part ends on after a preposition ("Prod sits behind Cloudflare" →
    Cloudflare, "We're on Kubernetes 1.28" → Kubernetes 1.28, "We're a Django shop" →
    Django), when the part names exactly one."""
    for m in _NAMED_AFTER.finditer(body):
        n = _NAMED_EN.match(body, m.end())
        if n and n.group("o") not in {"I", "I'm"}:
            return n.group("o").strip()
    return None


_CORR_SAID_ZH = re.compile(
    r"(?:是|叫|用|在|换成了?|改成了?|改到了?|跳到了?)\s*(?P<y>[^，,。！!？?\s]{1,12}?)\s*[，,]?\s*(?:而)?不是"
    r"\s*(?P<x>[^，,。！!？?\s]{1,12})"
    r"|不是\s*(?P<x2>[^，,。！!？?\s]{1,12}?)\s*[，,]\s*(?:而|应该)?是\s*(?P<y2>[^，,。！!？?\s]{1,12})"
)
_CORR_SAID_EN = re.compile(
    r"(?:^|(?<=[\s,:.]))(?P<y>[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?),?\s+not\s+"
    r"(?P<x>[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?)\b"
    r"|(?i:\bnot\s+)(?P<x2>[\w'-]+(?:\s[\w'-]+)?)\s*(?:[—–,;.]|\s-\s)\s*(?:it'?s\s+)?(?P<y2>[\w'-]+)"
)


def correction_slot(clause: str) -> Slot | None:
    """The new value and the old one of a correction that names both ("Houston, not Austin",
    "是 Lucy 不是 Lucky", "不是湖南，是湖北"), with no predicate: the resolver takes it from the
    record holding the old value. None when the clause does not name both."""
    m = _CORR_SAID_ZH.search(clause) or _CORR_SAID_EN.search(clause)
    if m is None:
        return None
    new = bound_open(m.group("y") or m.group("y2") or "")
    old = bound_open(m.group("x") or m.group("x2") or "")
    if not new or not old or new.casefold() == old.casefold():
        return None
    return Slot("", "", new, corrects=old)


_BARE_ZH = re.compile(
    r"^(?:应该是|其实是|是|叫)\s*(?P<y>[^，,。！!？?\s]{1,12})$"
    r"|(?:改成|换成|改到|换到|跳到|升级到|搬到|改为)了?\s*(?P<y2>[^，,。！!？?\s]{1,12}?)(?:了|啦|吧)?$"
)
_BARE_EN = re.compile(
    r"(?i)^(?:it'?s|it is|i meant|i mean|should be)\s+(?P<y>[\w'-]+(?:\s[\w'-]+)?)$"
)


def _bare_value(clause: str) -> list[Slot]:
    """A correction's new value said alone in one part ("打错了，是小宇，宇宙的宇" → 小宇),
    with no predicate: the resolver applies it to what the previous turn stored."""
    for part in _PARTS.split(strip_lead(clause)):
        m = _BARE_ZH.search(part.strip()) or _BARE_EN.match(part.strip())
        if m:
            value = bound_open(m.group("y") or m.groupdict().get("y2") or "")
            if value:
                return [Slot("", "", value)]
    return []


RULE_TOOLS = frozenset(
    {"programming_language", "test_framework", "database", "editor", "operating_system",
     "ui_theme", "indentation"}
)  # fmt: skip
"""Typed values an obligation may name: stored beside the rule ("always use pytest")."""


TYPED_FACTS = frozenset(
    {
        "name", "location", "hometown", "occupation", "employer", "timezone", "birthday",
        "diet", "allergy", "dietary_restriction", "drink", "cuisine", "editor",
        "programming_language", "operating_system", "database", "test_framework", "pet",
        "speaks", "budget", "deadline",
    }
)  # fmt: skip
"""The guide's typed predicates of facts about the user (answers' language and length, theme
and indentation are preferences)."""
_RULE_WORDS = re.compile(
    r"(?i)\b(?:must|mustn't|always|only|never|make sure|be sure|need(?:s)? to|have to|has to"
    r"|should|shouldn't|please|pls|plz|keep|use|avoid|don't|do not|dont|stop|no more|remember"
    r"|from now on|going forward)\b|必须|一定|务必|只|总是|都要|要|请|别|不要|不许|禁止|不得|记得"
    r"|以后|今后|不能|千万"
)
"""Words that make a clause a rule (an obligation or a prohibition) rather than a fact."""
_EMPTY_VALUE = re.compile(r"^[\s\W_的了是吧呢啊吗嘛呀哦和与及或]*$")


def slot_for(kind: str, clause: str) -> list[Slot]:
    """The generic slots of ``clause`` read as ``kind`` (empty when nothing is left): one
    for a preference or constraint, :func:`fact_slots` for a fact or correction. A slot whose
    value is only particles or punctuation (likes = "的") is dropped."""
    return [s for s in _slots_for(kind, clause) if not _EMPTY_VALUE.match(s.object)]


def _slots_for(kind: str, clause: str) -> list[Slot]:
    if kind == "correction":
        named = correction_slot(strip_lead(clause))
        if named is not None:
            return [named]
        found = [f for f in fact_slots(clause, liking=True) if f.predicate != "note"]
        return found or _bare_value(clause) or fact_slots(clause)
    if kind == "stable_fact":
        return fact_slots(clause)
    if kind == "constraint":
        allergens = allergy_slots(clause)
        if len(allergens) > 1:
            return allergens
        one = constraint_slot(clause)
        if one is not None and one.subject == "assistant" and not _RULE_WORDS.search(clause):
            # "name's Priya by the way": no obligation or prohibition is worded, so the rule
            # read into it is the typed fact it states, when it states one
            stated = [f for f in fact_slots(clause) if f.predicate in TYPED_FACTS]
            if stated:
                return stated
        if one is not None and one.predicate == "must":
            typed = typed_slot(strip_lead(clause))
            if typed is not None and typed.predicate in RULE_TOOLS:
                return [typed, one]  # "以后代码示例都用 TypeScript 写": the tool, and the rule
    elif kind == "preference":
        one = preference_slot(clause)
    else:
        one = None
    return [one] if one is not None else []


__all__ = [
    "RULE_TOOLS",
    "TYPED_FACTS",
    "Slot",
    "allergy_slots",
    "bound_liking",
    "bound_open",
    "clean_value",
    "constraint_slot",
    "correction_slot",
    "described_diet",
    "fact_slot",
    "fact_slots",
    "language_preference",
    "length_slot",
    "meaningful_predicate",
    "preference_slot",
    "quantity_slot",
    "said_timezone",
    "slot_for",
    "snake",
    "split_parts",
    "strip_lead",
    "trigger_slots",
    "typed_slot",
]
