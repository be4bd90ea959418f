"""The sentence pool of the latency benches: synthetic sentences (English and Chinese), the
queries asked of them, and :class:`PooledEmbedder`, which gives bulk fills real vectors of a
pool of distinct sentences without embedding every record. Used by ``bench latency``,
``bench latency --tenants`` (:mod:`.scale`), ``bench turn`` and ``bench peers``."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import numpy as np
from tqdm import tqdm

from ..core.records import MemoryRecord
from ..core.scope import Scope
from ..embeddings import Embedder
from ..store import MemoryStore

_SUBJECTS = [
    "I",
    "My sister",
    "Our team",
    "My doctor",
    "The landlord",
    "Grandpa",
    "My manager",
    "我",
    "我妈妈",
]
_VERBS = [
    "prefers",
    "booked",
    "cancelled",
    "recommended",
    "hates",
    "is planning",
    "forgot",
    "喜欢",
    "安排了",
]
_OBJECTS = [
    "green tea in the morning",
    "a trip to Kyoto in April",
    "vegetarian dinners",
    "the 9am standup",
    "answers in Chinese",
    "short bullet lists",
    "jazz concerts",
    "hiking on weekends",
    "a dentist visit",
    "the quarterly report",
    "Python over Java",
    "window seats",
    "dark mode",
    "a new laptop",
    "周末去爬山",
    "用中文回答",
    "早上喝绿茶",
    "下周的会议",
    "素食晚餐",
    "靠窗的座位",
]
_TAILS = [
    "last week",
    "since 2021",
    "for the kids",
    "because of allergies",
    "every Friday",
    "at the office",
    "with friends",
    "next month",
    "on the weekend",
    "after work",
]
QUERIES = [
    "what does the user like to drink",
    "travel plans",
    "which language should answers use",
    "food preferences",
    "meetings this week",
    "weekend activities",
    "seat preference",
    "用户喜欢喝什么",
    "会议安排",
    "health appointments",
    "music taste",
    "work reports",
]


def sentence(rng: random.Random) -> str:
    """A synthetic memory sentence (mixed English and Chinese)."""
    return (
        f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_TAILS)}"
    )


class PooledEmbedder:
    """Bench-only embedder: texts of the form ``"<pool sentence> #<n>"`` reuse the real vector
    of their pool sentence; any other text (every query) is embedded by the real model."""

    def __init__(self, real: Embedder, pool: Sequence[str]) -> None:
        self.real = real
        self.name = real.name
        self.dims = real.dims
        vectors = real.encode(list(pool))
        self._cache = {text: vectors[i] for i, text in enumerate(pool)}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        missing: list[int] = []
        for i, text in enumerate(texts):
            base = text.rsplit(" #", 1)[0]
            if base in self._cache:
                out[i] = self._cache[base]
            else:
                missing.append(i)
        if missing:
            out[missing] = self.real.encode([texts[i] for i in missing])
        return out


def fill(
    store: MemoryStore,
    users: Sequence[str],
    n: int,
    pool: Sequence[str],
    rng: random.Random,
    progress: bool,
) -> float:
    """Add ``n`` records spread evenly over ``users``; returns records/second."""
    per_user = n // len(users)
    t0 = time.perf_counter()
    bar = tqdm(total=per_user * len(users), desc=f"fill {n}", disable=not progress, unit="rec")
    for user in users:
        scope = Scope(user_id=user)
        for start in range(0, per_user, 1000):
            batch = [
                MemoryRecord(user_id=user, text=f"{rng.choice(pool)} #{start + j}")
                for j in range(min(1000, per_user - start))
            ]
            store.add_many(batch, scope=scope)
            bar.update(len(batch))
    bar.close()
    return n / (time.perf_counter() - t0)


__all__ = ["QUERIES", "PooledEmbedder", "fill", "sentence"]
