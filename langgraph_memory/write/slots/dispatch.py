"""Which slots a clause yields for a predicted kind: :func:`slot_for` and
:func:`fact_slots`, combining the other slot modules. Pure."""

from __future__ import annotations

import re
from dataclasses import replace

from ..spans import DUE_DATE, MONEY
from .diet import allergy_slots, diet_or_allergy_slot, restriction_slots
from .model import MAX_FREE_TEXT, Slot, clean_value, strip_lead
from .preference import (
    NOT_FACT_TOPICS,
    constraint_slot,
    language_preference,
    preference_slot,
    speaks_slots,
    split_parts,
    timezone_slot,
)
from .shape import bare_value, correction_slot, is_named, shaped_fact
from .triggers import apposed_job, pet_name_correction, trigger_slots
from .typed import (
    ONLY_DRINK,
    cased_tool_at_start,
    cuisine_slots,
    topic_at_start,
    topic_start,
    typed_slot,
)

_SELF_INTRO = re.compile(r"(?i)^\W*(?:i'm|i am|im)\s")
"""A clause that opens on the user introducing themselves."""


def fact_slots(clause: str, *, liking: bool = False, limits: bool = False) -> list[Slot]:
    """Every attribute a fact clause names (a typed value, then locations, employers…;
    "我是护士，在市一院上班" → occupation and employer); else, part by part (the clause cut at
    commas and dashes), the attribute and value of each "my/our/the X is Y", "我的X是Y",
    "X叫Y", "we … on <Name>"-shaped part; else the clause as a ``note``. ``liking``: a drink,
    dish or pet named is a value too (a correction of one: "换成美式了"), as it is after a
    switch. ``limits``: a clause read whole (not one part of a longer one) that names nothing
    else gives the food it says the user cannot take ("I can't do spicy") before a note."""
    body = strip_lead(clause)
    typed = typed_slot(body)
    liked = (
        liking
        or (typed is not None and typed.corrects is not None)
        or (
            typed is not None
            and typed.predicate == "drink"
            and bool(HABIT.search(body) or ONLY_DRINK.search(body))
        )
        or (
            typed is not None
            and typed.predicate == "cuisine"
            and bool(_OFTEN.search(body))
            and not _SPELL.search(body)
        )
    )
    many = (
        [typed] if typed is not None and (liked or typed.predicate not in NOT_FACT_TOPICS) else []
    )
    many = [one for slot in many for one in coordinated(body, slot)]
    if many:  # "Ruby on Rails with PostgreSQL 16 underneath": each kind of tool named
        many += other_tools(body, {m.predicate for m in many})
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
    if len(parts) > 1 and many:  # "deadline is X, budget is around $12k": each part's value
        have = {m.predicate for m in many}
        for part in parts:
            each = typed_slot(strip_lead(part))
            if (
                each is not None
                and each.predicate not in have
                and not (spoken and each.predicate == "answer_language")
                and (liked or each.predicate not in NOT_FACT_TOPICS)
            ):
                have.add(each.predicate)
                many.append(each)
    if (
        len(parts) > 1
        and "occupation" not in {m.predicate for m in many}
        and (_SELF_INTRO.match(body) or many)
    ):  # "I'm Hannah, 34, a pastry chef in Montreal": a part in apposition to the user
        many += [j for part in parts[1:] if (j := apposed_job(strip_lead(part))) is not None][:1]
    if many and len(parts) > 1 and not _CHANGED.search(body):
        many = _tools_of_parts(parts, many)
    if many and len(parts) > 1:
        # "company 是 Zalando, job title 是 data engineer": a part that names its attribute
        # outweighs a value read from a verb or preposition elsewhere ("在 Berlin 工作")
        for part in parts:
            stated = shaped_fact(strip_lead(part))
            if stated is not None and stated.predicate in _STATED:
                many = [m for m in many if m.predicate != stated.predicate] + [stated]
            elif (
                stated is not None
                and stated.predicate in TYPED_FACTS
                and stated.predicate not in {m.predicate for m in many}
            ):  # "base在Singapore，timezone是UTC+8": the other part's own attribute
                many.append(stated)
    if many and all(m.predicate == "pet" for m in many):  # no pet_name read yet
        # "我家兔子叫年糕": the pet, and its name as the clause's own attribute
        named = [slot for part in parts if (slot := shaped_fact(strip_lead(part))) is not None]
        many += [n for n in named if n.predicate not in {"pet", "has"}]
    if many:
        return _dedupe(many)
    shaped = [slot for part in parts if (slot := shaped_fact(strip_lead(part))) is not None]
    if shaped:
        return _dedupe([one for slot in shaped for one in _listed(slot)])
    foods = restriction_slots(body) if limits else []
    if foods:  # "I can't do spicy — my stomach hates it", read as a fact: the food limit
        return foods
    note = clean_value(body)
    if not 2 <= len(note) <= MAX_FREE_TEXT:
        return []
    return [Slot("user", "note", note, multi_valued=True)]


