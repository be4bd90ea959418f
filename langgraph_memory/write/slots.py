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
8.0") and stop where the value stops: trailing time expressions ("last month", "上个月"),
explanations after a comma or dash, articles and politeness tails are cut. The resolver
stores the lexicon's canonical form beside the value (``metadata["canonical"]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .lexicon import LANGUAGES, TOPICS, _alias_re, attribute_of, timezone_of
from .segment import strip_time, topic_surface, zh_words

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
}


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
    r"(?i)\s*(?:\(.*|（.*|\s[—–-]\s.*|[—–].*|;.*|；.*|,.*|，.*|\s+(?:so|because|since|which|who|but"
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
    value = re.sub(r"(?i)^(?:a|an|the)\s+", "", value)
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
    r"\s+(?:here\s+)?(?:in|to)|\b(?i:i'm|i am|we're|we are)\s+(?:now\s+)?in"
    r"|\b(?i:i've|i have|we've|we have)\s+(?:been\s+)?(?:living\s+|based\s+)?in"
    r"|\b(?:flat|apartment|house|home)\s+in)\s+(?:the\s+)?" + _PLACE_EN
)
_HOMETOWN_EN = re.compile(
    r"\b(?i:originally\s+from|i'm\s+(?:originally\s+)?from|i am\s+(?:originally\s+)?from|grew up in"
    r"|born and raised in|my hometown is)\s+(?:the\s+)?" + _PLACE_EN
)
_EMPLOYER_EN = re.compile(
    r"(?:\b(?:work|working|works)\s+(?:at|for)|\b[Ii]'m\s+(?:now\s+)?at|\bjoined|\bjob\s+at"
    r"|\b(?:engineer|developer|designer|manager|analyst|lead|scientist)\s+at)\s+"
    r"(?P<o>[A-Z][\w&.'-]*(?:\s[A-Z][\w&.'-]*)*)"
)
_OCCUPATION_EN = re.compile(
    r"(?i)\b(?:i'm|i am|i work as|work as|working as)\s+(?:a|an)\s+"
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
_PETS = (
    "golden retriever|labrador|beagle|corgi|poodle|husky|dachshund|greyhound|terrier|bulldog"
    "|shiba|puppy|kitten|dog|cat|rabbit|bunny|hamster|parrot|budgie|guinea pig|tortoise|turtle"
    "|goldfish|ferret"
)
_PET_EN = re.compile(
    rf"(?i)\b(?:have|got|adopted|getting|own)\s+(?:a|an|two|three|\d+|my|our)?\s*"
    rf"(?:(?:little|new|old|rescue|\d+-year-old)\s+)*(?P<o>{_PETS})s?\b"
)
_ALSO_PET_EN = re.compile(rf"(?i)\b(?:and|&)\s+(?:a|an|two|three|\d+)\s+(?P<o>{_PETS})s?\b")
_PETS_ZH = (
    "金毛|拉布拉多|柯基|泰迪|哈士奇|柴犬|比格|边牧|布偶猫|英短|橘猫|猫|狗|兔子|仓鼠|鹦鹉|乌龟"
)
_PET_ZH = re.compile(rf"(?:养了?|有|领养了?|收养了?)(?:一只|只|两只|一条|条|个)?(?P<o>{_PETS_ZH})")
_LOCATION_ZH = re.compile(
    r"(?<![不没])(?:住在|住|定居在?|搬到了?|搬去了?|人在|生活在|来到了?|在)(?P<o>[^，,。！!？?\s]{2,10})"
)
_OCC_ZH = re.compile(
    r"我(?:是|现在是|目前是|在做|做|当)(?:一名|一个|个|名)?(?P<o>[\u4e00-\u9fff]{0,4}?(?:工程师|程序员|老师"
    r"|教师|医生|护士|设计师|学生|研究生|博士生|经理|律师|研究员|分析师|会计|作家|架构师|教授|厨师|产品经理"
    r"|运营|销售|司机|记者|编辑|主播|店主|老板))"
)
_WORK_ZH = re.compile(r"在(?P<o>[^，,。！!？?\s]{2,12}?)(?:上班|工作|做|当|任职)")
_ROLE_ZH = re.compile(
    r"(?:做|当|任职|担任)\s*(?P<r>[^，,。！!？?；;]{1,20}?)(?:的工作|工作|的)?(?=[，,。！!？?；;]|$)"
)
"""The job after "在<org>做/当…" ("在平安做理赔", "在字节做 backend engineer")."""


def trigger_slots(clause: str) -> list[Slot]:
    """Locations, employers, occupations, names and pets named anywhere in ``clause`` ("my
    partner and I share a flat in Manchester" → location Manchester; "我是护士，在市一院上班"
    → employer 市一院); only used once the classifier has read the clause as a fact."""
    from .segment import zh_place, zh_workplace

    found: dict[str, Slot] = {}
    for pattern, predicate in (
        (_EMPLOYER_EN, "employer"),
        (_LOCATION_EN, "location"),
        (_HOMETOWN_EN, "hometown"),
        (_OCCUPATION_EN, "occupation"),
        (_NAME_EN, "name"),
    ):
        m = pattern.search(clause)
        if m:
            value = clean_value(m.group("o"))
            if value and len(value.split()) <= 4:
                value = value.lower() if predicate == "occupation" else value
                found.setdefault(predicate, Slot("user", predicate, value))
    pets = [*_PET_EN.finditer(clause), *_PET_ZH.finditer(clause)]
    pets += [p for p in _ALSO_PET_EN.finditer(clause) if pets]  # "2 cats and a rabbit"
    for m in pets:
        pet = Slot("user", "pet", m.group("o").lower(), multi_valued=True)
        found.setdefault(f"pet:{pet.object}", pet)
    m = _OCC_ZH.search(clause)
    if m:
        found.setdefault("occupation", Slot("user", "occupation", m.group("o")))
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
    m = _LOCATION_ZH.search(clause)
    if m and "location" not in found:
        place = zh_place(m.group("o"))
        if place:
            found["location"] = Slot("user", "location", place)
    return list(found.values())


SWITCHED = re.compile(
    r"(?i)换成了?|改成了?|改用了?|换到了?|切到了?|切换到了?|迁移到了?|升级到了?|转向了?|改喝了?"
    r"|\b(?:switched|moved|migrated|changed|upgraded|converted|went)\s+(?:over\s+)?(?:back\s+)?"
    r"(?:from\s+[\w.+#-]+(?:\s[\w.+#-]+)?\s+)?to\b"
    r"|\bnow\s+(?:i\s+)?(?:use|using|on|prefer)\b"
)
"""A switch: the value after it is the current one ("拿铁喝着胃不舒服，换成美式了")."""


def typed_slot(clause: str) -> Slot | None:
    """A typed slot of the labelling guide named in ``clause``: the answer language when the
    clause is about replies, else the earliest non-negated topic value (editor, database,
    UI theme, indentation, drink, cuisine...) — after a switch ("换成…", "switched to…") the
    value it switches to, naming the one before as the old value."""
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
        return None
    value = topic_surface(clause, found[1], found[2])[0]
    return Slot("user", found[1], value, multi_valued=found[1] in {"cuisine", "pet"})


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
    r"(?i)\ball?er?gic to (?P<a>[\w -]+?)(?=[,.;!?(]|\s+(?:and|so|but)\b|$)"
    r"|\b(?P<b>[a-z-]+(?: [a-z-]+)?) allergy\b"
    r"|我?对(?P<c>[\u4e00-\u9fff]{1,6}?)过敏|我?(?P<d>[\u4e00-\u9fff]{1,4}?)过敏"
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
)
"""What the user cannot eat or drink ("can't eat gluten", "no dairy for me", "不吃牛肉",
"医生不让喝咖啡", "lactose intolerant" → lactose)."""


