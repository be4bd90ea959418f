"""The systems the peers benchmark compares, one module each, behind one interface.

* :mod:`.base` — :class:`System`: bulk/single writes into a user's scope, top-k search.
* :mod:`.ours` — :class:`OursSystem`: this package's ``MemoryStore`` (embedded engine).
* :mod:`.inmemory` — :class:`InMemoryStoreSystem`: LangGraph ``InMemoryStore`` with an index.
* :mod:`.sqlite` — :class:`SqliteStoreSystem`: LangGraph ``SqliteStore`` over sqlite-vec.
* :mod:`.mem0` — :class:`Mem0System`: mem0 OSS, local Qdrant, no LLM.
* :mod:`.registry` — :func:`open_peer` (start a peer by key, or say why it cannot run) and
  :func:`peer_info` (versions and configuration for the result document).

Every system but ours is stateful over a third-party store; nothing here measures anything.
"""
