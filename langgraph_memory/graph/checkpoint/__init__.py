"""Checkpointers that own their threads: tenant-checked ``get``/``list``/``put``, PII redaction at
rest, and erasure of a user's threads.
"""
