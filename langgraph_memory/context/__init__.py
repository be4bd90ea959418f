"""Context safety: token budgets, compaction, handles and constraint assertion.

README "Context safety" has the picture. Public names::

    from langgraph_memory.context import (TokenCounter, default_token_counter,
        CompactionConfig, CompactionResult, compact_messages, HandleStore,
        create_fetch_memory_tool, Constraint, ensure_constraints, check_output, Violation)

Modules (pure unless noted):

* :mod:`.tokens` — the :class:`TokenCounter` protocol, the calibrated default and the
  adapters for a caller's tokenizer; :mod:`.token_features` (its features and fitted
  weights), :mod:`.token_reference` (real tokenizers and :func:`benchmark_token_counter`,
  measurement only), :mod:`.token_samples` (the calibration sample).
* :mod:`.compaction` — keeping a history under budget (a package; see its docstring).
* :mod:`.handles` — :class:`HandleStore`, where compaction puts payloads (stateful, scoped
  per tenant); :mod:`.fetch_tool` — the ``fetch_memory`` tool that reads them back.
* :mod:`.constraints` — the :class:`Constraint` / :class:`Violation` model;
  :mod:`.constraint_block` — the prompt side (:func:`ensure_constraints`);
  :mod:`.checkers` — the output side (:func:`check_output`, the checker registry, stateful
  only through :func:`register_checker`).
* :mod:`.events` — :func:`emit_event`, the one emitter of the custom-stream events.
"""

from .checkers import check_output, register_checker, registered_checkers, unregister_checker
from .compaction import (
    META_KEY,
    CompactionConfig,
    CompactionResult,
    ExtractiveSummarizer,
    LLMSummarizer,
    Summarizer,
    acompact_messages,
    as_summarizer,
    compact_messages,
    find_orphans,
    is_protected,
    is_summary,
    needs_compaction,
    truncate_to_tokens,
)
from .constraint_block import (
    CONSTRAINT_BLOCK_END,
    CONSTRAINT_BLOCK_START,
    ensure_constraints,
    format_constraint_block,
    format_violations,
)
from .constraints import Constraint, Violation, constraint_present
from .events import emit_event
from .fetch_tool import create_fetch_memory_tool
from .handles import HandleStore, StoredPayload, is_handle
from .tokens import (
    CalibratedTokenCounter,
    CallableTokenCounter,
    TokenCounter,
    TokenizerTokenCounter,
    as_token_counter,
    default_token_counter,
    message_text,
)

__all__ = [
    "CONSTRAINT_BLOCK_END",
    "CONSTRAINT_BLOCK_START",
    "META_KEY",
    "CalibratedTokenCounter",
    "CallableTokenCounter",
    "CompactionConfig",
    "CompactionResult",
    "Constraint",
    "ExtractiveSummarizer",
    "HandleStore",
    "LLMSummarizer",
    "StoredPayload",
    "Summarizer",
    "TokenCounter",
    "TokenizerTokenCounter",
    "Violation",
    "acompact_messages",
    "as_summarizer",
    "as_token_counter",
    "check_output",
    "compact_messages",
    "constraint_present",
    "create_fetch_memory_tool",
    "default_token_counter",
    "emit_event",
    "ensure_constraints",
    "find_orphans",
    "format_constraint_block",
    "format_violations",
    "is_handle",
    "is_protected",
    "is_summary",
    "message_text",
    "needs_compaction",
    "register_checker",
    "registered_checkers",
    "truncate_to_tokens",
    "unregister_checker",
]
