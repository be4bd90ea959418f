"""A small LZ4 *block* decoder, enough to read the embedded engine's compressed pages.

The embedded Qdrant engine stores payloads in pages of fixed-size blocks; each value starts at
a block boundary as a little-endian ``u32`` uncompressed size followed by one LZ4 block
(``lz4_flex``'s "size prepended" format). A deleted value stays in its blocks until they are
reused, and its text is mostly not readable there without decompressing (repeated strings
become back-references). :func:`decode_block` decodes one such block; it stops as soon as the
announced size is produced, so the block's compressed length need not be known (the engine's
tracker forgets it when the value is deleted).

Pure Python on purpose: no native dependency, and only the residue scanner uses it.
"""

from __future__ import annotations

MAX_VALUE_BYTES = 1 << 24
"""Announced sizes above this are not taken for a value (16 MiB; payloads are far smaller)."""


def decode_block(
    src: bytes | bytearray | memoryview, start: int, end: int, size: int
) -> bytes | None:
    """Decode the LZ4 block at ``src[start:end]`` into exactly ``size`` bytes.

    Returns ``None`` when the bytes are not a well-formed block producing ``size`` bytes (a
    guessed start that is not a value, or a value cut by ``end``); never raises on bad input.
    """
    if not 0 < size <= MAX_VALUE_BYTES:
        return None
    out = bytearray()
    i = start
    end = min(end, len(src))
    while i < end:
        token = src[i]
        i += 1
        literal = token >> 4
        if literal == 15:
            while True:
                if i >= end:
                    return None
                extra = src[i]
                i += 1
                literal += extra
                if extra != 255:
                    break
        if literal:
            if i + literal > end:
                return None
            out += src[i : i + literal]
            i += literal
        if len(out) >= size:  # the last sequence has literals only
            return bytes(out) if len(out) == size else None
        if i + 2 > end:
            return None
        offset = src[i] | (src[i + 1] << 8)
        i += 2
        if offset == 0 or offset > len(out):
            return None
        match = token & 15
        if match == 15:
            while True:
                if i >= end:
                    return None
                extra = src[i]
                i += 1
                match += extra
                if extra != 255:
                    break
        match += 4
        pos = len(out) - offset
        if offset >= match:
            out += out[pos : pos + match]
        else:  # overlapping copy: the last `offset` bytes repeat
            pattern = bytes(out[pos:])
            out += (pattern * (match // offset + 1))[:match]
        if len(out) > size:
            return None
    return None


__all__ = ["MAX_VALUE_BYTES", "decode_block"]
