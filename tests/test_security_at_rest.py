"""Redaction at rest: compaction handles and checkpoints keep no PII, and nothing the package
logs or streams carries PII or a stored value.

The probes are the fake values of ``tests/test_write_redact.py`` (never real PII): a phone
number, an e-mail address, a PRC national id with a valid check digit, a Luhn-valid test card,
a password and an API key. Every test drives real parts (real store, real embedder, compiled
graphs, SQLite files); only the chat model is scripted.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

from langgraph_memory import (
    MemoryContext,
    Scope,
    WritePipeline,
    create_checkpointer,
    create_memory_agent,
)
from langgraph_memory.context import HandleStore, compact_messages
from langgraph_memory.core.redact import Redactor, cn_id_check_char
from langgraph_memory.write import WriteConfig
from tests.fakes import FakeToolCallingChatModel, ScriptedChatModel

_BASE17 = "11010519900307123"
NATIONAL_ID = _BASE17 + cn_id_check_char(_BASE17)

PROBES: dict[str, str] = {
    "phone": "138-0000-0000",
    "email": "jane.doe@example.com",
    "national_id": NATIONAL_ID,
    "bank_card": "4111 1111 1111 1111",
    "password": "Tr0ub4dor&3",
    "api_key": "sk-proj-abcdefghijklmnopqrstuvwx",
}
"""The raw values; none may appear at rest, in a log record or in a streamed event."""

RAW_FORMS = [*PROBES.values(), "13800000000", "4111111111111111", "jane.doe"]
"""What counts as a leak: each value, and the digit-only / local-part forms."""

TURNS = [
    f"call me at {PROBES['phone']} after six",
    f"write to {PROBES['email']} please",
    f"my ID is {PROBES['national_id']}.",
    f"my card is {PROBES['bank_card']}",
    f"my password is {PROBES['password']}",
    f"my api key is {PROBES['api_key']}",
]


def leaks(text: str) -> list[str]:
    """The raw probe forms found in ``text``."""
    return [raw for raw in RAW_FORMS if raw in text]


def file_leaks(folder: Path) -> dict[str, list[str]]:
    """Raw probe forms in the bytes of every file under ``folder`` (as UTF-8 and as JSON's
    ``\\u`` escapes would not hide ASCII values)."""
    found: dict[str, list[str]] = {}
    for file in folder.rglob("*"):
        if file.is_file():
            text = file.read_bytes().decode("utf-8", "replace")
            hits = leaks(text)
            if hits:
                found[str(file.relative_to(folder))] = hits
    return found


def _cfg(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def test_probes_are_pii() -> None:
    """The probes really are what the redactor removes (else the tests below prove nothing)."""
    for kind, value in PROBES.items():
        text = next(t for t in TURNS if value in t)
        result = Redactor().redact(text)
        assert kind in result.types and not leaks(result.text), (kind, result.text)


# ---------------------------------------------------------------------------- handles
def test_handles_are_redacted_before_they_are_written(tmp_path: Path) -> None:
    store = HandleStore(tmp_path / "h")
    alice = Scope("alice")
    text_handle = store.put(alice, "\n".join(TURNS))
    quoted = f'my password is "{PROBES["password"]}" and mail {PROBES["email"]}'
    transcript = [
        {"id": "m1", "type": "human", "content": quoted},
        {
            "id": "m2",
            "type": "ai",
            "content": "",
            "tool_calls": [
                {
                    "name": "send",
                    "args": {"to": PROBES["email"], "card": PROBES["bank_card"]},
                    "id": "call_1",
                }
            ],
        },
    ]
    json_handle = store.put(alice, transcript, {"kind": "transcript"})
    assert file_leaks(tmp_path / "h") == {}
    assert not leaks(store.get(alice, text_handle))
    assert "[PHONE]" in store.get(alice, text_handle) and "[API_KEY]" in store.get(
        alice, text_handle
    )
    rows = json.loads(store.get(alice, json_handle))  # still valid JSON: redacted value by value
    assert [r["id"] for r in rows] == ["m1", "m2"] and rows[1]["tool_calls"][0]["id"] == "call_1"
    assert rows[0]["content"] == 'my password is "[PASSWORD]" and mail [EMAIL]'
    assert rows[1]["tool_calls"][0]["args"] == {"to": "[EMAIL]", "card": "[BANK_CARD]"}
    # a reopened store reads the redacted payload from disk
    assert not leaks(HandleStore(tmp_path / "h").get(alice, json_handle))
    # same raw content -> same handle (content-addressed on the redacted text)
    assert store.put(alice, "\n".join(TURNS)) == text_handle


def test_handles_follow_the_write_path_policy_or_opt_out(tmp_path: Path, mstore) -> None:  # type: ignore[no-untyped-def]
    pipeline = WritePipeline(mstore, config=WriteConfig(pii_policy={"email": "hash"}))
    hashed = HandleStore(redact=pipeline.redactor)
    content = hashed.get("alice", hashed.put("alice", TURNS[1]))
    assert content.startswith("write to [EMAIL#") and not leaks(content)
    raw = HandleStore(tmp_path / "raw", redact=False)
    assert raw.get("alice", raw.put("alice", TURNS[1])) == TURNS[1]
    with pytest.raises(ValueError, match="redact must be"):
        HandleStore(redact="yes")  # type: ignore[arg-type]


def test_compaction_transcripts_and_stubs_hold_no_pii(tmp_path: Path) -> None:
    store = HandleStore(tmp_path / "h")
    messages: list[Any] = []
    for i, turn in enumerate(TURNS * 3):
        messages.append(HumanMessage(content=f"{turn} " + "context " * 40, id=f"h{i}"))
        call = {"name": "lookup", "args": {"q": turn}, "id": f"c{i}"}
        messages.append(AIMessage(content="", tool_calls=[call], id=f"a{i}"))
        messages.append(
            ToolMessage(content=f"record: {turn} " + "row " * 120, tool_call_id=f"c{i}", id=f"t{i}")
        )
    result = compact_messages(messages, budget_tokens=1200, handle_store=store, scope="alice")
    assert result.changed and result.handles
    assert file_leaks(tmp_path / "h") == {}
    for handle in result.handles:
        payload = store.get("alice", handle)
        assert not leaks(payload)
        if payload.startswith("["):  # a transcript: valid JSON with the ids kept
            rows = json.loads(payload)
            assert all(r["id"] for r in rows)


# ---------------------------------------------------------------------------- checkpoints
def test_checkpoints_are_redacted_and_the_agent_still_works(tmp_path: Path, mstore) -> None:  # type: ignore[no-untyped-def]
    seen_by_tool: list[dict[str, Any]] = []

    @tool
    def send_email(to: str, body: str) -> str:
        """Send an e-mail."""
        seen_by_tool.append({"to": to, "body": body})
        return f"sent to {to}; the card on file is {PROBES['bank_card']}"

    model = FakeToolCallingChatModel(
        responses=[
            {
                "content": "",
                "tool_calls": [
                    {"name": "send_email", "args": {"to": PROBES["email"], "body": TURNS[0]}}
                ],
            },
            "done, I wrote to them",
        ],
        responder=lambda messages, tools: "noted",
    )
    cp_path = tmp_path / "cp.sqlite"
    checkpointer = create_checkpointer("sqlite", path=cp_path)
    agent = create_memory_agent(model, [send_email], store=mstore, checkpointer=checkpointer)
    ctx = MemoryContext(user_id="alice")
    first = agent.invoke({"messages": [("user", TURNS[1])]}, _cfg("t1"), context=ctx)
    # the run itself works on the raw values: the tool got the real address
    assert seen_by_tool == [{"to": PROBES["email"], "body": TURNS[0]}]
    assert first["messages"][-1].content == "done, I wrote to them"
    for turn in TURNS[2:]:
        agent.invoke({"messages": [("user", turn)]}, _cfg("t1"), context=ctx)

    config = {"configurable": {"thread_id": "t1", "user_id": "alice"}}
    state = agent.get_state(config)
    messages = state.values["messages"]
    assert not leaks(json.dumps([m.model_dump() for m in messages], default=str))
    # ids and types survive, so add_messages and the tool loop still work
    assert [m.id for m in messages[: len(first["messages"])]] == [m.id for m in first["messages"]]
    assert len({m.id for m in messages}) == len(messages)
    ai_call = next(m for m in messages if isinstance(m, AIMessage) and m.tool_calls)
    tool_msg = next(m for m in messages if isinstance(m, ToolMessage))
    assert ai_call.tool_calls[0]["args"]["to"] == "[EMAIL]"
    assert tool_msg.tool_call_id == ai_call.tool_calls[0]["id"]
    assert "[BANK_CARD]" in str(tool_msg.content)
    assert messages[0].content == "write to [EMAIL] please" and messages[0].type == "human"
    # a later turn reads the redacted history and the graph runs on
    out = agent.invoke({"messages": [("user", "what did I ask you?")]}, _cfg("t1"), context=ctx)
    assert out["messages"][-1].content == "noted"
    prompt = json.dumps([m.model_dump() for m in model.last_prompt], default=str)
    assert "[EMAIL]" in prompt and not leaks(prompt)
    # every turn was saved once: save_memory matched the redacted messages by id
    final = agent.get_state(config).values
    humans = {m.id for m in final["messages"] if isinstance(m, HumanMessage)}
    assert len(humans) == len(TURNS)  # 5 turns of TURNS[1:] and the question
    saved = final["saved_message_ids"]
    assert len(saved) == len(set(saved)) and humans <= set(saved)
    history = list(agent.get_state_history(config))
    assert not leaks(json.dumps([h.values for h in history], default=str))
    checkpointer.close()
    assert file_leaks(tmp_path) == {}


def test_checkpoint_redaction_opt_out_and_custom_policy(tmp_path: Path, mstore) -> None:  # type: ignore[no-untyped-def]
    ctx = MemoryContext(user_id="alice", save=False)
    raw_path = tmp_path / "raw" / "cp.sqlite"
    raw_path.parent.mkdir()
    raw = create_checkpointer("sqlite", path=raw_path, redact=False)
    agent = create_memory_agent(ScriptedChatModel(), store=mstore, checkpointer=raw)
    agent.invoke({"messages": [("user", TURNS[1])]}, _cfg("t"), context=ctx)
    raw.close()
    assert "jane.doe" in raw_path.read_bytes().decode("utf-8", "replace")  # stored as said

    pipeline = WritePipeline(mstore, config=WriteConfig(pii_policy={"email": "hash"}))
    hashed = create_checkpointer("memory", redact=pipeline.redactor)
    agent = create_memory_agent(ScriptedChatModel(), store=mstore, checkpointer=hashed)
    agent.invoke({"messages": [("user", TURNS[1])]}, _cfg("t"), context=ctx)
    stored = agent.get_state({"configurable": {"thread_id": "t", "user_id": "alice"}})
    assert stored.values["messages"][0].content.startswith("write to [EMAIL#")
    with pytest.raises(ValueError, match="redact must be"):
        create_checkpointer("memory", redact="no")  # type: ignore[arg-type]


async def test_async_runs_store_redacted_checkpoints(mstore) -> None:  # type: ignore[no-untyped-def]
    agent = create_memory_agent(
        ScriptedChatModel(), store=mstore, checkpointer=create_checkpointer("memory")
    )
    ctx = MemoryContext(user_id="alice")
    for turn in TURNS:
        await agent.ainvoke({"messages": [("user", turn)]}, _cfg("a"), context=ctx)
    state = await agent.aget_state({"configurable": {"thread_id": "a", "user_id": "alice"}})
    # the scripted model echoes the user: neither the turn nor the echo is stored raw
    assert len(state.values["messages"]) == 2 * len(TURNS)
    assert not leaks(json.dumps([m.model_dump() for m in state.values["messages"]], default=str))


# ---------------------------------------------------------------------------- logs and streams
class _Capture(logging.Handler):
    """Every record of the package's loggers, as handlers would receive it."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


