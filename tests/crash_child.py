"""Child process of the crash tests: builds supersession chains on an embedded store and is
killed with SIGKILL at a chosen step of a multi-step write (``_crash_point`` replaced).

Run as ``python -m tests.crash_child PATH STEP``; STEP is a ``_crash_point`` name such as
``supersede:marked`` (between marking the old record and writing the new one).

``python -m tests.crash_child PATH erase:deleted`` (or ``vacuum:copied``,
``vacuum:committed``) writes records of two users and is killed at that step of erasing one
(``store.delete_user``, the embedded engine's shard rewrite).

``python -m tests.crash_child PATH loop:OP ACKS`` instead runs operation OP (``add_many``,
``update``, ``transition``, ``forget_user``, ``background``) in an endless loop after printing
``ready``; the parent kills it with SIGKILL at a random moment. Every completed step is
acknowledged by one line appended to the file ACKS (flushed and fsynced before the loop goes
on), so the parent knows what must have survived."""

from __future__ import annotations

import hashlib
import os
import signal
import sys
from collections.abc import Callable, Sequence

import numpy as np

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.store import memory_store

SCOPE = Scope("alice")
OTHER = Scope("bob")
CHAINS = ("drink", "city", "editor")
BATCH = 20
"""Records per ``add_many`` call in the ``add_many`` and ``forget_user`` loops."""
OTHER_RECORDS = 15
"""Records of ``OTHER`` written before the ``forget_user`` loop (they must all survive)."""
UPDATE_CHAINS = ("tea", "city")
"""Records the ``update`` loop rewrites: text ``f"{chain} value {version}"``, metadata
``{"n": version}``."""
TRANSITION_CYCLE = ("stale", "active", "archived", "active")
"""Statuses the ``transition`` loop moves each record through, round and round."""


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder (no model load: the child starts fast)."""

    name = "test-hash-32"
    dims = 32

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, hashlib.sha1(word.encode()).digest()[0] % self.dims] += 1.0
            out[row, 0] += 1e-3
        norms: np.ndarray = np.linalg.norm(out, axis=1, keepdims=True)
        return out / norms


def main(path: str, step: str) -> None:
    store = MemoryStore(path=path, embedder=HashEmbedder())
    ids = {}
    for chain in CHAINS:
        ids[chain] = store.add(f"{chain} version 1", scope=SCOPE, subject="user", predicate=chain)
    # complete supersessions first, so each chain already has history
    for chain in CHAINS:
        ids[chain] = store.supersede(ids[chain], f"{chain} version 2", scope=SCOPE).id

    def die(at: str) -> None:
        if at == step:
            print("dying", at, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    memory_store._crash_point = die  # type: ignore[attr-defined]
    store.supersede(ids[CHAINS[-1]], f"{CHAINS[-1]} version 3", scope=SCOPE)
    print("survived", flush=True)


def erase_marker(i: int) -> str:
    """Text of the ``i``-th record of ``SCOPE`` in the erase crash test (unique bytes)."""
    return f"alice fact ERZ{i:03d}QX"


def erase(path: str, step: str) -> None:
    from langgraph_memory.store import edge

    store = MemoryStore(path=path, embedder=HashEmbedder())
    store.add_many([f"bob fact {i}" for i in range(OTHER_RECORDS)], scope=OTHER)
    store.add_many([erase_marker(i) for i in range(BATCH)], scope=SCOPE)

    def die(at: str) -> None:
        if at == step:
            print("dying", at, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    edge._crash_point = die  # type: ignore[attr-defined]
    store.delete_user(SCOPE.user_id)
    print("survived", flush=True)


def update_text(chain: str, version: int) -> str:
    return f"{chain} value {version}"


class _Acks:
    def __init__(self, path: str) -> None:
        self._fh = open(path, "a", encoding="utf-8")  # noqa: SIM115

    def __call__(self, *fields: object) -> None:
        self._fh.write(" ".join(str(f) for f in fields) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())


def _loop_add_many(store: MemoryStore, ack: _Acks) -> Callable[[int], None]:
    def step(n: int) -> None:
        texts = [f"batch fact {n}-{i} about green tea" for i in range(BATCH)]
        ids = store.add_many(texts, scope=SCOPE, metadata={"batch": n})
        ack("batch", n, len(ids))

    return step


def _loop_update(store: MemoryStore, ack: _Acks) -> Callable[[int], None]:
    ids = {}
    for chain in UPDATE_CHAINS:
        ids[chain] = store.add(
            update_text(chain, 1), scope=SCOPE, subject="user", predicate=chain, metadata={"n": 1}
        )
        ack("id", chain, ids[chain])

    def step(n: int) -> None:
        chain = UPDATE_CHAINS[n % len(UPDATE_CHAINS)]
        current = store.get(ids[chain], scope=SCOPE)
        version = current.version + 1
        # text changes only every other version: both the payload-only and the re-embedding
        # write paths get killed
        text = update_text(chain, version) if version % 2 else current.text
        changes: dict[str, object] = {"metadata": {"n": version}, "text": text}
        done = store.update(ids[chain], scope=SCOPE, expected_version=current.version, **changes)
        ack("version", chain, done.version)

    return step


def _loop_transition(store: MemoryStore, ack: _Acks) -> Callable[[int], None]:
    from langgraph_memory.lifecycle import transition

    ids = {}
    for chain in UPDATE_CHAINS:
        ids[chain] = store.add(f"{chain} status", scope=SCOPE, subject="user", predicate=chain)
        ack("id", chain, ids[chain])

    def step(n: int) -> None:
        chain = UPDATE_CHAINS[n % len(UPDATE_CHAINS)]
        to = TRANSITION_CYCLE[(n // len(UPDATE_CHAINS)) % len(TRANSITION_CYCLE)]
        done = transition(store, ids[chain], to, scope=SCOPE, reason=f"step {n}", actor="crash")
        ack("status", chain, done.version, done.status.value)

    return step


def _loop_forget_user(store: MemoryStore, ack: _Acks) -> Callable[[int], None]:
    from langgraph_memory import forget_user

    store.add_many([f"bob fact {i}" for i in range(OTHER_RECORDS)], scope=OTHER)

    def step(n: int) -> None:
        for b in range(3):
            texts = [f"alice fact {n}-{b}-{i}" for i in range(BATCH)]
            store.add_many(texts, scope=SCOPE, metadata={"round": n})
        ack("added", n)
        receipt = forget_user(SCOPE.user_id, store=store)
        ack("forgot", n, receipt["records"])

    return step


def _loop_background(store: MemoryStore, ack: _Acks, journal: str) -> Callable[[int], None]:
    from langgraph_memory import BackgroundWriter, WritePipeline

    writer = BackgroundWriter(WritePipeline(store), journal)

    def step(n: int) -> None:
        entry = writer.enqueue(f"I like snack{n}", scope=SCOPE, turn_id=f"t{n}", thread_id="th")
        ack("acked", f"t{n}", entry)
        if n % 4 == 3:  # let the worker catch up now and then: kills land mid-processing too
            writer.flush(timeout=5)

    return step


def loop(path: str, op: str, acks: str) -> None:
    store = MemoryStore(path=path, embedder=HashEmbedder())
    ack = _Acks(acks)
    if op == "background":
        step = _loop_background(store, ack, os.path.join(os.path.dirname(acks), "journal.jsonl"))
    else:
        step = {
            "add_many": _loop_add_many,
            "update": _loop_update,
            "transition": _loop_transition,
            "forget_user": _loop_forget_user,
        }[op](store, ack)
    print("ready", flush=True)
    n = 0
    while True:
        step(n)
        n += 1


if __name__ == "__main__":
    if sys.argv[2].startswith("loop:"):
        loop(sys.argv[1], sys.argv[2].removeprefix("loop:"), sys.argv[3])
    elif sys.argv[2].startswith(("erase:", "vacuum:")):
        erase(sys.argv[1], sys.argv[2])
    else:
        main(sys.argv[1], sys.argv[2])
