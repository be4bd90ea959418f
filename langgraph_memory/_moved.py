"""Old import paths that keep working for one release, with a :class:`DeprecationWarning`.

The package was reorganised in 0.2 (``core/``, ``read/``, ``graph/``, ``lifecycle/``, ``cli/``).
Each module that used to live at the top level and that the 0.1 README documented is now a thin
stand-in built by :func:`moved_module`: reading a name from it imports the module's new home,
warns once per name with the path to use instead, and returns the very same object, so
``isinstance`` checks and monkeypatching keep working. The stand-ins go in 0.3.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable

#: Removal release named in every warning.
REMOVED_IN = "0.3"


def new_path_of(name: str, new_module: str) -> str:
    """Where ``name`` should be imported from now: the package root when it exports it."""
    root = importlib.import_module("langgraph_memory")
    if name in getattr(root, "__all__", ()):
        return "langgraph_memory"
    return new_module


def moved_module(
    old_module: str, new_module: str
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for a stand-in module at ``old_module``.

    Guarantees: every attribute of ``new_module`` is readable through the stand-in and is the
    same object; reading one warns with :class:`DeprecationWarning` (``stacklevel`` points at
    the caller's import); a name ``new_module`` lacks raises :class:`AttributeError`.
    """

    warned: set[str] = set()

    def __getattr__(name: str) -> object:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        target = importlib.import_module(new_module)
        try:
            value = getattr(target, name)
        except AttributeError:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}") from None
        if name not in warned:
            warned.add(name)
            warnings.warn(
                f"{old_module}.{name} moved: import it from {new_path_of(name, new_module)} "
                f"(the old path is removed in {REMOVED_IN})",
                DeprecationWarning,
                stacklevel=2,
            )
        return value

    def __dir__() -> list[str]:
        return sorted(dir(importlib.import_module(new_module)))

    return __getattr__, __dir__
