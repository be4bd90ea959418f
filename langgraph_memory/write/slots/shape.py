"""Free fact slots by the clause's grammar: "my/our/the <attribute> is <value>",
"我的<属性>是<值>", counts, "I have …", a name after a preposition; correction slots and bare
values; :func:`meaningful_predicate`. Pure."""

from __future__ import annotations

import re

from ..lexicon import RELATIONS, ZH_ATTRIBUTE_NAMES, attribute_of
from ..segment import strip_time, zh_words
from ..spans import DUE_DATE, MONEY
from .model import ATTR_NORMAL, PARTS, Slot, bound_open, snake, strip_lead, typed_attribute

_MY_ATTR_EN = re.compile(
    r"(?i)^(?P<who>my|our|the|this|(?!(?:it|that|this|there|he|she|they|what|which|who|i|we"
    r"|you|everything|nothing|something|anything)\b)(?=[a-z]))\s*"
    r"(?P<attr>(?:[\w-]+(?:'s|’s)?\s+){0,3}?[\w-]+?)(?:\s+(?:is|are|was)|'s|’s)\s+(?:now\s+|still\s+)?"
    r"(?:called\s+|named\s+)?(?P<o>.+)$"
)
_MY_ATTR_IS_EN = re.compile(
    r"(?i)^(?P<who>my|our|the|this)\s+(?P<attr>(?:[\w-]+(?:'s|’s)?\s+){0,3}?[\w-]+?)"
    r"\s+(?:is|are|was)\s+(?:now\s+|still\s+)?(?:called\s+|named\s+)?(?P<o>.+)$"
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
    r"^(?P<who>我们|咱们|我|本人)?(?:的)?\s*(?:家|公司|团队|项目|组|产品|服务|系统)?(?:的)?\s*"
    r"(?P<attr>[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z ]{0,11}?)"
    r"\s*(?:其实|现在|目前|今年|一共|总共|也|都|一般|主要)?\s*"
    r"(?:用的是|用的|是|叫|在|为|锁在|定在|用|使用|采用)\s*(?P<o>.+)$"
)
_I_HAVE_ZH = re.compile(r"^我?(?:家)?(?P<verb>有|养了?|开|用)(?P<o>.+)$")
_COUNT_ZH = re.compile(
    r"^(?P<who>我们|咱们|我)?(?:的)?\s*(?P<attr>[\u4e00-\u9fffA-Za-z]{1,6}?)\s*"
    r"(?:今年|一共|总共|共|现在|目前|其实)?\s*(?:是|有)?\s*"
    r"(?P<o>[\d一二三四五六七八九十两百几]+\s*(?:个人|个|人|岁|位|名)?)(?:了|啦)?$"
)
"""A count or an age said without a verb ("我们团队一共十五个人", "女儿今年9岁")."""
_I_AM_ZH = re.compile(r"^我(?:其实|本身)?是(?P<o>[^，,。\s的]{2,8})(?:的)?$")
_I_AM_EN = re.compile(r"(?i)^i(?:'m| am)\s+(?P<o>\d{1,3}|[a-z]+(?:-[a-z]+)+(?:\s+[a-z]+)?)$")
_NAMED_EN = re.compile(
    r"(?<![\w.])(?P<o>(?:[A-Z][\w.+#-]*|[a-z]+[A-Z][\w-]*|\d+(?:\.\d+)+)"
    r"(?:\s+(?:[A-Z][\w.+#-]*|\d+(?:\.\d+)*))*)"
)
_NAMED_AFTER = re.compile(r"(?i)\b(?:on|in|with|behind|via|using|through|a|an)\s+(?=[A-Z0-9])")
_CODE_IN = re.compile(
    r"(?i)\b(?:code|codes|coding|coded|write|writes|writing|written|wrote|program|programs"
    r"|programming|built|build|implemented|scripts?|scripting|develop|developing|developed"
    r"|everything|mostly|all)\s+(?:\w+\s+)?in\s+$"
)
"""A name after "in" that is a tool ("written in Go", "we code in Rust"); after any other words
"in" names a place ("works in Guangzhou", "a small bakery in Asheville")."""
_HAS_EN = re.compile(
    r"(?i)^my\s+(?P<rel>[a-z]+)(?:\s+(?:has|had|is)|'s|’s|s)\s+(?:a\s+|an\s+)?(?P<o>.+)$"
)
_IS = re.compile(r"(?i)\b(?:is|are|was|were)\b")


