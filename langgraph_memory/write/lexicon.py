"""Normalisation tables: map the many ways a fact is stated to one ``(predicate, object)``.

``answer in Chinese``, ``用中文回答``, ``I prefer Chinese`` → ``("answer_language",
"Chinese")``; ``咖啡`` and ``coffee`` → ``("drink", "coffee")``. Matching is case-insensitive;
Latin aliases match on word boundaries, CJK aliases as substrings.
"""

from __future__ import annotations

import re
from functools import lru_cache

LANGUAGES: dict[str, tuple[str, ...]] = {
    "Chinese": ("chinese", "mandarin", "中文", "汉语", "普通话", "华语", "简体中文", "繁体中文"),
    "Cantonese": ("cantonese", "粤语", "广东话"),
    "Shanghainese": ("shanghainese", "上海话", "沪语"),
    "Hokkien": ("hokkien", "闽南话", "闽南语"),
    "Hakka": ("hakka", "客家话"),
    "Teochew": ("teochew", "潮汕话", "潮州话"),
    "Sichuanese": ("sichuanese", "四川话"),
    "English": ("english", "英文", "英语"),
    "Japanese": ("japanese", "日语", "日文"),
    "Korean": ("korean", "韩语", "韩文", "朝鲜语"),
    "French": ("french", "法语", "法文"),
    "German": ("german", "德语", "德文"),
    "Spanish": ("spanish", "castilian", "西班牙语", "西班牙文"),
    "Italian": ("italian", "意大利语", "意大利文"),
    "Portuguese": ("portuguese", "葡萄牙语", "葡萄牙文", "葡语"),
    "Russian": ("russian", "俄语", "俄文", "俄罗斯语"),
    "Arabic": ("arabic", "阿拉伯语", "阿拉伯文"),
    "Vietnamese": ("vietnamese", "越南语", "越南文"),
    "Thai": ("thai", "泰语", "泰文"),
    "Indonesian": ("indonesian", "bahasa indonesia", "印尼语", "印度尼西亚语"),
    "Malay": ("malay", "bahasa melayu", "马来语", "马来文"),
    "Filipino": ("filipino", "tagalog", "菲律宾语", "他加禄语"),
    "Hindi": ("hindi", "印地语"),
    "Bengali": ("bengali", "bangla", "孟加拉语"),
    "Urdu": ("urdu", "乌尔都语"),
    "Punjabi": ("punjabi", "旁遮普语"),
    "Tamil": ("tamil", "泰米尔语"),
    "Telugu": ("telugu", "泰卢固语"),
    "Marathi": ("marathi", "马拉地语"),
    "Nepali": ("nepali", "尼泊尔语"),
    "Sinhala": ("sinhala", "sinhalese", "僧伽罗语"),
    "Burmese": ("burmese", "缅甸语"),
    "Khmer": ("khmer", "cambodian", "高棉语", "柬埔寨语"),
    "Lao": ("lao", "laotian", "老挝语"),
    "Mongolian": ("mongolian", "蒙古语", "蒙语"),
    "Tibetan": ("tibetan", "藏语"),
    "Uyghur": ("uyghur", "uighur", "维吾尔语"),
    "Persian": ("persian", "farsi", "波斯语"),
    "Turkish": ("turkish", "土耳其语"),
    "Hebrew": ("hebrew", "希伯来语"),
    "Greek": ("greek", "希腊语"),
    "Dutch": ("dutch", "flemish", "荷兰语"),
    "Swedish": ("swedish", "瑞典语"),
    "Norwegian": ("norwegian", "挪威语"),
    "Danish": ("danish", "丹麦语"),
    "Finnish": ("finnish", "芬兰语"),
    "Icelandic": ("icelandic", "冰岛语"),
    "Polish": ("polish", "波兰语"),
    "Czech": ("czech", "捷克语"),
    "Slovak": ("slovak", "斯洛伐克语"),
    "Hungarian": ("hungarian", "匈牙利语"),
    "Romanian": ("romanian", "罗马尼亚语"),
    "Bulgarian": ("bulgarian", "保加利亚语"),
    "Serbian": ("serbian", "塞尔维亚语"),
    "Croatian": ("croatian", "克罗地亚语"),
    "Slovenian": ("slovenian", "slovene", "斯洛文尼亚语"),
    "Ukrainian": ("ukrainian", "乌克兰语"),
    "Lithuanian": ("lithuanian", "立陶宛语"),
    "Latvian": ("latvian", "拉脱维亚语"),
    "Estonian": ("estonian", "爱沙尼亚语"),
    "Catalan": ("catalan", "加泰罗尼亚语"),
    "Irish": ("irish", "gaelic", "爱尔兰语"),
    "Welsh": ("welsh", "威尔士语"),
    "Swahili": ("swahili", "kiswahili", "斯瓦希里语"),
    "Amharic": ("amharic", "阿姆哈拉语"),
    "Yoruba": ("yoruba", "约鲁巴语"),
    "Zulu": ("zulu", "祖鲁语"),
    "Afrikaans": ("afrikaans", "南非荷兰语"),
    "Latin": ("latin", "拉丁语", "拉丁文"),
    "Esperanto": ("esperanto", "世界语"),
}
"""Languages by English name (the canonical ``answer_language`` value), with the English and
Chinese ways of naming them, and dialects by their own names (Cantonese, Shanghainese,
Hokkien, Hakka, Teochew, Sichuanese): people speak them and ask answers in them."""

