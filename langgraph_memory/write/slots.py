"""Generic slot extraction: the ``(subject, predicate, object)`` of a clause no rule knows.

Used only when the clause classifier says a clause is worth remembering and no rule of
:class:`~langgraph_memory.write.extract.RuleExtractor` produced a candidate. Pure functions,
no state:

* constraints → ``("assistant", "must" | "must_not", <the rule in the user's words>)``; the
  polarity comes from prohibition markers ("never", "don't", "avoid", "不要", "别", "禁止",
  "不得"…), everything else is an obligation;
* preferences → ``likes`` / ``dislikes`` with the liked thing when the clause has that shape,
  else ``prefers`` with the clause;
* stable facts → "my/our <attribute> is <value>", "我的/我们的<属性>是<值>", "we <verb> on
  <value>", "I use/have <value>"; otherwise ``note`` with the clause (the user's own words,
  so nothing is paraphrased).

Values stop where the value stops: trailing time expressions ("last month", "上个月") and
politeness tails are cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .lexicon import LANGUAGES, TOPICS, _alias_re

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
    r"(?i)^(?P<who>my|our)\s+(?P<attr>(?:[\w-]+(?:'s)?\s+){0,3}?[\w-]+)\s+(?:is|are|was|'s)\s+"
    r"(?:called\s+|named\s+)?(?P<o>.+)$"
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
    r"^(?P<who>我们|咱们|我)(?:的)?(?:家|公司|团队|项目|组|产品|服务|系统)?(?:的)?(?P<attr>[\u4e00-\u9fffA-Za-z]{1,10}?)"
    r"(?:用的是|用的|是|叫|在|为)(?P<o>.+)$"
)
_I_HAVE_ZH = re.compile(r"^我(?:家)?(?P<verb>有|养了?|开|用)(?P<o>.+)$")

_ATTR_NORMAL = {
    "birthday": "birthday",
    "bday": "birthday",
    "生日": "birthday",
    "名字": "name",
    "email": "email",
    "phone": "phone",
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


def snake(words: str) -> str:
    """``"daughter's birthday"`` → ``daughter_birthday``; CJK kept as is."""
    words = re.sub(r"'s\b", "", words.strip().lower())
    return re.sub(r"[^\w]+", "_", words).strip("_") or "note"


def strip_lead(clause: str) -> str:
    """The clause without leading discourse / "remember" / "from now on" markers."""
    return _LEAD_MARKERS.sub("", clause.strip()).strip()


_ANSWERS = re.compile(
    r"(?i)\b(?:answer|repl|respon|write|talk|speak|chat|explain|messages?)|回答|回复|答复|说|写|聊|交流"
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
    r"\s+(?:here\s+)?(?:in|to)|\b(?:i'm|i am|we're|we are)\s+(?:now\s+)?(?:in|from)"
    r"|\b(?:flat|apartment|house|home)\s+in)\s+(?:the\s+)?" + _PLACE_EN
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
    r"(?:\bname'?s|\bmy name is|\bi go by|\bcall me|\bit's)\s+(?P<o>[A-Z][a-z]+)\b"
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
_PETS_ZH = (
    "金毛|拉布拉多|柯基|泰迪|哈士奇|柴犬|比格|边牧|布偶猫|英短|橘猫|猫|狗|兔子|仓鼠|鹦鹉|乌龟"
)
_PET_ZH = re.compile(rf"(?:养了?|有|领养了?|收养了?)(?:一只|只|两只|一条|条|个)?(?P<o>{_PETS_ZH})")
_LOCATION_ZH = re.compile(
    r"(?:住在|住|定居在?|搬到了?|搬去了?|人在|生活在|来到了?|在)(?P<o>[^，,。！!？?\s]{2,10})"
)
_OCC_ZH = re.compile(
    r"我(?:是|现在是|目前是|在做|做|当)(?:一名|一个|个|名)?(?P<o>[\u4e00-\u9fff]{0,4}?(?:工程师|程序员|老师"
    r"|教师|医生|护士|设计师|学生|研究生|博士生|经理|律师|研究员|分析师|会计|作家|架构师|教授|厨师|产品经理"
    r"|运营|销售|司机|记者|编辑|主播|店主|老板))"
)
_WORK_ZH = re.compile(r"在(?P<o>[^，,。！!？?\s]{2,12}?)(?:上班|工作|做|当|任职)")


def trigger_slots(clause: str) -> list[Slot]:
    """Locations, employers, occupations, names and pets named anywhere in ``clause`` ("my
    partner and I share a flat in Manchester" → location Manchester; "我是护士，在市一院上班"
    → employer 市一院); only used once the classifier has read the clause as a fact."""
    from .segment import zh_place, zh_workplace

    found: dict[str, Slot] = {}
    for pattern, predicate in (
        (_EMPLOYER_EN, "employer"),
        (_LOCATION_EN, "location"),
        (_OCCUPATION_EN, "occupation"),
        (_NAME_EN, "name"),
    ):
        m = pattern.search(clause)
        if m:
            value = clean_value(m.group("o"))
            if value and len(value.split()) <= 4:
                value = value.lower() if predicate == "occupation" else value
                found.setdefault(predicate, Slot("user", predicate, value))
    m = _PET_EN.search(clause) or _PET_ZH.search(clause)
    if m:
        found.setdefault("pet", Slot("user", "pet", m.group("o").lower(), multi_valued=True))
    m = _OCC_ZH.search(clause)
    if m:
        found.setdefault("occupation", Slot("user", "occupation", m.group("o")))
    m = _WORK_ZH.search(clause)
    if m:
        work = zh_workplace(m.group("o"))
        if work is not None:
            found.setdefault(work[0], Slot("user", work[0], work[1]))
    m = _LOCATION_ZH.search(clause)
    if m and "location" not in found:
        place = zh_place(m.group("o"))
        if place:
            found["location"] = Slot("user", "location", place)
    return list(found.values())


def typed_slot(clause: str) -> Slot | None:
    """A typed slot of the labelling guide named in ``clause``: the answer language when the
    clause is about replies, else the earliest non-negated topic value (editor, database,
    UI theme, indentation, drink, cuisine...)."""
    lang = _first_alias(clause, LANGUAGES)
    if lang is not None and _ANSWERS.search(clause):
        return Slot("user", "answer_language", lang[1])
    found: tuple[int, str, str] | None = None
    for predicate, table in TOPICS.items():
        hit = _first_alias(clause, table)
        if hit is not None and (found is None or hit[0] < found[0]):
            found = (hit[0], predicate, hit[1])
    if found is None:
        return None
    return Slot("user", found[1], found[2], multi_valued=found[1] in {"cuisine", "pet"})


_DIET = re.compile(
    r"(?i)\b(?P<en>vegetarian|vegan|pescatarian|halal|kosher)\b|(?P<zh>纯素|吃素|素食|清真)"
)
_DIET_ZH = {"纯素": "vegan", "吃素": "vegetarian", "素食": "vegetarian", "清真": "halal"}
_ALLERGY = re.compile(
    r"(?i)\ballergic to (?P<a>[\w -]+?)(?=[,.;!?(]|\s+(?:and|so|but)\b|$)"
    r"|\b(?P<b>[a-z-]+(?: [a-z-]+)?) allergy\b"
    r"|我?对(?P<c>[\u4e00-\u9fff]{1,6}?)过敏|我?(?P<d>[\u4e00-\u9fff]{1,4}?)过敏"
)


def diet_or_allergy_slot(clause: str) -> Slot | None:
    """The user's diet (``vegetarian``…) or an allergen named in ``clause``."""
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
            value = clean_value(m.group("o"))
            if value:
                return Slot("user", predicate, value.lower(), multi_valued=True)
    body = clean_value(body)
    if not 2 <= len(body) <= MAX_FREE_TEXT:
        return None
    return Slot("user", "prefers", body, multi_valued=True)


