"""Keyword recall: an incrementally maintained BM25+ index per user.

:class:`KeywordIndex` extends ``rank_bm25.BM25Plus`` (the scoring definition: k1=1.5, b=0.75,
delta=1, idf = ln((N+1)/df)) with what a live memory store needs and rank-bm25 lacks:

* add / replace / remove documents without rebuilding the corpus;
* postings (term -> documents, as numpy arrays) so a query scores only documents that contain
  a query term, vectorised, instead of a Python loop over the whole corpus;
* a filter evaluated on the best candidates before they are returned, with the same filter tree
  the vector engine runs (:mod:`langgraph_memory.store.filters`).

The inherited ``get_scores``/``get_batch_scores`` keep working on the live state, and the tests
check that scores equal a ``BM25Plus`` freshly built on the same documents.

Indexes are partitioned by ``user_id``: a query only ever touches its own user's partition.

**The keyword channel in the engine.** Stores created by this version keep the keyword side in
the vector engine instead: every point carries a sparse vector :data:`SPARSE_VECTOR` with
BM25 document weights from :func:`document_weights`, the collection gives that vector the
engine's IDF modifier, and a query sends :func:`query_weights` with the IDF corpus restricted to
the caller's user (``SearchParams(idf=IdfParams(corpus=...))``). The engine then scores
``sum(q_count * idf_engine(t) * w(t, d))``, the term-frequency part of BM25+ (the ``delta``
part is the same for every document of a query and does not change a ranking):

* ``w(t, d) = tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / REFERENCE_LENGTH))`` with the
  same ``k1``/``b`` as :class:`KeywordIndex`; the length normalisation uses a **fixed**
  reference length instead of the corpus average, so a stored weight never goes stale as a
  user's corpus grows (a drifting ``avgdl`` would need every vector rewritten);
* IDF is the engine's, ``ln((N - df + 0.5) / (df + 0.5) + 1)`` over the user's points (BM25+
  uses ``ln((N + 1) / df)``; both fall with ``df``, the tests check the rank agreement);
* term ids are the first 4 bytes of BLAKE2b of the UTF-8 token (stable across processes and
  versions, unlike ``hash()``); two tokens sharing an id are one term to the engine.

:class:`KeywordIndex` remains the scoring reference and the fallback for collections created
before the sparse vector existed (see :attr:`VectorBackend.keyword_in_engine`).
"""

from __future__ import annotations

import functools
import hashlib
import math
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

import numpy as np
from rank_bm25 import BM25Plus

from ..core.text import drop_function_words, query_tokenize, tokenize
from .filters import Cond

SPARSE_VECTOR = "bm25"
"""Name of the sparse vector holding a point's BM25 document weights."""
K1 = 1.5
B = 0.75
REFERENCE_LENGTH = 64.0
"""Token count a document is length-normalised against (see the module docstring): about a
chat turn with its context under :func:`~langgraph_memory.core.text.tokenize` (LoCoMo turn + date +
previous turn: mean 59, median 56 tokens; a Chinese character counts twice, as itself and in
a bigram). Measured on LoCoMo keyword-only any@10 (BM25+ with the true average: 0.688): 0.671 at
24, 0.681 at 32, 0.686 at 48, 0.691 at 64, 0.690 at 96 — flat above 48, so a fixed value
costs nothing there while a too-short one over-penalises long records."""
SPARSE_SCHEME = f"bm25-blake2b32-k{K1}-b{B}-ref{REFERENCE_LENGTH:g}"
"""Identifies how the stored weights were computed. A collection whose scheme differs (or
that has none: built before the sparse vector) is re-indexed or served by the legacy path."""


@functools.lru_cache(maxsize=1 << 16)
def term_id(token: str) -> int:
    """The sparse-vector dimension of ``token``: the first 4 bytes of its BLAKE2b digest as a
    little-endian unsigned int (0 .. 2**32 - 1). Stable across processes and versions. At a
    vocabulary of 1M distinct tokens about 116 pairs share an id (1M^2 / 2^33); within one
    user's vocabulary (~10k tokens) the expected number of shared ids is ~0.01."""
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=4).digest(), "little")


def _counts(text: str) -> Counter[int]:
    return Counter(term_id(t) for t in tokenize(text))


def document_weights(text: str) -> tuple[list[int], list[float]]:
    """Sparse BM25 document weights of ``text`` (see the module docstring): ``(term ids,
    weights)``, sorted by id; both empty when ``text`` has no keyword token."""
    counts = _counts(text)
    if not counts:
        return [], []
    length = sum(counts.values())
    norm = K1 * (1 - B + B * length / REFERENCE_LENGTH)
    ids = sorted(counts)
    return ids, [counts[i] * (K1 + 1) / (counts[i] + norm) for i in ids]


def query_weights(text: str) -> tuple[list[int], list[float]]:
    """Sparse query of ``text``: each term id with the number of times the query holds it
    (BM25 sums over query tokens, repeats included); the engine multiplies in the IDF. Terms
    come from :func:`~langgraph_memory.core.text.query_tokenize` (function words dropped unless
    the query holds nothing else), the same terms :meth:`KeywordIndex.search` scores."""
    counts = Counter(term_id(t) for t in query_tokenize(text))
    ids = sorted(counts)
    return ids, [float(counts[i]) for i in ids]