_COFFEE_MORE = (
    "lattes",
    "americanos",
    "cappuccinos",
    "flat whites",
    "espressos",
    "cold brews",
    "cortado",
    "cortados",
    "macchiato",
    "macchiatos",
    "mocha",
    "mochas",
)
"""Coffees said in the plural ("oat flat whites", "iced americanos") or by a kind the table
names nowhere else (a cortado is a coffee too)."""

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
        "C#": ("c#", "csharp"),
        "PHP": ("php",),
        "Scala": ("scala",),
        "Elixir": ("elixir",),
        "Haskell": ("haskell",),
        "Dart": ("dart",),
        "Lua": ("lua",),
        "Clojure": ("clojure",),
        "Perl": ("perl",),
        "Julia": ("julia lang", "julialang"),
        "Zig": ("zig",),
        "OCaml": ("ocaml",),
        "Erlang": ("erlang",),
        "Objective-C": ("objective-c", "objc"),
        "C": ("c language", "c语言"),
        "MATLAB": ("matlab",),
    },
    "drink": {
        "coffee": (
            "coffee",
            "咖啡",
            "latte",
            "拿铁",
            "espresso",
            "美式",
            "americano",
            "cappuccino",
            "flat white",
            "cold brew",
            "卡布奇诺",
            *_COFFEE_MORE,
        ),
        "tea": ("tea", "茶", "绿茶", "红茶", "乌龙", "earl grey", "matcha", "抹茶", "普洱"),
        "water": ("water", "白开水"),
        "milk tea": ("milk tea", "bubble tea", "boba", "奶茶"),
        "soy milk": ("soy milk", "豆浆"),
        "juice": ("juice", "果汁", "orange juice", "橙汁"),
        "kombucha": ("kombucha",),
        "beer": ("beer", "啤酒", "精酿"),
        "wine": ("wine", "红酒", "葡萄酒"),
        "hot chocolate": ("hot chocolate", "热可可"),
        "cola": ("cola", "coke", "可乐"),
        "sparkling water": ("sparkling water", "气泡水"),
    },
    "editor": {
        "vim": ("vim",),
        "Neovim": ("neovim", "nvim"),
        "emacs": ("emacs",),
        "Helix": ("helix",),
        "Sublime Text": ("sublime text", "sublime"),
        "VS Code": ("vs code", "vscode", "visual studio code"),
        "PyCharm": ("pycharm",),
        "IntelliJ IDEA": ("intellij idea", "intellij"),
        "WebStorm": ("webstorm",),
        "GoLand": ("goland",),
        "Xcode": ("xcode",),
        "Android Studio": ("android studio",),
        "Notepad++": ("notepad++",),
        "Visual Studio": ("visual studio",),
    },
    "ui_theme": {
        "dark": (
            *("dark mode", "dark theme", "深色模式", "暗色", "黑色主题", "夜间模式", "深色主题"),
            *("深色", "暗黑模式", "暗黑主题", "dark ui", "dark background"),
        ),
        "light": (
            *("light mode", "light theme", "浅色模式", "亮色", "白色主题", "浅色主题", "浅色"),
            *("light ui", "light background", "日间模式"),
        ),
    },
    "indentation": {
        "tabs": ("tabs", "tab", "tab indentation", "tab缩进", "制表符"),
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
            "长篇",
        ),
    },
    "units": {
        "metric": ("metric", "公制", "公里", "摄氏度", "celsius", "kilometers"),
        "imperial": ("imperial", "英制", "miles", "fahrenheit", "华氏"),
    },
    "operating_system": {
        "Linux": ("linux",),
        "Ubuntu": ("ubuntu",),
        "Debian": ("debian",),
        "Fedora": ("fedora",),
        "Arch Linux": ("arch linux",),
        "macOS": ("macos", "mac", "macs", "osx", "os x"),
        "Windows": ("windows",),
        "CentOS": ("centos",),
        "Linux Mint": ("linux mint",),
        "Manjaro": ("manjaro",),
        "FreeBSD": ("freebsd",),
        "NixOS": ("nixos",),
        "ChromeOS": ("chromeos", "chrome os"),
        "openSUSE": ("opensuse",),
    },
    "database": {
        "PostgreSQL": ("postgres", "postgresql"),
        "MySQL": ("mysql",),
        "MariaDB": ("mariadb",),
        "SQLite": ("sqlite",),
        "MongoDB": ("mongodb", "mongo"),
        "Redis": ("redis",),
        "Oracle": ("oracle database", "oracle db"),
        "SQL Server": ("sql server", "mssql"),
        "ClickHouse": ("clickhouse",),
        "DynamoDB": ("dynamodb",),
        "Elasticsearch": ("elasticsearch",),
        "TiDB": ("tidb",),
        "BigQuery": ("bigquery",),
        "CockroachDB": ("cockroachdb",),
        "Neo4j": ("neo4j",),
        "Supabase": ("supabase",),
        "DuckDB": ("duckdb",),
        "OceanBase": ("oceanbase",),
    },
    "test_framework": {
        "pytest": ("pytest",),
        "unittest": ("unittest",),
        "Jest": ("jest",),
        "Vitest": ("vitest",),
        "JUnit": ("junit",),
        "Cypress": ("cypress",),
        "Playwright": ("playwright",),
        "RSpec": ("rspec",),
        "TestNG": ("testng",),
        "PHPUnit": ("phpunit",),
        "Catch2": ("catch2",),
        "GoogleTest": ("googletest", "gtest"),
    },
    "cuisine": {
        "Sichuan": ("sichuan food", "川菜"),
        "Cantonese": ("cantonese food", "粤菜"),
        "Italian": ("italian food", "意大利菜"),
        "Japanese": ("japanese food", "日料", "日本料理", "日本菜"),
        "Chinese": ("chinese food", "中餐", "中国菜"),
        "Korean BBQ": ("korean bbq", "korean barbecue", "韩式烤肉"),
        **{
            nat: (f"{nat.lower()} food", f"{nat.lower()} cuisine", f"{nat.lower()} dishes")
            for nat in (
                "Thai",
                "Vietnamese",
                "Korean",
                "Mexican",
                "Indian",
                "French",
                "Greek",
                "Spanish",
                "Turkish",
                "Lebanese",
                "Ethiopian",
                "Peruvian",
                "Brazilian",
                "Malaysian",
                "Indonesian",
                "Filipino",
                "German",
                "Middle Eastern",
                "Mediterranean",
                "Moroccan",
                "Persian",
                "Hunan",
                "Taiwanese",
                "Szechuan",
                "Nepalese",
                "Caribbean",
                "Cajun",
                "Southern",
                "American",
                "Russian",
            )
        },
        **{
            zh: (zh,)
            for zh in (
                "湘菜",
                "鲁菜",
                "苏菜",
                "浙菜",
                "闽菜",
                "徽菜",
                "淮扬菜",
                "东北菜",
                "西北菜",
                "新疆菜",
                "云南菜",
                "贵州菜",
                "潮汕菜",
                "客家菜",
                "泰国菜",
                "越南菜",
                "印度菜",
                "墨西哥菜",
                "韩国菜",
                "韩餐",
                "韩料",
                "西餐",
                "法餐",
                "法国菜",
                "西班牙菜",
                "土耳其菜",
                "火锅",
                "烧烤",
                "家常菜",
                "本帮菜",
                "台湾菜",
                "东南亚菜",
            )
        },
    },
    "pet": {"dog": ("dog", "狗"), "cat": ("cat", "猫")},
}