_CHANGED = re.compile(
    r"(?i)\b(?:used\s+to|previously|formerly|before|anymore|no\s+longer|switch\w*|moved|migrat\w*"
    r"|instead|now)\b|以前|之前|原来|曾经|过去|换|改成|改用|迁到|迁移|不再|现在|卖了|淘汰|弃用"
)
"""Words of a change of value: two values of one tool said with them are the old and the new
one, not two held at once."""


_SIDE_USE = re.compile(
    r"(?i)\b(?:occasionally|sometimes|rarely|once\s+in\s+a\s+while|a\s+bit\s+of|refuse\w*|never|hate"
    r"|can't\s+stand|won't|wouldn't|not\s+a\s+fan)\b|偶尔|有时|有时候|少量|一点|不喜欢|讨厌|不用|受不了"
)
"""A tool used on the side or refused ("偶尔写点 Python", "I refuse to own a Mac"): no value the
user holds beside the main one."""


_USED_FOR = re.compile(
    r"(?i)^(?!.*(?:\bnot\b|n't|\bnever\b|\bno\s+longer\b|不|没))"
    r"(?:\s*[A-Za-z][\w.+#-]*(?:\s+\d[\d.]*)?\s+(?:for|on)\s+\w"
    r"|.*(?:用|靠)\s*[A-Za-z][\w.+#-]*(?:\s*\d[\d.]*)?\s*$)"
)
"""A part that names a tool by what it is used for ("Elixir for the backend", "做 service 用
Java"), not a tool judged or refused ("unittest feels so clunky", "不用 VS Code"): in a list
of such parts, each one names a tool the user has."""


def _tools_of_parts(parts: list[str], many: list[Slot]) -> list[Slot]:
    """``many`` and the other values of its tool attributes (:data:`TOOLS`) that other parts
    name ("Work laptop runs Windows 11, my personal one is a Mac" → both operating systems,
    each one of several values)."""
    out = list(many)
    for part in parts:
        each = typed_slot(strip_lead(part))
        if (
            each is None
            or each.predicate not in TOOLS
            or each.corrects is not None
            or _SIDE_USE.search(part)
        ):
            continue
        same = [m for m in out if m.predicate == each.predicate]
        if not same or each.object.casefold() in {m.object.casefold() for m in same}:
            continue
        out = [replace(m, multi_valued=True) if m.predicate == each.predicate else m for m in out]
        out.append(replace(each, multi_valued=True))
    return out


_AND = re.compile(r"\s*(?:和|与|跟|及|以及|还有|、|\+|&|\band\b|\bplus\b)\s*", re.IGNORECASE)


def coordinated(clause: str, slot: Slot) -> list[Slot]:
    """``slot`` and the values of the same typed attribute joined to it by "and" / "和" /
    "、" ("我们用 Redis 和 MySQL" → Redis, MySQL; "Python and Go": a tool named by a common
    word, too), each then one of several values; ``[slot]``
    when nothing is joined to it."""
    at = topic_start(clause, slot.predicate) if slot.predicate in TOOLS else None
    first = topic_at_start(clause[at:], slot.predicate) if at is not None else None
    if at is None or first is None:
        return [slot]
    out = [slot]
    at += first[1]
    while True:
        joint = _AND.match(clause, at)
        rest = clause[joint.end() :] if joint else ""
        nxt = (
            (topic_at_start(rest, slot.predicate) or cased_tool_at_start(rest, slot.predicate))
            if joint
            else None
        )
        if joint is None or nxt is None or nxt[0].casefold() in {o.object.casefold() for o in out}:
            break
        out.append(Slot(slot.subject, slot.predicate, nxt[0], True))
        at = joint.end() + nxt[1]
    if len(out) == 1:
        return [slot]
    return [replace(o, multi_valued=True) for o in out]


def other_tools(clause: str, have: set[str]) -> list[Slot]:
    """The first value of each tool attribute (:data:`TOOLS`) named in ``clause`` that is not
    in ``have`` and not negated or past ("I write Python in vim" → the editor beside the
    language)."""
    out = []
    for predicate in sorted(TOOLS - have):
        at = topic_start(clause, predicate)
        hit = topic_at_start(clause[at:], predicate) if at is not None else None
        if hit is not None:
            out.append(Slot("user", predicate, hit[0]))
    return out


TOOLS = frozenset(
    {"programming_language", "database", "editor", "operating_system", "test_framework"}
)
"""Typed attributes a user or project may have several of at once."""


