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
* :mod:`.expiry` -- ``sweep`` (TTL expiry, archiving what stayed stale), ``end_task``.
* :mod:`.forget` -- ``forget_user``, ``verify_forgotten`` and the ``ForgetReceipt``;
  :mod:`.forget_targets` the Protocols of what it needs of each store; :mod:`.erasure` reads
  the stores' files back to prove nothing is left (``erasure.artifacts``: which bytes betray
  the user in which store).
* :mod:`.admin` -- the ``inspect`` / ``forget`` / ``audit`` commands (argument parsing and
  output); :mod:`.admin_ops` what they do; :mod:`.admin_checks` the path checks.

This package imports none of them eagerly; it exports ``AuditLog``, ``transition``,
``touch``, ``enforce_capacity``, ``sweep`` and ``verify_forgotten`` (``forget_user`` is the
root's). ``langgraph_memory.lifecycle`` was one module in 0.1: reading one of its other old
names here still works (with a ``DeprecationWarning`` naming the new module) for one release.
"""

import importlib
import warnings

from .._moved import REMOVED_IN, new_path_of

_OLD_NAMES_FROM = ("ops", "expiry", "audit", "policy", "forget")
"""Where the 0.1 module's names live now (searched in this order)."""
_warned: set[str] = set()


_EXPORTS = {
    "AuditLog": "audit",
    "enforce_capacity": "ops",
    "sweep": "expiry",
    "touch": "ops",
    "transition": "ops",
    "verify_forgotten": "forget",
}
"""The names this package exports (its ``__all__``) and the module each one is loaded from."""


def __getattr__(name: str) -> object:
    """An exported name, loaded on first use; or a name of the 0.1 ``langgraph_memory.lifecycle``
    module, read from its new home with a ``DeprecationWarning`` (once per name) naming the
    path to use; the same object either way."""
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
        globals()[name] = value
        return value
    for part in _OLD_NAMES_FROM:
        home = f"{__name__}.{part}"
        module = importlib.import_module(home)
        if name in vars(module):
            if name not in _warned:
                _warned.add(name)
                warnings.warn(
                    f"{__name__}.{name} moved: import it from {new_path_of(name, home)} "
                    f"(the old path is removed in {REMOVED_IN})",
                    DeprecationWarning,
                    stacklevel=2,
                )
            return vars(module)[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    names: set[str] = set(_EXPORTS)
    for part in _OLD_NAMES_FROM:
        names.update(dir(importlib.import_module(f"{__name__}.{part}")))
    return sorted(names)


__all__ = ["AuditLog", "enforce_capacity", "sweep", "touch", "transition", "verify_forgotten"]