SPECIFIC_ALIASES = frozenset(
    {
        *_COFFEE_MORE,
        *("latte", "拿铁", "espresso", "美式", "americano", "cappuccino", "flat white"),
        *("cold brew", "卡布奇诺", "绿茶", "红茶", "乌龙", "earl grey", "matcha", "抹茶", "普洱"),
    }
)
"""Aliases that name a kind of their canonical value (a latte is a coffee, 乌龙 a tea): the
value keeps the user's word; the canonical is kept beside it for matching."""

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

ADDABLE_PREDICATES = frozenset(
    {
        "drink", "cuisine", "pet", "likes", "speaks", "allergy", "dietary_restriction",
        "programming_language", "database", "test_framework", "editor", "operating_system",
    }
)  # fmt: skip
"""Predicates a person can hold several values of at once although a new value usually
replaces the old one (two drinks, a second language, a second pet): said with an additive
marker (:data:`ADDITIVE_MARKERS`) the new value is added next to the stored ones."""

ADDITIVE_MARKERS = re.compile(
    r"(?i)\b(?:also|too|as well|in addition|on top of that|besides|another)\b"
    r"|另外|此外|还有|以及|也(?!不是|就)"
    r"|还(?=(?:挺|很|特别|蛮|超|比较|会)?(?:喜欢|爱|养|会|喝|吃|用|写|说|学|玩|有|对))"
)
"""Words that add a value to what is already true ("I also drink coffee now", "我还喜欢爬山",
"也养了一只猫", "另外我也用 Go"). "还是" (still, rather: "还是中文吧") and "还在" are not additive:
"还" counts only before a verb of liking, having or using."""