def index_text(payload: Mapping[str, Any]) -> str:
    """The text a record is keyword-indexed by: its ``text``, then its ``context`` if any."""
    text = str(payload.get("text", ""))
    context = payload.get("context")
    return f"{text}\n{context}" if context else text


def never_valid(payload: Mapping[str, Any]) -> bool:
    """True for a record valid at no instant (``valid_to <= valid_from``, e.g. the write
    path's bookkeeping ledger): no query can return it, so it stays out of the keyword index
    (where it would only shift BM25's document statistics)."""
    start, end = payload.get("_valid_from"), payload.get("_valid_to")
    return isinstance(start, int | float) and isinstance(end, int | float) and end <= start


def payload_weights(payload: Mapping[str, Any]) -> tuple[list[int], list[float]] | None:
    """The sparse vector a point with ``payload`` is stored with, or ``None`` when it gets
    none (no keyword token, or never valid: such points stay out of the IDF corpus too)."""
    if never_valid(payload):
        return None
    ids, weights = document_weights(index_text(payload))
    return (ids, weights) if ids else None


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


class _Postings:
    """Append-only posting list of one term: ``(slot, tf, generation)`` triples.

    An entry is live while its generation equals the slot's current generation; removing a
    document bumps its slot's generation, which retires all its entries at once. Dead entries
    are dropped when they outnumber live ones.
    """

    __slots__ = ("gens", "n", "slots", "tfs")

    def __init__(self) -> None:
        self.slots = np.empty(4, dtype=np.int64)
        self.tfs = np.empty(4, dtype=np.float64)
        self.gens = np.empty(4, dtype=np.int64)
        self.n = 0

    def append(self, slot: int, tf: int, gen: int) -> None:
        if self.n == len(self.slots):
            size = 2 * len(self.slots)
            self.slots = np.resize(self.slots, size)
            self.tfs = np.resize(self.tfs, size)
            self.gens = np.resize(self.gens, size)
        self.slots[self.n], self.tfs[self.n], self.gens[self.n] = slot, tf, gen
        self.n += 1

    def live(self, generation: np.ndarray, df: int) -> tuple[np.ndarray, np.ndarray]:
        """Slots and term frequencies of live entries (compacting when mostly dead)."""
        slots, tfs, gens = self.slots[: self.n], self.tfs[: self.n], self.gens[: self.n]
        alive = generation[slots] == gens
        if self.n > 2 * df + 16:
            keep = int(alive.sum())
            self.slots[:keep], self.tfs[:keep], self.gens[:keep] = (
                slots[alive],
                tfs[alive],
                gens[alive],
            )
            self.n = keep
            return self.slots[:keep], self.tfs[:keep]
        return slots[alive], tfs[alive]


