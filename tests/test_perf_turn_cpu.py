"""The CPU a turn costs outside the model calls (issue 16, fourth pass), and that each cut
changed no result: the engine-filter memory, the PII-span memory, trace inputs redacted only
for a handler that sees them, decision log lines built only when they are logged, a thread's
episodes listed only when recall consults them, and record checks without per-character
loops. Real engine, real default embedder, a scripted chat model; no timing assertions
(``bench turn`` measures time)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.messages import HumanMessage
from langchain_core.runnables import ensure_config
from langgraph.checkpoint.memory import InMemorySaver

from langgraph_memory import MemoryContext, MemoryRecord, MemoryStore, Scope, create_memory_agent
from langgraph_memory.core import Kind, Layer, pii_detect
from langgraph_memory.core.logsafe import redact_value
from langgraph_memory.core.pii_detect import find_pii
from langgraph_memory.graph import tracing
from langgraph_memory.graph.nodes import load_memory, save_memory
from langgraph_memory.read.conversation import thread_index, thread_neighbours
from langgraph_memory.store import edge_convert
from langgraph_memory.store.edge_convert import root_filter
from langgraph_memory.store.filters import (
    And,
    Eq,
    HasId,
    In,
    IsEmpty,
    Not,
    Or,
    Range,
    listing_filter,
    recall_filter,
    user_filter,
)
from langgraph_memory.testing import ScriptedChatModel
from langgraph_memory.write import decision_log

from .test_perf_turn import _conversation, _numbered_ids, _record_rows
from .test_write_redact import FALSE_CASES, TRUE_CASES, URL_CASES

T = TypeVar("T")


# ---------------------------------------------------------------- engine filters
def _filters() -> list[Any]:
    alice = Scope(user_id="alice", project_id="p1", acl=["team"])
    ids = ("0b6f1c1e-8f0e-4a8e-9a51-1c3c2f1d0a11", "5a0c3e9d-0c59-4f0e-b5d5-6b7f3b2b6f22")
    return [
        # the engine reads True as 1 and the filter types compare them equal: each must
        # still get its own translation, whichever was remembered first
        Eq("k", True),
        Eq("k", 1),
        Eq("k", "1"),
        In("k", (True, False)),
        In("k", (1, 0)),
        In("k", ("1", "0")),
        In("k", ("a",)),
        Not(Eq("subject", "__write_ledger__")),
        Not(Not(IsEmpty("superseded_by"))),
        Or((Eq("layer", "procedural"), And((Eq("kind", "constraint"), In("layer", ("a", "b")))))),
        And((Eq("user_id", "alice"), HasId(ids), Not(HasId(ids[:1])))),
        And((Range("_valid_from", gt=3.5), Not(Range("_valid_to", lte=3)), Range("x", gte=1))),
        recall_filter(alice, filters={"layer": ["semantic", "episodic"]}),
        recall_filter(alice, filters={"layer": "episodic", "predicate": "said"}),
        recall_filter(Scope(user_id="bob")),
        listing_filter(alice, filters={"layer": "episodic", "subject": "thread:t1"}),
        user_filter("alice"),
        user_filter("alice", include_internal=True),
    ]


_ID_SET = re.compile(r"point_ids=\{([^}]*)\}")


def _shown(cond: Any) -> str:
    """The engine filter of ``cond`` as the engine's debug form (id sets sorted: the
    engine's hash set prints in any order)."""
    text = repr(root_filter(cond))
    return _ID_SET.sub(lambda m: "point_ids={" + ", ".join(sorted(m[1].split(", "))) + "}", text)