REPLACING_MARKERS = re.compile(
    r"(?i)\b(?:instead|anymore|any more|no longer|not any ?more|gave up|give up|quit|stopped"
    r"|replaced|switch(?:ed|ing)?|chang(?:e|ed|ing)|mov(?:e|ed|ing) (?:over )?to|went back"
    r"|rather than)\b|不再|不.{0,3}了|戒了|换成|换了|改成|改用|改喝|换到|切到|转向|而不是"
)
"""Words that make a value replace the earlier one, additive marker or not ("I switched from
tea to coffee too", "改成喝咖啡了"): a real switch still supersedes."""


def adds_value(clause: str) -> bool:
    """True when ``clause`` adds its value to the earlier ones: it has an additive marker
    (:data:`ADDITIVE_MARKERS`) and no switch (:data:`REPLACING_MARKERS`)."""
    return bool(ADDITIVE_MARKERS.search(clause)) and not REPLACING_MARKERS.search(clause)


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
"""Place names that make "我在X工作" a location rather than an employer (with
:data:`WORLD_PLACES`)."""
_WORLD_PLACE_WORDS = """
    Amsterdam Athens Atlanta Auckland Austin Bangalore Bengaluru Bangkok Barcelona Beijing Berlin
    Bogota Boston Brisbane Brussels Budapest Buenos_Aires Cairo Calgary Cape_Town Chennai Chicago
    Copenhagen Dallas Delhi Denver Dubai Dublin Edinburgh Frankfurt Geneva Glasgow Guangzhou
    Hamburg Hangzhou Helsinki Ho_Chi_Minh_City Hong_Kong Honolulu Houston Hyderabad Istanbul
    Jakarta Johannesburg Kuala_Lumpur Kyoto Lagos Leeds Lima Lisbon Liverpool London Los_Angeles
    Lyon Madrid Manchester Manila Melbourne Mexico_City Miami Milan Montreal Moscow Mumbai Munich
    Nairobi New_Delhi New_York NYC Osaka Oslo Ottawa Paris Perth Philadelphia Portland
    Prague Pune Rome Rotterdam San_Diego San_Francisco San_Jose Santiago Sao_Paulo Seattle Seoul
    Shanghai Shenzhen Singapore Stockholm Sydney Taipei Tel_Aviv Tokyo Toronto Vancouver Vienna
    Warsaw Washington Wellington Zurich Boulder Halifax Charlotte Tulsa Asheville Pittsburgh
    Minneapolis Detroit Nashville Orlando Sacramento Salt_Lake_City Vegas Las_Vegas Cambridge
    Oxford Bristol Birmingham Cologne Stuttgart Dusseldorf Marseille Porto Seville Valencia
    Krakow Bucharest Sofia Belgrade Zagreb Riga Tallinn Vilnius Reykjavik Hanoi Chengdu Wuhan
    Xi'an Nanjing Chongqing Tianjin Suzhou Macau Kaohsiung Busan Sapporo Fukuoka Yokohama
    America USA UK Britain England Scotland Wales Ireland Canada Mexico Brazil Argentina Chile
    Germany France Spain Italy Portugal Netherlands Belgium Switzerland Austria Sweden Norway
    Denmark Finland Poland Greece Turkey Russia Ukraine Israel Egypt Kenya Nigeria India China
    Japan Korea Taiwan Vietnam Thailand Malaysia Indonesia Philippines Australia New_Zealand
    """
