"""``bench peers`` smoke test: one tiny run of every section (our own LoCoMo-format text, not
the data set) through the CLI entry point, asserting the output structure, not timing."""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import sqlite3
import struct
import zlib
from pathlib import Path

import pytest

from langgraph_memory.eval import peers
from langgraph_memory.eval.locomo import CATEGORIES
from langgraph_memory.eval.peers.systems import registry

LINES_A = [
    "I always drink green tea in the morning.",
    "Nice. I just came back from Kyoto, the temples were amazing.",
    "Did you try the ramen there?",
    "Yes, and I bought a ceramic tea bowl for my sister.",
    "My sister is learning to play the violin.",
    "I started running on weekends to train for a half marathon.",
    "How far can you run now?",
    "Twelve kilometres without stopping.",
    "We adopted a grey cat called Miso last month.",
    "See you soon!",
    "I am reading a novel about lighthouse keepers.",
    "See you soon!",
]
LINES_B = [
    "Coffee is my morning ritual, black with no sugar.",
    "I travelled to Lisbon for a conference in March.",
    "Any tips for the trams?",
    "Take tram 28 early, before the tourists arrive.",
    "My brother fixes old motorbikes in his garage.",
    "I am learning to bake sourdough bread.",
    "Is the starter hard to keep alive?",
    "You feed it flour and water every day.",
    "We are repainting the kitchen yellow.",
    "Yellow kitchens feel warm.",
    "I signed up for a pottery class on Thursdays.",
    "Pottery is relaxing, I hear.",
]


def tiny_locomo(path: Path) -> Path:
    """Two 12-turn conversations in LoCoMo's format, two sessions each, 3 questions each."""

    def conv(sample_id: str, a: str, b: str, lines: list[str]) -> dict:  # type: ignore[type-arg]
        def session(offset: int) -> list[dict[str, str]]:
            return [
                {"speaker": a if i % 2 == 0 else b, "dia_id": f"D{offset}:{i + 1}", "text": t}
                for i, t in enumerate(lines[(offset - 1) * 6 : offset * 6])
            ]

        return {
            "sample_id": sample_id,
            "conversation": {
                "speaker_a": a,
                "speaker_b": b,
                "session_1": session(1),
                "session_1_date_time": "1:00 pm on 1 May, 2023",
                "session_2": session(2),
                "session_2_date_time": "3:00 pm on 9 May, 2023",
            },
            "qa": [
                {
                    "question": "What does she drink in the morning?",
                    "evidence": ["D1:1"],
                    "category": 4,
                },
                {
                    "question": "Which city did they visit?",
                    "evidence": ["D1:2; D1:4"],
                    "category": 1,
                },
                {"question": "What pet did they adopt?", "evidence": ["D2:3"], "category": 2},
                {"question": "Unanswerable?", "evidence": ["D1:3"], "category": 5},
            ],
        }

    data = [conv("conv-a", "Ann", "Ben", LINES_A), conv("conv-b", "Cat", "Dan", LINES_B)]
    path.write_text(json.dumps(data))
    return path