_SPELT_ATTRIBUTES = frozenset(
    {a for a in ATTR_NORMAL if a.isascii() and len(a) >= 5}
    | {"budget", "deadline", "birthday", "timezone", "hometown", "employer", "location"}
)
"""Attribute names long enough that a one-letter slip still names only them."""


def _one_slip(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by one typing slip: a letter dropped, added, changed,
    or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )  # fmt: skip
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def misspelt_attribute(attr: str) -> str | None:
    """The typed attribute a misspelt attribute name stands for ("budgt" → budget, "birthdya"
    → birthday): one typing slip (:func:`_one_slip`) from a name of five letters or more, and
    from only one; None otherwise (and for a word already spelt right)."""
    word = attr.lower()
    if len(word) < 4 or not word.isalpha():
        return None
    near = {ATTR_NORMAL.get(a, a) for a in _SPELT_ATTRIBUTES if _one_slip(word, a)}
    return near.pop() if len(near) == 1 else None


def quantity_span(predicate: str, value: str) -> str:
    """A budget's value as its money amount, a deadline's as its date ("500 bucks for the
    whole trip" → "500 bucks"), when one is found in it; any other value unchanged."""
    if predicate not in {"budget", "deadline"}:
        return value
    found = (MONEY if predicate == "budget" else DUE_DATE).search(value)
    return found.group().strip() if found and found.group().strip() else value


def is_named(value: str) -> bool:
    """True when ``value`` reads as a name or a quantity ("GitHub Actions", "8.0", "阿里云",
    "eu-central-1"), not a state ("totally fine")."""
    return bool(re.match(r"[A-Z0-9\u4e00-\u9fff]", value)) or bool(re.search(r"\d", value))


def _relation_predicate(word: str, attr: str) -> str | None:
    """``daughter_birthday`` for "daughter" + "birthday"; None when ``word`` is no relation."""
    rel = RELATIONS.get(word.lower())
    if rel is None:
        return None
    attr = ZH_ATTRIBUTE_NAMES.get(attr, attr)
    return f"{rel}_{snake(attr)}"


def _zh_noun(attr: str) -> bool:
    """True when ``attr`` ends on a noun as jieba tags it ("线上环境", "专业", "region"): an
    attribute, not a verb or an adverb ("准确说", "已经不")."""
    if attr.isascii():
        return True
    words = [(w, f) for w, f in zh_words(attr) if w.strip() and w != "_"]
    flags = ("n", "eng", "vn", "j", "r", "f", "s", "zg", "q")
    return bool(words) and words[-1][1].startswith(flags)


_PET_WORDS = frozenset({"猫", "狗", "猫咪", "狗狗", "cat", "dog", "puppy", "kitten"})


_FILLER_PREDICATES = frozenset(
    {
        "oops", "ok", "okay", "yes", "yeah", "yep", "sorry", "btw", "lol", "haha", "hmm", "well",
        "so", "actually", "also", "and", "but", "anyway", "fyi", "wait", "no", "nope", "hey",
        "hi", "hello", "thanks", "this", "that", "it", "there", "here", "what",
    }
)  # fmt: skip
_ZH_NOT_ATTRIBUTE = re.compile(r"[了我你他她吧呢啊吗嘛呀哦就还也都又]|^(?:对|嗯|哦|啊|好|哈|说|是)")
_LEAD_CONJUNCTION = re.compile(r"(?i)^(?:但是?|而且?|可是|不过|并且|and|but|so)[\s_]*")


