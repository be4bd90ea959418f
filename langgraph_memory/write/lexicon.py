"""Normalisation tables: map the many ways a fact is stated to one ``(predicate, object)``.

``answer in Chinese``, ``用中文回答``, ``I prefer Chinese`` → ``("answer_language",
"Chinese")``; ``咖啡`` and ``coffee`` → ``("drink", "coffee")``. Matching is case-insensitive;
Latin aliases match on word boundaries, CJK aliases as substrings.
"""

from __future__ import annotations

import re
from functools import lru_cache

LANGUAGES: dict[str, tuple[str, ...]] = {
    "Chinese": ("chinese", "mandarin", "中文", "汉语", "普通话", "华语", "简体中文"),
    "English": ("english", "英文", "英语"),
    "Japanese": ("japanese", "日语", "日文"),
    "French": ("french", "法语", "法文"),
    "German": ("german", "德语", "德文"),
    "Spanish": ("spanish", "西班牙语"),
    "Korean": ("korean", "韩语", "韩文"),
}

TOPICS: dict[str, dict[str, tuple[str, ...]]] = {
    "programming_language": {
        "Python": ("python",),
        "Rust": ("rust",),
        "Go": ("golang", "go language", "go语言", "go 语言"),
        "TypeScript": ("typescript",),
        "JavaScript": ("javascript",),
        "Java": ("java",),
        "C++": ("c++", "cpp"),
        "Kotlin": ("kotlin",),
        "Swift": ("swift",),
        "Ruby": ("ruby",),
    },
    "drink": {
        "coffee": ("coffee", "咖啡", "latte", "拿铁", "espresso", "美式"),
        "tea": ("tea", "茶", "绿茶", "红茶", "乌龙"),
        "water": ("water", "白开水"),
    },
    "editor": {
        "vim": ("vim", "neovim"),
        "emacs": ("emacs",),
        "VS Code": ("vs code", "vscode", "visual studio code"),
        "PyCharm": ("pycharm",),
    },
    "ui_theme": {
        "dark": ("dark mode", "dark theme", "深色模式", "暗色", "黑色主题", "夜间模式", "深色主题"),
        "light": ("light mode", "light theme", "浅色模式", "亮色", "白色主题", "浅色主题"),
    },
    "indentation": {
        "tabs": ("tabs", "tab indentation", "tab缩进", "制表符"),
        "spaces": ("spaces", "space indentation", "空格缩进", "空格"),
    },
    "response_length": {
        "concise": (
            "concise",
            "brief",
            "short answers",
            "short replies",
            "shorter",
            "succinct",
            "简洁",
            "简短",
            "短一点",
            "精简",
            "简单点",
            "简明",
        ),
        "detailed": (
            "detailed",
            "in detail",
            "into detail",
            "longer answers",
            "more detail",
            "thorough",
            "long answers",
            "lengthy",
            "long replies",
            "详细",
            "详尽",
            "具体一点",
            "具体点",
            "长的回答",
            "太长",
            "长篇",
        ),
    },
    "units": {
        "metric": ("metric", "公制", "公里", "摄氏度", "celsius", "kilometers"),
        "imperial": ("imperial", "英制", "miles", "fahrenheit", "华氏"),
    },
    "operating_system": {
        "Linux": ("linux", "ubuntu"),
        "macOS": ("macos", "mac"),
        "Windows": ("windows",),
    },
    "database": {
        "PostgreSQL": ("postgres", "postgresql"),
        "MySQL": ("mysql",),
        "SQLite": ("sqlite",),
        "MongoDB": ("mongodb", "mongo"),
        "Redis": ("redis",),
    },
    "test_framework": {"pytest": ("pytest",), "unittest": ("unittest",), "Jest": ("jest",)},
    "cuisine": {
        "Sichuan": ("sichuan food", "川菜"),
        "Cantonese": ("cantonese food", "粤菜"),
        "Italian": ("italian food", "意大利菜"),
        "Japanese": ("japanese food", "日料", "日本料理", "日本菜"),
        "Chinese": ("chinese food", "中餐", "中国菜"),
    },
    "pet": {"dog": ("dog", "狗"), "cat": ("cat", "猫")},
}

TIMEZONES: dict[str, tuple[str, ...]] = {
    "UTC+8": ("utc+8", "utc +8", "gmt+8", "北京时间", "东八区", "china standard time", "utc+08:00"),
    "UTC+9": ("utc+9", "gmt+9", "jst", "东京时间", "东九区"),
    "UTC+0": ("utc", "gmt", "utc+0", "零时区"),
    "UTC+1": ("utc+1", "gmt+1", "cet"),
    "UTC-5": ("utc-5", "gmt-5", "est", "eastern time", "美东时间"),
    "UTC-8": ("utc-8", "gmt-8", "pst", "pacific time", "美西时间"),
    "UTC+5:30": ("ist", "utc+5:30"),
}

