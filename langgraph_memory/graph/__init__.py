"""LangGraph integration: the agent state, the memory nodes, the prebuilt agent, the
``create_agent`` middleware, memory tools, the checkpointer and the ``BaseStore`` adapter.

* :mod:`.state` — ``AgentState`` (the state schema) and ``MemoryContext`` (the run context).
* :mod:`.nodes` — the five memory nodes, one module each.
* :mod:`.prebuilt` — ``create_memory_agent``: the five nodes wired into a compiled graph.
* :mod:`.middleware` — ``MemoryMiddleware`` for ``langchain.agents.create_agent``.
* :mod:`.regenerate` — output checks and the one regeneration (``generate`` and the middleware).
* :mod:`.write_path` — the write-path options (``WritePipeline`` or ``BackgroundWriter``).
* :mod:`.turns` / :mod:`.memory_writes` — which messages are new turns to save; the
  ``memory_writes`` entries of the state (pure).
* :mod:`.tool_failures` — a failed tool call as an episodic record (pure).
* :mod:`.tools` / :mod:`.toolcalls` — the memory tools; tool-call helpers (``tool_choice``,
  tool calls written as text, held streaming).
* :mod:`.runtime` / :mod:`.tracing` — what a node reads from its runtime and the events it
  emits; child runs around store calls.
* :mod:`.checkpoint` / :mod:`.langgraph_store` — the owned checkpointer; the ``BaseStore``
  adapter.
"""