WORLD_PLACES = frozenset(word.replace("_", " ") for word in _WORLD_PLACE_WORDS.split())
"""Cities and countries written in Latin letters, so "我在 Berlin 工作" and "I'm in Toronto" name
a place, not an employer."""


def is_place(text: str) -> bool:
    """True for a known city/country or a name ending in 市/省/县/区."""
    return (
        text in PLACES
        or text in WORLD_PLACES
        or (len(text) >= 2 and text[-1] in "市省县区" and text[:-1].isalpha())
    )


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


@lru_cache(maxsize=4096)
def _alias_re(alias: str) -> re.Pattern[str]:
    # the cache must hold every alias of the tables (~600 today): scanned in a cycle, an LRU
    # smaller than the set never hits, and compiling them was half of a turn's save time
    if _is_cjk_alias(alias):
        return re.compile(re.escape(alias), re.IGNORECASE)
    # ASCII boundaries: "Vim写代码" must still match "vim" (CJK characters are \w too)
    # a space in an alias also matches a hyphen ("light theme" / "light-theme person")
    body = re.escape(alias).replace(r"\ ", r"[\s-]")
    guard = _ALIAS_GUARDS.get(alias.lower(), "")
    return re.compile(r"(?<![A-Za-z0-9_+#])" + body + r"(?![A-Za-z0-9_+#])" + guard, re.IGNORECASE)


_ALIAS_GUARDS = {
    "polish": r"(?<!稍微)(?<!稍微 )(?<!\bto )(?<!\band )(?<!\bjust )(?<!\bplease )"
    r"(?!\s*(?:一下|(?:up|it|this|that|the|my|a|an|off|them)\b))",
}
"""Aliases that are also common words, with the contexts in which they are the word: "polish
it up", "稍微 polish 一下" is the verb, not the Polish language."""


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


