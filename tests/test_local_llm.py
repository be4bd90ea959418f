"""The local-model locator (``langgraph_memory.eval.local_llm``) on stand-in chunk wheels:
found through their metadata (never imported), concatenated in order, checked against the
sha256, cached outside the repository; a wrong checksum loads nothing."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from langgraph_memory.errors import ConfigError
from langgraph_memory.eval import local_llm
from langgraph_memory.eval.local_llm import LocalWeights, chunk_file, locate_gguf

PARTS = [b"GGUF" + bytes(range(200)), b"middle" * 50, b"tail-end"]


def _install_chunk(site: Path, index: int, data: bytes) -> None:
    """A minimal installed distribution ``lgm-fake-part{index}`` whose package would fail if
    imported and whose data file holds ``data``."""
    name, pkg = f"lgm-fake-part{index}", f"lgm_fake_part{index}"
    (site / pkg).mkdir(parents=True)
    (site / pkg / "__init__.py").write_text("raise RuntimeError('never import a chunk')\n")
    (site / pkg / "model.bin").write_bytes(data)
    info = site / f"{pkg}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "RECORD").write_text(
        f"{pkg}/__init__.py,,\n{pkg}/model.bin,,\n{info.name}/METADATA,,\n{info.name}/RECORD,,\n"
    )


@pytest.fixture
def fake_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LocalWeights:
    site = tmp_path / "site"
    for i, data in enumerate(PARTS, start=1):
        _install_chunk(site, i, data)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("LGM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("LGM_REAL_LLM_GGUF", raising=False)
    return LocalWeights(
        name="fake-model",
        chunks=tuple((f"lgm-fake-part{i}", "0.1") for i in range(1, len(PARTS) + 1)),
        sha256=hashlib.sha256(b"".join(PARTS)).hexdigest(),
        size=sum(len(p) for p in PARTS),
    )


def test_chunks_are_located_concatenated_verified_and_cached(
    fake_weights: LocalWeights, tmp_path: Path
) -> None:
    path = locate_gguf(fake_weights)
    assert path == tmp_path / "cache" / "fake-model.gguf"
    assert path.read_bytes() == b"".join(PARTS)
    assert not any(m.startswith("lgm_fake_part") for m in sys.modules)  # never imported
    stamp = path.stat().st_mtime_ns
    assert locate_gguf(fake_weights) == path and path.stat().st_mtime_ns == stamp  # cached
    assert chunk_file("lgm-fake-part1", "9.9") is None  # another version is not the pin


def test_a_wrong_checksum_loads_nothing(fake_weights: LocalWeights, tmp_path: Path) -> None:
    bad = LocalWeights(name="bad", chunks=fake_weights.chunks, sha256="0" * 64)
    with pytest.raises(ConfigError, match="sha256"):
        locate_gguf(bad)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == []  # no partial left


def test_missing_parts_and_runtime_are_clear(
    fake_weights: LocalWeights, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    absent = LocalWeights(name="absent", chunks=(("lgm-no-such-part", "1.0"),), sha256="0" * 64)
    with pytest.raises(ConfigError, match="lgm-no-such-part"):
        locate_gguf(absent)
    monkeypatch.setenv("LGM_REAL_LLM_GGUF", str(tmp_path / "nope.gguf"))
    with pytest.raises(ConfigError, match="not a file"):
        locate_gguf(fake_weights)
    monkeypatch.setattr(local_llm.importlib.util, "find_spec", lambda name: None)
    assert local_llm.missing_reason(fake_weights) == local_llm.NO_RUNTIME