def meaningful_predicate(predicate: str) -> bool:
    """True when ``predicate`` names an attribute: a word of the guide's table or one the
    lexicon knows, else an open name of at least 3 letters that is no filler ("oops",
    "btw") and, in Chinese, ends on a noun and holds no particle, pronoun or time word
    ("对了我", "以前", "少打了个_size" are none). Chunking leaves such pieces; a slot keyed by
    one is dropped, so a correction falls back to its bare value."""
    if predicate in ATTR_NORMAL.values() or attribute_of(predicate.replace("_", " ")):
        return True
    words = [w for w in predicate.split("_") if w]
    if not words or words[0].lower() in _FILLER_PREDICATES:
        return False
    if predicate.isascii():
        return len(predicate) >= 3 and all(w.isalpha() for w in words)
    zh = "".join(w for w in words if not w.isascii())
    if _ZH_NOT_ATTRIBUTE.search(zh) or strip_time(tuple(zh_words(zh))) != tuple(zh_words(zh)):
        return False
    return len(predicate) >= 2 and _zh_noun(zh)


def shaped_fact(body: str) -> Slot | None:
    """An attribute and its value when ``body`` has that shape and the attribute is a
    :func:`meaningful_predicate`, else None. The slot is the user's even for "we"/"our": a
    project-level write needs the caller's confirmation, so placing a fact at the project
    level is left to the rules that name the project."""
    slot = _shape(body)
    return slot if slot is None or meaningful_predicate(slot.predicate) else None


_LABEL = re.compile(
    r"^(?P<attr>[A-Za-z][A-Za-z -]{1,20}?|[\u4e00-\u9fff]{1,4})\s*[:：]\s*(?P<o>[^:：]+)$"
)
""""Day job: ICU nurse", "职业：护士": a value after the attribute's label."""


def _labelled(body: str) -> Slot | None:
    """The typed value after a label the lexicon names ("job: ICU nurse" → occupation)."""
    m = _LABEL.match(body.strip())
    if m is None:
        return None
    attr = snake(m.group("attr"))
    predicate = ATTR_NORMAL.get(attr) or attribute_of(attr.replace("_", " "))
    value = bound_open(m.group("o"))
    if predicate is None or not value or len(value.split()) > 6:
        return None
    return Slot("user", predicate, value.lower() if predicate == "occupation" else value)


