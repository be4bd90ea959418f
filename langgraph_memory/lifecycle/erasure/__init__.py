"""Physical erasure checks: what a store's files still hold of a user.

* :class:`Needles` / :func:`user_id_forms`: byte strings only the user's data contains.
* :func:`scan_paths`: every byte of a store's files, engine pages decompressed, per artifact.
* :func:`decode_block`: the LZ4 block decoder the scan uses.

How each store erases (engine shard rewrite, SQLite ``secure_delete`` + ``VACUUM``, PostgreSQL
``VACUUM FULL``, journal rewrite) lives with the store; see README "Forgetting a user".
"""

from .lz4 import decode_block
from .needles import MIN_NEEDLE_BYTES, Needles, user_id_forms
from .scan import ArtifactScan, decoded_values, scan_paths

__all__ = [
    "MIN_NEEDLE_BYTES",
    "ArtifactScan",
    "Needles",
    "decode_block",
    "decoded_values",
    "scan_paths",
    "user_id_forms",
]
