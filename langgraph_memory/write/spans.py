"""Quantity spans: money amounts and due dates as tokens, and the clauses that make them a
budget or a deadline.

A money amount is one token however it is written — a currency sign or word with digits,
thousand separators, decimals and a ``k`` / ``万`` multiplier, or number words before a
currency word (``$2,500``, ``€1,200``, ``3k``, ``5000元``, ``二十万``, ``一万五``, ``fifteen hundred
bucks``) — so a comma inside it never cuts it ("$2,500, not $2,000" is ``$2,500``, not
``$2``). A due date is a calendar expression (``March 15``, ``next Friday``,
``end of the month``, ``6月30号``, ``月底``, ``下周五``), holidays included
(``the week before Thanksgiving``, ``国庆前``, ``双十一之前``).

The amount is a **budget** when the clause speaks of spending or a ceiling (budget, spend,
afford, up to, under, at most, 预算, 不超过, 以内…); the date is a **deadline** when the clause
speaks of something due (by, due, before, no later than, deadline, ship, 截止, 之前/前 +
上线/交/完成…). An amount or date after "not" / "不是" is the value being corrected away, so
the first one that is not is the value. Pure functions over the clause text, no state.
"""

from __future__ import annotations

import re

_CURRENCY_SIGN = r"[$€£¥￥]"
_AMOUNT = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_CURRENCY_WORD = (
    r"dollars?|bucks|euros?|pounds?|quid|usd|eur|gbp|rmb|cny|yuan|yen|francs?|sgd|aud|cad|hkd"
    r"|nzd|chf|jpy|inr|rupees?|twd|nt\$?"
    r"|元|块钱?|美元|欧元|英镑|日元|人民币|美金|刀|台币|台幣|新台币|新台幣|港币|港幣|新币|澳币"
)
_ZH_NUMBER = r"[一二三四五六七八九十两兩百千]+"
_EN_NUMBER = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety|a)"
)
MONEY = re.compile(
    rf"(?i)(?<![A-Za-z0-9.,]){_CURRENCY_SIGN}\s?(?:{_AMOUNT})(?:\s?(?:k|m|mn|million|thousand|grand)\b)?"
    rf"|(?<![A-Za-z0-9.,$€£¥])(?:(?:{_AMOUNT})\s?(?:k\s?)?[-–~]\s?)?(?:{_AMOUNT})\s?(?:k\b|grand\b)"
    rf"(?:\s?(?:{_CURRENCY_WORD})\b)?"
    rf"|(?<![A-Za-z0-9.,$€£¥])(?:{_AMOUNT})\s?(?:万|千)?\s?(?:{_CURRENCY_WORD})(?:\b|(?=[\u4e00-\u9fff]|$))"
    rf"|(?<![A-Za-z0-9.,$€£¥])(?:{_AMOUNT}|{_ZH_NUMBER})\s?(?:万|千|萬)"
    rf"(?:[一二三四五六七八九两][千百]?|\d(?![\d.,]))?(?:元|块钱?|人民币|台币|台幣|新台币|新台幣|港币|港幣)?"
    rf"|(?<![A-Za-z0-9.,$€£¥])(?:{_AMOUNT})(?=\s*(?:以内|之内|以下|左右|上下)|$)"
    rf"|\b{_EN_NUMBER}(?:[\s-]+(?:{_EN_NUMBER}|hundred|thousand|and))*\s+"
    r"(?:grand|bucks|dollars|euros|pounds|quid)\b"
)
"""One money amount as written (see module docstring); the last form is a bare number only
where a budget word or a ceiling word frames it (checked by :func:`budget_value`)."""