def assert_png(path: Path) -> None:
    """A real PNG: signature, a well-formed IHDR chunk with a CRC that matches, non-empty size."""
    raw = path.read_bytes()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n", path
    length, kind = struct.unpack(">I4s", raw[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", raw[16:24])
    assert width > 100 and height > 100
    (crc,) = struct.unpack(">I", raw[16 + length : 20 + length])
    assert crc == zlib.crc32(raw[12 : 16 + length]) & 0xFFFFFFFF
    assert raw[-8:-4] == b"IEND"


def test_peers_smoke_run_structure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tiny_locomo(tmp_path / "tiny.json")
    out = tmp_path / "results"
    argv = [
        "--data", str(data), "--out-dir", str(out), "--no-progress",
        "--sizes", "300", "--queries", "5", "--writes", "5",
        "--overhead-sizes", "300", "--overhead-turns", "2",
        "--token-conversations", "1", "--token-exchanges", "4",
        "--optimize-min", "300",
    ]  # fmt: skip
    assert peers.main(argv) == 0
    printed = capsys.readouterr().out
    assert "LoCoMo evidence recall" in printed and "search latency" in printed

    result = json.loads((out / "peers.json").read_text())
    for key in ("systems", "locomo", "latency", "writes", "graph_overhead", "tokens", "plots"):
        assert key in result, key
    assert result["errors"] == {}
    assert result["embedder"]
    machine = result["machine"]  # measured on this machine, not a hard-coded description
    assert machine["note"].startswith(f"{os.cpu_count()} CPU cores ({platform.machine()}")
    assert len(machine["load_average"]) == 3 and len(machine["load_average_end"]) == 3

    mem0_installed = importlib.util.find_spec("mem0") is not None
    loc = result["locomo"]
    assert loc["questions"] == 6 and loc["turns"] == 24  # category 5 excluded
    sqlite_ok = (
        importlib.util.find_spec("pysqlite3") is not None
        or hasattr(sqlite3.Connection, "enable_load_extension")
    ) and importlib.util.find_spec("sqlite_vec") is not None
    names = [
        peers.OURS_NONE,
        peers.OURS_DENSE,
        peers.OURS_NEIGHBOR,
        peers.IMS,
        peers.MEM0,
        peers.SQLS,
    ]
    assert set(loc["systems"]) == set(names)
    for name in names:
        entry = loc["systems"][name]
        if name == peers.MEM0 and not mem0_installed:
            assert "mem0ai is not installed" in entry["skipped"]
            continue
        if name == peers.SQLS and not sqlite_ok:
            assert "skipped" in entry
            continue
        assert "skipped" not in entry, (name, entry)
        for metric in ("recall_any@5", "recall_all@5", "recall_any@10", "recall_all@10"):
            assert 0.0 <= entry[metric] <= 1.0
        assert entry["recall_all@10"] <= entry["recall_any@10"]
        assert set(entry["by_category@10"]) <= set(CATEGORIES.values())
    # same vectors, same text, dense ranking: the peers must agree with our dense mode
    for name in (peers.IMS, *([peers.MEM0] if mem0_installed else [])):
        for metric in ("recall_any@5", "recall_all@5", "recall_any@10"):
            assert loc["systems"][name][metric] == loc["systems"][peers.OURS_DENSE][metric]
    assert set(loc["ratios_vs_ours_none"]) >= {peers.OURS_NEIGHBOR, peers.IMS}
    # conv-a repeats a turn: InMemoryStore.batch() cannot take it, the harness must cope
    assert loc["systems"][peers.IMS]["duplicate_text_batches_written_one_by_one"] == 1

    lat = result["latency"]["systems"]
    assert lat[peers.OURS][0]["memories"] == 300 and lat[peers.OURS][0]["p95_ms"] > 0
    assert lat[peers.IMS][0]["p95_ms"] > 0
    for name in (peers.OURS, peers.IMS, *([peers.SQLS] if sqlite_ok else [])):
        assert lat[name][0]["first_query_ms"] > 0, name
        assert "rss_bytes_per_record" in lat[name][0], name
    assert "300" in result["latency"]["p95_ratio_vs_ours"][peers.IMS]
    assert (mem0_installed and lat[peers.MEM0][0]["p95_ms"] > 0) or (
        not mem0_installed and "not installed" in lat[peers.MEM0][0]["skipped"]
    )
    writes = result["writes"]["systems"]
    assert writes[peers.OURS]["single_per_s"] > 0 and writes[peers.OURS]["batch_per_s"] > 0

    (optimized,) = result["latency"]["systems"][peers.OURS_OPT]
    assert optimized["memories"] == 300 and optimized["optimize_seconds"] >= 0
    cases = result["graph_overhead"]["cases"]
    assert [c["optimized"] for c in cases] == [False, True]
    for case in cases:
        assert case["memories_in_scope"] == 300 and case["turns"] == 2
        for node in ("load_memory", "save_memory"):
            assert case[f"{node}_p50_ms"] > 0
            assert case[f"{node}_p95_ms"] >= case[f"{node}_p50_ms"]

    tokens = result["tokens"]
    (conv,) = tokens["conversations"]
    assert (
        conv["turns"] == 4 == len(conv["memory_agent_tokens"]) == len(conv["full_history_tokens"])
    )
    assert conv["full_history_tokens"] == sorted(conv["full_history_tokens"])  # grows every turn
    assert all(t > 0 for t in conv["memory_agent_tokens"])

    assert set(result["plots"]) == {"latency", "recall", "tokens"}
    for plot in result["plots"].values():
        assert_png(Path(plot))

    # the report can be printed again from the JSON alone
    assert peers.main(["--from-json", str(out / "peers.json")]) == 0
    assert "per-turn overhead" in capsys.readouterr().out


def test_missing_peer_is_reported_not_faked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(registry, "_version", lambda dist: None)
    system, why = peers.open_peer("mem0", embedder, tmp_path)
    assert system is None and why == "mem0ai is not installed (pip install mem0ai)"
    with pytest.raises(ValueError, match="unknown peers"):
        peers.run(tmp_path / "none.json", peers=["letta"], out_dir=None)
