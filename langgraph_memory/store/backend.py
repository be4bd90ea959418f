"""The vector-engine interface the memory store is written against.

Two implementations ship: :class:`~langgraph_memory.store.edge.EdgeBackend` (Qdrant's
in-process engine, the embedded default) and
:class:`~langgraph_memory.store.server.QdrantServerBackend` (a Qdrant server or cluster via
``qdrant-client``). Both pass the same backend-parametrised test suite.

Payloads are the dicts produced by :meth:`MemoryRecord.to_payload`. Every read takes a
:class:`~langgraph_memory.store.filters.Cond` that the backend translates into its engine's
filter, so scope filtering happens inside the engine.
"""

from __future__ import annotations

import abc
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .filters import And, Cond

WRITE_TOKEN = "_write"
"""Payload field holding the token of the last conditional write (read back to detect CAS)."""


@dataclass(frozen=True, slots=True)
class ScoredPayload:
    """One dense-search hit."""

    id: str
    score: float
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class EngineQuery:
    """One query of a :meth:`VectorBackend.query_many` batch.

    Exactly one of ``dense`` (a query vector for the dense vector) and ``sparse`` (term ids and
    query weights for the keyword sparse vector, see
    :func:`~langgraph_memory.store.keyword.query_weights`) is set. ``cond`` filters inside the
    query; ``idf_corpus`` restricts the population the engine computes IDF over (sparse only;
    ``None``: the whole collection). ``payload``: ``True`` for whole payloads, ``False`` for
    none, or the payload keys to return."""

    cond: Cond
    limit: int
    dense: np.ndarray | None = None
    sparse: tuple[Sequence[int], Sequence[float]] | None = None
    idf_corpus: Cond | None = None
    payload: bool | Sequence[str] = True

    def __post_init__(self) -> None:
        if (self.dense is None) == (self.sparse is None):
            raise ValueError("an EngineQuery needs exactly one of dense= and sparse=")


@dataclass(frozen=True, slots=True)
class OrderedRead:
    """One read of a :meth:`VectorBackend.scroll_ordered` batch: at most ``limit`` points
    matching ``cond`` (and ``shared``, when given), ordered by the numeric payload field
    ``key`` (``descending``: largest first). ``shared`` is a filter the reads of a batch have
    in common (the scope and validity part, one object): a backend translates it once."""

    cond: Cond
    key: str
    limit: int
    descending: bool = False
    shared: Cond | None = None

    @property
    def where(self) -> Cond:
        """The whole filter of the read: ``shared`` and ``cond``."""
        return self.cond if self.shared is None else And((self.shared, self.cond))


_Filter = TypeVar("_Filter")


def ordered_read_filters(
    reads: Sequence[OrderedRead],
    translate: Callable[[Cond], _Filter],
    both: Callable[[_Filter, _Filter], _Filter],
) -> list[_Filter]:
    """Each read's engine filter, for a backend's :meth:`VectorBackend.scroll_ordered`:
    ``translate(cond)`` alone, or ``both(shared, cond)`` with a ``shared`` condition translated
    once for every read of the batch that shares that object."""
    shared: dict[int, _Filter] = {}
    out: list[_Filter] = []
    for read in reads:
        if read.shared is None:
            out.append(translate(read.cond))
            continue
        common = shared.get(id(read.shared))
        if common is None:
            common = shared[id(read.shared)] = translate(read.shared)
        out.append(both(common, translate(read.cond)))
    return out


