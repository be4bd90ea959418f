"""The byte scanner of forget receipts: many needles in one pass, the engine's LZ4 pages read
value by value (a plain grep misses what they compress), serialized user ids."""

from __future__ import annotations

import json
import random
from pathlib import Path

import ormsgpack
import pytest

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.lifecycle.erasure import (
    Needles,
    decode_block,
    decoded_values,
    scan_paths,
    user_id_forms,
)
from langgraph_memory.store.filters import Eq

from .crash_child import HashEmbedder


def _naive(data: bytes, needles: list[bytes]) -> int:
    hits = 0
    for needle in needles:
        start = data.find(needle)
        while start != -1:
            hits += 1
            start = data.find(needle, start + 1)
    return hits


def test_needles_count_like_a_naive_search_across_chunk_boundaries() -> None:
    rng = random.Random(7)
    needles = [bytes(rng.randrange(256) for _ in range(rng.randrange(8, 40))) for _ in range(300)]
    data = bytearray(rng.randrange(256) for _ in range(3 << 20))
    for i, needle in enumerate(needles[:120]):
        at = (1 << 20) - 5 if i == 0 else rng.randrange(len(data) - len(needle))  # spans chunks
        data[at : at + len(needle)] = needle
    data[-len(needles[1]) :] = needles[1]  # at the very end
    found = Needles(needles)
    assert found.count(bytes(data)) == _naive(bytes(data), needles) >= 121
    assert Needles().count(bytes(data)) == 0
    assert found.count(b"") == 0 and found.count(bytes(1 << 20)) == 0  # zeros are skipped


def test_short_needles_are_refused() -> None:
    with pytest.raises(ValueError, match="shorter than 8"):
        Needles([b"alice"])


def test_user_id_forms_match_how_the_stores_serialize() -> None:
    forms = Needles(user_id_forms("ålice"))
    assert forms.count(json.dumps({"user_id": "ålice"}).encode()) == 1  # journal (ascii)
    assert forms.count(json.dumps({"user_id": "ålice"}, ensure_ascii=False).encode()) == 1
    compact = json.dumps({"x": 1, "user_id": "ålice"}, separators=(",", ":")).encode()
    assert forms.count(compact) == 1  # the engine's payload JSON
    assert forms.count(ormsgpack.packb({"user_id": "ålice"})) == 1  # checkpoints
    assert forms.count(json.dumps({"text": "ålice said hi"}).encode()) == 0  # a mere mention
    assert forms.count(json.dumps({"user_id": "ålice2"}).encode()) == 0  # another user


def test_decoder_rejects_garbage_without_raising() -> None:
    rng = random.Random(3)
    for _ in range(500):  # whatever the bytes, an answer and no exception
        junk = bytes(rng.randrange(256) for _ in range(64))
        out = decode_block(junk, 0, len(junk), 100)
        assert out is None or len(out) == 100
    assert decode_block(b"\x10a", 0, 2, 1) == b"a"  # one literal, end of block
    assert decode_block(b"\x10a", 0, 2, 2) is None  # announced more than it holds
    # "abcd", a match of 8 at offset 4 (an overlapping copy), then the literal "!"
    block = b"\x44abcd\x04\x00\x10!"
    assert decode_block(block, 0, len(block), 13) == b"abcdabcdabcd!"
    assert decode_block(block, 0, len(block) - 2, 13) is None  # cut before the last literals
    assert decode_block(b"\x44abcd\x09\x00", 0, 7, 13) is None  # offset before the start


def test_engine_pages_hide_repeated_text_from_a_plain_grep(tmp_path: Path) -> None:
    """A marker said twice in one record: LZ4 stores the second as a back-reference, so only
    decompressing finds every occurrence of a deleted record."""
    path = tmp_path / "mem"
    marker = "QZ-SECRET-4711"
    with MemoryStore(path=path, embedder=HashEmbedder()) as store:
        store.add_many(
            [f"{marker} and again {marker}, note {i}" for i in range(20)], scope=Scope("alice")
        )
        store.backend.delete_where(Eq("user_id", "alice"))  # the engine's soft delete only
        store.flush()
    pages = sorted(path.glob("shard/segments/*/payload_storage/page_*.dat"))
    assert pages
    raw = sum(p.read_bytes().count(marker.encode()) for p in pages)
    decoded = sum(
        value.count(marker.encode()) for p in pages for value in decoded_values(p.read_bytes(), 128)
    )
    assert decoded == 40 and raw < decoded  # soft-deleted, still there; grep sees < half
    scan = scan_paths("engine", [path], Needles.of_text([marker]))
    assert scan.decoded_values >= 20 and scan.hits >= 40 + 20  # pages (decoded) + the WAL
    assert any("payload_storage" in f for f in scan.hit_files)
    assert any(f.startswith("shard/wal") for f in scan.hit_files)


def test_scan_reports_unreadable_files_as_residue(tmp_path: Path) -> None:
    import os

    (tmp_path / "ok.txt").write_text("nothing here")
    locked = tmp_path / "locked.bin"
    locked.write_bytes(b"x" * 10)
    locked.chmod(0)
    try:
        scan = scan_paths("x", [tmp_path, tmp_path / "missing"], Needles.of_text(["ZZZZZZZZ"]))
    finally:
        locked.chmod(0o600)
    if os.geteuid() == 0:  # root reads anything: the file was read
        assert scan.files == 2 and scan.hits == 0
    else:
        assert scan.hits == 1 and "unreadable" in scan.note