def _shape(body: str) -> Slot | None:
    labelled = _labelled(body)
    if labelled is not None:
        return labelled
    m = _HAS_EN.match(body)
    if m and _relation_predicate(m.group("rel"), "x") and not _IS.search(m.group("o")):
        value = bound_open(m.group("o"))
        if value and len(value.split()) <= 6:
            verb = "has" if re.search(r"(?i)\bhad?s?\b", body[: m.start("o")]) else "is"
            return Slot("user", _relation_predicate(m.group("rel"), verb) or "note", value, True)
    m = _MY_ATTR_EN.match(body)
    if m and _IS.search(m.group("o")) and not _IS.search(m.group("attr")):
        m = _MY_ATTR_IS_EN.match(body) or m  # "my niece's school is …": the attribute is school
    if m:
        value = bound_open(m.group("o"))
        attr = snake(re.sub(r"(?i)^(?:his|her|their|its)\s+", "", m.group("attr")))
        who = (m.group("who") or "").lower()
        if value and len(value.split()) <= 8 and (who in {"my", "our", "the"} or is_named(value)):
            predicate = (
                ATTR_NORMAL.get(attr)
                or attribute_of(attr.replace("_", " "))
                or typed_attribute(attr)
                or misspelt_attribute(attr)
                or attr
            )
            value = quantity_span(predicate, value)
            if predicate == "location" and attr == "home" and not is_named(value):
                predicate = "home"  # "my home is a mess": no place
            elif predicate in {"location", "hometown"}:
                # "Home is Shoreditch in London": the place, not the place it is in
                value = re.sub(r"\s+in\s+(?:the\s+)?[A-Z][\w'.-]*(?:\s[A-Z][\w'.-]*)*$", "", value)
            rel = attr.split("_", 1)
            if who == "my" and len(rel) == 2 and _relation_predicate(rel[0], rel[1]):
                predicate = _relation_predicate(rel[0], rel[1]) or predicate
            return Slot("user", predicate, value)
    m = _WE_VERB_EN.match(body)
    if m:
        value = bound_open(m.group("o"))
        if value and len(value.split()) <= 6:
            return Slot("user", f"{m.group('verb').lower()}_{m.group('prep').lower()}", value)
    m = _I_AM_EN.match(body)
    if m:
        value = m.group("o")
        return Slot("user", "age" if value.isdigit() else "trait", value, not value.isdigit())
    m = _I_HAVE_EN.match(body)
    if m:
        value = bound_open(m.group("o"))
        if value and len(value.split()) <= 6:
            verb = m.group("verb").lower()
            predicate = {"have": "has", "got": "has", "own": "has"}.get(verb, verb + "s")
            return Slot("user", predicate, value, multi_valued=True)
    m = _MY_ATTR_ZH.match(body)
    if m:
        value = bound_open(m.group("o"))
        attr = re.sub(r"\s+", "_", _LEAD_CONJUNCTION.sub("", m.group("attr").strip()))
        if (
            value
            and len(value) <= 30
            and attr
            and attr not in {"我", "我们", "本人", "咱们"}
            and not re.search(r"[你他她它这那哪每不没]|[都也还就正现]$", attr)
            and (_zh_noun(attr) or attr in ATTR_NORMAL)
        ):
            predicate = ATTR_NORMAL.get(attr) or attribute_of(attr) or typed_attribute(attr) or attr
            does = re.match(r"(?:做|搞|干|开|卖|生产|负责)", value)
            if predicate == "employer" and does:  # "公司是做游戏的": what it does, not its name
                business = bound_open(value[does.end() :])
                return Slot("user", "employer_business", business) if business else None
            value = quantity_span(predicate, value)
            if attr in _PET_WORDS and "叫" in body[m.end("attr") : m.start("o")]:
                predicate = "pet_name"
            elif _relation_predicate(attr, "x") and "叫" in body[m.end("attr") : m.start("o")]:
                predicate = _relation_predicate(attr, "name") or predicate
            return Slot("user", snake(predicate) if predicate.isascii() else predicate, value)
    m = _COUNT_ZH.match(body)
    if (
        m
        and _zh_noun(m.group("attr"))
        and m.group("attr") not in {"我", "我们"}
        and not re.search(r"是|(?:周|星期|礼拜)$", m.group("attr"))
    ):
        attr = m.group("attr")
        kind = "age" if m.group("o").endswith("岁") or "今年" in body else "size"
        owned = _relation_predicate(attr, kind)
        return Slot(
            "user", owned or f"{snake(attr) if attr.isascii() else attr}_{kind}", m.group("o")
        )
    m = _I_AM_ZH.match(body)
    if m:
        return Slot("user", "identity", m.group("o"), multi_valued=True)
    m = _I_HAVE_ZH.match(body)
    if m:
        value = bound_open(m.group("o"))
        if value and len(value) <= 20:
            return Slot("user", "has", value, multi_valued=True)
    named = _named_after(body)
    if named is not None:
        return Slot("user", "uses", named, multi_valued=True)
    return None


def _named_after(body: str) -> str | None:
    """The name a fact part ends on after a preposition ("Prod sits behind Cloudflare" →
    Cloudflare, "We're on Kubernetes 1.28" → Kubernetes 1.28, "We're a Django shop" →
    Django), when the part names exactly one."""
    for m in _NAMED_AFTER.finditer(body):
        if m.group(0).strip().lower() == "in" and not _CODE_IN.search(body, 0, m.end()):
            continue  # "works in Guangzhou", "a bakery in Asheville": a place, not a tool
        n = _NAMED_EN.match(body, m.end())
        if n and n.group("o") not in {"I", "I'm"}:
            return n.group("o").strip()
    return None


