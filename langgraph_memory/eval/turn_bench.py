"""Whole agent turn benchmark: ``python -m langgraph_memory bench turn``.

One run, same store, same scripted model (a fake LLM that answers at once, so the numbers
are what memory adds):

* **prebuilt graph** (:func:`~langgraph_memory.graph.prebuilt.create_memory_agent`) with ~400
  records in the user's scope: turn p50/p95 and its split into ``load_memory``,
  ``generate`` and ``save_memory`` (LangGraph's own node callbacks);
* the same graph with a :class:`~langgraph_memory.write.background.BackgroundWriter` (the
  turn only journals what to write; the pipeline runs in the writer's thread);
* **``create_agent`` + ``MemoryMiddleware``** against **``create_agent`` without memory**:
  turn p50/p95 of each and the overhead (difference of the percentiles).

The store is filled with real embeddings. The first turn of each agent is a warm-up (not
counted). Uses noted by recall are written in the background (``MemoryStore.record_use``),
so they are not part of a turn; they are flushed before the store closes.

JSON keys: ``records_in_scope, turns, load_average`` (1/5/15-minute load when the run
ended: the machine is shared, read the numbers with it), ``prebuilt: {turn_p50_ms,
turn_p95_ms, turn_cpu_ms, model_calls_per_turn, engine_calls_per_turn,
load_memory_p50_ms, load_memory_p95_ms, generate_p50_ms, generate_p95_ms,
save_memory_p50_ms, save_memory_p95_ms}, prebuilt_background_writer: {turn_p50_ms,
turn_p95_ms, turn_cpu_ms, engine_calls_per_turn, writer_waits_per_turn,
load_memory_p50_ms, load_memory_p95_ms, save_memory_p50_ms, save_memory_p95_ms},
middleware: {with_p50_ms, with_p95_ms, without_p50_ms, without_p95_ms, overhead_p50_ms,
overhead_p95_ms, with_turn_cpu_ms, without_turn_cpu_ms, overhead_turn_cpu_ms,
model_calls_per_turn, engine_calls_per_turn}``. ``turn_cpu_ms``: CPU milliseconds per
timed turn, the process time of the whole process (every thread, so background work such
as the writer's pipeline or the use flusher is in it while it runs during the timed turns)
divided by the number of timed turns; unlike the wall percentiles it barely moves with the
machine's load, so compare versions with it (``overhead_turn_cpu_ms``: with minus without
memory). ``model_calls_per_turn``: embedding-model calls per timed turn;
``engine_calls_per_turn``: vector-engine round trips the timed turns make themselves
(background work left out: the use flusher, the writer's pipeline); counts, so they do not
move with the machine's load. ``writer_waits_per_turn``: store calls of the background
writer that waited for a recall in flight (:mod:`~langgraph_memory.store.foreground`).
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..cli import PlainHelpFormatter
from ..core.scope import Scope
from ..embeddings import EmbeddingCache, load_embedder
from ..store import MemoryStore
from ..store.foreground import in_background_work
from .common import AGENT_TURNS, machine_info, make_console, percentile, print_table, write_json
from .pool import sentence

ENGINE_CALLS = (
    "upsert",
    "retrieve",
    "retrieve_vectors",
    "delete",
    "delete_where",
    "query",
    "query_many",
    "scroll_page",
    "scroll_ordered",
    "count",
    "count_keyword",
    "cas_write",
)
"""The engine round trips ``bench turn`` counts (methods of the store's vector backend)."""


def _count_engine_calls(backend: object) -> Callable[[], int]:
    """Count the calls of ``backend``'s round-trip methods (:data:`ENGINE_CALLS`) from now
    on made by the turns themselves: not those of background work (the use flusher, whose
    batches follow the clock, and the background writer); returns a function giving the
    count so far."""
    calls = [0]
    lock = threading.Lock()

    def counted(method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if not in_background_work():
                with lock:
                    calls[0] += 1
            return method(*args, **kwargs)

        return call

    for name in ENGINE_CALLS:
        method = getattr(backend, name, None)
        if callable(method):
            setattr(backend, name, counted(method))
    return lambda: calls[0]


def _text(i: int) -> str:
    return AGENT_TURNS[i % len(AGENT_TURNS)] + ("" if i < len(AGENT_TURNS) else f" ({i})")


def _time_turns(
    invoke: Callable[[int], Any],
    turns: int,
    calls: list[float] | None = None,
    model_calls: Callable[[], int] | None = None,
    forget: object = None,
    engine: tuple[Callable[[], int], list[float]] | None = None,
    cpu: list[float] | None = None,
) -> list[float]:
    """Per-turn wall milliseconds of ``turns`` turns after one warm-up turn; appends the
    process's CPU milliseconds per timed turn to ``cpu``, the
    embedding-model calls per turn (``model_calls()`` counts them so far) to ``calls``, and
    the engine round trips per turn (``engine``: a counter and the list to append to).
    ``forget``: the store's embedder, whose cache is emptied first (the cases share turn
    texts, and a later case must not be served the vectors of an earlier one)."""
    if isinstance(forget, EmbeddingCache):
        forget.clear()  # every case sees its turns' texts for the first time
    invoke(0)  # warm-up: first-call costs are not per-turn
    before = model_calls() if model_calls is not None else 0
    engine_before = engine[0]() if engine is not None else 0
    out = []
    cpu0 = time.process_time()
    for i in range(1, turns + 1):
        t0 = time.perf_counter()
        invoke(i)
        out.append((time.perf_counter() - t0) * 1e3)
    if cpu is not None:
        cpu.append((time.process_time() - cpu0) * 1e3 / max(1, turns))
    if calls is not None and model_calls is not None:
        calls.append((model_calls() - before) / max(1, turns))
    if engine is not None:
        engine[1].append((engine[0]() - engine_before) / max(1, turns))
    return out


def run(
    *, records: int = 400, turns: int = 100, embedder: str = "use-multilingual"
) -> dict[str, Any]:
    """Run both cases; returns the result document."""
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from ..graph.middleware import MemoryMiddleware
    from ..graph.prebuilt import create_memory_agent
    from ..graph.state import MemoryContext
    from ..testing import ScriptedChatModel
    from .node_timer import NodeTimer

    real = load_embedder(embedder)
    rng = random.Random(5)
    user = "turn-user"
    with tempfile.TemporaryDirectory(prefix="lgm-turn-") as tmp:
        store = MemoryStore(path=Path(tmp) / "store", embedder=real)
        calls: list[float] = []

        def model_calls() -> int:
            """Embedding-model calls so far (the store's EmbeddingCache counts them): unlike
            time, a count that does not depend on the machine's load."""
            cache = store.embedder
            return cache.calls if isinstance(cache, EmbeddingCache) else 0

        try:
            texts = [f"{sentence(rng)} ({i})" for i in range(records)]
            for start in range(0, records, 128):
                store.add_many(texts[start : start + 128], scope=Scope(user_id=user))
            context = MemoryContext(user_id=user)
            engine_calls: list[float] = []
            cpu: list[float] = []  # CPU ms per turn: prebuilt, writer, without, with
            counter = _count_engine_calls(store.backend)

            def model() -> ScriptedChatModel:
                return ScriptedChatModel(responder=lambda m, t: "OK.")

            agent = create_memory_agent(model(), store=store, checkpointer=InMemorySaver())
            timer = NodeTimer(["load_memory", "generate", "save_memory"])
            thread = f"turn-{uuid.uuid4().hex[:6]}"

            def prebuilt(i: int) -> None:
                agent.invoke(
                    {"messages": [HumanMessage(content=_text(i), id=f"p{i}")]},
                    {"configurable": {"thread_id": thread}, "callbacks": [timer.handler]},
                    context=context,
                )
                if i == 0:
                    timer.times.clear()

            prebuilt_ms = _time_turns(
                prebuilt,
                turns,
                calls,
                model_calls,
                store.embedder,
                (counter, engine_calls),
                cpu,
            )
            split = {
                f"{name}_{q}_ms": percentile(timer.times.get(name, []), p)
                for name in ("load_memory", "generate", "save_memory")
                for q, p in (("p50", 50), ("p95", 95))
            }

            from ..write import WritePipeline
            from ..write.background import BackgroundWriter

            writer = BackgroundWriter(WritePipeline(store), Path(tmp) / "journal")
            deferred = create_memory_agent(
                model(), store=store, checkpointer=InMemorySaver(), write_pipeline=writer
            )
            timer = NodeTimer(["load_memory", "generate", "save_memory"])
            thread = f"turn-bg-{uuid.uuid4().hex[:6]}"

            def background(i: int) -> None:
                deferred.invoke(
                    {"messages": [HumanMessage(content=_text(i), id=f"b{i}")]},
                    {"configurable": {"thread_id": thread}, "callbacks": [timer.handler]},
                    context=context,
                )
                if i == 0:
                    timer.times.clear()

            waits = store.foreground.waits
            background_ms = _time_turns(
                background, turns, forget=store.embedder, engine=(counter, engine_calls), cpu=cpu
            )
            writer.close(timeout=120)
            waits = store.foreground.waits - waits
            background_split = {
                f"{name}_{q}_ms": percentile(timer.times.get(name, []), p)
                for name in ("load_memory", "save_memory")
                for q, p in (("p50", 50), ("p95", 95))
            }

            def agent_turns(middleware: Sequence[Any]) -> list[float]:
                built = create_agent(
                    model(),
                    middleware=list(middleware),
                    context_schema=MemoryContext,
                    checkpointer=InMemorySaver(),
                )
                tid = f"agent-{uuid.uuid4().hex[:6]}"
                return _time_turns(
                    lambda i: built.invoke(
                        {"messages": [HumanMessage(content=_text(i), id=f"a{i}")]},
                        {"configurable": {"thread_id": tid}},
                        context=context,
                    ),
                    turns,
                    calls,
                    model_calls,
                    store.embedder,
                    (counter, engine_calls),
                    cpu,
                )

            without = agent_turns([])
            with_memory = agent_turns([MemoryMiddleware(store)])
            in_scope = store.count(scope=Scope(user_id=user))
        finally:
            store.close()
    mw = {
        "with_p50_ms": percentile(with_memory, 50),
        "with_p95_ms": percentile(with_memory, 95),
        "without_p50_ms": percentile(without, 50),
        "without_p95_ms": percentile(without, 95),
    }
    mw["overhead_p50_ms"] = mw["with_p50_ms"] - mw["without_p50_ms"]
    mw["overhead_p95_ms"] = mw["with_p95_ms"] - mw["without_p95_ms"]
    mw["with_turn_cpu_ms"], mw["without_turn_cpu_ms"] = cpu[3], cpu[2]
    mw["overhead_turn_cpu_ms"] = cpu[3] - cpu[2]
    mw["model_calls_per_turn"] = calls[2]  # calls[1]: the agent without memory (0)
    mw["engine_calls_per_turn"] = engine_calls[3]
    return {
        "benchmark": "turn",
        "embedder": real.name,
        "records_in_scope": in_scope,
        "turns": turns,
        "prebuilt": {
            "turn_p50_ms": percentile(prebuilt_ms, 50),
            "turn_p95_ms": percentile(prebuilt_ms, 95),
            "turn_cpu_ms": cpu[0],
            "model_calls_per_turn": calls[0],
            "engine_calls_per_turn": engine_calls[0],
            **split,
        },
        "prebuilt_background_writer": {
            "turn_p50_ms": percentile(background_ms, 50),
            "turn_p95_ms": percentile(background_ms, 95),
            "turn_cpu_ms": cpu[1],
            "engine_calls_per_turn": engine_calls[1],
            "writer_waits_per_turn": waits / max(1, turns),
            **background_split,
        },
        "middleware": mw,
        "targets": "turn <= 15/30 ms p50/p95; middleware overhead <= 10/20 ms",
        "machine": machine_info(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        formatter_class=PlainHelpFormatter, prog="langgraph-memory bench turn", description=__doc__
    )
    parser.add_argument("--records", type=int, default=400)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--embedder", default="use-multilingual")
    parser.add_argument("--quick", action="store_true", help="60 records, 10 turns")
    parser.add_argument("--out", default="bench-results/turn.json")
    ns = parser.parse_args(argv)
    if ns.quick:
        ns.records, ns.turns = 60, 10
    result = run(records=ns.records, turns=ns.turns, embedder=ns.embedder)
    console = make_console()
    p, m = result["prebuilt"], result["middleware"]
    print_table(
        console,
        f"prebuilt graph turn, {result['records_in_scope']} records in scope (ms)",
        [
            "turn p50",
            "turn p95",
            "CPU/turn",
            "load p50/p95",
            "generate p50/p95",
            "save p50/p95",
            "model calls",
            "engine calls",
        ],
        [
            [
                p["turn_p50_ms"],
                p["turn_p95_ms"],
                p["turn_cpu_ms"],
                f"{p['load_memory_p50_ms']:.1f} / {p['load_memory_p95_ms']:.1f}",
                f"{p['generate_p50_ms']:.1f} / {p['generate_p95_ms']:.1f}",
                f"{p['save_memory_p50_ms']:.1f} / {p['save_memory_p95_ms']:.1f}",
                f"{p['model_calls_per_turn']:.2f}",
                f"{p['engine_calls_per_turn']:.1f}",
            ]
        ],
    )
    b = result["prebuilt_background_writer"]
    print_table(
        console,
        "prebuilt graph turn with a BackgroundWriter (ms)",
        [
            "turn p50",
            "turn p95",
            "CPU/turn",
            "load p50/p95",
            "save (enqueue) p50/p95",
            "engine calls",
            "writer waits",
        ],
        [
            [
                b["turn_p50_ms"],
                b["turn_p95_ms"],
                b["turn_cpu_ms"],
                f"{b['load_memory_p50_ms']:.1f} / {b['load_memory_p95_ms']:.1f}",
                f"{b['save_memory_p50_ms']:.1f} / {b['save_memory_p95_ms']:.1f}",
                f"{b['engine_calls_per_turn']:.1f}",
                f"{b['writer_waits_per_turn']:.2f}",
            ]
        ],
    )
    print_table(
        console,
        "create_agent with MemoryMiddleware vs without memory (ms)",
        [
            "with p50",
            "with p95",
            "without p50",
            "without p95",
            "overhead p50",
            "overhead p95",
            "CPU/turn with / without / overhead",
            "model calls",
            "engine calls",
        ],
        [
            [
                m["with_p50_ms"],
                m["with_p95_ms"],
                m["without_p50_ms"],
                m["without_p95_ms"],
                m["overhead_p50_ms"],
                m["overhead_p95_ms"],
                f"{m['with_turn_cpu_ms']:.1f} / {m['without_turn_cpu_ms']:.1f}"
                f" / {m['overhead_turn_cpu_ms']:.1f}",
                f"{m['model_calls_per_turn']:.2f}",
                f"{m['engine_calls_per_turn']:.1f}",
            ]
        ],
    )
    console.print(f"load average (1/5/15 min): {result['load_average']}")
    written = write_json(ns.out, result)
    if written:
        console.print(f"results written to {written}")
    return 0


__all__ = ["main", "run"]
