"""Reading the run's user and thread from a LangGraph ``RunnableConfig``: pure helpers shared
by the sync and async halves of
:class:`~langgraph_memory.graph.checkpoint.saver.OwnedCheckpointSaver`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig

from ...errors import ScopeError

try:  # the key under which LangGraph puts the run's Runtime into the config
    from langgraph._internal._constants import CONFIG_KEY_RUNTIME
except ImportError:  # pragma: no cover - older/newer layouts
    CONFIG_KEY_RUNTIME = "__pregel_runtime"


def user_value(value: Any) -> str | None:
    """A config's ``user_id`` value: ``None`` when absent/empty; never rewritten (an id with
    surrounding whitespace is refused, so ``" alice"`` cannot alias ``"alice"``)."""
    if not isinstance(value, str) or not value.strip():
        return None
    if value != value.strip():
        raise ScopeError(f"user_id {value!r} has leading or trailing whitespace; pass it exactly")
    return value


def user_arg(user_id: Any, what: str) -> str:
    """A ``user_id`` argument of an admin call: a non-empty string, exactly as stored."""
    value = user_value(user_id)
    if value is None:
        raise ScopeError(f"{what} needs a non-empty user_id")
    return value


def config_user_id(config: RunnableConfig | None) -> str | None:
    """The ``user_id`` of the run that produced ``config``: the runtime context first, then
    ``configurable["user_id"]`` / ``metadata["user_id"]``. ``None`` when none is named."""
    if not config:
        return None
    configurable = config.get("configurable") or {}
    runtime = configurable.get(CONFIG_KEY_RUNTIME)
    context = getattr(runtime, "context", None)
    if context is not None:
        value = user_value(
            context.get("user_id")
            if isinstance(context, Mapping)
            else getattr(context, "user_id", None)
        )
        if value is not None:
            return value
    for source in (configurable, config.get("metadata") or {}):
        value = user_value(source.get("user_id"))
        if value is not None:
            return value
    return None


NO_USER_HINT = (
    "pass the owner's user_id in config['configurable']['user_id'] (or the run's context=); "
    "admin code that must read every thread uses checkpointer.unscoped()"
)


def thread_configs(config: RunnableConfig | None, threads: Sequence[str]) -> list[RunnableConfig]:
    """One listing config per thread, keeping the caller's ``checkpoint_ns`` if it gave one."""
    namespace = (config or {}).get("configurable", {}).get("checkpoint_ns")
    out: list[RunnableConfig] = []
    for thread_id in threads:
        conf: dict[str, Any] = {"thread_id": thread_id}
        if namespace is not None:
            conf["checkpoint_ns"] = namespace
        out.append({"configurable": conf})
    return out


def config_thread_id(config: RunnableConfig | None) -> str | None:
    if not config:
        return None
    value = (config.get("configurable") or {}).get("thread_id")
    return None if value is None else str(value)


__all__ = [
    "CONFIG_KEY_RUNTIME",
    "NO_USER_HINT",
    "config_thread_id",
    "config_user_id",
    "thread_configs",
    "user_arg",
    "user_value",
]
