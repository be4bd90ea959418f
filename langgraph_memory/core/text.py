"""Text utilities shared by recall and context: the keyword tokenizer and token counting.

The keyword tokenizer is the one BM25 uses for documents and queries alike:

* Latin, Cyrillic, Greek, digits...: lower-cased words (``\\w+`` runs, apostrophes dropped).
* CJK runs (Han, Kana, Hangul): every character *and* every adjacent character bigram.
  Chinese has no spaces; whole-run tokens never match a differently worded query, while
  characters + bigrams reach recall@5 0.514 on a Chinese dialogue-memory set where word
  tokens reach 0.034 (measured by the project, see README).

Queries are tokenized the same way, then :func:`query_tokenize` drops function words
(:data:`QUERY_STOPWORDS`, :data:`CJK_FUNCTION_CHARS`) unless nothing would be left. Documents
keep every token (the stored index and its sparse vectors do not change).

:func:`normalize_for_matching` is the one canonical form security patterns are matched on
(NFKC, invisible characters removed, Cyrillic/Greek look-alikes folded to Latin).
"""

from __future__ import annotations

import re
import unicodedata

_CJK_RANGES = (
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3400, 0x4DBF),  # CJK Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x2FA1F),  # CJK Extensions B-F and supplements
)

_CJK_CLASS = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_RANGES)
_WORD = rf"[^\W_{_CJK_CLASS}]+"  # word characters that are not CJK
_CJK_RUN_RE = re.compile(f"[{_CJK_CLASS}]+")
_TOKEN_RE = re.compile(rf"([{_CJK_CLASS}]+)|({_WORD}(?:['’]{_WORD})*)", re.UNICODE)


INVISIBLE_CHARS = frozenset(
    chr(c)
    for c in (
        *range(0x200B, 0x2010),  # zero-width space/non-joiner/joiner, LRM, RLM
        *range(0x202A, 0x202F),  # bidi embeddings and overrides (LRE RLE PDF LRO RLO)
        *range(0x2060, 0x2065),  # word joiner, invisible operators
        *range(0x2066, 0x206A),  # bidi isolates (LRI RLI FSI PDI)
        0xFEFF,  # zero-width no-break space / BOM
        0x00AD,  # soft hyphen
    )
)
"""Zero-width, bidi-control and soft-hyphen characters: invisible to a reader, yet able to
split a word ("ig\u200bnore") or reorder what a reader sees (U+202E)."""

_INVISIBLE_TABLE = {ord(c): None for c in INVISIBLE_CHARS}

_HOMOGLYPHS = {
    # Cyrillic (lower case; upper case is case-folded first)
    "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i",
    "ј": "j", "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "п": "n", "р": "p",
    "с": "c", "т": "t", "у": "y", "ў": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ɡ": "g", "ʏ": "y",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "u", "ν": "v",
    "ο": "o", "ρ": "p", "σ": "o", "ς": "c", "τ": "t", "υ": "u", "χ": "x", "ω": "w",
    "ζ": "z",
    # Latin look-alikes outside ASCII
    "ı": "i", "ɑ": "a", "ɩ": "i", "ℓ": "l",
}  # fmt: skip
_HOMOGLYPH_TABLE = str.maketrans(_HOMOGLYPHS)
_SPACES = re.compile(r"\s+")


def strip_invisible(text: str) -> str:
    """``text`` without any character of :data:`INVISIBLE_CHARS`. Pure; never raises on str."""
    return text.translate(_INVISIBLE_TABLE)


def normalize_for_matching(text: str) -> str:
    """The canonical form security patterns are matched on.

    In order: Unicode NFKC (full-width and compatibility forms become ASCII: "ｉｇｎｏｒｅ" →
    "ignore", "，" → ","), invisible characters removed (:data:`INVISIBLE_CHARS`), case
    folded, Cyrillic/Greek look-alikes of Latin letters folded to Latin ("аdmin" with a
    Cyrillic "а" → "admin"), whitespace runs collapsed to one space and the ends stripped.
    Pure and idempotent (``f(f(x)) == f(x)``); never raises on str. Meant for matching only:
    a Russian or Greek text comes out as Latin-looking noise, never store or show it.
    """
    folded = strip_invisible(unicodedata.normalize("NFKC", text)).casefold()
    folded = unicodedata.normalize("NFKC", folded).translate(_HOMOGLYPH_TABLE)
    return _SPACES.sub(" ", folded).strip()


def is_cjk(char: str) -> bool:
    """True when ``char`` is a Han, Kana or Hangul character."""
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _CJK_RANGES)


def tokenize(text: str) -> list[str]:
    """Keyword tokens of ``text`` (see module docstring). Deterministic; never raises on str."""
    normalized = unicodedata.normalize("NFKC", text).lower()
    tokens: list[str] = []
    for match in _TOKEN_RE.finditer(normalized):
        cjk_run, word = match.group(1), match.group(2)
        if cjk_run:
            tokens.extend(cjk_run)
            tokens.extend(cjk_run[i : i + 2] for i in range(len(cjk_run) - 1))
        elif word:
            tokens.append(word.replace("'", "").replace("’", ""))
    return tokens


