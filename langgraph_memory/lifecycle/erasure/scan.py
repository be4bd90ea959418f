"""Read every byte of the files a store keeps, decompressing the engine's pages, and count the
needles of a user in them: the byte-level half of a forget receipt.

:func:`scan_paths` walks files and directories (missing ones are skipped and not counted) and
reports per artifact how many files and bytes it read and how many needle occurrences it found,
and in which files. Files inside an engine page store whose ``config.json`` says
``"compression": "LZ4"`` are also read value by value: every block boundary that announces a
plausible size is decoded (:func:`~langgraph_memory.lifecycle.erasure.lz4.decode_block`), so the
text of
deleted values, which a plain ``grep`` misses, is counted too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...core.logsafe import get_logger
from .lz4 import MAX_VALUE_BYTES, decode_block
from .needles import Needles

log = get_logger("erasure")

_SEPARATOR = b"\xff" * 8
"""Joins decoded values for one search pass; no needle (UTF-8 text, CBOR/msgpack framing)
contains a 0xFF byte, so no match can span two values."""
_BATCH_BYTES = 4 << 20


@dataclass
class ArtifactScan:
    """What a scan of one artifact (a store's files) read and found."""

    artifact: str
    scanned: bool = True
    files: int = 0
    bytes: int = 0
    decoded_values: int = 0
    hits: int = 0
    hit_files: list[str] = field(default_factory=list)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        """The JSON form in a forget receipt."""
        out: dict[str, Any] = {
            "scanned": self.scanned,
            "files": self.files,
            "bytes": self.bytes,
            "hits": self.hits,
        }
        if self.decoded_values:
            out["decoded_values"] = self.decoded_values
        if self.hit_files:
            out["hit_files"] = self.hit_files
        if self.note:
            out["note"] = self.note
        return out

    @classmethod
    def not_scanned(cls, artifact: str, note: str) -> ArtifactScan:
        """An artifact whose files this package cannot read (e.g. a remote server's)."""
        return cls(artifact=artifact, scanned=False, note=note)


def _files(paths: Iterable[Path]) -> Iterator[tuple[Path, Path]]:
    """``(file, root)`` for every regular file under ``paths`` (sorted, no symlinks)."""
    for root in paths:
        if root.is_file() and not root.is_symlink():
            yield root, root.parent
        elif root.is_dir():
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames.sort()
                for name in sorted(filenames):
                    file = Path(dirpath) / name
                    if file.is_file() and not file.is_symlink():
                        yield file, root


def _lz4_block_size(folder: Path, cache: dict[Path, int | None]) -> int | None:
    """The block size of an LZ4-compressed engine page store in ``folder``, else None."""
    if folder not in cache:
        cache[folder] = None
        config = folder / "config.json"
        if config.is_file():
            try:
                data = json.loads(config.read_text("utf-8"))
            except (OSError, ValueError):
                data = {}
            if isinstance(data, dict) and str(data.get("compression", "")).upper() == "LZ4":
                size = data.get("block_size_bytes")
                cache[folder] = size if isinstance(size, int) and size >= 4 else None
    return cache[folder]


def decoded_values(page: bytes, block_size: int) -> Iterator[bytes]:
    """Every value that decodes at a block boundary of an LZ4 page, live or deleted."""
    usable = len(page) - len(page) % 4
    sizes = np.frombuffer(page[:usable], dtype="<u4")[:: block_size // 4]
    for block in np.nonzero((sizes > 0) & (sizes <= MAX_VALUE_BYTES))[0]:
        offset = int(block) * block_size
        size = int(sizes[block])
        bound = offset + 4 + size + size // 255 + 16  # worst-case LZ4 expansion
        value = decode_block(page, offset + 4, bound, size)
        if value is not None:
            yield value


def _count_decoded(page: bytes, block_size: int, needles: Needles) -> tuple[int, int]:
    hits = values = 0
    batch: list[bytes] = []
    size = 0
    for value in decoded_values(page, block_size):
        values += 1
        batch.append(value)
        size += len(value) + len(_SEPARATOR)
        if size >= _BATCH_BYTES:
            hits += needles.count(_SEPARATOR.join(batch))
            batch, size = [], 0
    if batch:
        hits += needles.count(_SEPARATOR.join(batch))
    return hits, values


def scan_paths(
    artifact: str, paths: Iterable[str | os.PathLike[str]], needles: Needles
) -> ArtifactScan:
    """Read every file under ``paths`` and count ``needles`` in the raw bytes and in the
    decoded values of LZ4 engine pages. Files that vanish or cannot be read while scanning
    are noted (a file that cannot be read is reported, never silently passed)."""
    report = ArtifactScan(artifact=artifact)
    cache: dict[Path, int | None] = {}
    unreadable: list[str] = []
    for file, root in _files(Path(p) for p in paths):
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            continue  # removed while scanning (e.g. a temporary file): nothing left to hold
        except OSError as exc:
            unreadable.append(f"{file.name}: {exc.strerror}")
            continue
        report.files += 1
        report.bytes += len(data)
        hits = needles.count(data)
        block_size = _lz4_block_size(file.parent, cache) if file.name.startswith("page_") else None
        if block_size is not None:
            decoded, values = _count_decoded(data, block_size, needles)
            hits += decoded
            report.decoded_values += values
        if hits:
            report.hits += hits
            report.hit_files.append(str(file.relative_to(root)) if file != root else file.name)
    if unreadable:
        report.hits += len(unreadable)  # unread bytes cannot be vouched for
        report.note = "unreadable: " + "; ".join(unreadable)
    log.debug(
        "scanned %s: %d file(s), %d byte(s), %d hit(s)",
        artifact,
        report.files,
        report.bytes,
        report.hits,
    )
    return report


__all__ = ["ArtifactScan", "decoded_values", "scan_paths"]
