"""Checkpointers that own their threads: tenant-checked ``get``/``list``/``put``, PII redaction at
rest, and erasure of a user's threads.
"""

from .saver import OwnedCheckpointSaver
from .saver import create_checkpointer as create_checkpointer  # exported from the root

__all__ = ["OwnedCheckpointSaver"]