def _listed(slot: Slot) -> list[Slot]:
    """A value that lists names joined by "+" as one slot per name ("React 18 + Vite" →
    "React 18", "Vite")."""
    names = [n.strip() for n in re.split(r"\+(?=\s*\D)", slot.object)]  # "UTC+8" is one value
    if len(names) < 2 or not all(names) or not all(is_named(n) for n in names):
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
_STATED_FACTS = TYPED_FACTS | {"pet_name"}
"""Typed facts, and the name given a pet, that a clause read as a rule or a preference may
state instead."""
_RELATIVE = re.compile(
    r"(?i)(?<=\w)\s+(?:who|which)\s+[^,.;!?，。；！？]*"
    r"|\b(?:it|he|she|they|this|that)\s+(?:never|always|must|should|has\s+to|needs\s+to)\b"
    r"[^,.;!?，。；！？]*"
)
""""… a hamster named Nugget who never sleeps": a relative clause says what someone else does;
its "never" is no rule for the assistant."""
_SELF_HABIT = re.compile(
    r"(?i)^(?:i\s+(?!want\s+you|need\s+you|'d\s+like\s+you|would\s+like\s+you)"
    r"|我(?!们?(?:希望|要求|想让|需要|要)你|想让你|请你))(?=.*?(?:every|each|always|usually|每天|每次|平时|天天|都要|总要))"
)
"""A clause the user says of their own habit ("我每天都要喝一杯拿铁", "I always have oat milk in
my coffee"): "要"/"always" there tells what the user does, not a rule for the assistant."""
_ASKS = re.compile(
    r"(?i)\b(?:please|pls|prefer|like|love|want|rather)\b|请|喜欢|偏好|希望|想要|最好"
)
"""Words that make a part of a clause a preference of its own."""
_LOOSE_PREFERENCES = frozenset({"prefers", "likes"})
"""Preference slots a more specific reading of the same clause replaces (the clause's words,
a liked thing)."""
_STATED = frozenset({"name", "employer", "occupation", "location", "hometown", "birthday"})
"""Typed attributes a part states by name ("company 是 X", "job: Y")."""
HABIT = re.compile(
    r"(?i)\b(?:every\s+(?:day|morning|evening|night)|daily|usually|always|normally|mostly)\b"
    r"|每天|每日|天天|平时|平常|一般|通常|经常|总是|一直|每次|早上都|晚上都"
)
"""A habit ("我每天早上都喝拿铁", "I usually drink oolong"): a drink had by habit is the
user's drink, though the clause reads as a fact."""
_OFTEN = re.compile(
    r"(?i)\b(?:(?:\w+|\d+)\s+times\s+(?:a|per|every)\s+(?:day|week|month)|twice\s+(?:a|per)\s+\w+"
    r"|once\s+a\s+week|most\s+(?:\w+days|days|nights|weekends)|every\s+(?:\w+day|day|week|night|weekend)"
    r"|all\s+the\s+time|weekly|daily)\b|一周|每周|每天|天天|经常|常常|隔三差五"
)
"""A frequency ("three times a week", "most Fridays", "一周好几次"): a cuisine eaten that often
is the user's cuisine, though the clause reads as a fact."""
_SPELL = re.compile(
    r"(?i)\b(?:last|past|previous)\s+(?:week|month|few\s+days|couple\s+of\s+weeks)\b|\bon\s+holiday\b"
    r"|\bon\s+(?:the\s+)?trip\b|前(?:两|几|一|三)?(?:周|天|个月)|上周|上个月|那几天|这几天|旅游|出差"
)
"""A bounded spell ("前两周每天吃火锅", "every day on the trip"): what was eaten then is an
event."""
_GOING_BACK = re.compile(r"(?i)还是|换回|改回|回到|算了|\bback to\b|\bmeant\b|\binstead\b")
"""Words of a correction that goes back to, or meant, another value."""
_EMPTY_VALUE = re.compile(r"^[\s\W_的了是吧呢啊吗嘛呀哦和与及或]*$")


_NOT_A_BUDGET = re.compile(
    r"(?i)\b(?:cost|costs|price|paid|spent|bought|earned|owe)\b|花了|买了|付了|赚了"
)
_DUE_BY = re.compile(r"(?i)^(?:by|before|until)\b|前$|之前$")


def _corrected_quantity(clause: str) -> list[Slot]:
    """The budget or due date a correction names when it names no attribute ("finance cut
    it to $7,500", "老板批了八万，按八万来" → budget; "改了，周四下班前就要交", "是中秋前，不是国庆"
    → deadline): an amount of money (with its currency or unit, not a bare number) that is
    not money spent, else a date said as a limit ("…前", "by …")."""
    if not _NOT_A_BUDGET.search(clause):
        for m in MONEY.finditer(clause):
            amount = m.group().strip()
            if amount and not re.fullmatch(r"[\d.,]+", amount):
                return [Slot("user", "budget", amount)]
    for m in DUE_DATE.finditer(clause):
        date = m.group().strip()
        if _DUE_BY.search(date) or re.match(r"(?i)\s*(?:下班|之)?前", clause[m.end() :]):
            after = re.match(r"\s*(下班前|之前|前)", clause[m.end() :])
            return [Slot("user", "deadline", date + (after.group(1) if after else ""))]
    return []