_NOT_FACT_TOPICS = frozenset({"pet", "cuisine", "drink"})
"""Topic values that name a liking, not a fact ("coffee" in a fact clause is not a drink
preference); pets are found by :func:`trigger_slots` with their breed."""


def fact_slots(clause: str) -> list[Slot]:
    """Every attribute a fact clause names (a typed value, then locations, employers…;
    "我是护士，在市一院上班" → occupation and employer); else the attribute and value of a
    "my/our X is Y"-shaped clause; else the clause as a ``note``."""
    body = strip_lead(clause)
    typed = typed_slot(body)
    many = [typed] if typed is not None and typed.predicate not in _NOT_FACT_TOPICS else []
    many += [t for t in trigger_slots(body) if t.predicate not in {m.predicate for m in many}]
    if many:
        return many
    shaped = _shaped_fact(body)
    return [shaped] if shaped is not None else []


def fact_slot(clause: str) -> Slot | None:
    """The first of :func:`fact_slots` (``None`` when nothing is left)."""
    slots = fact_slots(clause)
    return slots[0] if slots else None


def _shaped_fact(body: str) -> Slot | None:
    """An attribute and its value when ``body`` has that shape, else a ``note``."""
    m = _MY_ATTR_EN.match(body)
    if m:
        value = clean_value(m.group("o"))
        attr = snake(m.group("attr"))
        if value and len(value.split()) <= 8:
            subject = "project" if m.group("who").lower() == "our" else "user"
            return Slot(subject, _ATTR_NORMAL.get(attr, attr), value)
    m = _WE_VERB_EN.match(body)
    if m:
        value = clean_value(m.group("o"))
        if value and len(value.split()) <= 6:
            return Slot("project", f"{m.group('verb').lower()}_{m.group('prep').lower()}", value)
    m = _I_HAVE_EN.match(body)
    if m:
        value = clean_value(m.group("o"))
        if value and len(value.split()) <= 6:
            verb = m.group("verb").lower()
            predicate = {"have": "has", "got": "has", "own": "has"}.get(verb, verb + "s")
            return Slot("user", predicate, value, multi_valued=True)
    m = _MY_ATTR_ZH.match(body)
    if m:
        value = clean_value(m.group("o"))
        attr = m.group("attr")
        if value and len(value) <= 30 and attr:
            subject = "user" if m.group("who") == "我" else "project"
            return Slot(subject, _ATTR_NORMAL.get(attr, attr), value)
    m = _I_HAVE_ZH.match(body)
    if m:
        value = clean_value(m.group("o"))
        if value and len(value) <= 20:
            return Slot("user", "has", value, multi_valued=True)
    note = clean_value(body)
    if not 2 <= len(note) <= MAX_FREE_TEXT:
        return None
    return Slot("user", "note", note, multi_valued=True)


def slot_for(kind: str, clause: str) -> list[Slot]:
    """The generic slots of ``clause`` read as ``kind`` (empty when nothing is left): one
    for a preference or constraint, :func:`fact_slots` for a fact or correction."""
    if kind in {"stable_fact", "correction"}:
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
    "clean_value",
    "constraint_slot",
    "fact_slot",
    "fact_slots",
    "preference_slot",
    "slot_for",
    "snake",
    "strip_lead",
    "trigger_slots",
    "typed_slot",
]
