"""LangGraph integration: the agent state, the memory nodes, the prebuilt agent, the
``create_agent`` middleware, memory tools, the checkpointer and the ``BaseStore`` adapter.
"""
