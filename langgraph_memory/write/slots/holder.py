"""Whose food limit a clause states: the user's own, or one of their people's ("my dad can't
have sugar", "我老婆对虾过敏" → ``father_dietary_restriction``, ``wife_allergy``), as the
labelling guide decides (``<person>_allergy`` / ``<person>_diet`` /
``<person>_dietary_restriction``, subject ``user``, kind ``constraint``). Pure."""

from __future__ import annotations

import re

from ..lexicon import RELATIONS

HEALTH_PREDICATES = ("diet", "allergy", "dietary_restriction")
"""Typed predicates of a limit on food (the guide's), the base of the ``<person>_`` forms."""

_RELATION_OF = {k.lower(): v for k, v in RELATIONS.items()}


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_EN_REL = _alternation([w for w in _RELATION_OF if w.isascii()])
_ZH_REL = _alternation([w for w in _RELATION_OF if not w.isascii()])
_MENTION = re.compile(
    rf"(?i)\b(?:my|our)\s+(?:(?:little|older|younger|big|baby|elder|eldest|youngest|oldest|\d+"
    rf"-year-old|[a-z]+-year-old|two|three)\s+)*(?P<en>{_EN_REL})s?\b"
    rf"|(?:我|我的|我们家|我家|家里)?(?P<zh>{_ZH_REL})"
    r"|(?P<self>\b(?:i|i'm|im|i've|i'd|me|myself)\b|我自己|本人|我)"
)
"""Who a part of a clause is about, mention by mention: one of the user's people ("my son",
"my 5-year-old daughter", "我老婆", "我妈") or the user ("I", "me", "我", "我自己")."""
_SENTENCE_END = re.compile(r"[.!?。！？;；\n]")


_DIET_SAID = re.compile(
    r"(?i)吃(?:全|纯)?素|素食|纯素|全素|鱼素|蛋奶素|不吃肉|\b(?:vegetarian|vegan|pescatarian|keto|halal"
    r"|kosher|plant-based)\b"
)
"""Words that say a diet whose stored value is its canonical name ("我吃素" → vegetarian)."""


def health_holder(clause: str, value: str) -> str | None:
    """The relation (``son``, ``wife``, ``mother``…) whose food limit ``value`` is in
    ``clause``: the last person mentioned before the value in its sentence, when that is one of
    the user's people and not the user ("my son is allergic to peanuts" → son; "我儿子对鸡蛋
    过敏。我自己血压高，医生让少吃盐" → son for 鸡蛋, None for 盐); None when the limit is the
    user's own or nobody is named (an unnamed value is read up to the clause's end: "我妈吃素"
    → mother for ``vegetarian``)."""
    at = clause.casefold().find(value.casefold()) if value else -1
    if at < 0:  # a canonical value ("vegetarian" for 吃素): where the clause says the diet
        said = _DIET_SAID.search(clause)
        at = said.start() if said else -1
    head = clause[: at if at >= 0 else len(clause)]
    ends = list(_SENTENCE_END.finditer(head))
    head = head[ends[-1].end() :] if ends else head
    last: re.Match[str] | None = None
    for m in _MENTION.finditer(head):
        last = m
    if last is None or last.group("self"):
        return None
    word = (last.group("en") or last.group("zh") or "").lower()
    return _RELATION_OF.get(word)


def health_base(predicate: str) -> str | None:
    """The guide's health predicate ``predicate`` is or ends with (``son_allergy`` →
    ``allergy``), else None."""
    for base in HEALTH_PREDICATES:
        if predicate == base or predicate.endswith("_" + base):
            return base
    return None


def held_predicate(predicate: str, clause: str, value: str) -> str:
    """``predicate`` as the guide names it for whoever holds the limit: ``<person>_<predicate>``
    for one of the user's people (:func:`health_holder`), unchanged for the user's own limit or
    a predicate that is no food limit of the user's."""
    if predicate not in HEALTH_PREDICATES:
        return predicate
    who = health_holder(clause, value)
    return f"{who}_{predicate}" if who else predicate


__all__ = ["HEALTH_PREDICATES", "health_base", "health_holder", "held_predicate"]
