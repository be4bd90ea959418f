"""Byte strings that betray a user, and a search for many of them at once.

A residue check cannot look for "the user's data" in general; it looks for byte strings that
only that user's data contains: the ids of the user's records, checkpoints and handles (random,
so no other data holds them) and the user id *as the stores serialize it* (``"user_id":
"alice"`` in JSON, its CBOR, msgpack and pickle forms), never the bare id, which any text could
contain. :class:`Needles` counts occurrences of any number of such strings in one pass.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

import numpy as np

MIN_NEEDLE_BYTES = 8
"""Shorter strings are refused: they occur by chance in binary files."""

_CHUNK = 1 << 20
_HASH_BITS = 23
_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)
_HASH_SHIFT = np.uint64(64 - _HASH_BITS)


def _cbor_text(value: bytes) -> bytes:
    n = len(value)
    if n < 24:
        head = bytes([0x60 + n])
    elif n < 256:
        head = bytes([0x78, n])
    elif n < 65536:
        head = bytes([0x79]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x7A]) + n.to_bytes(4, "big")
    return head + value


def _msgpack_str(value: bytes) -> bytes:
    n = len(value)
    if n < 32:
        head = bytes([0xA0 | n])
    elif n < 256:
        head = bytes([0xD9, n])
    elif n < 65536:
        head = bytes([0xDA]) + n.to_bytes(2, "big")
    else:
        head = bytes([0xDB]) + n.to_bytes(4, "big")
    return head + value


def user_id_forms(user_id: str, key: str = "user_id") -> list[bytes]:
    """``key: user_id`` as JSON (compact and spaced, ASCII-escaped or not), CBOR (the engine's
    WAL), msgpack (checkpoints) and pickle (qdrant-client's local storage) write it."""
    raw = user_id.encode("utf-8", "surrogatepass")
    k = key.encode()
    forms = {
        f'"{key}":{json.dumps(user_id, ensure_ascii=ascii_)}'.encode() for ascii_ in (True, False)
    } | {
        f'"{key}": {json.dumps(user_id, ensure_ascii=ascii_)}'.encode() for ascii_ in (True, False)
    }
    forms.add(_cbor_text(k) + _cbor_text(raw))
    forms.add(_msgpack_str(k) + _msgpack_str(raw))
    if len(raw) < 256:
        forms.add(b"\x8c" + bytes([len(k)]) + k + b"\x94\x8c" + bytes([len(raw)]) + raw)
    return sorted(forms)


class Needles:
    """An immutable set of byte strings of at least :data:`MIN_NEEDLE_BYTES` bytes, found
    together: :meth:`count` costs one pass over the data whatever the number of needles."""

    def __init__(self, needles: Iterable[bytes] = ()) -> None:
        kept = {bytes(n) for n in needles}
        short = [n for n in kept if len(n) < MIN_NEEDLE_BYTES]
        if short:
            raise ValueError(
                f"{len(short)} needle(s) shorter than {MIN_NEEDLE_BYTES} bytes would match by "
                "chance; frame them (e.g. with their JSON key) first"
            )
        self._all = frozenset(kept)
        by_prefix: dict[int, list[bytes]] = {}
        for needle in kept:
            by_prefix.setdefault(int.from_bytes(needle[:8], "little"), []).append(needle)
        self._by_prefix = by_prefix
        self._prefixes = np.array(sorted(by_prefix), dtype=np.uint64)
        # a one-bit-per-bucket filter over a hash of the first 8 bytes: most windows are
        # rejected by one table lookup; the survivors are checked exactly
        self._filter = np.zeros(1 << _HASH_BITS if kept else 1, dtype=bool)
        if kept:
            self._filter[(self._prefixes * _HASH_MUL) >> _HASH_SHIFT] = True

    def __len__(self) -> int:
        return len(self._all)

    def __iter__(self) -> Iterator[bytes]:
        return iter(sorted(self._all))

    def __or__(self, other: Needles) -> Needles:
        return Needles(self._all | other._all)

    @classmethod
    def of_text(cls, texts: Iterable[str]) -> Needles:
        """Needles from strings (UTF-8), skipping empty ones; short ones are refused."""
        return cls(t.encode("utf-8", "surrogatepass") for t in texts if t)

    def count(self, data: bytes | bytearray | memoryview) -> int:
        """Occurrences of any needle in ``data`` (overlapping ones counted)."""
        if not self._prefixes.size or len(data) < MIN_NEEDLE_BYTES:
            return 0
        view = memoryview(data).cast("B")
        buf = np.frombuffer(view, dtype=np.uint8)
        prefixes = self._prefixes
        hits = 0
        for start in range(0, buf.size - 7, _CHUNK):
            windows = min(_CHUNK, buf.size - 7 - start)
            chunk = buf[start : start + windows + 7]
            if not chunk.any():
                continue
            # the little-endian u64 starting at every byte offset (an unaligned strided view)
            word = np.ndarray(shape=(windows,), dtype="<u8", buffer=chunk, strides=(1,))
            maybe = np.nonzero(self._filter[(word * _HASH_MUL) >> _HASH_SHIFT])[0]
            if not maybe.size:
                continue
            words = word[maybe]
            idx = np.searchsorted(prefixes, words)
            idx[idx == prefixes.size] = 0
            for at, value in zip(
                maybe[prefixes[idx] == words], words[prefixes[idx] == words], strict=True
            ):
                pos = start + int(at)
                for needle in self._by_prefix[int(value)]:
                    if view[pos : pos + len(needle)] == needle:
                        hits += 1
        return hits


__all__ = ["MIN_NEEDLE_BYTES", "Needles", "user_id_forms"]
