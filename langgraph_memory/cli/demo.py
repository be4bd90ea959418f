"""``python -m langgraph_memory demo``: an offline, scripted tour of long-term memory.

No LLM is called: the agent's model is a :class:`~langgraph_memory.testing.ScriptedChatModel`
(labelled "scripted model (no LLM)" in the output) that answers from whatever memory reached
its prompt. Everything else is real: the embedded store in a temporary directory, the default
multilingual embedding model, the write path, the LangGraph graph and a SQLite checkpointer.

The demo checks, and exits non-zero if any check fails:

1. a preference stated in thread 1 is recalled in thread 2 of the same user;
2. a changed preference supersedes the old one (the old one no longer reaches the prompt);
3. a second user never sees the first user's memory;
4. forget-user removes everything: memory records and the user's checkpointed threads.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage
from rich.markup import escape

from ..read.conversation import memory_parts
from ..testing import SCRIPTED_LABEL, ScriptedChatModel, last_human_text, system_text
from . import PlainHelpFormatter

_PREF_LINE = re.compile(r"^- \[(?P<id>[0-9a-f-]{36})\] preference: \"(?P<text>.*)\"$", re.M)


def _demo_responder(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str:
    """Answer from the memory block: cite remembered preferences, else acknowledge."""
    question = last_human_text(messages).lower()
    prefs = _PREF_LINE.findall(system_text(messages))
    if "?" in question:
        if not prefs:
            return "I don't have any preference of yours on record."
        cited = "; ".join(f"“{text}” [{rid[:8]}]" for rid, text in prefs)
        return f"From memory: {cited}."
    return "Noted."


def _system(model: ScriptedChatModel) -> str:
    prompt = model.last_prompt
    return str(prompt[0].content) if prompt and isinstance(prompt[0], SystemMessage) else ""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo; return 0 when every check passed, 1 otherwise."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter,
        prog="langgraph-memory demo",
        description=__doc__.split("\n")[0],
    )
    parser.add_argument("--path", help="directory for the store and checkpoints (default: temp)")
    parser.add_argument("--no-color", action="store_true", help="plain output")
    args = parser.parse_args(list(argv or []))

    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table

    console = Console(no_color=args.no_color, highlight=False)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lgm-demo-") as tmp:
        root = Path(args.path) if args.path else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        return _run(console, root, started, Panel, Table)


def _run(console: Any, root: Path, started: float, Panel: Any, Table: Any) -> int:
    from ..core.scope import Scope
    from ..graph.checkpoint import create_checkpointer
    from ..graph.prebuilt import create_memory_agent
    from ..graph.state import MemoryContext
    from ..lifecycle.forget import forget_user
    from ..store import MemoryStore

    console.print(
        Panel.fit(
            "[bold]langgraph-memory demo[/bold]\n"
            f"model: [yellow]{SCRIPTED_LABEL}[/yellow] — replies are scripted from the memory "
            "that reaches its prompt\n"
            f"store: embedded engine in {root / 'memory'}; checkpoints: SQLite",
        )
    )
    checks: list[tuple[str, bool, str]] = []
    store = MemoryStore(path=root / "memory")
    console.print(f"embedder: [cyan]{store.embedder.name}[/cyan] (real model, offline)")
    checkpointer = create_checkpointer("sqlite", path=root / "checkpoints.sqlite")
    model = ScriptedChatModel(responder=_demo_responder)
    agent = create_memory_agent(model, store=store, checkpointer=checkpointer)
    alice, bob = MemoryContext(user_id="alice"), MemoryContext(user_id="bob")

    def say(ctx: MemoryContext, thread: str, text: str) -> dict[str, Any]:
        out = agent.invoke(
            {"messages": [("user", text)]},
            {"configurable": {"thread_id": thread}},
            context=ctx,
        )
        console.print(f"[bold]{escape(ctx.user_id)}[/bold] @ {escape(thread)}: {escape(text)}")
        console.print(
            f"  [green]assistant ({SCRIPTED_LABEL})[/green]: "
            f"{escape(str(out['messages'][-1].content))}"
        )
        for w in out.get("memory_writes") or []:
            if w["action"] not in {"duplicate_turn"}:
                rid = (w["record_id"] or "")[:8]
                line = f"memory write: {w['action']} {rid} — {w['reason']}"
                console.print(f"  [dim]{escape(line)}[/dim]")
        return out

    try:
        console.rule("1. a preference stated in thread 1 is recalled in thread 2")
        first = say(alice, "alice-thread-1", "Hi! I prefer answers in Chinese.")
        old_id = next(
            (w["record_id"] for w in first["memory_writes"] if w["action"] == "inserted"), None
        )
        second = say(alice, "alice-thread-2", "Which language should you answer me in?")
        recalled = [r["id"] for r in second["recalled"]]
        checks.append(
            (
                "preference from thread 1 recalled in thread 2",
                old_id is not None and old_id in recalled and old_id in _system(model),
                f"record {str(old_id)[:8]} recalled={old_id in recalled}",
            )
        )

        console.rule("2. a changed preference supersedes the old one")
        changed = say(alice, "alice-thread-2", "Actually, I prefer answers in English.")
        new_id = next(
            (w["record_id"] for w in changed["memory_writes"] if w["action"] == "superseded"),
            None,
        )
        third = say(alice, "alice-thread-3", "Which language should you answer me in?")
        facts, past = memory_parts(_system(model))
        history = store.history(scope=Scope("alice"), subject="user", predicate="answer_language")
        # what alice said before may be quoted as past conversation, marked as changed later
        said_before = [line for line in past.splitlines() if "user:" in line and "Chinese" in line]
        checks.append(
            (
                "changed preference supersedes the old one",
                new_id is not None
                and new_id in [r["id"] for r in third["recalled"]]
                and str(old_id) not in facts
                and "Chinese" not in facts
                and all(f"changed later, see [{new_id}]" in line for line in said_before)
                and [r.id for r in history] == [old_id, new_id],
                f"old {str(old_id)[:8]} → new {str(new_id)[:8]}; "
                f"history keeps {len(history)} versions",
            )
        )

        console.rule("3. another user never sees alice's memory")
        bobs = say(bob, "bob-thread-1", "Which language should you answer me in?")
        system = _system(model)
        leaked = [r["id"] for r in bobs["recalled"] if r["id"] in {old_id, new_id}]
        checks.append(
            (
                "user B never sees user A's memory",
                not leaked and "Chinese" not in system and "English" not in system,
                f"bob recalled {len(bobs['recalled'])} record(s), none of alice's",
            )
        )
        say(bob, "bob-thread-1", "I prefer answers in French.")

        console.rule("4. forget alice")
        receipt = forget_user("alice", store=store, checkpointer=checkpointer)
        console.print(f"  receipt: {escape(str(receipt))}")
        left = store.count(scope=Scope("alice"), current_only=False)
        threads_left = [
            t
            for t in ("alice-thread-1", "alice-thread-2", "alice-thread-3")
            if checkpointer.get_tuple(
                {"configurable": {"thread_id": t, "checkpoint_ns": "", "user_id": "alice"}}
            )
        ]
        bob_kept = store.count(scope=Scope("bob"), current_only=False) > 0 and bool(
            checkpointer.get_tuple(
                {
                    "configurable": {
                        "thread_id": "bob-thread-1",
                        "checkpoint_ns": "",
                        "user_id": "bob",
                    }
                }
            )
        )
        checks.append(
            (
                "forget-user removes records and threads",
                left == 0
                and not threads_left
                and sorted(receipt["threads"] or [])
                == ["alice-thread-1", "alice-thread-2", "alice-thread-3"]
                and bob_kept,
                f"{receipt['records']} records, {len(receipt['threads'] or [])} threads removed; "
                f"bob's memory kept: {bob_kept}",
            )
        )
    finally:
        checkpointer.close()
        store.close()

    table = Table(title="checks")
    table.add_column("check")
    table.add_column("result")
    table.add_column("detail")
    for name, ok, detail in checks:
        table.add_row(
            escape(name), "[green]PASS[/green]" if ok else "[red]FAIL[/red]", escape(detail)
        )
    console.print(table)
    elapsed = time.perf_counter() - started
    passed = len(checks) == 4 and all(ok for _, ok, _ in checks)
    console.print(
        f"{'all checks passed' if passed else 'SOME CHECKS FAILED'} in {elapsed:.1f} s "
        f"(model: {SCRIPTED_LABEL})"
    )
    return 0 if passed else 1


__all__ = ["main"]
