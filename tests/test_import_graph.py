"""The package's import graph has no cycle and its layers import downwards only.

The graph is read from the source (``ast``), so it counts every import: module level,
function level and ``if TYPE_CHECKING:`` blocks alike. A function-level import that only
dodges a cycle is still a cycle here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import langgraph_memory

PACKAGE_DIR = Path(langgraph_memory.__file__).parent
PACKAGE = "langgraph_memory"

#: Old 0.1 paths kept as warning stand-ins; they point up by design and import lazily.
STAND_INS = {"langgraph_memory._moved"}

#: Which top-level parts of the package each part may import (besides itself). A part is the
#: first name under the package (``core``, ``store`` ...) or a module at the top level.
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "core": {"errors"},
    "embeddings": {"core", "errors"},
    # lifecycle's pure rules, its audit log and the Protocols forget works on sit below the
    # store; MemoryStore.forget_user delegates to lifecycle.forget, which reaches the store
    # only through those Protocols (so no cycle), never lifecycle's operations.
    "store": {
        "core",
        "errors",
        "embeddings",
        "lifecycle.policy",
        "lifecycle.audit",
        "lifecycle.forget_targets",
        "lifecycle.forget",
    },
}

#: Modules of a part that count as their own part in :data:`ALLOWED`.
SUB_PARTS = ("lifecycle.policy", "lifecycle.audit", "lifecycle.forget_targets", "lifecycle.forget")


def module_files() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The package modules ``name`` imports anywhere in its source."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            targets.append(module)
            targets.extend(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            targets.extend(alias.name for alias in node.names)
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name and target.startswith(PACKAGE):
                yield target


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {
        name: set(imported_modules(name, path, modules))
        for name, path in modules.items()
        if name not in STAND_INS
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def part_of(module: str) -> str:
    rest = module.removeprefix(PACKAGE + ".")
    for sub_part in SUB_PARTS:
        if rest == sub_part or rest.startswith(sub_part + "."):
            return sub_part
    return rest.split(".")[0]


def test_the_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 100  # the walk found the package
    assert not cycles(graph), cycles(graph)


def test_the_cycle_finder_finds_a_planted_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_lower_layers_do_not_import_upwards() -> None:
    wrong = []
    for module, targets in import_graph().items():
        part = part_of(module)
        if part not in ALLOWED:
            continue
        for target in targets:
            target_part = part_of(target)
            if target_part != part and target_part not in ALLOWED[part] and target != PACKAGE:
                wrong.append(f"{module} -> {target}")
    assert not wrong, wrong
