"""The memory store exposed as a LangGraph ``BaseStore``.

``graph.compile(store=LangGraphMemoryStore(memory_store))`` makes the scoped, versioned
:class:`~langgraph_memory.store.MemoryStore` available as ``runtime.store`` to code written
against LangGraph's store API (``put``/``get``/``search``/``list_namespaces``/``delete``, sync
and async, ``batch``/``abatch``), including LangMem's memory tools and store manager.

Namespaces and scope. A namespace template says which label names the user (and
optionally the project); see :mod:`.namespaces`. The default ``("{user_id}",)`` takes
one-label namespaces ``("alice",)``; LangMem's layout needs
``namespace_template=("memories", "{user_id}")``; ``("{user_id}", "{project_id}")`` maps a
second label to a project (project isolation then also holds for the memory nodes' recall).
A namespace that does not fit, and a search or listing prefix that does not reach the user
label, are refused with :class:`NamespaceTemplateError` (a ``ScopeError`` and LangGraph's
``InvalidNamespaceError``, so a ``ValueError``) before anything is read or written. Every
item is a record of the user its namespace names, so ``forget_user("alice")`` erases every
item under every namespace that maps to alice.

Items. ``get``/``search`` return ``Item.value`` exactly as it was put (any JSON dict, e.g.
LangMem's ``{"kind": "Memory", "content": {...}}``), with the namespace and key it was put
under; the full namespace tuple is stored with the record and searches match it by prefix
inside the engine (``search(("alice",))`` includes ``("alice", "proj1")`` items when the
template allows that namespace). Only items put through this adapter are items; records the
memory nodes write are not (their recall does see the items, as memories of the user).
The store's ``LifecyclePolicy`` applies to items as to any record: a value naming a record
field with a valid value (``"kind": "preference"``, ``"layer"``, ``"source"``,
``"confidence"``, ``"importance"``, ``"task_id"``) sets it on the record, and the policy's TTL
for that layer/kind and its capacity cap then hold for the item.

Embedding. ``put(index=None)`` embeds the store's ``index_fields`` paths, or by default
``value["text"]``, else the strings in ``value["content"]``, else every string of the value;
``index=[paths]`` embeds those paths (LangGraph path syntax), joined by newlines;
``index=False`` (or a value with no text) stores the item unindexed: ``search(query=...)``
ranks only indexed items and, like ``InMemoryStore``, fills a short page with unindexed ones
(score ``None``); the memory nodes' recall never sees unindexed items.

Search. ``filter`` follows ``InMemoryStore`` (equality, nested dicts, ``$eq``, ``$ne``,
``$gt``, ``$gte``, ``$lt``, ``$lte``; see :mod:`.values`); the conditions are pushed into the
engine query and every hit is re-checked exactly, so a selective filter is never applied to a
small candidate pool. With ``query``, items are ranked by the store's hybrid recall (dense +
BM25, reranked) and ``SearchItem.score`` is the absolute cosine similarity of the query
embedding with the item's embedded text (in ``[-1, 1]``; not normalised across hits, so the
order can differ slightly from score order). Without ``query``, items come oldest first (by
first put; ``InMemoryStore`` groups them by namespace) and ``score`` is ``None``.
``offset + limit`` of a query search is at most ``MAX_QUERY_WINDOW``.

TTL. ``supports_ttl`` is True; ``ttl_config`` is a LangGraph ``TTLConfig``
(``default_ttl``, ``refresh_on_read``; ``DEFAULT_TTL_CONFIG`` when not given). ``put(ttl=m)``
expires the item ``m`` minutes later; reads with ``refresh_ttl`` (default:
``refresh_on_read``) restart that clock. Expired items are gone for every read at once.

Inputs are refused before anything is written, with a ``TypeError``/``ValueError`` naming
the problem: a namespace or ``prefix`` that is not a tuple of strings, a key that is not a
non-empty string, a value that is not plain JSON within ``MAX_VALUE_BYTES`` and
``MAX_VALUE_DEPTH``, a ``ttl`` outside ``(0, MAX_TTL_MINUTES]`` minutes, a negative
``offset``/``limit``, a malformed filter (``FilterError``). A batch runs its operations in
order (a put is visible to the reads after it); ``abatch`` runs ``batch`` in a worker thread.
"""

from .adapter import LangGraphMemoryStore
from .checks import (
    DEFAULT_TTL_CONFIG,
    MAX_QUERY_WINDOW,
    MAX_TTL_MINUTES,
    MAX_VALUE_BYTES,
    MAX_VALUE_DEPTH,
)
from .namespaces import (
    DEFAULT_NAMESPACE_TEMPLATE,
    NamespaceTemplate,
    NamespaceTemplateError,
)

__all__ = [
    "DEFAULT_NAMESPACE_TEMPLATE",
    "DEFAULT_TTL_CONFIG",
    "MAX_QUERY_WINDOW",
    "MAX_TTL_MINUTES",
    "MAX_VALUE_BYTES",
    "MAX_VALUE_DEPTH",
    "LangGraphMemoryStore",
    "NamespaceTemplate",
    "NamespaceTemplateError",
]
