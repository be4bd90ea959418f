"""Command-line interface: ``langgraph-memory demo | inspect | forget | audit | bench ...``
(``--version`` prints the package version).

Each sub-command lives in its own module and is imported only when used, so ``--help`` and
light commands do not pay for loading models.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
from collections.abc import Sequence

VERSION_TEXT = "langgraph-memory {version}"

_ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
_EMPHASIS = re.compile(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])")


def plain_text(text: str | None) -> str:
    """``text`` (a docstring) as a terminal reads it: indentation removed, reST roles
    (:class:`~a.B` → ``B``), double backticks and ``*emphasis*`` marks dropped."""
    if not text:
        return ""
    text = inspect.cleandoc(text)
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1], text)
    text = _LITERAL.sub(r"\1", text)
    return _EMPHASIS.sub(r"\1", text)


class PlainHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help formatter of every command: descriptions and epilogs keep their line breaks
    (bullets stay bullets) and lose their reST markup (:func:`plain_text`), as does each
    option's help."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return super()._fill_text(plain_text(text), width, indent)

    def _expand_help(self, action: argparse.Action) -> str:
        return plain_text(super()._expand_help(action))


_COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("langgraph_memory.cli.demo", "offline scripted conversation across threads and users"),
    "inspect": (
        "langgraph_memory.lifecycle.admin:inspect_main",
        "what is stored for --user, with status",
    ),
    "forget": (
        "langgraph_memory.lifecycle.admin:forget_main",
        "delete everything of --user, print receipt",
    ),
    "audit": (
        "langgraph_memory.lifecycle.admin:audit_main",
        "transitions, evictions and deletions of --user",
    ),
    "train-classifier": (
        "langgraph_memory.eval.train_classifier",
        "train the write path's clause classifier on the dev sets (developers)",
    ),
    "bench": (
        "langgraph_memory.eval.cli",
        "benchmarks: locomo, agent-locomo, latency, ... (prints a table, writes JSON)",
    ),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a sub-command's ``main(argv)`` and return its exit code."""
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="langgraph-memory",
        description="Long-term memory for LangGraph agents.",
        epilog="commands:\n"
        + "\n".join(f"  {name:<17} {help_}" for name, (_, help_) in sorted(_COMMANDS.items()))
        + "\n\n`langgraph-memory COMMAND --help` describes a command's options.",
        formatter_class=PlainHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=VERSION_TEXT.format(version=__version__)
    )
    parser.add_argument("command", choices=sorted(_COMMANDS), help="what to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the command")
    ns = parser.parse_args(argv)
    target = _COMMANDS[ns.command][0]
    module_name, _, func = target.partition(":")
    module = importlib.import_module(module_name)
    return int(getattr(module, func or "main")(ns.args) or 0)


__all__ = ["PlainHelpFormatter", "main", "plain_text"]