_REGION = re.compile(
    r"(?<![\w-])(?:"
    # AWS: us-east-1, eu-central-1, ap-southeast-2, us-gov-west-1
    r"(?:us|eu|ap|sa|ca|me|af|il|mx|cn)-(?:gov-)?(?:north|south|east|west|central|northeast"
    r"|southeast|northwest|southwest)-\d"
    # Google Cloud: europe-west1, us-central1, asia-northeast1
    r"|(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:north|south|east"
    r"|west|central|northeast|southeast|northwest|southwest)\d{1,2}"
    # Azure: eastus, westeurope, southeastasia, eastus2
    r"|(?:east|west|central|north|south|southeast|northeast)(?:us|europe|asia)\d?"
    # Alibaba Cloud: cn-hangzhou, cn-shanghai
    r"|cn-(?:hangzhou|shanghai|beijing|shenzhen|qingdao|zhangjiakou|chengdu|hongkong|guangzhou)"
    r")(?![\w-])",
    re.IGNORECASE,
)


def region_of(text: str) -> str | None:
    """The cloud region identifier in ``text`` (``eu-central-1``, ``europe-west1``,
    ``eastus``, ``cn-hangzhou``), lower-cased, or None."""
    m = _REGION.search(text)
    return m.group(0).lower() if m else None


_VERSION = re.compile(r"^[\s-]*v?(\d+(?:\.\d+){0,2}[a-z]?)(?!\w|\.\w)", re.IGNORECASE)


def with_version(text: str, canonical: str, predicate: str) -> str:
    """``canonical`` followed by the version the user gave right after the tool's name
    (``MySQL 8.0`` → ``MySQL 8.0``, ``postgres 16`` → ``PostgreSQL 16``); ``canonical`` alone
    when no version follows."""
    for alias in TOPICS.get(predicate, {}).get(canonical, ()):
        m = _alias_re(alias).search(text)
        if m:
            version = _VERSION.match(text[m.end() :])
            return f"{canonical} {version.group(1)}" if version else canonical
    return canonical


def canonical_value(predicate: str, value: str) -> str | None:
    """The lexicon's canonical form of ``value`` stored under ``predicate`` ("冰美式" as a
    drink → ``coffee``, "Postgres 14" → ``PostgreSQL 14``, "普通话" spoken → ``Chinese``), or
    None when the lexicon has none. Values are stored as the user said them; this form lets
    the same thing said two ways be recognised as one."""
    if predicate in {"answer_language", "speaks"}:
        return language_of(value)
    if predicate == "timezone":
        return timezone_of(value)
    table = TOPICS.get(predicate)
    if table is None:
        return None
    found = find_alias(value, table)
    return with_version(value, found, predicate) if found else None


def _table(predicate: str) -> dict[str, tuple[str, ...]] | None:
    if predicate in {"answer_language", "speaks"}:
        return LANGUAGES
    if predicate == "timezone":
        return TIMEZONES
    return TOPICS.get(predicate)


