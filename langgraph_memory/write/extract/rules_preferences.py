"""Rule table (third of three, in order): preferences and dislikes, lifting a constraint,
and constraints on the assistant's behaviour."""

from __future__ import annotations

import re

from ..slots.model import bound_liking
from ..slots.preference import dont_forget
from .builders import constraint_hit
from .values import PRONOUNS, Hit, Rule, canon_constraint, clean, pref, rule_table

RULES: list[Rule] = []
"""This table's rules in order (see :func:`~.values.rule_table`)."""
_rule = rule_table(RULES)


# --- preferences --------------------------------------------------------------------------
_FAVOURITE_OF = {
    "cuisine": "cuisine", "kind of cuisine": "cuisine", "type of cuisine": "cuisine",
    "菜系": "cuisine", "drink": "drink", "beverage": "drink", "饮料": "drink", "饮品": "drink",
}  # fmt: skip
"""The typed predicate a favourite's category names ("my favourite cuisine is Mexican")."""


def _favourite(m: re.Match[str]) -> Hit | None:
    """A favourite thing: its topic when the lexicon knows it, else the typed predicate the
    category names (cuisine, drink), else ``likes``."""
    hit = pref(m.group("o"), explicit=True)
    typed = _FAVOURITE_OF.get(re.sub(r"\s+", " ", m.group("cat").strip().casefold()))
    if hit is None or hit.predicate != "likes" or typed is None:
        return hit
    value = bound_liking(clean(m.group("o")))
    if not value or len(value) > 40:
        return hit
    return Hit("user", typed, value, "preference", explicit=True, multi_valued=typed == "cuisine")


_rule(r"\bmy\s+(?:favou?rite|preferred)\s+(?P<cat>[\w\s]+?)\s+is\s+(?P<o>.+)$")(
    lambda m, e: _favourite(m)
)
_rule(r"我最喜欢的(?P<cat>\S+?)是(?P<o>.+)$", 0)(lambda m, e: _favourite(m))
_rule(
    r"\bi\s+(?:don't|do not)\s+like\s+(?P<o>.+)$|\bi\s+(?:dislike|hate|can't stand)\s+(?P<o2>.+)$"
)(lambda m, e: _dislike(m.group("o") or m.group("o2")))
_rule(r"我(?:不喜欢|讨厌|不爱|受不了)(?P<o>.+)$", 0)(lambda m, e: _dislike(m.group("o")))
_rule(
    r"\bi\s+(?:really\s+|much\s+|strongly\s+|generally\s+|usually\s+|always\s+"
    r"|definitely\s+)?(?:prefer|like|love|enjoy|favou?r)\s+(?P<o>.+?)(?:\s+(?:over|to|rather than"
    r"|more than|instead of)\s+.+)?$"
)(lambda m, e: pref(m.group("o"), explicit=True))
_rule(
    r"^(?:the\s+)?user\s+(?:prefers|likes|loves|wants)\s+(?P<o>.+)$|^用户(?:喜欢|偏好|更喜欢|想要)(?P<o2>.+)$"
)(lambda m, e: pref(m.group("o") or m.group("o2"), explicit=False))
_rule(r"\bi(?:'d| would)\s+(?:rather|prefer)(?:\s+to)?\s+(?P<o>.+?)(?:\s+(?:than|over|to)\s+.+)?$")(
    lambda m, e: pref(m.group("o"), explicit=True)
)
_rule(
    r"我(?:可能|也许|大概|好像|应该)?(?:还是)?(?:比较|更|很|非常|最|特别|一直|平时|通常|其实)?(?:喜欢|偏好|偏爱|习惯|倾向于"
    r"|爱)(?P<o>[^，,]+?)(?:(?:，|,)?(?:而不是|不喜欢).+)?$",
    0,
)(lambda m, e: pref(m.group("o"), explicit=True))


# --- lifting a constraint ("you can use emojis now", "可以用表情了") -------------------------
_ABOUT_SPEAKER = re.compile(r"(?i)^(?:my|our|mine|i|i'm|me|his|her|their)\b|^(?:我|咱|俺)")
"""A subject about a person ("my english is ok", "我英语还行"): it says how the person is,
never which of the assistant's habits is allowed again."""


def _lift(m: re.Match[str], e: bool) -> Hit | None:
    obj = clean(m.group("o") or m.group("o2") or "")
    if not obj or PRONOUNS.match(obj) or len(obj) > 60 or _ABOUT_SPEAKER.match(obj):
        return None
    return Hit(
        "assistant",
        "must_not",
        canon_constraint(obj),
        "correction",
        explicit=True,
        multi_valued=True,
        retract=True,
    )


