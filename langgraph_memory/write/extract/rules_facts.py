"""Rule table (second of three, in order): stable facts about the user (name, timezone,
diet, allergies, job, home, people, birthday, pets, languages, budget)."""

from __future__ import annotations

import re

from ..slots.diet import (
    DIET_EXCLUDES,
    ENDED_DIET,
    RESUMED_FOOD,
    ZH_DIETS,
    described_diet,
    ended_diet,
    restriction_items,
    resumed_food,
)
from ..slots.preference import speaks_slots
from .builders import (
    employer_hit,
    fact_hit,
    name_hit,
    occupation_hit,
    relation_hit,
    tz_hit,
    with_also,
    zh_location,
    zh_work,
)
from .fragments import (
    ATTRIBUTE_ZH,
    NOT_A_NAME,
    OCC_EN,
    OCC_ZH,
    RELATION_EN,
    RELATION_ZH,
    ZH_SINCE,
    ZH_TIME,
)
from .values import Hit, Rule, clean, rule_table


def restriction_hit(obj: str) -> Hit | None:
    """What the user does not eat, one value per food listed ("pork or shellfish")."""
    made = (
        fact_hit("dietary_restriction", item, kind="constraint", multi=True)
        for item in restriction_items(clean(obj))
    )
    hits = [h for h in made if h is not None]
    return with_also(hits[0], *hits[1:]) if hits else None


RULES: list[Rule] = []
"""This table's rules in order (see :func:`~.values.rule_table`)."""
_rule = rule_table(RULES)


# --- stable facts (user) ----------------------------------------------------------------------
_rule(
    rf"\b(?:my name is|my name's|call me(?!\s+(?:{NOT_A_NAME})\b)|i'm called|i am called"
    rf"|you can call me(?!\s+(?:{NOT_A_NAME})\b))\s+"
    r"(?P<o>(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[\w'-]+(?:\s+[A-Z][\w'-]*)?)"
)(lambda m, e: name_hit(m.group("o")))
_rule(
    r"(?:我叫(?!了)|我的名字(?:是|叫)|叫我|我名字叫|我名叫"
    r"|我的名字改成了?)(?P<o>[\u4e00-\u9fffA-Za-z·]{1,12}?)(?=[，。,.!！?？\s]|就行|就好|就可以|吧|$)",
    0,
)(lambda m, e: fact_hit("name", m.group("o")))
_rule(r"\bmy\s+time\s*zone\s+is\s+(?P<o>.+)$")(lambda m, e: tz_hit(m))
_rule(
    r"\bi(?:'m| am)\s+in\s+(?:the\s+)?(?P<o>(?:utc|gmt)\s*[+-]\s*\d{1,2}(?::?\d{2})?|pst|pdt|est"
    r"|edt|cet|jst|ist|pacific time|eastern time)\b"
)(lambda m, e: tz_hit(m))
_rule(r"(?:我的)?时区(?:是|为|：|:|在)(?P<o>.+)$", 0)(lambda m, e: tz_hit(m))
_rule(r"我(?:用|在|按)(?P<o>北京时间|东八区|东京时间|美东时间|美西时间)", 0)(lambda m, e: tz_hit(m))


def diet_end_hit(said: str | None) -> Hit | None:
    """The withdrawal of the diets ``said`` ends (a diet the user no longer keeps, or a food
    they eat again: :func:`~..slots.diet.diet_lifted` picks the stored diets it ends), and of a
    restriction on that food."""
    if not said:
        return None
    diet = Hit("user", "diet", said, "correction", explicit=True, retract=True)
    food = Hit("user", "dietary_restriction", said, "correction", explicit=True, retract=True)
    return diet if said in DIET_EXCLUDES else with_also(diet, food)