def restriction_slot(clause: str) -> Slot | None:
    """What the user cannot eat or drink, as said (kind ``constraint``), or None."""
    m = _RESTRICTION.search(clause)
    if m is None:
        return None
    value = next(g for g in m.groups() if g)
    value = clean_value(re.sub(r"(?i)^(?:any|anything with|a|an|the)\s+", "", value))
    if not value or value.lower() in {"it", "that", "this", "them", "much", "more", "too"}:
        return None
    return Slot("user", "dietary_restriction", value.lower(), multi_valued=True)


def diet_or_allergy_slot(clause: str) -> Slot | None:
    """The user's diet (``vegetarian``…), an allergen, or what they cannot eat or drink
    named in ``clause``."""
    m = _ALLERGY.search(clause)
    if m:
        value = next(g for g in m.groups() if g)
        value = clean_value(re.sub(r"(?i)^(?:a|an|the|severe|serious|my)\s+", "", value))
        if value and value.lower() not in {"serious", "severe", "food", "an", "the"}:
            return Slot("user", "allergy", value.lower(), multi_valued=True)
    m = _DIET.search(clause)
    if m:
        value = m.group("en").lower() if m.group("en") else _DIET_ZH[m.group("zh")]
        return Slot("user", "diet", value)
    return restriction_slot(clause)