_BUDGET_CUE = re.compile(
    r"(?i)(?<![A-Za-z])budget|(?<![A-Za-z])spend(?:ing)?(?![A-Za-z])|\bafford\b|\bup to\b"
    r"|\bunder\b|\bbelow\b|\bat most\b"
    r"|\bno more than\b|\bnot more than\b|\bmax(?:imum)?\b|\bcap(?:ped)?\b|\bceiling\b"
    r"|\bnot (?:to )?exceed\b|\bless than\b|\bwithin\b"
    r"|预算|不超过|不能超过|别超过|不要超过|以内|之内|最多|控制在|封顶|上限|花费?不?超"
)
_NOT_BEFORE = re.compile(
    r"(?i)(?:\bnot|\bisn't|\bwasn't|\binstead of|\brather than|不是|而不是|不)\s*$"
)
_SPENT = re.compile(
    r"(?i)\b(?:spent|paid|cost me|bought|earned|won|lost|owe)\b|花了|买了|付了|赚了"
)


def _first_kept(matches: list[re.Match[str]], text: str) -> re.Match[str] | None:
    """The first match not introduced by a negation ("$3,000, not $2,500" → $3,000)."""
    for m in matches:
        if not _NOT_BEFORE.search(text[max(0, m.start() - 14) : m.start()]):
            return m
    return None


def money_spans(text: str) -> list[str]:
    """Every money amount written in ``text``, in order (see :data:`MONEY`)."""
    return [m.group().strip() for m in MONEY.finditer(text)]


def budget_value(clause: str) -> str | None:
    """The budget ``clause`` states — the amount as written — when it speaks of spending or a
    ceiling and does not report money already spent; else None."""
    if not _BUDGET_CUE.search(clause) or _SPENT.search(clause):
        return None
    found = [m for m in MONEY.finditer(clause) if m.group().strip()]
    bare = [m for m in found if re.fullmatch(r"[\d.,]+", m.group().strip())]
    if bare and not re.search(r"预算|budget", clause, re.IGNORECASE):
        found = [m for m in found if m not in bare]  # "under 100 words" is no budget
    m = _first_kept(found, clause)
    return None if m is None else m.group().strip()


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_ORD = r"\d{1,2}(?:st|nd|rd|th)?"
_HOLIDAY = (
    r"(?:christmas(?:\s+eve)?|xmas|thanksgiving|easter|new\s+year'?s?(?:\s+(?:eve|day))?"
    r"|halloween|black\s+friday|labou?r\s+day|memorial\s+day|independence\s+day"
    r"|lunar\s+new\s+year|chinese\s+new\s+year|diwali|hanukkah|ramadan|eid)"
)
_ZH_HOLIDAY = (
    r"(?:国庆(?:节)?|春节|过年|元旦|中秋(?:节)?|端午(?:节)?|清明(?:节)?|劳动节|圣诞(?:节)?|双十一|双11"
    r"|双十二|双12|五一(?![月日号点])|十一(?=前|之前|以前|后|假期|长假))(?:假期|长假)?(?:前|之前|以前)?"
)
DUE_DATE = re.compile(
    rf"(?i)\b(?:{_MONTH}\.?\s+{_ORD}(?:,?\s+\d{{4}})?|{_ORD}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?"
    rf"|(?:(?:next|this|coming)\s+)?{_WEEKDAY}(?:,?\s+(?:the\s+)?{_ORD}\b(?!\s*(?:%|hours?|days?|weeks?))"
    rf"(?:\s+(?:of\s+)?{_MONTH}\b)?|,?\s+{_MONTH}\.?\s+{_ORD}\b)?|(?:the\s+)?end\s+of\s+(?:the\s+|this\s+|next\s+)?"
    rf"(?:day|week|month|quarter|year|sprint|{_MONTH}|q[1-4]\b)"
    rf"|eo[dwmqy](?:\s+(?:on\s+)?(?:next\s+|this\s+)?{_WEEKDAY})?\b|(?:next|this)\s+(?:week|month)"
    r"|the\s+\d{1,2}(?:st|nd|rd|th)\b"
    rf"|\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?|q[1-4](?:\s+\d{{4}})?"
    rf"|{_MONTH}\b(?:\s+\d{{4}})?"
    rf"|(?:(?:the\s+)?(?:last\s+)?(?:day|week|weekend|{_WEEKDAY})\s+(?:before|after)\s+)?{_HOLIDAY}(?![A-Za-z]))"
    rf"|{_ZH_HOLIDAY}"
    r"|(?:\d{4}年)?(?:\d{1,2}|[一二三四五六七八九十]{1,3})月(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号]"
    r"|(?:下下|下|这|本)个?月(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号]"
    r"|(?:下下|下|这|本)?(?:个)?(?:周|星期|礼拜)[一二三四五六日天]|月底|月初|月中|年底|年前|年初|季度末"
    r"|(?:下下|下|这|本)(?:个)?(?:月|周|星期)(?:底|末|初)?|(?:\d{1,2}|[一二三四五六七八九十]{1,3})号|(?:\d{1,2}|[一二三四五六七八九十]{1,3})月份?(?:底|初|中)"
)
"""A calendar expression a deadline can be (see module docstring), holidays included ("the
week before Thanksgiving", "国庆前", "双十一之前")."""

