"""Session dates of LoCoMo (``"1:56 pm on 8 May, 2023"``, ISO, Chinese) parsed into timezone-aware
datetimes: the timestamps the replayed turns carry. Pure."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}


_TIME_RE = re.compile(r"\b(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s*m\b\.?", re.I)


_TIME24_RE = re.compile(r"\b(\d{1,2}):(\d{2})(?::(\d{2}))?\b")


_DMY_RE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)\.?,?\s+(\d{4})\b", re.I)


_MDY_RE = re.compile(r"\b([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b", re.I)


_ISO_RE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


_ZH_DATE_RE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")


_ZH_TIME_RE = re.compile(
    r"(凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里)?\s*(\d{1,2})\s*(?:[:：]\s*(\d{2})|点(?:\s*(\d{1,2})\s*分?)?)"
)


_ZH_AFTERNOON = frozenset({"下午", "傍晚", "晚上", "夜里"})


def parse_session_datetime(value: str | None) -> datetime | None:
    """Parse a LoCoMo session date such as ``"1:56 pm on 8 May, 2023"`` into an aware UTC
    datetime (LoCoMo gives no time zone; UTC is assumed). Also accepts ``"May 8, 2023"``,
    ``"8 May 2023"``, 24-hour times, ISO dates and Chinese dates (``"2024年3月2日 晚上8:15"``,
    ``"2023年5月8日 下午3点"``); a date without a time is midnight. Returns
    ``None`` when no date can be found (the turn is then sent without a timestamp)."""
    if not value or not isinstance(value, str):
        return None
    text = " ".join(value.split())
    year = month = day = None
    for pattern, order in ((_DMY_RE, "dmy"), (_MDY_RE, "mdy")):
        for m in pattern.finditer(text):
            a, b, y = m.groups()
            d_raw, mon_raw = (a, b) if order == "dmy" else (b, a)
            mon = _MONTHS.get(mon_raw.lower())
            if mon is not None:
                year, month, day = int(y), mon, int(d_raw)
                break
        if year is not None:
            break
    zh = _ZH_DATE_RE.search(text) if year is None else None
    if zh is not None:
        year, month, day = (int(g) for g in zh.groups())
    if year is None:
        iso = _ISO_RE.search(text)
        if iso is None:
            return None
        year, month, day = (int(g) for g in iso.groups())
    hour = minute = second = 0
    m12 = _TIME_RE.search(text)
    zh_time = _ZH_TIME_RE.search(text[zh.end() :]) if zh is not None else None
    if zh_time is not None:
        part, h, m_colon, m_dian = zh_time.groups()
        hour, minute = int(h), int(m_colon or m_dian or 0)
        if (part in _ZH_AFTERNOON and hour < 12) or (part == "中午" and hour < 11):
            hour += 12
    elif m12 is not None:
        hour = int(m12.group(1)) % 12 + (12 if m12.group(4).lower() == "p" else 0)
        minute, second = int(m12.group(2) or 0), int(m12.group(3) or 0)
    else:
        m24 = _TIME24_RE.search(text)
        if m24 is not None:
            hour, minute, second = int(m24.group(1)), int(m24.group(2)), int(m24.group(3) or 0)
    try:
        return datetime(year, month or 1, day or 1, hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None