class KeywordIndex(BM25Plus):
    """BM25+ over one user's memories, kept in sync with every write and delete.

    Documents are indexed with every token of ``tokenizer``; queries (:meth:`search`,
    :meth:`score_ids`) drop function words from its output first
    (:func:`~langgraph_memory.core.text.drop_function_words`, the rule the engine's sparse query
    uses too), unless the query holds nothing else."""

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
        self._postings: dict[str, _Postings] = {}
        self._len_arr = np.zeros(16, dtype=np.float64)
        self._gen_arr = np.zeros(16, dtype=np.int64)
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ maintenance
    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._slot_of

    def _new_slot(self) -> int:
        if self._free:
            return self._free.pop()
        slot = len(self._ids)
        self._ids.append(None)
        self._payloads.append(None)
        self.doc_freqs.append({})
        self.doc_len.append(0)
        if slot >= len(self._len_arr):
            self._len_arr = np.resize(self._len_arr, 2 * len(self._len_arr))
            grown = np.zeros(2 * len(self._gen_arr), dtype=np.int64)
            grown[: len(self._gen_arr)] = self._gen_arr
            self._gen_arr = grown
        self._len_arr[slot] = 0.0
        return slot

    def upsert(self, doc_id: str, text: str, payload: dict[str, Any]) -> None:
        """Index (or re-index) one document; ``payload`` is kept for filtering and fallback."""
        tokens = self._tokenize(text)
        with self._lock:
            if doc_id in self._slot_of:
                self._remove_slot(self._slot_of.pop(doc_id))
            freqs = dict(Counter(tokens))
            slot = self._new_slot()
            gen = int(self._gen_arr[slot])
            self._ids[slot] = doc_id
            self._payloads[slot] = payload
            self.doc_freqs[slot] = freqs
            self.doc_len[slot] = len(tokens)
            self._len_arr[slot] = float(len(tokens))
            self._slot_of[doc_id] = slot
            for term, tf in freqs.items():
                self.nd[term] = self.nd.get(term, 0) + 1
                postings = self._postings.get(term)
                if postings is None:
                    postings = self._postings[term] = _Postings()
                postings.append(slot, tf, gen)
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
                del self._postings[term]
        self._gen_arr[slot] += 1  # retires every posting entry of this slot
        self.corpus_size -= 1
        self._total_len -= self.doc_len[slot]
        self.avgdl = self._total_len / self.corpus_size if self.corpus_size else 0.0
        self._ids[slot] = None
        self._payloads[slot] = None
        self.doc_freqs[slot] = {}
        self.doc_len[slot] = 0
        self._len_arr[slot] = 0.0
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
        self,
        query: str,
        limit: int,
        where: Cond | None = None,
        only: Collection[str] | None = None,
        max_checks: int | None = None,
    ) -> list[tuple[str, float, dict[str, Any]]] | None:
        """Top ``limit`` documents by BM25+ among those sharing a term with ``query`` and
        matching ``where``: ``(doc_id, score, payload)``, best first. ``only`` restricts the
        candidates to those ids up front (a selective filter already resolved by the engine).
        With ``max_checks``, returns None instead of evaluating ``where`` on more candidates
        than that (the caller then resolves the filter another way).

        BM25+ credits ``idf * delta`` for every query term whether a document holds it or not
        (rank_bm25 sums over each query token), so that part is one constant ``base``; the
        ranking is decided by the term-frequency part, summed over the query terms' postings.
        """
        terms = drop_function_words(self._tokenize(query))
        if not terms or limit <= 0:
            return []
        with self._lock:
            q_counts = Counter(t for t in terms if t in self._postings)
            if not self.corpus_size or not q_counts:
                return []
            base, gains = self._gains(q_counts)
            size = len(self._ids)
            if only is not None:
                allowed = np.zeros(size, dtype=bool)
                slots_of = self._slot_of
                allowed[[slots_of[d] for d in only if d in slots_of]] = True
                gains[~allowed] = 0.0
            candidates = np.flatnonzero(gains)
            best = self._best(candidates, gains, limit, where, max_checks)
            if best is None:
                return None
            return [(doc_id, base + float(gains[slot]), payload) for slot, doc_id, payload in best]

    def score_ids(self, query: str, ids: Collection[str]) -> dict[str, float]:
        """BM25+ scores of ``query`` for the indexed documents among ``ids`` (a document that
        shares no term with the query gets the constant part every document gets); ids not
        indexed are left out. Lets fusion score another retriever's candidates too."""
        terms = drop_function_words(self._tokenize(query))
        with self._lock:
            slots_of = self._slot_of
            wanted = {d: slots_of[d] for d in ids if d in slots_of}
            if not wanted:
                return {}
            q_counts = Counter(t for t in terms if t in self._postings)
            if not self.corpus_size or not q_counts:
                return dict.fromkeys(wanted, 0.0)
            slot_arr = np.fromiter(wanted.values(), dtype=np.int64, count=len(wanted))
            base, gains = self._gains(q_counts)
            picked = (base + gains[slot_arr]).tolist()
            return dict(zip(wanted, picked, strict=True))

    def _gains(self, q_counts: Counter[str]) -> tuple[float, np.ndarray]:
        """BM25+ of the query terms ``q_counts`` (all indexed) for every slot: the constant
        part every document gets (``base``) and each slot's term gains. Call under the lock."""
        k1, b, delta = self.k1, self.b, self.delta
        n1 = self.corpus_size + 1
        size = len(self._ids)
        norm = k1 * (1 - b + b * self._len_arr[:size] / self.avgdl)
        gains = np.zeros(size, dtype=np.float64)
        base = 0.0
        for term, q_times in q_counts.items():
            weight = q_times * math.log(n1 / self.nd[term])
            base += weight * delta
            slots, tfs = self._postings[term].live(self._gen_arr, self.nd[term])
            gains[slots] += weight * tfs * (k1 + 1) / (norm[slots] + tfs)
        return base, gains

    def _best(
        self,
        candidates: np.ndarray,
        gains: np.ndarray,
        limit: int,
        where: Cond | None,
        max_checks: int | None,
    ) -> list[tuple[int, str, dict[str, Any]]] | None:
        """The ``limit`` best candidates that pass ``where``, best first (ties by slot); None
        when more than ``max_checks`` filter evaluations would be needed (a selective filter)."""
        window = limit
        while True:
            if window >= len(candidates):
                top = candidates
            else:
                top = candidates[np.argpartition(-gains[candidates], window)[:window]]
            top = top[np.lexsort((top, -gains[top]))]
            out: list[tuple[int, str, dict[str, Any]]] = []
            for checks, slot in enumerate(top, start=1):
                if max_checks is not None and checks > max_checks:
                    return None
                payload, doc_id = self._payloads[slot], self._ids[slot]
                visible = payload is not None and (where is None or where.matches(payload))
                if visible and doc_id is not None and payload is not None:
                    out.append((int(slot), doc_id, payload))
                    if len(out) == limit:
                        return out
            if len(top) == len(candidates):
                return out
            window *= 4


__all__ = [
    "SPARSE_SCHEME",
    "SPARSE_VECTOR",
    "KeywordIndex",
    "document_weights",
    "index_text",
    "never_valid",
    "payload_weights",
    "query_weights",
    "term_id",
]