_DUE_CUE = re.compile(
    r"(?i)(?<![A-Za-z])(?:by|due|before|until|till|no later than|deadline|ddl|ship(?:s|ping)?"
    r"|launch(?:es)?|deliver(?:ed)?|submit(?:ted)?|finish(?:ed)?|wrap(?:ped)? up|go(?:es)? live"
    r"|release[sd]?)(?![A-Za-z])"
    r"|截止|截至|期限|deadline|ddl|之前|以前|前(?:要|得|必须)?(?:上线|交|完成|提交|发布|搞定|做完|给)"
    r"|(?:上线|交付|提交|发布|完成|交稿|定稿)"
)
_PAST_EVENT = re.compile(r"(?i)\b(?:was|were|did|went|had|yesterday|last\s+\w+)\b|昨天|上周|去年")


_DUE_BEFORE = re.compile(
    r"(?i)\b(?:by|due(?:\s+(?:on|by))?|before|until|till|no later than|deadline\s+(?:is|of))\s+$"
    r"|(?:截止|截至|在|赶在)\s*$"
)
"""Words right before a date that make it the due date."""


_TIME_OF_DAY = re.compile(
    r"(?i)\s+(?:at\s+|by\s+|before\s+)?(?:noon|midday|midnight|(?:end\s+of\s+(?:the\s+)?day|eod|cob)\b"
    r"|\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2}"
    r"|(?:in\s+the\s+)?(?:morning|afternoon|evening))(?![\w:])"
    r"|\s*(?:(?:中午|上午|下午|晚上|早上|凌晨)(?:\s*(?:\d{1,2}|[一二三四五六七八九十]{1,3})\s*[点:：](?:\d{2}|半)?)?"
    r"|(?:\d{1,2}|[一二三四五六七八九十]{1,3})\s*点(?:\d{2}|半)?)"
)
"""A time of day said right after a due date ("Friday noon", "next Tuesday at 5pm", "周五中午",
"周四下午三点"): part of the deadline as said."""


def _with_time(clause: str, m: re.Match[str]) -> str:
    """The due date of ``m`` with the time of day said right after it (:data:`_TIME_OF_DAY`)."""
    value = m.group().strip()
    tail = _TIME_OF_DAY.match(clause, m.end())
    return value + tail.group() if tail else value


def deadline_value(clause: str) -> str | None:
    """The due date ``clause`` states as written ("We need to ship by March 15" → "March
    15", "这个项目必须在月底前上线" → "月底") when it speaks of something due and is not a
    past event; else None."""
    if not _DUE_CUE.search(clause) or _PAST_EVENT.search(clause):
        return None
    dates = list(DUE_DATE.finditer(clause))
    due = [d for d in dates if _DUE_BEFORE.search(clause[max(0, d.start() - 20) : d.start()])]
    m = _first_kept(due, clause) or _first_kept(dates, clause)  # "the Q3 launch … before Labor Day"
    if m is None:
        return None
    value = m.group().strip()
    if re.fullmatch(rf"(?i){_MONTH}", value) and not re.search(
        rf"(?i)\b(?:by|due|before|until|in|end of)\s+{re.escape(value)}", clause
    ):
        return None  # "may" the verb, not May the month
    return _with_time(clause, m).strip()


__all__ = ["DUE_DATE", "MONEY", "budget_value", "deadline_value", "money_spans"]
