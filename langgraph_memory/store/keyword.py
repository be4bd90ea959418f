"""Keyword recall: an incrementally maintained BM25+ index per user.

:class:`KeywordIndex` extends ``rank_bm25.BM25Plus`` (the scoring definition: k1=1.5, b=0.75,
delta=1, idf = ln((N+1)/df)) with what a live memory store needs and rank-bm25 lacks:

* add / replace / remove documents without rebuilding the corpus;
* postings (term -> documents) so a query scores only documents that contain a query term,
  instead of scanning the whole corpus;
* a filter evaluated on each candidate before ranking, with the same filter tree the vector
  engine runs (:mod:`langgraph_memory.store.filters`).

The inherited ``get_scores``/``get_batch_scores`` keep working on the live state, and the tests
check that scores equal a ``BM25Plus`` freshly built on the same documents.

Indexes are partitioned by ``user_id``: a query only ever touches its own user's partition.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from rank_bm25 import BM25Plus

from ..text import tokenize
from .filters import Cond


class _LiveIdf(Mapping[str, float]):
    """``idf`` computed on demand from live document frequencies (BM25+ formula)."""

    def __init__(self, index: KeywordIndex) -> None:
        self._index = index

    def __getitem__(self, term: str) -> float:
        df = self._index.nd.get(term, 0)
        if df == 0:
            raise KeyError(term)
        return math.log((self._index.corpus_size + 1) / df)

    def __iter__(self) -> Iterator[str]:
        return iter(self._index.nd)

    def __len__(self) -> int:
        return len(self._index.nd)


class KeywordIndex(BM25Plus):
    """BM25+ over one user's memories, kept in sync with every write and delete."""

    def __init__(
        self,
        tokenizer: Callable[[str], list[str]] = tokenize,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        delta: float = 1.0,
    ) -> None:
        # rank_bm25 builds from a corpus in __init__ and divides by its size; start empty instead.
        self.k1, self.b, self.delta = k1, b, delta
        self.tokenizer = None  # rank_bm25's multiprocessing tokenizer hook stays off
        self._tokenize = tokenizer
        self.corpus_size = 0
        self.avgdl = 0.0
        self.doc_freqs: list[dict[str, int]] = []
        self.doc_len: list[int] = []
        self.nd: dict[str, int] = {}
        self.idf = _LiveIdf(self)  # type: ignore[assignment]
        self._total_len = 0
        self._slot_of: dict[str, int] = {}
        self._ids: list[str | None] = []
        self._payloads: list[dict[str, Any] | None] = []
        self._free: list[int] = []
        self._postings: dict[str, set[int]] = {}
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ maintenance
    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._slot_of

    def upsert(self, doc_id: str, text: str, payload: dict[str, Any]) -> None:
        """Index (or re-index) one document; ``payload`` is kept for filtering and fallback."""
        tokens = self._tokenize(text)
        with self._lock:
            if doc_id in self._slot_of:
                self._remove_slot(self._slot_of.pop(doc_id))
            freqs = dict(Counter(tokens))
            slot = self._free.pop() if self._free else len(self._ids)
            if slot == len(self._ids):
                self._ids.append(None)
                self._payloads.append(None)
                self.doc_freqs.append({})
                self.doc_len.append(0)
            self._ids[slot] = doc_id
            self._payloads[slot] = payload
            self.doc_freqs[slot] = freqs
            self.doc_len[slot] = len(tokens)
            self._slot_of[doc_id] = slot
            for term in freqs:
                self.nd[term] = self.nd.get(term, 0) + 1
                self._postings.setdefault(term, set()).add(slot)
            self.corpus_size += 1
            self._total_len += len(tokens)
            self.avgdl = self._total_len / self.corpus_size

    def update_payload(self, doc_id: str, payload: dict[str, Any]) -> None:
        """Replace the stored payload of an indexed document (text unchanged)."""
        with self._lock:
            slot = self._slot_of.get(doc_id)
            if slot is not None:
                self._payloads[slot] = payload

    def remove(self, doc_id: str) -> bool:
        """Forget one document. Returns False if it was not indexed."""
        with self._lock:
            slot = self._slot_of.pop(doc_id, None)
            if slot is None:
                return False
            self._remove_slot(slot)
            return True

    def _remove_slot(self, slot: int) -> None:
        for term in self.doc_freqs[slot]:
            left = self.nd[term] - 1
            if left:
                self.nd[term] = left
            else:
                del self.nd[term]
            posting = self._postings[term]
            posting.discard(slot)
            if not posting:
                del self._postings[term]
        self.corpus_size -= 1
        self._total_len -= self.doc_len[slot]
        self.avgdl = self._total_len / self.corpus_size if self.corpus_size else 0.0
        self._ids[slot] = None
        self._payloads[slot] = None
        self.doc_freqs[slot] = {}
        self.doc_len[slot] = 0
        self._free.append(slot)

    def payload(self, doc_id: str) -> dict[str, Any] | None:
        """The payload stored with ``doc_id``, if indexed."""
        with self._lock:
            slot = self._slot_of.get(doc_id)
            return None if slot is None else self._payloads[slot]

    def ids(self) -> list[str]:
        """Every indexed document id."""
        with self._lock:
            return list(self._slot_of)

    # ------------------------------------------------------------------ search
    def search(
        self, query: str, limit: int, where: Cond | None = None
    ) -> list[tuple[str, float, dict[str, Any]]]:
        """Top ``limit`` documents by BM25+ among those sharing a term with ``query`` and
        matching ``where``: ``(doc_id, score, payload)``, best first."""
        terms = self._tokenize(query)
        if not terms or limit <= 0:
            return []
        with self._lock:
            if not self.corpus_size:
                return []
            k1, b, delta, avgdl = self.k1, self.b, self.delta, self.avgdl
            q_counts = Counter(t for t in terms if t in self._postings)
            if not q_counts:
                return []
            n1 = self.corpus_size + 1
            # BM25+ credits idf * delta for every query term whether a document holds it or not
            # (rank_bm25 sums over each query token), so that part is one constant for all.
            base = 0.0
            gains: dict[int, float] = {}
            for term, q_times in q_counts.items():
                idf = q_times * math.log(n1 / self.nd[term])
                base += idf * delta
                for slot in self._postings[term]:
                    tf = self.doc_freqs[slot][term]
                    norm = k1 * (1 - b + b * self.doc_len[slot] / avgdl)
                    gains[slot] = gains.get(slot, 0.0) + idf * tf * (k1 + 1) / (norm + tf)
            ranked = sorted(gains.items(), key=lambda kv: kv[1], reverse=True)
            out: list[tuple[str, float, dict[str, Any]]] = []
            for slot, gain in ranked:
                payload = self._payloads[slot]
                if payload is None or (where is not None and not where.matches(payload)):
                    continue
                doc_id = self._ids[slot]
                assert doc_id is not None
                out.append((doc_id, base + gain, payload))
                if len(out) >= limit:
                    break
            return out


__all__ = ["KeywordIndex"]