def constraint_slot(clause: str) -> Slot | None:
    """The rule a constraint clause states, as ``must`` / ``must_not`` on the assistant (an
    obligation about the answer language or length is that preference instead)."""
    body = clean_value(strip_lead(clause))
    if len(body) < 2:
        return None
    health = diet_or_allergy_slot(clause)
    if health is not None:
        return health
    prohibits = bool(_PROHIBIT.search(clause))
    typed = None if prohibits else typed_slot(clause)
    if typed is not None and typed.predicate in {"answer_language", "response_length"}:
        return typed
    if len(body) > MAX_FREE_TEXT:
        return None
    predicate = "must_not" if prohibits else "must"
    return Slot("assistant", predicate, body[:200].lower(), multi_valued=True)


def preference_slot(clause: str) -> Slot | None:
    """A typed preference, a like / dislike, or the preference in the user's words."""
    body = strip_lead(clause)
    typed = typed_slot(body)
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


_PARTS = re.compile(r"\s*(?:[,，;；]|\s[—–-]\s|[—–])\s*|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")
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


def timezone_slot(clause: str) -> Slot | None:
    """The user's timezone named in ``clause``: an abbreviation or offset as said ("PST",
    "UTC+2", "Eastern time"), a Chinese one as its offset ("东八区" → ``UTC+8``)."""
    m = _TZ_ZH.search(clause)
    if m:
        return Slot("user", "timezone", timezone_of(m.group("o")) or m.group("o"))
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
    have = {m.predicate for m in many}
    many += [t for t in trigger_slots(body) if t.predicate not in have]
    if many:
        return _dedupe(many)
    parts = split_parts(body)
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
    from .extract import _ATTRIBUTES_ZH, _RELATIONS

    rel = _RELATIONS.get(word.lower())
    if rel is None:
        return None
    attr = _ATTRIBUTES_ZH.get(attr, attr)
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


def _shaped_fact(body: str) -> Slot | None:
    """An attribute and its value when ``body`` has that shape, else None. The slot is the
    user's even for "we"/"our": a project-level write needs the caller's confirmation, so
    placing a fact at the project level is left to the rules that name the project."""
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
            predicate = _ATTR_NORMAL.get(attr) or attribute_of(attr.replace("_", " ")) or attr
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
        attr = re.sub(r"\s+", "_", m.group("attr").strip())
        if (
            value
            and len(value) <= 30
            and attr
            and attr not in {"我", "我们", "本人", "咱们"}
            and not re.search(r"[你他她它这那哪每不没]|[都也还就正现]$", attr)
            and _zh_noun(attr)
        ):
            predicate = _ATTR_NORMAL.get(attr) or attribute_of(attr) or attr
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


def slot_for(kind: str, clause: str) -> list[Slot]:
    """The generic slots of ``clause`` read as ``kind`` (empty when nothing is left): one
    for a preference or constraint, :func:`fact_slots` for a fact or correction."""
    if kind == "correction":
        named = correction_slot(strip_lead(clause))
        if named is not None:
            return [named]
        found = [f for f in fact_slots(clause, liking=True) if f.predicate != "note"]
        return found or _bare_value(clause) or fact_slots(clause)
    if kind == "stable_fact":
        return fact_slots(clause)
    if kind == "constraint":
        one = constraint_slot(clause)
    elif kind == "preference":
        one = preference_slot(clause)
    else:
        one = None
    return [one] if one is not None else []


__all__ = [
    "Slot",
    "bound_liking",
    "bound_open",
    "clean_value",
    "constraint_slot",
    "correction_slot",
    "fact_slot",
    "fact_slots",
    "preference_slot",
    "slot_for",
    "snake",
    "split_parts",
    "strip_lead",
    "trigger_slots",
    "typed_slot",
]
