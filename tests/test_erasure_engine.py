"""Deleting is erasing: on the embedded engine the shard is rewritten without the deleted
points (payload, vector, id) and swapped in atomically; other users' records come through
byte-identical and readable; a qdrant-client local store is vacuumed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.errors import StoreUnavailable
from langgraph_memory.lifecycle import transition
from langgraph_memory.lifecycle.erasure import Needles, scan_paths, user_id_forms
from langgraph_memory.store.edge_files import META_FILE
from langgraph_memory.store.filters import Eq

from .crash_child import HashEmbedder

ALICE, BOB = Scope("alice"), Scope("bob")


def _fill(store: MemoryStore) -> tuple[list[str], list[str]]:
    alice = store.add_many([f"alice note ALZ{i:03d}QX about tea" for i in range(30)], scope=ALICE)
    bob = store.add_many([f"bob note BOZ{i:03d}QX about chess" for i in range(30)], scope=BOB)
    store.add("alice project secret ALZPROJQX", scope=Scope("alice", project_id="p1"))
    return alice, bob


def _vector_needles(store: MemoryStore, ids: list[str]) -> Needles:
    """The stored vectors' bytes (derived data too)."""
    vectors = store.backend.retrieve_vectors(ids)
    return Needles(np.asarray(v, dtype="<f4").tobytes() for v in vectors.values())


def _snapshot(store: MemoryStore, scope: Scope) -> dict[str, tuple[dict, list[float]]]:
    records = store.list(scope=scope, current_only=False)
    vectors = store.backend.retrieve_vectors([r.id for r in records])
    return {r.id: (r.model_dump(mode="json"), vectors[r.id].tolist()) for r in records}


def test_delete_user_rewrites_the_shard_and_keeps_others_identical(tmp_path: Path) -> None:
    path = tmp_path / "mem"
    store = MemoryStore(path=path, embedder=HashEmbedder())
    alice_ids, _ = _fill(store)
    texts = Needles.of_text([f"ALZ{i:03d}QX" for i in range(30)] + ["ALZPROJQX"])
    ids = Needles.of_text(alice_ids)
    vectors = _vector_needles(store, alice_ids)
    bob_before = _snapshot(store, BOB)
    store.flush()
    for needles in (texts, ids, vectors, Needles(user_id_forms("alice"))):
        assert scan_paths("engine", [path], needles).hits > 0  # the scan sees what is there
    old_shard = json.loads((path / META_FILE).read_text()).get("shard", "shard")

    assert store.delete_user("alice") == 31
    report = store.last_erasure
    assert report is not None and report.physical and report.mechanism == "shard rewrite"
    assert report.points_kept == 30 and report.deleted == 31
    assert report.bytes_written > 0 and report.bytes_removed > 0
    meta = json.loads((path / META_FILE).read_text())
    assert meta["shard"] != old_shard and not meta["vacuum_pending"]
    assert sorted(p.name for p in path.iterdir() if p.is_dir()) == [meta["shard"]]
    for needles in (texts, ids, vectors, Needles(user_id_forms("alice"))):
        scan = scan_paths("engine", [path], needles)
        assert scan.hits == 0, scan.hit_files
    # bob: same records, same vectors, still searchable, still writable
    assert _snapshot(store, BOB) == bob_before
    assert (
        store.search("BOZ007QX chess", BOB, k=1).records[0].text == "bob note BOZ007QX about chess"
    )
    store.add("bob after the swap", scope=BOB)
    store.close()
    with MemoryStore(path=path, embedder=HashEmbedder()) as reopened:
        assert reopened.count(scope=BOB, current_only=False) == 31
        assert reopened.count(scope=ALICE, current_only=False) == 0


