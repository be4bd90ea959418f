"""The data model and the rules everything else builds on. Modules here import only each other and
:mod:`langgraph_memory.errors`.

* :mod:`~langgraph_memory.core.records` — ``MemoryRecord`` and its enums (``Kind``, ``Layer``,
  ``Status``, ``Source``), ``Evidence``; pure.
* :mod:`~langgraph_memory.core.scope` — ``Scope`` (tenant, project, ACL) and its engine filter;
  pure.
* :mod:`~langgraph_memory.core.config` — ``MemoryConfig``, ``RecallConfig``, ``LifecyclePolicy``
  (pydantic, validated, conflicting settings refused).
* :mod:`~langgraph_memory.core.text` — normalisation and the CJK-aware tokenizer both keyword
  channels use; pure.
* :mod:`~langgraph_memory.core.logsafe` — loggers named ``langgraph_memory.<area>`` whose
  messages never carry raw PII.

``MemoryRecord``, ``Scope`` and ``MemoryConfig`` are exported from the package root; the names
below are exported here.
"""

from .config import LifecyclePolicy, RecallConfig
from .records import Evidence, Kind, Layer, Source, Status
from .text import tokenize

__all__ = [
    "Evidence",
    "Kind",
    "Layer",
    "LifecyclePolicy",
    "RecallConfig",
    "Source",
    "Status",
    "tokenize",
]