CONSTRAINT_OBJECTS: dict[str, tuple[str, ...]] = {
    "emoji": ("emoji", "emojis", "表情", "表情符号", "表情包"),
    "markdown": ("markdown",),
    "code comments in Chinese": ("中文注释",),
    "jargon": ("jargon", "术语", "行话"),
}

MULTI_VALUED_PREDICATES = frozenset(
    {
        "likes",
        "dislikes",
        "allergy",
        "dietary_restriction",
        "must",
        "must_not",
        "pet",
        "speaks",
        "note",
        "uses",
    }
)
"""Predicates that hold several values at once: a new value is added, not superseding."""

PLACES = frozenset(
    {
        "北京",
        "上海",
        "广州",
        "深圳",
        "杭州",
        "成都",
        "南京",
        "武汉",
        "西安",
        "苏州",
        "天津",
        "重庆",
        "香港",
        "澳门",
        "台北",
        "长沙",
        "郑州",
        "青岛",
        "厦门",
        "大连",
        "沈阳",
        "哈尔滨",
        "济南",
        "合肥",
        "福州",
        "昆明",
        "佛山",
        "东莞",
        "宁波",
        "无锡",
        "海外",
        "国外",
        "美国",
        "日本",
        "英国",
        "德国",
        "法国",
    }
)
"""Place names that make "我在X工作" a location rather than an employer."""


def is_place(text: str) -> bool:
    """True for a known city/country or a name ending in 市/省/县/区."""
    return text in PLACES or (len(text) >= 2 and text[-1] in "市省县区" and text[:-1].isalpha())


PREDICATE_HINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("allergy", ("过敏", "allergic", "allergy")),
    ("name", ("名字", "名叫", "叫", "name", "called")),
    ("timezone", ("时区", "timezone", "time zone")),
    ("location", ("住", "城市", "live", "city", "based")),
    ("hometown", ("老家", "家乡", "来自", "hometown", "from")),
    ("birthday", ("生日", "birthday")),
    ("employer", ("公司", "单位", "employer", "company", "work at", "work for")),
    ("occupation", ("职业", "工作是", "job", "occupation", "profession")),
    ("answer_language", ("语言", "language")),
)
"""Words before "不是X，是Y" / "my X is not ..." that name the corrected predicate."""


def _is_cjk_alias(alias: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in alias)


@lru_cache(maxsize=512)
def _alias_re(alias: str) -> re.Pattern[str]:
    if _is_cjk_alias(alias):
        return re.compile(re.escape(alias), re.IGNORECASE)
    # ASCII boundaries: "Vim写代码" must still match "vim" (CJK characters are \w too)
    return re.compile(
        r"(?<![A-Za-z0-9_+#])" + re.escape(alias) + r"(?![A-Za-z0-9_+#])", re.IGNORECASE
    )


def find_alias(text: str, table: dict[str, tuple[str, ...]]) -> str | None:
    """The canonical value whose alias occurs in ``text`` (longest alias wins), else None."""
    best: tuple[int, str] | None = None
    for canonical, aliases in table.items():
        for alias in aliases:
            if _alias_re(alias).search(text) and (best is None or len(alias) > best[0]):
                best = (len(alias), canonical)
    return best[1] if best else None


def language_of(text: str) -> str | None:
    """The canonical language named in ``text`` (``"Chinese"``...), or None."""
    return find_alias(text, LANGUAGES)


def topic_of(text: str) -> tuple[str, str] | None:
    """``(predicate, canonical object)`` of the first topic whose alias occurs in ``text``."""
    best: tuple[int, str, str] | None = None
    for predicate, table in TOPICS.items():
        for canonical, aliases in table.items():
            for alias in aliases:
                if _alias_re(alias).search(text) and (best is None or len(alias) > best[0]):
                    best = (len(alias), predicate, canonical)
    return (best[1], best[2]) if best else None


def timezone_of(text: str) -> str | None:
    """A canonical ``UTC±h`` for a timezone named in ``text``; explicit offsets are parsed."""
    m = re.search(r"(?i)\b(?:utc|gmt)\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?", text)
    if m:
        sign, hours, minutes = m.group(1), int(m.group(2)), m.group(3)
        return f"UTC{sign}{hours}" + (f":{minutes}" if minutes and minutes != "00" else "")
    return find_alias(text, TIMEZONES)


def predicate_hint(text: str) -> str | None:
    """The predicate named by words such as "我的名字" or "my timezone", if any."""
    lowered = text.lower()
    for predicate, words in PREDICATE_HINTS:
        if any(w in lowered for w in words):
            return predicate
    return None


__all__ = [
    "CONSTRAINT_OBJECTS",
    "LANGUAGES",
    "MULTI_VALUED_PREDICATES",
    "PLACES",
    "TIMEZONES",
    "TOPICS",
    "find_alias",
    "is_place",
    "language_of",
    "predicate_hint",
    "timezone_of",
    "topic_of",
]
