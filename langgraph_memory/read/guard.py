"""What stands between recall and the prompt: which recalled records may be injected, and how
their text is made safe to quote.

Pure functions, no I/O:

* :func:`reject_reason` — why a recalled record must not reach the prompt (scope, status,
  supersession, validity window, layer, task, thread), or ``None``.
* :func:`neutralize` / :func:`quote` — the prompt-injection defence of recalled text: one
  line, no tags, no quote breaks, nothing invisible.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.records import Layer, MemoryRecord
from ..core.scope import Scope
from ..core.text import strip_invisible
from .conversation import is_conversation

RECALL_LAYERS = (Layer.SEMANTIC.value, Layer.EPISODIC.value)
"""The layers recall injects (procedural memory is listed in full, never recalled)."""
THREAD_TASK_PREFIX = "thread:"
"""``task_id`` of an event recorded in a run without a task: ``"thread:<thread_id>"``."""


def neutralize(text: str) -> str:
    """Make stored text safe to quote in a prompt: one line, no tags, no quote breaks, nothing
    invisible.

    Zero-width, bidi-control and soft-hyphen characters
    (:data:`~langgraph_memory.core.text.INVISIBLE_CHARS`) are removed (no hidden word splits, no
    right-to-left override reordering what a reviewer sees), newlines become spaces (no fake
    ``System:`` lines), ``<``/``>`` become ``‹``/``›`` (no fake ``<system>`` or ``</memory>``
    tags) and double quotes become ``”`` (the quote cannot be closed from inside).
    """
    one_line = " ".join(strip_invisible(str(text)).split())
    return one_line.replace("<", "‹").replace(">", "›").replace('"', "”").replace("`", "ʼ")


def quote(text: str) -> str:
    """``neutralize(text)`` inside double quotes."""
    return f'"{neutralize(text)}"'


def reject_reason(
    record: MemoryRecord,
    scope: Scope,
    task_id: str | None,
    *,
    layers: Sequence[str],
    thread_id: str | None = None,
) -> str | None:
    """Why a recalled record must not be injected (``None`` if it may be): another
    user/project/ACL, not active, superseded, outside its validity window, expired, a layer
    that recall never injects, an episodic record of another task (conversation episodes
    are recalled across tasks and threads: what the user said holds beyond one task), or an
    event bound to another thread (``task_id`` ``"thread:<id>"``: a tool failure of a run
    without a task belongs to its thread; ``thread_id`` is the current one)."""
    if not scope.can_read(record.user_id, record.project_id, list(record.acl)):
        return "out_of_scope"
    if record.status.value != "active":
        return f"status_{record.status.value}"
    if record.superseded_by is not None:
        return "superseded"
    if not record.is_current():
        return "expired_or_invalid"
    if record.layer.value not in layers:
        return f"layer_{record.layer.value}"
    if (
        record.layer is Layer.EPISODIC
        and task_id is not None
        and record.task_id != task_id
        and not is_conversation(record)
    ):
        return "other_task"
    if (
        record.layer is Layer.EPISODIC
        and task_id is None
        and (record.task_id or "").startswith(THREAD_TASK_PREFIX)
        and record.task_id != f"{THREAD_TASK_PREFIX}{thread_id}"
    ):
        return "other_thread"
    return None


__all__ = ["RECALL_LAYERS", "THREAD_TASK_PREFIX", "neutralize", "quote", "reject_reason"]
