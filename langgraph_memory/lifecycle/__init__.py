"""What happens to memory over time, and forgetting a user.

Pure rules (no store, no I/O):

* :mod:`.policy` -- the status machine (``ALLOWED_TRANSITIONS``, ``check_transition``), decay
  (``effective_half_life``, ``decay_factor``) and the capacity choice (``eviction_score``,
  ``capacity_evictions``). The store uses it too; the TTLs are ``LifecyclePolicy.ttl_for``.

Stateful operations (each takes ``audit=``; default: the store's log):

* :mod:`.audit` -- ``AuditLog``: durable JSONL with ``AuditLog(path)``, a bounded ring in
  memory otherwise; user ids pseudonymized.
* :mod:`.ops` -- ``transition``, ``touch``, ``enforce_capacity``, ``transitions_of`` (built on
  :mod:`langgraph_memory.store.status`, the one audited compare-and-set move).
* :mod:`.sweep` -- ``sweep`` (TTL expiry, archiving), ``end_task``.
* :mod:`.forget` -- ``forget_user``, ``verify_forgotten`` and the ``ForgetReceipt``;
  :mod:`.erasure` reads the stores' files back to prove nothing is left.
* :mod:`.admin` -- the ``inspect`` / ``forget`` / ``audit`` commands (argument parsing and
  output); :mod:`.admin_ops` what they do; :mod:`.admin_checks` the path checks.

This package imports none of them eagerly. ``langgraph_memory.lifecycle`` was one module in
0.1: reading one of its old names here still works (with a ``DeprecationWarning`` naming the
new module) for one release.
"""

from .._moved import moved_module

_OLD_NAMES_FROM = ("ops", "sweep", "audit", "policy", "forget")
"""Where the 0.1 module's names live now (searched in this order)."""

_readers = [moved_module(__name__, f"{__name__}.{part}")[0] for part in _OLD_NAMES_FROM]


def __getattr__(name: str) -> object:
    for read in _readers:
        try:
            return read(name)
        except AttributeError:
            continue
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    import importlib

    names: set[str] = set()
    for part in _OLD_NAMES_FROM:
        names.update(dir(importlib.import_module(f"{__name__}.{part}")))
    return sorted(names)