# --- a diet that ends ("I'm not vegan anymore", "I started eating fish again", "不吃素了") ------
_rule(ENDED_DIET.pattern, 0)(lambda m, e: diet_end_hit(ended_diet(m.string)))
_rule(RESUMED_FOOD.pattern, 0)(lambda m, e: diet_end_hit(resumed_food(m.string)))
_rule(r"\bi(?:'m| am)\s+(?:a\s+|an\s+)?(?P<o>vegetarian|vegan|pescatarian)\b")(
    lambda m, e: Hit("user", "diet", m.group("o").lower(), "constraint")
)
_rule(r"我(?:是|只)?(?:吃素|素食者|素食主义者|纯素食者|纯素)", 0)(
    lambda m, e: Hit(
        "user",
        "diet",
        "vegan"
        if "纯素" in m.group(0) or described_diet(m.string, meatless=True) == "vegan"
        else "vegetarian",
        "constraint",
    )
)
_rule(r"(?:^|我(?:是|现在是|算是)?|算是|就是)(?:个|一个|一名)?(?P<o>鱼素|海鲜素|蛋奶素|全素)", 0)(
    lambda m, e: Hit("user", "diet", ZH_DIETS[m.group("o")], "constraint")
)
_rule(r"\bi(?:'m| am)\s+allergic\s+to\s+(?P<o>.+)$")(
    lambda m, e: fact_hit("allergy", m.group("o"), kind="constraint", multi=True)
)
_rule(r"我对(?P<o>.+?)(?:严重|轻微|轻度|有点|有些|特别|非常|很|超级?|会)?过敏", 0)(
    lambda m, e: fact_hit("allergy", m.group("o"), kind="constraint", multi=True)
)
_rule(r"\bi\s+(?:don't|do not|can't|cannot|never)\s+eat\s+(?P<o>.+)$")(
    lambda m, e: restriction_hit(m.group("o"))
)
_rule(r"我(?:不能|不|从不)吃(?P<o>[^，,。]+)", 0)(lambda m, e: restriction_hit(m.group("o")))
_rule(
    rf"\bi(?:'m| am)\s+(?:a|an|the)\s+(?P<o>(?:[\w-]+\s+){{0,3}}{OCC_EN})s?\b(?!-)"
    r"(?:\s+(?:at|for)\s+(?P<org>[^,]+))?"
)(lambda m, e: occupation_hit(m.group("o") + (f" at {m.group('org')}" if m.group("org") else "")))
_rule(r"\bi\s+work\s+as\s+(?:a|an)\s+(?P<o>.+)$")(lambda m, e: occupation_hit(m.group("o")))
_rule(
    rf"我是(?:一名|一个|一位|个|名)?(?:做|当|干)?(?P<o>(?:(?!的)[\u4e00-\u9fffA-Za-z]){{0,6}}?{OCC_ZH})",
    0,
)(lambda m, e: fact_hit("occupation", m.group("o")))
_rule(r"我的(?:职业|工作)是(?P<o>.+)$", 0)(lambda m, e: fact_hit("occupation", m.group("o")))
_rule(
    r"\bi\s+(?:work|am working|'m working|have worked|'ve worked|have been working"
    r"|'ve been working)\s+(?:at|for)\s+(?P<o>.+)$"
)(lambda m, e: employer_hit(m.group("o")))
_rule(
    rf"我(?:{ZH_SINCE})?(?:现在|目前)?在(?P<o>(?!家)[\u4e00-\u9fffA-Za-z0-9]{{2,20}}?)(?:当|做|担任)"
    rf"(?P<r>[\u4e00-\u9fffA-Za-z]{{0,6}}?{OCC_ZH})",
    0,
)(lambda m, e: with_also(zh_work(m.group("o")), fact_hit("occupation", m.group("r"))))
_rule(
    rf"我(?:{ZH_SINCE})?(?:现在|目前)?在(?P<o>(?!家)[\u4e00-\u9fffA-Za-z0-9]{{2,20}}?)"
    r"(?:工作|上班|任职)",
    0,
)(lambda m, e: zh_work(m.group("o")))
_rule(
    r"\bi\s+(?:live|am living|'m living|now live)\s+in\s+(?!(?:is|are|was|were)\b)(?P<o>.+)$"
    r"|\bi(?:'m| am)\s+based\s+in\s+(?P<o2>.+)$"
    r"|(?:\bi(?:'ve| have)?\s*|^(?=(?:just|recently|finally)\s))(?:just\s+|recently\s+|finally\s+)?"
    r"moved\s+(?:back\s+)?(?:to|too)\s+(?P<o3>.+)$"
    r"|\bi(?:'ve| have)\s+(?:been\s+)?(?:lived|living)\s+in\s+(?P<o4>.+)$"
    r"|\b(?:i'm|i am|we're|we are)\s+(?:now\s+|officially\s+|finally\s+)+(?:settled\s+|living\s+)?"
    r"in\s+(?P<o5>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)"
    r"|\b(?:i|we)\s+(?:run|own|opened|manage)\s+(?:a|an|my|our)\s+(?:[\w-]+\s+){0,3}?in\s+"
    r"(?P<o6>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?))"
)(
    lambda m, e: fact_hit(
        "location",
        m.group("o")
        or m.group("o2")
        or m.group("o3")
        or m.group("o4")
        or m.group("o5")
        or m.group("o6"),
    )
)  # "I run a small bakery in Asheville": where the user's own business is
_rule(
    rf"我(?:{ZH_TIME})?(?:已经)?(?:搬到了?|搬去了?|定居在?)(?P<o>[\u4e00-\u9fffA-Za-z]{{2,12}})"
    rf"|我(?:{ZH_SINCE})?(?:现在|目前)?(?:住在|住)(?!的)(?P<o3>[\u4e00-\u9fffA-Za-z]{{2,12}})"
    rf"|我(?:{ZH_SINCE})?(?:现在|目前)?在(?P<o2>[\u4e00-\u9fffA-Za-z]{{2,8}}?)(?:住|生活|定居)",
    0,
)(lambda m, e: zh_location(m.group("o") or m.group("o2") or m.group("o3")))
_rule(r"\bi(?:'m| am)\s+(?:originally\s+)?from\s+(?P<o>.+)$|\bmy\s+hometown\s+is\s+(?P<o2>.+)$")(
    lambda m, e: fact_hit("hometown", m.group("o") or m.group("o2"))
)
_rule(r"我(?:来自|老家在|老家是|的家乡是)(?P<o>.+)$|我是(?P<o2>[\u4e00-\u9fff]{2,4})人$", 0)(
    lambda m, e: fact_hit("hometown", m.group("o") or m.group("o2"))
)
_rule(
    rf"\bmy\s+(?P<rel>{RELATION_EN})(?:'s|’s)\s+(?P<attr>(?:[a-z]+\s+){{0,2}}?[a-z]+)\s+"
    r"(?:is|are|was|falls on)\s+(?:on\s+|in\s+|at\s+)?(?P<o>.+)$"
)(lambda m, e: relation_hit(m))
_rule(
    rf"\bmy\s+(?P<rel>{RELATION_EN})\s+is\s+(?:called|named)\s+(?P<o>[\w'-]+(?:\s+[A-Z][\w'-]*)?)"
)(lambda m, e: relation_hit(m, "name"))
_rule(rf"我(?:的)?(?P<rel>{RELATION_ZH})(?:的)?(?P<attr>{ATTRIBUTE_ZH})(?:是|在|叫)(?P<o>.+)$", 0)(
    lambda m, e: relation_hit(m)
)
_rule(rf"我(?:的)?(?P<rel>{RELATION_ZH})叫(?P<o>[\u4e00-\u9fffA-Za-z·]{{1,8}})", 0)(
    lambda m, e: relation_hit(m, "name")
)
_rule(
    r"\bmy\s+birthday\s+is\s+(?:on\s+)?(?P<o>.+)$"
    r"|\bmy\s+(?:birthday|bday|b-day)(?:'s|’s)\s+(?:coming\s+up\s+)?(?:on\s+)?(?:the\s+)?"
    r"(?P<o2>(?:next|this|coming)\s+(?!up\b)[a-z]+|tomorrow"
    r"|today|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\b"
)(lambda m, e: fact_hit("birthday", m.group("o") or m.group("o2")))
_rule(
    r"(?:我的?|^|(?<=[，,。！!？?；;\s]))生日(?:是|在|[:：]\s*|(?=[\d一二三四五六七八九十]))(?P<o>[^，,。]+)",
    0,
)(lambda m, e: fact_hit("birthday", m.group("o")))
_rule(
    r"\bmy\s+(?:e-?mail|email address)\s+is\s+(?P<o>.+)$"
    r"|我的(?:邮箱|电子邮件|邮件地址)(?:地址)?是(?P<o2>.+)$"
)(lambda m, e: fact_hit("email", m.group("o") or m.group("o2")))
_rule(
    r"\bmy\s+(?:phone|mobile|cell)(?:\s+number)?\s+is\s+(?P<o>.+)$|我的(?:手机号码?|电话号码?|手机)(?:是"
    r"|为)(?P<o2>.+)$"
)(lambda m, e: fact_hit("phone", m.group("o") or m.group("o2")))
_rule(
    r"\bmy\s+(?:id|id card|national id)(?:\s+number)?\s+is\s+(?P<o>.+)$|我的身份证(?:号码?)?(?:是"
    r"|为)(?P<o2>.+)$"
)(lambda m, e: fact_hit("national_id", m.group("o") or m.group("o2")))
_rule(
    r"\bmy\s+(?:bank\s+)?card(?:\s+number)?\s+is\s+(?P<o>.+)$|我的(?:银行卡|卡)号?(?:是|为)(?P<o2>.+)$"
)(lambda m, e: fact_hit("bank_card", m.group("o") or m.group("o2")))
_rule(r"\bi\s+(?:have|own)\s+(?:a|an|two|three)\s+(?P<o>dog|cat|parrot|rabbit|hamster)s?\b")(
    lambda m, e: Hit("user", "pet", m.group("o").lower(), "stable_fact", multi_valued=True)
)
_rule(r"我(?:养了|养着|有)(?:一只|一条|两只|一个)(?P<o>猫|狗|鹦鹉|兔子|仓鼠)", 0)(
    lambda m, e: Hit("user", "pet", m.group("o"), "stable_fact", multi_valued=True)
)  # as said ("猫"); the resolver keeps the lexicon's "cat" beside it