def test_delete_of_one_record_erases_it_and_only_it(tmp_path: Path) -> None:
    path = tmp_path / "mem"
    with MemoryStore(path=path, embedder=HashEmbedder()) as store:
        alice_ids, _ = _fill(store)
        gone, kept = alice_ids[3], alice_ids[4]
        assert store.delete(gone, scope=ALICE)
        assert store.last_erasure is not None and store.last_erasure.deleted == 1
        assert not store.delete(gone, scope=ALICE)  # already gone: nothing written
        assert not store.delete(kept, scope=BOB)  # not bob's to delete
        # a lifecycle deletion erases too
        transition(store, alice_ids[5], "deleted", scope=ALICE, reason="asked", actor="alice")
        assert store.delete_many([alice_ids[6], alice_ids[7], "nope"], scope=ALICE) == 2
        store.flush()
        for marker in ("ALZ003QX", "ALZ005QX", "ALZ006QX", "ALZ007QX"):
            assert scan_paths("engine", [path], Needles.of_text([marker])).hits == 0, marker
        assert scan_paths("engine", [path], Needles.of_text([gone])).hits == 0
        assert scan_paths("engine", [path], Needles.of_text(["ALZ004QX"])).hits > 0
        assert store.get(kept, scope=ALICE).text == "alice note ALZ004QX about tea"
        assert store.count(scope=ALICE, current_only=False) == 31 - 5


def test_soft_delete_alone_is_caught_by_the_scan(tmp_path: Path) -> None:
    """The engine's own delete leaves the bytes: the residue check must say so."""
    from langgraph_memory.lifecycle.forget import verify_forgotten

    path = tmp_path / "mem"
    with MemoryStore(path=path, embedder=HashEmbedder()) as store:
        _fill(store)
        store.backend.delete_where(Eq("user_id", "alice"))
        store._keyword.clear()
        residue = verify_forgotten("alice", store=store)
        assert residue["records"] == 0 and residue["keyword_index"] == 0  # logically gone
        assert residue["engine_files"] and residue["engine_files"] > 0  # physically not


def test_an_open_store_is_locked_and_leftovers_are_removed_at_open(tmp_path: Path) -> None:
    path = tmp_path / "mem"
    store = MemoryStore(path=path, embedder=HashEmbedder())
    _fill(store)
    with pytest.raises(StoreUnavailable, match="already open"):
        MemoryStore(path=path, embedder=HashEmbedder())
    store.close()
    # a half-built copy (a crash before the commit) and a pending erasure
    (path / "shard-deadbeef0000").mkdir()
    (path / "shard-deadbeef0000" / "junk ALZ001QX").write_text("ALZ001QX")
    meta = json.loads((path / META_FILE).read_text())
    (path / META_FILE).write_text(json.dumps({**meta, "vacuum_pending": True}))
    with MemoryStore(path=path, embedder=HashEmbedder()) as store:
        assert not (path / "shard-deadbeef0000").exists()
        assert not json.loads((path / META_FILE).read_text())["vacuum_pending"]
        assert store.count(scope=BOB, current_only=False) == 30  # the pending vacuum kept all


def test_qdrant_client_local_path_is_vacuumed(tmp_path: Path) -> None:
    client = QdrantClient(path=str(tmp_path / "q"))
    store = MemoryStore(client=client, embedder=HashEmbedder())
    _fill(store)
    paths = store.managed_paths()
    assert paths and paths[0].exists()
    store.delete_user("alice")
    assert store.last_erasure is not None and store.last_erasure.mechanism == "sqlite vacuum"
    for needle in ("ALZ003QX", "ALZPROJQX"):
        assert scan_paths("q", paths, Needles.of_text([needle])).hits == 0
    assert scan_paths("q", paths, Needles.of_text(["BOZ003QX"])).hits > 0
    assert store.count(scope=BOB, current_only=False) == 30
    store.close()


def test_server_in_memory_has_nothing_on_disk() -> None:
    store = MemoryStore(client=QdrantClient(":memory:"), embedder=HashEmbedder())
    _fill(store)
    assert store.managed_paths() == []
    store.delete_user("alice")
    assert store.last_erasure is not None and store.last_erasure.physical
    assert store.count(scope=BOB, current_only=False) == 30
    store.close()