def same_plain_value(predicate: str, a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are each the canonical word of one lexicon value or one of
    its plain names ("茶" and "tea", "东八区" and "UTC+8", "PST" and "UTC-8"): the same value
    said two ways, so a repetition reinforces instead of superseding. A more specific word
    ("冰美式" for coffee, "green tea" for tea) is never the same as its canonical."""
    table = _table(predicate)
    if table is None:
        return False
    fa, fb = a.strip().casefold(), b.strip().casefold()
    if fa == fb:
        return True
    for canonical, aliases in table.items():
        plain = {canonical.casefold(), *(x for x in aliases if x not in SPECIFIC_ALIASES)}
        if fa in plain and fb in plain:
            return True
    if predicate == "timezone":
        ta, tb = timezone_of(a), timezone_of(b)
        return ta is not None and ta == tb and all(_is_zone(x) for x in (fa, fb))
    return False


def _is_zone(value: str) -> bool:
    """True when ``value`` is a zone name or offset alone ("utc+8", "pst")."""
    return bool(re.fullmatch(r"(?:utc|gmt)\s*[+-]\s*\d{1,2}(?::?\d{2})?", value)) or any(
        value in aliases for aliases in TIMEZONES.values()
    )


ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "database": ("database", "db", "数据库"),
    "programming_language": ("programming language", "language", "编程语言", "开发语言", "语言"),
    "test_framework": ("test framework", "testing framework", "测试框架"),
    "operating_system": ("operating system", "os", "操作系统"),
    "cloud_region": ("cloud region", "region", "区域", "地域", "部署区域", "可用区"),
    "cloud_provider": ("cloud provider", "cloud", "云服务", "云厂商", "云平台"),
    "cache": ("cache", "缓存"),
    "message_queue": ("message queue", "queue", "消息队列"),
    "frontend_framework": ("frontend framework", "front-end framework", "前端框架"),
    "backend_framework": ("backend framework", "back-end framework", "后端框架"),
    "framework": ("framework", "框架"),
    "ci": ("ci", "ci system", "持续集成"),
    "editor": ("editor", "编辑器"),
}
"""Words naming a tool attribute ("我们项目的**数据库**用的是…", "our **database** is…") and
the predicate each stands for."""


def attribute_of(text: str) -> str | None:
    """The predicate named by an attribute word that makes up all of ``text``, or None."""
    wanted = text.strip().lower()
    for predicate, words in ATTRIBUTES.items():
        if wanted in words:
            return predicate
    return None


JOB_HEADS_EN = (
    "engineer|developer|dev|programmer|coder|designer|manager|analyst|scientist|researcher"
    "|consultant|architect|teacher|nurse|doctor|physician|surgeon|dentist|lawyer|paralegal"
    "|accountant|auditor|actuary|writer|editor|journalist|reporter|intern|lead|director|admin"
    "|administrator|specialist|coordinator|officer|founder|co-founder|cofounder|owner|tester"
    "|pharmacist|therapist|counselor|counsellor|psychologist|psychiatrist|chaplain|chef|cook"
    "|baker|barista|photographer|translator|interpreter|illustrator|animator|artist|musician"
    "|tutor|lecturer|professor|postdoc|student|candidate|pilot|paramedic|midwife|electrician"
    "|plumber|carpenter|mechanic|technician|librarian|executive|recruiter|marketer|strategist"
    "|planner|producer|entrepreneur|freelancer|contractor|clerk|cashier|receptionist"
    "|secretary|banker|broker|agent|rep|representative|economist|statistician|biologist"
    "|chemist|physicist|veterinarian|vet|dietitian|nutritionist|trainer|coach|instructor"
    "|firefighter|partner|associate|principal|fellow|resident|apprentice|sre|devops"
)
"""English head nouns of a job ("account executive", "PhD candidate", "staff SRE"): the last
word of an occupation a clause names. One list for the rule tables and the slot triggers."""


RELATIONS: dict[str, str] = {
    "mom": "mother",
    "mum": "mother",
    "mother": "mother",
    "dad": "father",
    "father": "father",
    "wife": "wife",
    "husband": "husband",
    "partner": "partner",
    "spouse": "spouse",
    "son": "son",
    "daughter": "daughter",
    "kid": "child",
    "child": "child",
    "baby": "baby",
    "brother": "brother",
    "sister": "sister",
    "boyfriend": "boyfriend",
    "girlfriend": "girlfriend",
    "fiance": "fiance",
    "fiancee": "fiancee",
    "grandma": "grandmother",
    "grandmother": "grandmother",
    "grandpa": "grandfather",
    "grandfather": "grandfather",
    "uncle": "uncle",
    "aunt": "aunt",
    "cousin": "cousin",
    "niece": "niece",
    "nephew": "nephew",
    "best friend": "best_friend",
    "friend": "friend",
    "roommate": "roommate",
    "boss": "boss",
    "manager": "manager",
    "dog": "dog",
    "cat": "cat",
    "女儿": "daughter",
    "儿子": "son",
    "老婆": "wife",
    "妻子": "wife",
    "太太": "wife",
    "爱人": "spouse",
    "老公": "husband",
    "丈夫": "husband",
    "妈妈": "mother",
    "母亲": "mother",
    "爸爸": "father",
    "父亲": "father",
    "哥哥": "brother",
    "弟弟": "brother",
    "姐姐": "sister",
    "妹妹": "sister",
    "男朋友": "boyfriend",
    "女朋友": "girlfriend",
    "孩子": "child",
    "宝宝": "baby",
    "爷爷": "grandfather",
    "奶奶": "grandmother",
    "外公": "grandfather",
    "外婆": "grandmother",
    "老板": "boss",
    "领导": "boss",
    "猫": "cat",
    "狗": "dog",
    "对象": "partner",
    "同事": "coworker",
    "coworker": "coworker",
    "colleague": "coworker",
    "kids": "child", "children": "child", "toddler": "child", "wife's": "wife", "hubby": "husband",
    "parents": "parents", "grandkid": "grandchild", "stepson": "son", "stepdaughter": "daughter",
    "妈": "mother", "老妈": "mother", "我妈": "mother", "爸": "father", "老爸": "father",
    "我爸": "father", "媳妇": "wife", "媳妇儿": "wife", "闺女": "daughter", "小孩": "child",
    "娃": "child", "孩子们": "child", "婆婆": "mother_in_law", "岳母": "mother_in_law",
    "公公": "father_in_law", "岳父": "father_in_law", "男友": "boyfriend", "女友": "girlfriend",
    "室友": "roommate", "家里老人": "parents", "爸妈": "parents", "父母": "parents",
    "mother-in-law": "mother_in_law", "mother in law": "mother_in_law",
    "father-in-law": "father_in_law", "father in law": "father_in_law",
    "sister-in-law": "sister_in_law", "sister in law": "sister_in_law",
    "brother-in-law": "brother_in_law", "brother in law": "brother_in_law",
    "son-in-law": "son_in_law", "daughter-in-law": "daughter_in_law",
}  # fmt: skip
"""The user's people (and pets) as the first half of a free predicate ("daughter_birthday"), and
the person whose food limit a clause states (``slots.holder``): one table."""
ZH_ATTRIBUTE_NAMES: dict[str, str] = {
    "生日": "birthday",
    "名字": "name",
    "学校": "school",
    "工作": "job",
    "职业": "occupation",
    "年龄": "age",
    "公司": "employer",
    "爱好": "hobby",
    "血型": "blood_type",
    "星座": "zodiac_sign",
}
"""Chinese attribute words → the second half of a free predicate ("女儿的生日" →
``daughter_birthday``)."""

PROJECT_PREDICATES = frozenset(
    {*ATTRIBUTES, "deploy_day", "release_day", "meeting_day", "standup_day", "uses", "deadline"}
)
"""Predicates that describe a project or team when their owner is unstated ("数据库已经换成
Postgres 了", "we deploy on Fridays")."""


def predicate_hint(text: str) -> str | None:
    """The predicate named by words such as "我的名字" or "my timezone", if any."""
    lowered = text.lower()
    for predicate, words in PREDICATE_HINTS:
        if any(w in lowered for w in words):
            return predicate
    return None


__all__ = [
    "ADDABLE_PREDICATES",
    "ADDITIVE_MARKERS",
    "ATTRIBUTES",
    "CONSTRAINT_OBJECTS",
    "JOB_HEADS_EN",
    "LANGUAGES",
    "MULTI_VALUED_PREDICATES",
    "PLACES",
    "PROJECT_PREDICATES",
    "RELATIONS",
    "REPLACING_MARKERS",
    "SPECIFIC_ALIASES",
    "TIMEZONES",
    "TOPICS",
    "ZH_ATTRIBUTE_NAMES",
    "adds_value",
    "attribute_of",
    "canonical_value",
    "find_alias",
    "is_place",
    "language_of",
    "predicate_hint",
    "region_of",
    "same_plain_value",
    "timezone_of",
    "topic_of",
    "with_version",
]
