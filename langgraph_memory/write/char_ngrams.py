"""Hashed character n-gram TF-IDF features of a clause, for the clause classifier.

A sentence embedding places a clause by its meaning and blurs its wording: "别用" and "用",
"never" and "ever", "吗" at the end of a clause. Character n-grams keep the wording, in every
script at once, with no tokenizer: Chinese has no spaces, and typos ("dont", "pls") still share
most of their n-grams with the spelling they miss.

:class:`CharNgrams` maps a text to a fixed-length vector:

* lower-cased, split on white space; each word padded with one space on either side and cut
  into character 1- to 3-grams (scikit-learn's ``char_wb`` analyzer). A run of Chinese
  characters is one "word", so its n-grams span its characters;
* each n-gram hashed with CRC-32 (stable across processes and machines, unlike ``hash``) into
  :data:`BUCKETS` buckets; counts become ``1 + log(count)``, weighted by the inverse document
  frequency fitted on the training texts, and the vector is L2-normalised.

Pure Python and numpy at run time (about a third of a millisecond per clause). The IDF vector
ships with the classifier's weights; :data:`VERSION` names the analyzer, so weights trained
with another one are refused rather than misread.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Sequence

import numpy as np

BUCKETS = 16_384
"""Width of the hashed feature space."""
NGRAM_RANGE = (1, 3)
"""Shortest and longest character n-gram."""
VERSION = f"char_wb{NGRAM_RANGE[0]}-{NGRAM_RANGE[1]}/crc32/{BUCKETS}/sublinear-tf/l2/v1"
"""Names the analyzer; stored with the weights and checked when they are loaded."""


def ngram_counts(text: str) -> Counter[int]:
    """Bucket → number of occurrences of the character n-grams of ``text``."""
    counts: Counter[int] = Counter()
    low, high = NGRAM_RANGE
    for word in text.lower().split():
        padded = f" {word} "
        length = len(padded)
        for n in range(low, high + 1):
            for start in range(length - n + 1):
                gram = padded[start : start + n]
                if gram == " ":
                    continue
                counts[zlib.crc32(gram.encode("utf-8")) % BUCKETS] += 1
    return counts


def fit_idf(texts: Sequence[str]) -> np.ndarray:
    """Smoothed inverse document frequency per bucket, ``log((1 + N) / (1 + df)) + 1``."""
    df = np.zeros(BUCKETS, dtype=np.float64)
    for text in texts:
        for bucket in ngram_counts(text):
            df[bucket] += 1.0
    return (np.log((1.0 + len(texts)) / (1.0 + df)) + 1.0).astype(np.float32)


class CharNgrams:
    """TF-IDF over hashed character n-grams with a fitted IDF vector (see module docstring)."""

    def __init__(self, idf: np.ndarray) -> None:
        if idf.shape != (BUCKETS,):
            raise ValueError(f"character n-gram IDF has shape {idf.shape}, expected ({BUCKETS},)")
        self.idf = idf.astype(np.float32)

    @classmethod
    def fitted(cls, texts: Sequence[str]) -> CharNgrams:
        """A featurizer whose IDF is fitted on ``texts``."""
        return cls(fit_idf(texts))

    def row(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """``(buckets, values)`` of the non-zero entries of ``text``'s vector."""
        counts = ngram_counts(text)
        if not counts:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        buckets = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
        tf = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
        values = (1.0 + np.log(tf)) * self.idf[buckets]
        norm = float(np.linalg.norm(values))
        return buckets, (values / norm if norm > 0 else values).astype(np.float32)

    def dense(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of ``texts`` as a dense ``(len(texts), BUCKETS)`` matrix."""
        out = np.zeros((len(texts), BUCKETS), dtype=np.float32)
        for i, text in enumerate(texts):
            buckets, values = self.row(text)
            out[i, buckets] = values
        return out


__all__ = ["BUCKETS", "NGRAM_RANGE", "VERSION", "CharNgrams", "fit_idf", "ngram_counts"]