_rule(
    r"^(?:you can|you may|feel free to|it's ok to|it is ok to)\s+(?:use|include|add)\s+(?P<o>.+?)"
    r"(?:\s+(?:now|again|after all))?$"
    r"|^(?P<o2>.+?)\s+(?:is|are)\s+(?:fine|ok|okay|allowed|acceptable)"
    r"(?:\s+(?:now|again|after all))?$"
)(_lift)
_rule(
    r"^(?:你)?(?:可以|能)(?:用|使用|加)(?P<o>.+?)了$|^(?P<o2>.+?)(?:也可以用了|可以用了|现在可以用)$",
    0,
)(_lift)


# --- constraints (instructions about the assistant's behaviour) -------------------------
def _remembered_order(clause: str) -> Hit | None:
    """The obligation of a "don't forget to <what an answer does>" clause (see
    :func:`~langgraph_memory.write.slots.preference.dont_forget`), else None."""
    forgotten = dont_forget(clause)
    if forgotten is None or not forgotten[0] or len(forgotten[1]) < 2:
        return None
    return Hit(
        "assistant", "must", canon_constraint(forgotten[1]), "constraint", explicit=True,
        multi_valued=True,
    )  # fmt: skip


_rule(
    r"^(?:(?:please|pls|plz|can you|could you)\s+)?(?:quit it with|enough with|cut it out with"
    r"|cut out)\s+(?P<o>.+)$"
)(lambda m, e: constraint_hit(m, "must_not"))  # "quit it with the 'Great question!' openers"
_rule(
    r"^(?:(?:please|pls|plz|and|also)\s+)*(?:don't|do not|dont|never)\s+(?:ever\s+)?forget\s+to\s"
)(
    lambda m, e: _remembered_order(m.string)
)  # "don't forget to cite your sources" (an obligation; "…to have fun" is advice, no rule)
_rule(r"^(?:please\s+)?(?:don't|do not|never|avoid|stop|no longer)\s+(?P<o>.+)$")(
    lambda m, e: constraint_hit(m, "must_not")
)
_rule(r"^no\s+(?P<o>emojis?|markdown|jargon|tables|code blocks)\b")(
    lambda m, e: constraint_hit(m, "must_not")
)
_rule(
    r"^(?:please\s+)?(?:make sure (?:to|you)|you must(?! be\b)|you should always|be sure to"
    r"|always)\s+(?P<o>.+)$"
)(lambda m, e: constraint_hit(m, "must"))
_rule(
    r"^(?:请|你)?(?:都|也)?(?:绝对|千万|永远|一定)?(?:不要|别|不许|禁止|千万别|千万不要|请勿|不准|不能再?|不用再"
    r"|不得|严禁|切勿)(?P<o>.+)$",
    0,
)(lambda m, e: constraint_hit(m, "must_not"))
_rule(
    r"^(?P<o>[^，,。\s]{1,16}?)(?:就|也|都)?(?:别|不要|不许|不准|千万别)(?:再)?(?:加|用|发|放|带|出现)"
    r"(?:了|啦)?$",
    0,
)(lambda m, e: constraint_hit(m, "must_not"))  # object first: "emoji别加了", "表情包不要发"
_rule(
    r"^(?:请|你)?\s*(?:必须|一定要|务必|总是|始终|每次都要?|都要"
    r"|(?i:must|always)(?=\s*要?\s*[\u4e00-\u9fff])\s*(?:要)?)\s*(?P<o>.+)$",
    0,
)(lambda m, e: constraint_hit(m, "must"))
_rule(
    r"^(?:以后|今后)?(?:你)?(?:每次|每回|凡是)[^，,。！!？?]{1,14}?(?:都|也)(?:要|得|必须|请)(?P<o>.+)$",
    0,
)(lambda m, e: constraint_hit(m, "must"))  # "每次给我数据都要注明出处": what each time needs
_rule(
    r"^(?![我俺咱他她它]|TA|ta\b)(?=[^，,。]*[\u4e00-\u9fff])[^，,。!?！？]{1,30}?(?:的时候)?\s*(?i:always|must)(?![-\w])"
    r"\s*(?:要|得|都)?\s*(?P<o>[^，,。!?！？]{2,})$",
    0,
)(lambda m, e: constraint_hit(m, "must"))  # "写 PR description 的时候 always 要加上 ticket number"


def _dislike(obj: str) -> Hit | None:
    hit = pref(obj, explicit=True)
    if hit is None:
        return None
    if hit.predicate == "response_length":
        flip = {"concise": "detailed", "detailed": "concise"}
        return Hit("user", "response_length", flip[hit.object], "preference", explicit=True)
    return Hit(
        "user",
        "dislikes",
        bound_liking(clean(obj)).lower(),
        "preference",
        explicit=True,
        multi_valued=True,
    )


__all__ = [
    "RULES",
]