def _record_text(record: logging.LogRecord) -> str:
    """A record's message, every ``extra=`` field and its traceback text, as one string."""
    extras = {k: v for k, v in vars(record).items() if k not in _STANDARD}
    return "\n".join([record.getMessage(), json.dumps(extras, default=str), record.exc_text or ""])


@pytest.fixture
def captured() -> Iterator[_Capture]:
    handler = _Capture()
    root = logging.getLogger("langgraph_memory")
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


def test_logs_and_streams_carry_no_pii_or_stored_value(  # type: ignore[no-untyped-def]
    tmp_path: Path, mstore, captured: _Capture
) -> None:
    from langchain.agents import create_agent

    from langgraph_memory import BackgroundWriter, MemoryMiddleware

    stored_old, stored_new = "zorblatt tea", "quintessa coffee"  # non-PII stored values

    @tool
    def lookup(query: str) -> str:
        """Look a customer up."""
        return f"customer {query}: phone {PROBES['phone']}, " + "history " * 300

    events: list[Any] = []
    # 1. the compiled graph: recall, compaction into handles, tools, save_memory
    script = iter(
        [{"content": "", "tool_calls": [{"name": "lookup", "args": {"query": TURNS[1]}}]}]
    )
    model = FakeToolCallingChatModel(responder=lambda m, t: next(script, "noted"))
    agent = create_memory_agent(
        model,
        [lookup],
        store=mstore,
        checkpointer=create_checkpointer("sqlite", path=tmp_path / "cp.sqlite"),
        handle_store=HandleStore(tmp_path / "handles"),
        compaction_budget_tokens=700,
    )
    ctx = MemoryContext(user_id="alice")
    for turn in [*TURNS, f"I prefer {stored_old}", f"I prefer {stored_new} now, not {stored_old}"]:
        events += agent.stream(
            {"messages": [("user", turn)]}, _cfg("g1"), context=ctx, stream_mode="custom"
        )
    names = {e.get("langgraph_memory") for e in events if isinstance(e, dict)}
    assert {"memory_loaded", "memory_saved", "compaction"} <= names, names
    superseded = [e for e in events if e.get("langgraph_memory") == "memory_saved"]
    assert any("'…'" in r for e in superseded for r in e["reasons"]), superseded
    assert list((tmp_path / "handles").rglob("*.json")), "compaction stored no handle"

    # 2. the background writer
    writer = BackgroundWriter(WritePipeline(mstore), tmp_path / "journal.jsonl")
    for i, turn in enumerate(TURNS):
        writer.enqueue(turn, scope=Scope("bob"), turn_id=f"b{i}", thread_id="bg")
    assert writer.flush(timeout=120)
    writer.close()

    # 3. the middleware of langchain.agents.create_agent
    mw_agent = create_agent(
        ScriptedChatModel(responder=lambda m, t: "noted"),
        [],
        middleware=[MemoryMiddleware(mstore)],
        context_schema=MemoryContext,
        checkpointer=create_checkpointer("memory"),
    )
    for turn in TURNS:
        events += mw_agent.stream(
            {"messages": [("user", turn)]},
            _cfg("m1"),
            context=MemoryContext(user_id="carol"),
            stream_mode="custom",
        )

    assert len(captured.records) > 50 and events
    leaked_logs = [
        (r.name, r.getMessage(), leaks(_record_text(r)))
        for r in captured.records
        if leaks(_record_text(r))
    ]
    assert leaked_logs == []
    leaked_events = [e for e in events if leaks(json.dumps(e, default=str, ensure_ascii=False))]
    assert leaked_events == []
    for value in (stored_old, stored_new):  # stored values are not quoted in logs or events
        word = value.split()[0]
        assert not [r.getMessage() for r in captured.records if word in _record_text(r)]
        assert not [e for e in events if word in json.dumps(e, default=str)]
    # and nothing at rest either: checkpoints, handles, the journal
    assert file_leaks(tmp_path) == {}