_CORR_SAID_ZH = re.compile(
    r"(?:是|叫|用|在|换成了?|改成了?|改到了?|跳到了?)\s*(?P<y>[^，,。！!？?\s]{1,12}?)\s*[，,]?\s*(?:而)?不是"
    r"\s*(?P<xl>在|用)?\s*(?P<x>[^，,。！!？?\s]{1,12})"
    r"|不是\s*(?P<x2>[^，,。！!？?\s]{1,12}?)\s*[，,]\s*(?:而|应该)?是\s*(?P<y2>[^，,。！!？?\s]{1,12})"
)
_CORR_SAID_EN = re.compile(
    r"(?:^|(?<=[\s,:.]))(?P<y>[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?),?\s+not\s+"
    r"(?P<x>[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?)\b"
    r"|(?i:\bnot\s+)(?P<x2>[\w'-]+(?:\s[\w'-]+)?)\s*(?:[—–,;.]|\s-\s)\s*(?:it'?s\s+)?"
    r"(?!(?i:i|i'm|im|we|my|our|he|she|they|it)\b)(?P<y2>[\w'-]+)"
)
_CORR_LOWER_EN = re.compile(
    r"(?i)\b(?:it'?s|it\s+is|i\s+meant|meant|should\s+be|actually)\s+(?P<y>[\w'-]+(?:\s[\w'-]+){0,2}?)"
    r"\s*,?\s+not\s+(?P<x>[\w'-]+(?:\s[\w'-]+)?)\b"
    r"|\bi\s+(?:said|told\s+you|wrote|typed)\s+(?P<x2>[\w'-]+(?:\s(?!earlier\b|before\b)[\w'-]+)?)\s+(?:earlier\s+|before\s+)?"
    r"but\s+(?:it'?s|it\s+is|i\s+meant|i\s+mean)\s+(?:actually\s+|really\s+)?(?P<y2>[\w'-]+(?:\s[\w'-]+)?)"
)
"""Corrections typed in lower case or told as what was said ("it's emacs, not vim", "I said
Denver earlier but it's actually Boulder")."""
_SHARED_LEAD = re.compile(r"^(?:在|用|是|叫|做|住在|去了?)(?=\S)")


def correction_slot(clause: str) -> Slot | None:
    """The new value and the old one of a correction that names both ("Houston, not Austin",
    "是 Lucy 不是 Lucky", "不是湖南，是湖北", "it's emacs, not vim", "是在网易不是在腾讯", "I said
    Denver but it's actually Boulder"; in "not Austin, I live in Dallas" the word after the comma
    starts a sentence, no value), with no predicate: the resolver takes it from the
    record holding the old value. None when the clause does not name both."""
    m = _CORR_SAID_ZH.search(clause) or _CORR_SAID_EN.search(clause)
    if m is None or (m.group("y2") or "").casefold() == (m.group("x2") or "-").casefold():
        m = _CORR_LOWER_EN.search(clause) or m
    if m is None:
        return None
    new = bound_open(m.group("y") or m.group("y2") or "")
    old = bound_open(m.group("x") or m.group("x2") or "")
    lead_new, lead_old = _SHARED_LEAD.match(new), _SHARED_LEAD.match(old)
    shared = m.groupdict().get("xl")
    if lead_new and (
        lead_new.group() == shared or (lead_old and lead_new.group() == lead_old.group())
    ):
        # "我是在网易不是在腾讯": the preposition both share is not part of either value
        new = bound_open(new[lead_new.end() :])
        old = bound_open(old[lead_old.end() :]) if lead_old else old
    if not new or not old or new.casefold() == old.casefold():
        return None
    return Slot("", "", new, corrects=old)


_BARE_ZH = re.compile(
    r"^(?:应该是|其实是|是|叫)\s*(?P<y>[^，,。！!？?\s]{1,12})$"
    r"|(?:改成|换成|改到|换到|跳到|升级到|搬到|改为)了?\s*(?P<y2>[^，,。！!？?\s]{1,12}?)(?:了|啦|吧)?$"
)
_BARE_EN = re.compile(
    r"(?i)^(?:it'?s|it is|i meant|i mean|should be)\s+(?P<y>[\w'-]+(?:\s[\w'-]+)?)$"
)


def bare_value(clause: str) -> list[Slot]:
    """A correction's new value said alone in one part ("打错了，是小宇，宇宙的宇" → 小宇),
    with no predicate: the resolver applies it to what the previous turn stored."""
    for part in PARTS.split(strip_lead(clause)):
        m = _BARE_ZH.search(part.strip()) or _BARE_EN.match(part.strip())
        if m:
            value = bound_open(m.group("y") or m.groupdict().get("y2") or "")
            if value:
                return [Slot("", "", value)]
    return []


__all__ = [
    "bare_value",
    "correction_slot",
    "is_named",
    "meaningful_predicate",
    "shaped_fact",
]
