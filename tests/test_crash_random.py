"""kill -9 at a random moment of ``add_many``, ``update``, ``transition``, ``forget_user`` and
the background writer (embedded engine): a child process (``tests/crash_child.py``, ``loop:``
mode) runs one operation in an endless loop, acknowledging each completed step in an fsynced
file; the parent kills it with SIGKILL after a random 0.05-1.0 s (seeded RNG, counted from the
child's ``ready``), reopens the store and checks that no record is half-written, no chain has two
current versions, every acknowledged step survived, and the store is still writable.

4 trials per operation by default, 20 behind ``-m slow``. ``CRASH_SEED`` (env) picks the seeds.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from langgraph_memory import MemoryRecord, MemoryStore
from langgraph_memory.core import Status
from langgraph_memory.lifecycle.policy import ALLOWED_TRANSITIONS, MAX_TRANSITIONS_KEPT

from .crash_child import (
    BATCH,
    OTHER,
    OTHER_RECORDS,
    SCOPE,
    TRANSITION_CYCLE,
    UPDATE_CHAINS,
    HashEmbedder,
    update_text,
)

ROOT = Path(__file__).resolve().parents[1]
OPS = ("add_many", "update", "transition", "forget_user", "background")
SEED = int(os.environ.get("CRASH_SEED", "0"))
MULTI_VALUED = {"likes"}
"""Predicates where several values are current at once (a chain is subject+predicate+object)."""


def _kill_at_random(trial: Path, op: str, delay: float) -> list[list[str]]:
    """Run the ``op`` loop in a child, SIGKILL it ``delay`` s after it is ready; the acks."""
    trial.mkdir(parents=True)
    acks = trial / "acks.txt"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.crash_child", str(trial / "mem"), f"loop:{op}", str(acks)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert child.stdout is not None and child.stderr is not None
    try:
        ready, _, _ = select.select([child.stdout], [], [], 120)
        line = child.stdout.readline() if ready else ""
        assert line.strip() == "ready", (op, line, child.poll())
        time.sleep(delay)
        assert child.poll() is None, f"the {op} loop ended by itself: {child.stderr.read()}"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        child.stdout.close()
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL, (op, child.returncode)
    return [ln.split() for ln in acks.read_text().splitlines()] if acks.exists() else []


def _check_common(store: MemoryStore) -> dict[str, list[MemoryRecord]]:
    """Every stored record parses; each chain has at most one current version; the keyword
    index agrees with the engine. Returns all records per user."""
    everything = {}
    for sc in (SCOPE, OTHER):
        records = store.list(scope=sc, current_only=False)
        for rec in records:  # list() parsed them; validate the model again, strictly
            MemoryRecord.model_validate(rec.model_dump())
        by_id = {r.id: r for r in records}
        assert all(r.superseded_by in by_id for r in records if r.superseded_by)
        chains: Counter[tuple[str | None, ...]] = Counter()
        for rec in store.list(scope=sc):
            # episodes (one per turn) are not versions of one fact: not a chain
            if rec.subject and rec.predicate and rec.layer.value != "episodic":
                key = (rec.subject, rec.predicate)
                chains[key + ((rec.object,) if rec.predicate in MULTI_VALUED else ())] += 1
        assert all(n == 1 for n in chains.values()), [k for k, n in chains.items() if n > 1]
        index = store._keyword_index(sc.user_id)
        # records valid at no instant (the write ledger) are never searched: not indexed
        searchable = [
            i for i, r in by_id.items() if r.valid_to is None or r.valid_to > r.valid_from
        ]
        assert sorted(index.ids()) == sorted(searchable)
        everything[sc.user_id] = records
    return everything


def _check_add_many(store: MemoryStore, acks: list[list[str]], trial: Path) -> None:
    records = _check_common(store)["alice"]
    by_batch: Counter[int] = Counter()
    for rec in records:
        n = rec.metadata["batch"]
        assert re.fullmatch(rf"batch fact {n}-\d+ about green tea", rec.text), rec.text
        by_batch[n] += 1
    assert all(count == BATCH for count in by_batch.values()), by_batch  # whole batches only
    acked = [int(a[1]) for a in acks if a[0] == "batch"]
    assert all(by_batch[n] == BATCH for n in acked), (acked, by_batch)
    assert set(by_batch) <= set(acked) | {len(acked)}  # at most the in-flight one unacked


def _ids(acks: list[list[str]]) -> dict[str, str]:
    return {a[1]: a[2] for a in acks if a[0] == "id"}


def _last_acked_versions(acks: list[list[str]], kind: str) -> dict[str, int]:
    last: dict[str, int] = {}
    for a in acks:
        if a[0] == kind:
            last[a[1]] = int(a[2])
    return last


def _check_update(store: MemoryStore, acks: list[list[str]], trial: Path) -> None:
    _check_common(store)
    ids, acked = _ids(acks), _last_acked_versions(acks, "version")
    assert set(ids) == set(UPDATE_CHAINS)
    for chain, record_id in ids.items():
        rec = store.get(record_id, scope=SCOPE)
        v = rec.version
        floor = acked.get(chain, 1)
        assert floor <= v <= floor + 1, (chain, v, floor)  # acked survived; one in flight
        assert rec.metadata == {"n": v}, (chain, v, rec.metadata)
        assert rec.text == update_text(chain, v if v % 2 else v - 1), (chain, v, rec.text)
        hits = store.search(rec.text, SCOPE, k=1, mode="keyword").ids
        assert hits == [record_id], (chain, rec.text, hits)


def _check_transition(store: MemoryStore, acks: list[list[str]], trial: Path) -> None:
    _check_common(store)
    ids, acked = _ids(acks), _last_acked_versions(acks, "status")
    assert set(ids) == set(UPDATE_CHAINS)
    for chain, record_id in ids.items():
        rec = store.get(record_id, scope=SCOPE)
        v = rec.version
        floor = acked.get(chain, 1)
        assert floor <= v <= floor + 1, (chain, v, floor)
        assert isinstance(rec.status, Status)
        moves = rec.metadata.get("transitions", [])
        assert len(moves) == min(v - 1, MAX_TRANSITIONS_KEPT), (chain, v, len(moves))
        expected = TRANSITION_CYCLE[(v - 2) % len(TRANSITION_CYCLE)] if v > 1 else "active"
        assert rec.status.value == expected, (chain, v, rec.status)
        if moves:
            assert moves[-1]["to"] == rec.status.value, (chain, moves[-1], rec.status)
        if len(moves) == v - 1:  # nothing trimmed: the history starts at active
            assert not moves or moves[0]["from"] == "active"
        for prev, step in itertools.pairwise(moves):
            assert step["from"] == prev["to"], (chain, prev, step)
        for step in moves:
            assert Status(step["to"]) in ALLOWED_TRANSITIONS[Status(step["from"])], step


def _check_forget_user(store: MemoryStore, acks: list[list[str]], trial: Path) -> None:
    from langgraph_memory import forget_user

    records = _check_common(store)
    bob = sorted(r.text for r in records["bob"])
    assert bob == sorted(f"bob fact {i}" for i in range(OTHER_RECORDS))
    forgot = [int(a[1]) for a in acks if a[0] == "forgot"]
    added = {int(a[1]) for a in acks if a[0] == "added"}
    in_flight = (forgot[-1] + 1) if forgot else 0
    per_batch: Counter[tuple[int, int]] = Counter()
    for rec in records["alice"]:
        m = re.fullmatch(r"alice fact (\d+)-(\d+)-(\d+)", rec.text)
        assert m and int(m[1]) == rec.metadata["round"], rec.text
        # only the round whose forgetting was not acknowledged may be left: a subset of it
        assert int(m[1]) == in_flight, (rec.text, forgot)
        per_batch[(int(m[1]), int(m[2]))] += 1
    assert all(n == BATCH for n in per_batch.values()), per_batch
    if in_flight in added:  # all added: the deletion is one engine op, all or nothing
        assert len(records["alice"]) in (0, 3 * BATCH), len(records["alice"])
    receipt = forget_user(SCOPE.user_id, store=store)
    assert receipt["records"] == len(records["alice"])
    assert not any(receipt["residue"].values()), receipt["residue"]  # 0, or None: no such store
    assert receipt["residue"]["engine_files"] == 0  # the bytes are gone too
    assert store.list(scope=SCOPE, current_only=False) == []
    bob_after = sorted(r.text for r in store.list(scope=OTHER, current_only=False))
    assert bob_after == bob


def _check_background(store: MemoryStore, acks: list[list[str]], trial: Path) -> None:
    from langgraph_memory import BackgroundWriter, WritePipeline

    _check_common(store)
    journal = trial / "journal.jsonl"
    writer = BackgroundWriter(WritePipeline(store), journal)
    assert writer.flush(timeout=60)
    assert writer.close(timeout=60)
    assert not writer.failed, writer.failed
    records = _check_common(store)["alice"]
    facts: Counter[str] = Counter()
    episodes: Counter[str] = Counter()
    for rec in records:
        if rec.predicate == "likes":
            [turn] = rec.evidence.turn_ids
            assert rec.object == f"snack{turn[1:]}", (turn, rec.object)
            facts[turn] += 1
        elif rec.layer.value == "episodic":
            for turn in rec.evidence.turn_ids:
                episodes[turn] += 1
    acked = [a[1] for a in acks if a[0] == "acked"]
    missing = [t for t in acked if facts[t] != 1]
    assert not missing, ("acknowledged turns not written exactly once", missing, facts)
    assert all(n == 1 for n in facts.values()), facts  # none twice, acked or not
    assert all(n == 1 for n in episodes.values()), episodes
    assert set(facts) <= set(acked) | {f"t{len(acked)}"}
    assert journal.read_text() == ""


CHECKS: dict[str, Callable[[MemoryStore, list[list[str]], Path], None]] = {
    "add_many": _check_add_many,
    "update": _check_update,
    "transition": _check_transition,
    "forget_user": _check_forget_user,
    "background": _check_background,
}


def _trials(tmp_path: Path, op: str, n: int) -> None:
    rng = random.Random(f"{op}-{SEED}")
    for i in range(n):
        delay = rng.uniform(0.05, 1.0)
        trial = tmp_path / f"{op}{i}"
        acks = _kill_at_random(trial, op, delay)
        context = f"{op} trial {i} (CRASH_SEED={SEED}, killed {delay:.3f}s after ready)"
        with MemoryStore(path=trial / "mem", embedder=HashEmbedder()) as store:
            try:
                CHECKS[op](store, acks, trial)
                after = store.add("written after the crash", scope=SCOPE)
                assert store.get(after, scope=SCOPE).text == "written after the crash"
            except AssertionError as exc:
                raise AssertionError(f"{context}: {exc}") from exc
        with MemoryStore(path=trial / "mem", embedder=HashEmbedder()) as store:
            _check_common(store)  # and a clean reopen after the post-crash writes


@pytest.mark.parametrize("op", OPS)
def test_kill_9_at_a_random_moment(op: str, tmp_path: Path) -> None:
    _trials(tmp_path, op, 4)


@pytest.mark.slow
@pytest.mark.parametrize("op", OPS)
def test_kill_9_at_a_random_moment_many_trials(op: str, tmp_path: Path) -> None:
    _trials(tmp_path, op, int(os.environ.get("CRASH_TRIALS", "20")))