def slot_for(kind: str, clause: str) -> list[Slot]:
    """The generic slots of ``clause`` read as ``kind`` (empty when nothing is left): one
    for a preference or constraint, :func:`fact_slots` for a fact or correction. A slot whose
    value is only particles or punctuation (likes = "的") is dropped."""
    out = [s for s in _slots_for(kind, clause) if not _EMPTY_VALUE.match(s.object)]
    if kind == "constraint" and ONLY_DRINK.search(clause):
        # "不喝咖啡，只喝茶": beside the drink refused, the one drink the user has
        had = typed_slot(strip_lead(clause))
        if had is not None and had.predicate == "drink" and had not in out:
            out.append(had)
    return out


def _slots_for(kind: str, clause: str) -> list[Slot]:
    if kind == "correction":
        named = correction_slot(strip_lead(clause))
        if named is not None:
            return [named]
        pet_name = pet_name_correction(clause)
        if pet_name is not None:
            return [pet_name]
        found = [f for f in fact_slots(clause, liking=True) if f.predicate != "note"]
        if not found and _GOING_BACK.search(clause):
            # "算了还是中文吧，英文看着太费劲", "I meant Spanish, not Portuguese": a correction
            # that goes back to a language picks the answers' language ("改用英文" alone is
            # a new preference, for the repetition gate, not a correction)
            lang = language_preference(strip_lead(clause))
            found = [lang] if lang is not None else []
        return found or _corrected_quantity(clause) or bare_value(clause) or fact_slots(clause)
    if kind == "stable_fact":
        return fact_slots(clause, limits=True)
    if kind == "constraint":
        allergens = allergy_slots(clause)
        if len(allergens) > 1:
            return allergens
        health = None if allergens else diet_or_allergy_slot(clause)
        limited = health is not None and health.predicate == "dietary_restriction"
        foods = restriction_slots(clause) if limited else []
        if len(foods) > 1:
            return foods  # "海鲜和啤酒都不能碰": each food
        one = constraint_slot(clause)
        if (
            one is not None
            and one.subject == "assistant"
            and (
                not _RULE_WORDS.search(_RELATIVE.sub("", clause))
                or _SELF_HABIT.match(strip_lead(clause))
            )
        ):
            # "name's Priya by the way": no obligation or prohibition is worded, so the rule
            # read into it is the typed fact it states, when it states one
            stated = [f for f in fact_slots(clause) if f.predicate in _STATED_FACTS]
            if stated:
                return stated
        if one is not None and one.predicate == "must":
            typed = typed_slot(strip_lead(clause))
            if typed is not None and typed.predicate in RULE_TOOLS:
                return [typed, one]  # "以后代码示例都用 TypeScript 写": the tool, and the rule
    elif kind == "preference":
        one = preference_slot(clause)
        spoken = speaks_slots(strip_lead(clause))
        if spoken and (one is None or one.predicate in _LOOSE_PREFERENCES):
            return spoken  # "我会讲 English 和 French": languages spoken, whatever the kind read
        if one is None or one.predicate == "prefers":
            limits = restriction_slots(clause)
            if limits:  # "I can't do mushrooms, the texture makes me gag": the food limit
                return limits
            # "坐标武汉，欢迎来玩": read as a preference, the clause's words are all it gives;
            # a typed fact it states is the better record
            stated = [f for f in fact_slots(clause) if f.predicate in _STATED_FACTS]
            if stated:
                asked = [
                    p
                    for part in split_parts(clause)
                    if _ASKS.search(part)
                    and not any(f.object.casefold() in part.casefold() for f in stated)
                    and (p := preference_slot(part)) is not None
                ]
                return stated + asked  # "Prices in GBP please, I'm UK based": both
        dishes = cuisine_slots(strip_lead(clause))
        if len(dishes) > 1 and (one is None or one.predicate in _LOOSE_PREFERENCES | {"cuisine"}):
            return dishes  # "Thai and Vietnamese are my go-to cuisines": each one
        parts = split_parts(clause)
        if (
            one is not None
            and one.predicate in TOOLS
            and len(parts) > 1
            and not _CHANGED.search(clause)
        ):  # "py for scripts, Go for services": both
            return _tools_of_parts([p for p in parts if _USED_FOR.search(p)], [one])
    else:
        one = None
    return [one] if one is not None else []


__all__ = [
    "HABIT",
    "RULE_TOOLS",
    "TYPED_FACTS",
    "fact_slot",
    "fact_slots",
    "slot_for",
]