def test_remembered_filter_translations_are_the_ones_the_engine_would_get(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conds = _filters()
    edge_convert._converted.clear()
    monkeypatch.setattr(edge_convert, "CONVERTED_NODES", 0)  # memory off: translate each time
    fresh = [_shown(c) for c in conds]
    assert not edge_convert._converted
    monkeypatch.setattr(edge_convert, "CONVERTED_NODES", 1024)
    first = [_shown(c) for c in conds]  # fills the memory
    again = [_shown(c) for c in reversed(conds)][::-1]  # served from it
    assert first == fresh and again == fresh
    assert edge_convert._converted  # not vacuous: translations were remembered
    # the memory holds leaf and negated-leaf translations only (no ids, no clock-bound ranges)
    assert not any(key[0] in (HasId, Range, And, Or) for key in edge_convert._converted)
    assert all(
        key[0] is not Not or key[1][0] not in (HasId, Range) for key in edge_convert._converted
    )


def test_the_filter_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    edge_convert._converted.clear()
    monkeypatch.setattr(edge_convert, "CONVERTED_NODES", 8)
    for i in range(50):
        root_filter(Eq("user_id", f"user-{i}"))
    assert len(edge_convert._converted) == 8
    assert repr(root_filter(Eq("user_id", "user-3"))) == repr(
        edge_convert._translate(And((Eq("user_id", "user-3"),)))
    )


def test_one_batch_translates_each_filter_once_and_answers_as_separate_queries(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from langgraph_memory.store import edge
    from langgraph_memory.store.backend import EngineQuery
    from langgraph_memory.store.keyword import query_weights

    with MemoryStore(path=tmp_path / "m", embedder=embedder) as store:
        for user in ("alice", "bob"):
            store.add_many(
                [f"{user} drinks green tea", f"{user} rides a red bicycle", "tea and bikes"],
                scope=Scope(user_id=user),
            )
        vector = embedder.encode(["green tea"])[0]
        sparse = query_weights("green tea")
        alice = recall_filter(Scope(user_id="alice"))
        bob = recall_filter(Scope(user_id="bob"))
        queries = [
            EngineQuery(alice, 5, dense=vector, payload=["id"]),
            EngineQuery(alice, 5, sparse=sparse, idf_corpus=Eq("user_id", "alice"), payload=False),
            EngineQuery(bob, 5, dense=vector, payload=["id"]),
            EngineQuery(bob, 5, sparse=sparse, idf_corpus=Eq("user_id", "bob"), payload=False),
        ]
        alone = [store.backend.query_many([q])[0] for q in queries]
        calls: list[Any] = []
        translate = edge.root_filter
        monkeypatch.setattr(edge, "root_filter", lambda c: calls.append(c) or translate(c))
        batched = store.backend.query_many(queries)
    assert [[(h.id, h.score) for h in hits] for hits in batched] == [
        [(h.id, h.score) for h in hits] for hits in alone
    ]
    assert all(hits for hits in batched)  # not vacuous
    assert {h.id for h in batched[0]}.isdisjoint({h.id for h in batched[2]})  # each its filter
    assert len(calls) == 4  # alice's and bob's filters once each, and the two IDF corpora


# ---------------------------------------------------------------- PII spans
def _pii_texts() -> list[str]:
    texts = [t for _, t, _ in TRUE_CASES] + [t for _, t in FALSE_CASES]
    texts += [t for t, _ in URL_CASES]
    # near-identical texts must never share spans
    texts += ["call me at 138-0000-0000", "call me at 138-0000-0001", "call me at 138-0000-000"]
    texts += ["pw \ud800 hunter2!", "pw \udfff hunter2!", "[PHONE] and 13900000000", ""]
    return texts


def test_remembered_pii_spans_are_the_detectors_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _pii_texts()
    expected = [pii_detect._detect(t) for t in texts]
    assert sum(1 for spans in expected if spans) >= 20  # not vacuous
    pii_detect._found.clear()
    assert [find_pii(t) for t in texts] == expected  # computed, then remembered
    assert [find_pii(t) for t in texts] == expected  # served from memory
    spans = find_pii(texts[0])
    spans.append((0, 1, "phone"))  # a caller's list: the memory keeps its own
    assert find_pii(texts[0]) == expected[0]
    monkeypatch.setattr(pii_detect, "FOUND_TEXTS", 0)  # memory off: the same answers
    pii_detect._found.clear()
    assert [find_pii(t) for t in texts] == expected
    assert not pii_detect._found


def test_the_pii_memory_holds_no_text(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "my password is Tr0ub4dor&3 and my phone is 138-0000-0000"
    pii_detect._found.clear()
    spans = find_pii(secret)
    assert {kind for _, _, kind in spans} == {"password", "phone"}
    for key, value in pii_detect._found.items():
        assert isinstance(key, bytes) and len(key) == 32  # a digest, not the text
        assert all(
            isinstance(s, int) and isinstance(e, int) and k in {"password", "phone"}
            for s, e, k in value
        )
    assert "Tr0ub4dor" not in repr(pii_detect._found) and "0000" not in repr(pii_detect._found)
    monkeypatch.setattr(pii_detect, "FOUND_TEXTS", 4)
    for i in range(20):
        find_pii(f"call me at 138-0000-{i:04d}")
    assert len(pii_detect._found) == 4


# ---------------------------------------------------------------- trace runs
def _reference_traced(
    name: str,
    inputs: Mapping[str, Any],
    call: Callable[[], T],
    summary: Callable[[T], dict[str, Any]],
) -> T:
    """``traced`` as it was before this pass: inputs redacted for the metadata whether or not
    a handler is there, and again for the run's start."""
    config = ensure_config()
    manager = CallbackManager.configure(
        inheritable_callbacks=config.get("callbacks"),
        inheritable_tags=config.get("tags"),
        local_tags=[tracing.TRACE_TAG, name],
        inheritable_metadata=config.get("metadata"),
        local_metadata=dict(redact_value(dict(inputs))),
    )
    if not manager.handlers:
        return call()
    run = manager.on_chain_start({"name": name}, dict(redact_value(dict(inputs))), name=name)
    try:
        result = call()
    except BaseException as exc:
        run.on_chain_error(exc)
        raise
    run.on_chain_end(redact_value(summary(result)))
    return result


class RunRecorder(BaseCallbackHandler):
    """Every chain run the graph starts, as a tracer sees it (run ids by order of start)."""

    def __init__(self) -> None:
        self.runs: dict[UUID, dict[str, Any]] = {}

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kw: Any) -> None:
        self.runs[run_id] = {
            "name": kw.get("name"),
            "tags": sorted(kw.get("tags") or []),
            "metadata": {
                k: v for k, v in (kw.get("metadata") or {}).items() if not k.startswith("lang")
            },
            "inputs": inputs,
        }

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kw: Any) -> None:
        self.runs[run_id]["outputs"] = outputs

    def memory_runs(self) -> list[str]:
        return [
            _numbered(repr(r))
            for r in self.runs.values()
            if r["name"] in {tracing.RECALL_RUN, tracing.WRITE_RUN}
        ]


_MS = re.compile(r"\d+(?:\.\d+)? ms")
_TURN_ID = re.compile(r"lc_run--[0-9a-f-]+")


def _numbered(text: str) -> str:
    """:func:`_numbered_ids` with model-message ids and timings replaced too."""
    return _numbered_ids(_MS.sub("<ms>", _TURN_ID.sub("<run>", text)))


# ---------------------------------------------------------------- the whole turn, replayed
def _replay(path: Path, embedder: Any, *, fast: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A scripted two-thread conversation through the prebuilt graph with a tracer and INFO
    logging on (every path of this pass runs), ``fast`` or with each of its cuts undone;
    returns every turn's memory block and decisions, the records written, the runs the tracer
    saw and the package's log lines (ids by order of appearance)."""
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(edge_convert, "CONVERTED_NODES", 0)
            patch.setattr(pii_detect, "FOUND_TEXTS", 0)
            patch.setattr(load_memory, "traced", _reference_traced)
            patch.setattr(save_memory, "traced", _reference_traced)
            patch.setattr(load_memory, "ListedOnUse", _every_thread_listed)
        listings: list[str] = []
        # the reference lists each thread (as before thread_neighbours read around hits)
        listing = thread_neighbours if fast else thread_index

        def counted(store: MemoryStore, scope: Scope, subject: str, **kw: Any) -> Any:
            listings.append(subject)
            return listing(store, scope, subject, **kw) if fast else listing(store, scope, subject)

        patch.setattr(load_memory, "thread_neighbours", counted)
        edge_convert._converted.clear()
        pii_detect._found.clear()
        scope = Scope(user_id="u")
        lines: list[str] = []

        class Lines(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                lines.append(record.getMessage())

        handler, root = Lines(level=logging.INFO), logging.getLogger("langgraph_memory")
        level = root.level
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        recorder = RunRecorder()
        try:
            with MemoryStore(path=path, embedder=embedder) as store:
                store.add_many(
                    [
                        MemoryRecord(
                            user_id="u",
                            text="Answer in short bullet points",
                            layer=Layer.PROCEDURAL,
                            kind=Kind.INSTRUCTION,
                        ),
                        MemoryRecord(
                            user_id="u",
                            text="Never book red-eye flights",
                            kind=Kind.CONSTRAINT,
                            metadata={"explicit": True},
                        ),
                        "We use Postgres for the orders service",
                        "My sister lives in Osaka",
                    ],
                    scope=scope,
                )
                agent = create_memory_agent(
                    ScriptedChatModel(responder=lambda m, t: f"Noted: {m[-1].content[:20]}."),
                    store=store,
                    checkpointer=InMemorySaver(),
                )
                turns = []
                for i, text in enumerate(_conversation()[:14]):
                    out = agent.invoke(
                        {"messages": [HumanMessage(text, id=f"m{i}")]},
                        {
                            "configurable": {"thread_id": "a" if i % 3 else "b"},
                            "callbacks": [recorder],
                        },
                        context=MemoryContext(user_id="u"),
                    )
                    writes = [
                        (w["action"], w.get("kind"), w["reason"]) for w in out["memory_writes"]
                    ]
                    turns.append((_numbered(out["memory_block"]), _numbered(repr(writes))))
                store.flush_uses()
                rows = _record_rows(store, scope)
        finally:
            root.removeHandler(handler)
            root.setLevel(level)
    logged = [_numbered(line) for line in lines]
    return (turns, rows, recorder.memory_runs(), logged), len(listings)


def _every_thread_listed(subjects: list[str], listing: Callable[[str], Any]) -> dict[str, Any]:
    """load_memory's thread listings as they were: every thread a hit came from, at once."""
    return {subject: listing(subject) for subject in subjects}


def test_the_turn_cuts_change_no_block_decision_record_trace_or_log_line(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected, listed_before = _replay(
        tmp_path / "reference", embedder, fast=False, monkeypatch=monkeypatch
    )
    got, listed_now = _replay(tmp_path / "fast", embedder, fast=True, monkeypatch=monkeypatch)
    for part, want, have in zip(("turns", "records", "runs", "log"), expected, got, strict=True):
        assert have == want, part
    # two threads: a thread a hit came from is listed only when its turns fill a slot
    assert 0 < listed_now < listed_before
    turns, rows, runs, logged = got
    assert any("Relevant past conversation" in block for block, _ in turns)  # not vacuous
    assert sum(1 for row in rows if row[0] == "semantic") >= 5
    assert any("memory_recall" in r for r in runs) and any("memory_write" in r for r in runs)
    assert any(line.startswith("write decision: ") for line in logged)


# ---------------------------------------------------------------- work nobody sees
def _no_redaction(*_: Any, **__: Any) -> Any:
    raise AssertionError("redacted for nobody")


def test_without_a_handler_trace_inputs_are_not_redacted(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoryStore(path=tmp_path / "m", embedder=embedder) as store:
        store.add("My sister lives in Osaka", scope=Scope(user_id="u"))
        agent = create_memory_agent(
            ScriptedChatModel(responder=lambda m, t: "OK."),
            store=store,
            checkpointer=InMemorySaver(),
        )
        monkeypatch.setattr(tracing, "redact_value", _no_redaction)
        out = agent.invoke(
            {"messages": [HumanMessage("where does my sister live? call 138-0000-0000")]},
            {"configurable": {"thread_id": "t"}},
            context=MemoryContext(user_id="u"),
        )
    assert "Osaka" in out["memory_block"]


def test_trace_metadata_is_what_configure_with_local_metadata_gave() -> None:
    recorder = RunRecorder()
    inputs = {"user_id": "u", "query": "call me at 138-0000-0000"}
    seen: list[tuple[Any, ...]] = []

    def state(manager: Any) -> tuple[Any, ...]:
        return (
            manager.metadata,
            manager.inheritable_metadata,
            sorted(manager.tags),
            sorted(manager.inheritable_tags),
            [type(h).__name__ for h in manager.handlers],
            [type(h).__name__ for h in manager.inheritable_handlers],
        )

    def run(_: Any) -> Any:
        config = ensure_config()
        before = CallbackManager.configure(  # how the manager was configured before
            inheritable_callbacks=config.get("callbacks"),
            inheritable_tags=config.get("tags"),
            local_tags=[tracing.TRACE_TAG, tracing.RECALL_RUN],
            inheritable_metadata=config.get("metadata"),
            local_metadata=dict(redact_value(dict(inputs))),
        )
        now = tracing._trace_managers(tracing.RECALL_RUN, asynchronous=False)
        started = tracing._with_inputs(now, inputs)
        seen.append((state(before), state(now), started))
        return tracing.traced(tracing.RECALL_RUN, inputs, lambda: {"ids": []}, lambda r: r)

    from langchain_core.runnables import RunnableLambda

    config: Any = {"callbacks": [recorder], "metadata": {"app": "demo"}, "tags": ["t"]}
    RunnableLambda(run).invoke(None, config)
    ((before, now, started),) = seen
    assert now == before
    assert started == {"user_id": "u", "query": "call me at [PHONE]"}
    (traced,) = [r for r in recorder.runs.values() if r["name"] == tracing.RECALL_RUN]
    assert traced["inputs"] == started and traced["metadata"] == {"app": "demo", **started}
    assert "138-0000-0000" not in repr(recorder.runs)


def test_a_decision_line_nobody_logs_is_not_built(
    mem: MemoryStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from langgraph_memory import WritePipeline

    pipeline = WritePipeline(mem)
    scope = Scope(user_id="u")
    monkeypatch.setattr(decision_log, "scrub_text", _no_redaction)
    logging.getLogger("langgraph_memory.write").setLevel(logging.WARNING)
    try:
        report = pipeline.process_turn(
            "I prefer green tea", scope=scope, turn_id="t1", thread_id="t"
        )
    finally:
        logging.getLogger("langgraph_memory.write").setLevel(logging.NOTSET)
    assert report.decisions and report.decisions[0].action == "inserted"
    monkeypatch.undo()
    caplog.set_level(logging.INFO, logger="langgraph_memory")
    pipeline.process_turn("I prefer black coffee", scope=scope, turn_id="t2", thread_id="t")
    decisions = [r for r in caplog.records if getattr(r, "event", None) == "write_decision"]
    assert decisions and all(r.getMessage().endswith(r.reason) for r in decisions)  # type: ignore[attr-defined]


# ---------------------------------------------------------------- record validation
def _reference_identifier(value: Any, field: str) -> str:
    """``_clean_identifier`` as it was: a Python loop per character."""
    if not isinstance(value, str):
        raise ValueError(f"{field} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{field} must be a non-empty string")
    if value != value.strip():
        raise ValueError(f"{field} {value!r} has leading or trailing whitespace")
    if len(value) > 256:
        raise ValueError(f"{field} is longer than 256 characters")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise ValueError(f"{field} contains control characters")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
        raise ValueError(f"{field} contains lone surrogate code points")
    return value


def _outcome(check: Callable[[], Any]) -> tuple[str, str]:
    try:
        return ("ok", repr(check()))
    except (ValueError, TypeError, AttributeError) as exc:
        return (type(exc).__name__, str(exc))


def _record_id(value: Any) -> str:
    return MemoryRecord(id=value, user_id="u", text="t").id


def _reference_id(value: Any) -> str:
    import uuid

    return str(uuid.UUID(str(value)))


def test_identifier_and_id_checks_accept_refuse_and_return_as_before() -> None:
    import uuid
    from functools import partial

    from langgraph_memory.core.records import _clean_identifier

    values: list[Any] = ["alice", "a b", " alice", "alice\n", "a\tb", "a\x00b", "a\x7fb"]
    values += ["a\x1fb", "a\x80b", "a\ud800b", "a\udfff", "\ud800\x01", "x" * 256, "x" * 257]
    values += ["用户", "", "   ", "\u3000", "a\u2028b", 7, None]
    for value in values:
        got = _outcome(partial(_clean_identifier, value, "user_id"))
        assert got == _outcome(partial(_reference_identifier, value, "user_id")), value
    u = uuid.UUID("0b6f1c1e-8f0e-4a8e-9a51-1c3c2f1d0a11")
    ids: list[Any] = [str(u), str(u).upper(), "{" + str(u) + "}", "urn:uuid:" + str(u), u.hex]
    ids += [str(u)[:-1], str(u) + "0", " " + str(u), str(u).replace("0", "\uff10"), "x" * 36]
    ids += [str(u).replace("-", "_"), str(uuid.UUID(int=0)), str(uuid.UUID(int=2**128 - 1))]
    for value in ids:
        got, want = _outcome(partial(_record_id, value)), _outcome(partial(_reference_id, value))
        if want[0] == "ok":
            assert got == want, value  # the same canonical id
        else:
            assert got[0] == "ValidationError" and "id must be a UUID string" in got[1], value