def _speaks(m: re.Match[str]) -> Hit | None:
    """Each language the user speaks, as they name it ("我会说粤语和普通话" → 粤语, 普通话)."""
    hits = [
        Hit("user", "speaks", slot.object, "stable_fact", multi_valued=True)
        for slot in speaks_slots(m.group(0)) or speaks_slots(m.string)
    ]
    if hits:  # "Portuguese I speak fluently": the language said before the verb
        return with_also(hits[0], *hits[1:])
    if not re.match(r"(?i)i\s+speak|我会说", m.group(0)):
        return None  # "我能说一下吗": no language named, nothing spoken
    value = clean(m.group("o") or m.group("o2") or "")
    if re.match(r"(?i)(?:fluently|natively|well|a\s+(?:bit|little)|some|it|them)\b", value):
        return None  # "I speak fluently": how, not what
    return Hit("user", "speaks", value, "stable_fact", multi_valued=True) if value else None


_rule(r"\bi\s+speak\s+(?P<o>.+)$|我(?:会|能|可以)(?:说|讲)(?P<o2>.+)$")(lambda m, e: _speaks(m))
# a budget stated is a fact ("my budget is around 3k", "预算是两万"); a limit set as a rule
# ("预算不超过五千", "控制在…") is a constraint
_rule(
    r"\bmy\s+budget\s+is\s+(?:under|below|at most|no more than|capped at)\s+(?P<o>.+)$"
    r"|预算(?:不超过|不能超过|控制在)(?P<o2>.+)$"
)(lambda m, e: fact_hit("budget", m.group("o") or m.group("o2"), kind="constraint"))
_rule(r"\bmy\s+budget\s+is\s+(?P<o>.+)$|预算(?:是|为)(?P<o2>.+)$")(
    lambda m, e: fact_hit("budget", m.group("o") or m.group("o2"))
)


__all__ = [
    "RULES",
]