@dataclass
class ErasureReport:
    """How a backend made deleted points unreadable on disk, and what it cost.

    ``physical`` is True when, after the call, no file the backend manages holds the deleted
    points (their payloads, vectors or ids); False when the files are not this package's to
    rewrite (a Qdrant server) and ``note`` says whose they are."""

    mechanism: str
    physical: bool
    deleted: int = 0
    points_kept: int = 0
    bytes_written: int = 0
    bytes_removed: int = 0
    seconds: float = 0.0
    note: str = ""
    steps: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The JSON form in a forget receipt."""
        out: dict[str, Any] = {
            "mechanism": self.mechanism,
            "physical": self.physical,
            "deleted": self.deleted,
            "points_kept": self.points_kept,
            "bytes_written": self.bytes_written,
            "bytes_removed": self.bytes_removed,
            "seconds": round(self.seconds, 4),
        }
        if self.steps:
            out["steps"] = {k: round(v, 4) for k, v in self.steps.items()}
        if self.note:
            out["note"] = self.note
        return out


def disk_bytes(path: str | os.PathLike[str]) -> int:
    """Bytes allocated on disk by the files under ``path`` (sparse files count what they use)."""
    total = 0
    for dirpath, _, filenames in os.walk(path):
        for name in filenames:
            try:
                total += os.lstat(Path(dirpath) / name).st_blocks * 512
            except OSError:
                continue
    return total


class VectorBackend(abc.ABC):
    """A vector collection of memory points: one dense vector and one payload per point id."""

    dims: int
    shared_writers: bool = False
    """True when other processes may write the same collection (a server): in-process caches
    must then be checked against the engine."""
    keyword_in_engine: bool = False
    """True when every point carries the keyword sparse vector
    (:data:`~langgraph_memory.store.keyword.SPARSE_VECTOR`, weights of
    :data:`~langgraph_memory.store.keyword.SPARSE_SCHEME`) and :meth:`query_many` serves
    keyword queries; False for a collection created before it (the store then keeps an
    in-process BM25 index per user)."""

    @abc.abstractmethod
    def upsert(self, points: Sequence[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        """Insert or replace points ``(id, vector, payload)``. Atomic per point."""

    @abc.abstractmethod
    def _conditional_write(
        self,
        record_id: str,
        payload: dict[str, Any],
        expected_version: int,
        vector: np.ndarray | None,
    ) -> None:
        """Write ``payload`` (and ``vector`` if given) only if the stored ``version`` equals
        ``expected_version``; silently do nothing otherwise."""

    def cas_write(
        self,
        record_id: str,
        payload: dict[str, Any],
        expected_version: int,
        vector: np.ndarray | None = None,
    ) -> bool:
        """Compare-and-set: replace the point's payload (and vector) only if its stored
        ``version`` is ``expected_version``. Returns True exactly when this write landed."""
        token = uuid.uuid4().hex
        payload = {**payload, WRITE_TOKEN: token}
        self._conditional_write(record_id, payload, expected_version, vector)
        stored = self.retrieve([record_id])
        return bool(stored) and stored[0].get(WRITE_TOKEN) == token

    @abc.abstractmethod
    def retrieve(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Payloads of the points that exist among ``ids`` (missing ids are skipped)."""

    @abc.abstractmethod
    def retrieve_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Dense vectors of the points that exist among ``ids``."""

    @abc.abstractmethod
    def delete(self, ids: Sequence[str]) -> None:
        """Remove points by id (unknown ids are ignored)."""

    @abc.abstractmethod
    def delete_where(self, cond: Cond) -> None:
        """Remove every point matching ``cond``."""

    @abc.abstractmethod
    def query(
        self, vector: np.ndarray, cond: Cond, limit: int, *, with_payload: bool = True
    ) -> list[ScoredPayload]:
        """Nearest points to ``vector`` among those matching ``cond`` (filter inside the query).
        With ``with_payload=False`` the hits carry empty payloads (ids and scores only: the
        engine skips reading and converting payloads, the cost of a deep candidate list)."""

    @abc.abstractmethod
    def query_many(self, queries: Sequence[EngineQuery]) -> list[list[ScoredPayload]]:
        """Run ``queries`` in one engine call where the engine batches (one result list per
        query, in order, best first). Sparse queries need :attr:`keyword_in_engine`."""

    @abc.abstractmethod
    def scroll_page(
        self, cond: Cond, limit: int, offset: Any = None, fields: list[str] | None = None
    ) -> tuple[list[dict[str, Any]], Any]:
        """One page of payloads matching ``cond`` and the offset of the next page (or None).
        ``fields`` limits the payload keys returned (all when None)."""

    def scroll(self, cond: Cond, page_size: int = 1024) -> Iterator[dict[str, Any]]:
        """Every payload matching ``cond``, page by page."""
        offset: Any = None
        while True:
            page, offset = self.scroll_page(cond, page_size, offset)
            yield from page
            if offset is None or not page:
                return

    def scroll_ordered(self, reads: Sequence[OrderedRead]) -> list[list[dict[str, Any]]] | None:
        """For each of ``reads``, at most ``read.limit`` payloads matching ``read.cond``,
        ordered by the numeric payload field ``read.key`` (ascending; ``descending``: largest
        first) inside the engine, so the few points next to a value are read, not every
        match; one engine call where the engine batches. Points without a number at the key
        are left out; the order of equal values is the engine's (no promise). ``None`` when
        the engine cannot order by a key (no range index on it): the caller reads another
        way. This default scrolls every match of each read and sorts it here (a backend
        whose engine orders overrides it)."""
        out: list[list[dict[str, Any]]] = []
        for read in reads:
            key = read.key
            numbered = [
                p
                for p in self.scroll(read.where)
                if isinstance(p.get(key), int | float) and not isinstance(p.get(key), bool)
            ]
            numbered.sort(key=lambda p: p[key], reverse=read.descending)
            out.append(numbered[: read.limit])
        return out

    def ids(self, cond: Cond, limit: int) -> list[str]:
        """Ids of at most ``limit`` points matching ``cond`` (payloads are not transferred)."""
        out: list[str] = []
        offset: Any = None
        while len(out) < limit:
            page, offset = self.scroll_page(cond, min(1024, limit - len(out)), offset, ["id"])
            out.extend(str(p["id"]) for p in page)
            if offset is None or not page:
                break
        return out

    @abc.abstractmethod
    def count(self, cond: Cond) -> int:
        """Exact number of points matching ``cond``."""

    def count_keyword(self, cond: Cond) -> int:
        """Points matching ``cond`` that carry the keyword sparse vector (0 when the keyword
        channel is not in the engine)."""
        return 0

    @abc.abstractmethod
    def flush(self) -> None:
        """Persist what was written (the WAL already makes writes durable where present)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the collection (and its lock). Further calls raise."""

    def optimize(self) -> bool:
        """Build search indexes now (no-op where the engine does it itself)."""
        return False

    def erase(self, *, ids: Sequence[str] = (), cond: Cond | None = None) -> ErasureReport:
        """Delete the points ``ids`` and those matching ``cond``, then make them unreadable on
        disk as far as this backend's files go (see :class:`ErasureReport`). The default
        deletes through the engine and reports that physical erasure is the engine's."""
        if ids:
            self.delete(ids)
        if cond is not None:
            self.delete_where(cond)
        return ErasureReport(
            mechanism="engine delete", physical=False, note="the engine's files are its own"
        )

    def managed_paths(self) -> list[Path] | None:
        """The files and directories of this backend that the package manages (scanned by the
        forget receipt), or ``None`` when its storage is not this package's (a server)."""
        return None


__all__ = [
    "WRITE_TOKEN",
    "EngineQuery",
    "ErasureReport",
    "OrderedRead",
    "ScoredPayload",
    "VectorBackend",
    "disk_bytes",
    "ordered_read_filters",
]