def test_the_log_filter_redacts_messages_extras_and_tracebacks(captured: _Capture) -> None:
    from langgraph_memory.core.logsafe import get_logger

    log = get_logger("test_at_rest")
    try:
        raise ValueError(f"bad input {PROBES['email']}")
    except ValueError:
        log.warning(
            "user said %s",
            TURNS[0],
            extra={"nested": {"items": [TURNS[4], ("x", TURNS[5])]}, "count": 3},
            exc_info=True,
        )
    [record] = [r for r in captured.records if r.name == "langgraph_memory.test_at_rest"]
    assert not leaks(_record_text(record))
    assert record.getMessage() == "user said call me at [PHONE] after six"
    assert record.nested == {
        "items": ["my password is [PASSWORD]", ("x", "my api key is [API_KEY]")]
    }
    assert record.count == 3 and "ValueError: bad input [EMAIL]" in (record.exc_text or "")
    text = logging.Formatter("%(message)s").format(record)  # a plain handler prints no raw value
    assert not leaks(text) and "[EMAIL]" in text


def test_every_package_logger_has_the_filter() -> None:
    """Every module gets its logger from ``logsafe.get_logger`` (so the net is always on)."""
    import importlib
    import pkgutil
    import re

    import langgraph_memory
    from langgraph_memory.core.logsafe import RedactingFilter

    root = Path(langgraph_memory.__file__).parent
    direct = re.compile(r"getLogger\(\s*[\"']langgraph_memory\.")  # a child logger
    offenders = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.name != "logsafe.py" and direct.search(p.read_text("utf-8"))
    ]
    assert offenders == [], f"use logsafe.get_logger in {offenders}"
    for info in pkgutil.walk_packages(langgraph_memory.__path__, "langgraph_memory."):
        if ".eval." not in info.name and not info.name.endswith("__main__"):  # peers; argv
            importlib.import_module(info.name)
    loggers = [
        logging.getLogger(name)
        for name in list(logging.Logger.manager.loggerDict)
        if name.startswith("langgraph_memory.")
    ]
    assert loggers
    missing = [
        lg.name for lg in loggers if not any(isinstance(f, RedactingFilter) for f in lg.filters)
    ]
    assert missing == []


