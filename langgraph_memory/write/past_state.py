"""Whether a value is said of a state that has ended: "I used to live in Rome", "Back when I
worked at Oracle we used Perl", "My old laptop ran Ubuntu", "我以前在北京住过五年",
"之前吃过一年素，后来坚持不下去了". Such a value is history, not the user's current fact,
taste or limit (the guide: a past state is an ``event``). Pure.

The reading is by part: the clause is cut at commas, dashes and contrast words, and only the
part that holds the value is judged, so "我以前是老师，现在做产品" keeps 产品 and "I used to
hate coffee but now I drink it daily" keeps what "now" says."""

from __future__ import annotations

import re

from .extract.markers import PART_COMMA

_PAST_EN = re.compile(
    r"(?i)\b(?:used to|use to|back when|back in (?:my|the|those|college|school|uni)\b"
    r"|when i was (?:a kid|a child|young|little|a teen(?:ager)?|in (?:college|school|uni))"
    r"|in (?:college|high school|grad school|uni)\b|formerly|at the time|back then"
    r"|my (?:old|previous|former|last) (?:job|company|employer|boss|laptop|computer|pc"
    r"|phone|place|apartment|flat|house|team|car|school|city|role|gig)s?\b)"
    r"|\bex-(?=[a-z])"
)
"""English words that set a part in the past: "used to", "back when", "my old laptop"."""
_PAST_ZH = re.compile(
    r"(?:^|(?<=[我俺咱们，,\s]))(?:以前|之前|曾经|原来|当年|过去|那会儿?|那时候?|小时候|上学的时候"
    r"|大学的时候|读书的时候|念书的时候|早年)"
    r"|[住用吃喝待做干玩养]过(?!来|去|年|节|日子|得)"
)
"""Chinese words that set a part in the past: 以前/之前/曾经 opening it (not "下周五以前", a
deadline) or an experiential 过 ("住过", "吃过一年素")."""
_PRESENT = re.compile(
    r"(?i)\b(?:now|currently|these days|nowadays|today|at the moment|still|anymore|again"
    r"|since)\b|现在|目前|如今|还在|还是|依然|仍然|一直|至今|又"
)
"""A present word in the same part: "used to live in Rome and still do", "以前到现在一直吃素"."""
_ENDED = re.compile(
    r"(?i)\b(?:gave (?:it|that|them) up|quit (?:it|that)|stopped (?:it|that|doing it)|it died"
    r"|died last|broke down"
    r"|no longer|not anymore)\b"
    r"|放弃了|坚持不下去|不在了|坏了|戒了|不干了|辞了|离开了"
)
"""An ending said of the state in a later part: "…, then gave it up", "…，后来放弃了"."""
_PARTS = re.compile(
    rf"\s*(?:{PART_COMMA}|[，;；]|\s[—–-]\s|[—–])\s*"
    r"|(?i:\s+(?:but|though|while|whereas)\s+)|(?:但是|不过|可是|后来|然后)"
)


def _past(part: str) -> bool:
    return bool(_PAST_EN.search(part) or _PAST_ZH.search(part)) and not _PRESENT.search(part)


def _present(part: str) -> bool:
    """A part that says something holds now, not that something ended ("现在坏了" ends it)."""
    return bool(_PRESENT.search(part)) and not _ENDED.search(part)


def said_of_the_past(clause: str, value: str) -> bool:
    """Whether ``value`` is said in ``clause`` only of a state that has ended: the part holding
    it has a past word (:data:`_PAST_EN`, :data:`_PAST_ZH`) and no present one
    (:data:`_PRESENT`), or a later part ends it ("then gave it up", "后来坚持不下去了"). A value
    no single part holds (a note of the whole clause) is past when a part is and no part says
    something holds now ("我以前的电脑是 Windows，现在坏了" is; "我以前是老师，现在做产品" is
    not)."""
    parts = [p for p in _PARTS.split(clause) if p and p.strip()]
    wanted = value.casefold()
    holding = [i for i, p in enumerate(parts) if wanted and wanted in p.casefold()]
    if not holding:
        return any(_past(p) for p in parts) and not any(_present(p) for p in parts)
    if any(_PRESENT.search(parts[i]) for i in holding):
        return False
    if all(_past(parts[i]) for i in holding):
        return True  # "小时候吃了一次坚果…后来查出来是坚果过敏" names it again, now
    later = parts[holding[-1] + 1 :]
    return any(_ended_here(p) for p in later) and not any(_present(p) for p in later)


def _ended_here(part: str) -> bool:
    """A short part that only ends the state ("then gave it up", "后来坚持不下去了"), not a long
    one about something else ("本来想做的芒果布丁只能放弃了")."""
    if not _ENDED.search(part):
        return False
    cjk = len(re.findall(r"[\u4e00-\u9fff]", part))
    return cjk <= 8 if cjk else len(part.split()) <= 5


__all__ = ["said_of_the_past"]