_EN_FUNCTION_WORDS = """
    a an the this that these those
    i me my mine myself we us our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their theirs themselves
    am is are was were be been being do does did doing done have has had having
    will would shall should can could may might must
    im ive youre youve youd youll hes shes weve theyre theyve theyd
    theyll isnt arent wasnt werent dont doesnt didnt havent hasnt hadnt wont wouldnt cant
    couldnt shouldnt whats whos wheres whens hows thats theres
    what which who whom whose when where why how
    of in on at to for from by with about into onto over under between through during before
    after above below up down out off
    and or but if so than then as
"""
QUERY_STOPWORDS = frozenset(_EN_FUNCTION_WORDS.split())
"""English function words dropped from keyword *queries*: a small closed-class list (articles,
demonstratives, personal pronouns, auxiliaries and modals, their contractions as
:func:`tokenize` writes them — apostrophes dropped —, wh-words, common prepositions and
conjunctions), the core shared by the classic IR stopword lists (van Rijsbergen's, SMART's).
Why: BM25's length normalisation favours short texts, so a short chat turn that shares only
"what", "did", "I" with a question used to outrank the turn holding its content words (the
project's per-question LoCoMo diff). Negations ("not", "no", "never") and numbers are kept:
they carry meaning in memories, and so do the contractions that spell a content word once
the apostrophe is gone ("ill", "well", "wed", "id"), which are left out. Content verbs and
nouns are never in the list."""

CJK_FUNCTION_CHARS = frozenset(
    "的了着过是我你您他她它们这那么什怎哪谁吗呢吧啊呀嘛哦在有和与及也都就还又很把被给对从"
)
"""Chinese function characters dropped from keyword *queries*: structural particles (的 了 着
过), the copula 是, personal and demonstrative pronouns (我 你 您 他 她 它 们 这 那), question
words' characters (什么 怎么 哪 谁), sentence-final particles (吗 呢 吧 啊 呀 嘛 哦), and the
commonest prepositions, conjunctions and adverbs (在 有 和 与 及 也 都 就 还 又 很 把 被 给 对
从) — the highest-frequency closed-class characters of Chinese text, the core of the common
Chinese stopword lists. A character token in the set is dropped, and a bigram token only when
*both* its characters are (so "我们", "什么" go, while "会议" or "的猫" stay: a content
character keeps its bigrams)."""


def drop_function_words(tokens: list[str]) -> list[str]:
    """``tokens`` (from :func:`tokenize`) without function words: English tokens in
    :data:`QUERY_STOPWORDS`, CJK characters in :data:`CJK_FUNCTION_CHARS` and CJK bigrams made
    of two of them. Returns ``tokens`` unchanged when every token is a function word, so a
    query like "what did I do" still matches something. Order and repeats are kept."""
    kept = [
        t
        for t in tokens
        if t not in QUERY_STOPWORDS
        and not (t and len(t) <= 2 and all(c in CJK_FUNCTION_CHARS for c in t))
    ]
    return kept if kept else tokens


def query_tokenize(text: str) -> list[str]:
    """Keyword tokens of a *query*: :func:`tokenize` then :func:`drop_function_words`.
    Deterministic; never raises on str; empty only when ``text`` has no token at all."""
    return drop_function_words(tokenize(text))


def detect_language(text: str) -> str:
    """``"zh"`` when at least a fifth of the letters are CJK, ``"en"`` otherwise (a cheap hint)."""
    letters = sum(map(str.isalpha, text))
    if not letters:
        return "und"
    cjk = sum(map(str.isalpha, "".join(_CJK_RUN_RE.findall(text))))
    return "zh" if cjk * 5 >= letters else "en"


_BREAKS = ("\n\n", "\n", ". ", "。", "! ", "? ", "; ", " ")


def split_long_text(text: str, limit: int) -> list[str]:
    """Split ``text`` into stripped, non-empty parts of at most ``limit`` characters, each
    cut at the last paragraph, line, sentence or word break in its window (a hard cut only
    when the window has none). Joining the parts with spaces loses only whitespace at the
    cuts."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    parts: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        window = rest[:limit]
        cut = -1
        for brk in _BREAKS:
            at = window.rfind(brk)
            if at >= limit // 2:
                cut = at + len(brk)
                break
        if cut <= 0:
            cut = limit
        part, rest = rest[:cut].strip(), rest[cut:].strip()
        if part:
            parts.append(part)
    if rest:
        parts.append(rest)
    return parts


__all__ = [
    "CJK_FUNCTION_CHARS",
    "INVISIBLE_CHARS",
    "QUERY_STOPWORDS",
    "detect_language",
    "drop_function_words",
    "is_cjk",
    "normalize_for_matching",
    "query_tokenize",
    "split_long_text",
    "strip_invisible",
    "tokenize",
]