def test_scrub_text_removes_quoted_values_and_pii() -> None:
    from langgraph_memory.core.logsafe import scrub_text

    assert (
        scrub_text("passed all gates; value changed from 'zorblatt'; old version kept")
        == "passed all gates; value changed from '…'; old version kept"
    )
    assert scrub_text("user corrected \"it's blue\" to 'red' (named)") == (
        "user corrected '…' to '…' (named)"
    )
    assert scrub_text("this turn's write is already in the fact's history") == (
        "this turn's write is already in the fact's history"
    )
    assert scrub_text(f"mail {PROBES['email']}") == "mail [EMAIL]"
    assert uuid.UUID(scrub_text(str(uuid.UUID(int=7))))  # ids pass unchanged


def test_stream_events_are_redacted_as_a_net(captured: _Capture) -> None:
    from langgraph_memory.context.events import emit_event
    from langgraph_memory.graph.runtime import emit as _emit
    from tests.fakes import fake_runtime

    event = emit_event("probe", {"detail": TURNS[0], "ids": ["r1"], "n": 2})
    assert event == {
        "langgraph_memory": "probe",
        "detail": "call me at [PHONE] after six",
        "ids": ["r1"],
        "n": 2,
    }
    runtime = fake_runtime("alice")
    _emit(runtime, "probe", {"why": [TURNS[1]], "user_id": "alice"})
    assert runtime.stream_writer == [
        {"langgraph_memory": "probe", "why": ["write to [EMAIL] please"], "user_id": "alice"}
    ]
    assert not [r for r in captured.records if leaks(_record_text(r))]


