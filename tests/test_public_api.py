"""The public API is locked by the package docstring's API map, not by a copy of it here.

The root exports exactly the names the map lists; every public name has one home (it appears in
the ``__all__`` of exactly one public module); the names the 0.1 root exported and the 0.1
module paths still resolve, with a warning that names the new home.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings

import pytest

import langgraph_memory

ROOT_DOC = langgraph_memory.__doc__ or ""
API_MAP = ROOT_DOC.split("API map", 1)[1]
ROOT_SECTION, SUBPACKAGE_SECTION = API_MAP.split("Sub-packages", 1)

#: The 0.1 module paths the README documented, and where each one's names live now.
MOVED_MODULES = {
    "langgraph_memory.records": "langgraph_memory.core.records",
    "langgraph_memory.scope": "langgraph_memory.core.scope",
    "langgraph_memory.config": "langgraph_memory.core.config",
    "langgraph_memory.text": "langgraph_memory.core.text",
    "langgraph_memory.logsafe": "langgraph_memory.core.logsafe",
    "langgraph_memory.conversation_recall": "langgraph_memory.read.conversation",
    "langgraph_memory.redaction": "langgraph_memory.write.message_redaction",
    "langgraph_memory.state": "langgraph_memory.graph.state",
    "langgraph_memory.prebuilt": "langgraph_memory.graph.prebuilt",
    "langgraph_memory.middleware": "langgraph_memory.graph.middleware",
    "langgraph_memory.tools": "langgraph_memory.graph.tools",
    "langgraph_memory.langgraph_store": "langgraph_memory.graph.langgraph_store",
    "langgraph_memory.nodes": "langgraph_memory.graph.nodes",
    "langgraph_memory.checkpoint": "langgraph_memory.graph.checkpoint",
    "langgraph_memory.forget": "langgraph_memory.lifecycle.forget",
    "langgraph_memory.admin": "langgraph_memory.lifecycle.admin",
    "langgraph_memory.prompt_budget": "langgraph_memory.read.budget",
    "langgraph_memory.toolcalls": "langgraph_memory.graph.toolcalls",
}


def map_names(section: str) -> set[str]:
    """The names a section of the API map lists: the double-backquoted words that head a bullet
    (before its dash), e.g. ``* ``LoadMemory``, ``Generate`` — the nodes``."""
    heads = re.findall(r"^\* (.+?) —", section, flags=re.MULTILINE)
    return {name for head in heads for name in re.findall(r"``([A-Za-z_]\w*)``", head)}


def public_modules() -> list[str]:
    """The root plus every sub-package the API map names as a home."""
    heads = re.findall(r"^\* (.+?) —", SUBPACKAGE_SECTION, flags=re.MULTILINE)
    homes = [h for head in heads for h in re.findall(r"``(langgraph_memory(?:\.[a-z_]+)+)``", head)]
    return ["langgraph_memory", *dict.fromkeys(homes)]


def test_root_exports_exactly_the_api_map() -> None:
    exported = set(langgraph_memory.__all__) - {"__version__"}
    listed = map_names(ROOT_SECTION)
    assert exported == listed, (
        f"in __all__ but not in the map: {sorted(exported - listed)}; "
        f"in the map but not in __all__: {sorted(listed - exported)}"
    )
    assert len(langgraph_memory.__all__) == len(set(langgraph_memory.__all__))  # no duplicates
    assert len(langgraph_memory.__all__) <= 22  # a short root, like langgraph.prebuilt's


def test_root_names_are_this_package_s_own_under_their_names() -> None:
    namespace: dict[str, object] = {}
    exec(f"from langgraph_memory import {', '.join(langgraph_memory.__all__)}", namespace)
    for name in langgraph_memory.__all__:
        obj = namespace[name]
        if name == "__version__":
            assert re.fullmatch(r"\d+\.\d+\.\d+", str(obj)), obj
            continue
        module = getattr(obj, "__module__", "")
        assert module.startswith("langgraph_memory."), (name, module)
        assert getattr(obj, "__name__", None) == name, (name, obj)
        assert (obj.__doc__ or "").strip(), f"{name} has no docstring"


def test_every_public_name_has_exactly_one_home() -> None:
    homes: dict[str, list[str]] = {}
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        exported = getattr(module, "__all__", None)
        assert exported is not None, f"{module_name} has no __all__"
        for name in exported:
            assert hasattr(module, name), f"{module_name}.__all__ lists missing {name}"
            homes.setdefault(name, []).append(module_name)
    shared = {name: where for name, where in homes.items() if len(where) > 1}
    assert not shared, f"names exported from more than one public module: {shared}"
    assert len(public_modules()) >= 10  # the map names its sub-packages


@pytest.mark.parametrize("name", sorted(langgraph_memory._MOVED))
def test_moved_root_names_warn_once_and_resolve_to_their_home(name: str) -> None:
    home = langgraph_memory._MOVED[name]
    with pytest.warns(DeprecationWarning, match=re.escape(home)):
        value = getattr(langgraph_memory, name)
    home_module = importlib.import_module(home)
    assert value is getattr(home_module, name)
    assert name in home_module.__all__, f"{home} must list {name} in __all__ (its one home)"
    assert name not in langgraph_memory.__all__


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_MODULES.items()))
def test_moved_module_paths_warn_and_return_the_same_objects(old: str, new: str) -> None:
    stand_in = importlib.import_module(old)
    target = importlib.import_module(new)
    public = [
        n
        for n in dir(target)
        if not n.startswith("_") and not isinstance(getattr(target, n), type(sys))
    ]
    assert public, new
    name = public[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(stand_in, name)
    assert value is getattr(target, name)
    assert any(
        issubclass(w.category, DeprecationWarning) and old in str(w.message) for w in caught
    ), [str(w.message) for w in caught]
    with pytest.raises(AttributeError):
        _ = stand_in.no_such_name_anywhere


def test_the_package_itself_never_imports_through_a_stand_in() -> None:
    """Import every module of the package with deprecation warnings as errors."""
    code = (
        "import importlib, pkgutil, warnings, langgraph_memory\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        "warnings.filterwarnings('ignore', category=DeprecationWarning, module='jieba')\n"
        "for info in pkgutil.walk_packages(langgraph_memory.__path__, 'langgraph_memory.'):\n"
        "    if not info.name.endswith('__main__'):\n"
        "        importlib.import_module(info.name)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]


def test_config_and_scope_errors_are_value_errors() -> None:
    from langgraph_memory.errors import (
        ConfigError,
        FilterError,
        LangGraphMemoryError,
        RecordValidationError,
        ScopeError,
    )

    for exc in (ConfigError, ScopeError, FilterError, RecordValidationError):
        assert issubclass(exc, ValueError)
        assert issubclass(exc, LangGraphMemoryError)


def test_import_is_light_and_loads_no_model() -> None:
    """``import langgraph_memory`` loads no torch, no model, no LangGraph and no engine: the
    root's names load on first use."""
    code = (
        "import sys, langgraph_memory; "
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'langchain', 'langgraph', "
        "'psycopg', 'qdrant_client', 'qdrant_edge', 'numpy', 'fcntl') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_using_a_root_name_loads_only_what_it_needs() -> None:
    code = (
        "import sys; from langgraph_memory import Scope; "
        "print(sorted(m for m in ('torch', 'langgraph', 'qdrant_edge', 'langchain_core') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