def test_the_net_keeps_ids() -> None:
    """Record ids are UUIDs; one after the word "tokens" must not read as an API key."""
    from langgraph_memory.core.logsafe import redact_value, scrub_text

    rid = str(uuid.uuid4())
    line = f"system text 586 -> 469 tokens (limit 526), dropped {rid}, lc_run--{rid}-0"
    assert redact_value(line) == line and scrub_text(line) == line
    assert redact_value(f"token {rid} and {PROBES['api_key']}") == f"token {rid} and [API_KEY]"


def test_postgres_checkpoints_are_redacted(mstore) -> None:  # type: ignore[no-untyped-def]
    from tests.test_graph_checkpoint import _require_postgres

    dsn = _require_postgres()
    checkpointer = create_checkpointer("postgres", dsn=dsn)
    agent = create_memory_agent(ScriptedChatModel(), store=mstore, checkpointer=checkpointer)
    ctx = MemoryContext(user_id="alice", save=False)
    thread = f"pg-{uuid.uuid4().hex}"
    for turn in TURNS:
        agent.invoke({"messages": [("user", turn)]}, _cfg(thread), context=ctx)
    state = agent.get_state({"configurable": {"thread_id": thread, "user_id": "alice"}})
    assert [m.type for m in state.values["messages"]] == ["human", "ai"] * len(TURNS)
    checkpointer.close()
    import psycopg

    with psycopg.connect(dsn) as conn:  # every stored byte of the thread, decoded
        rows = [
            *conn.execute(
                "SELECT checkpoint::text FROM checkpoints WHERE thread_id = %s", (thread,)
            ),
            *conn.execute("SELECT blob FROM checkpoint_blobs WHERE thread_id = %s", (thread,)),
            *conn.execute("SELECT blob FROM checkpoint_writes WHERE thread_id = %s", (thread,)),
        ]
    stored = "\n".join(
        bytes(r[0]).decode("utf-8", "replace")
        if isinstance(r[0], bytes | memoryview)
        else str(r[0])
        for r in rows
        if r[0] is not None
    )
    assert "[EMAIL]" in stored and not leaks(stored)
