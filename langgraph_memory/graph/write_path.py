"""How the graph writes memory: the write-path options of ``save_memory``,
``create_memory_agent`` and ``MemoryMiddleware``, checked in one place.

* :data:`WritePath` — what a turn is written through: a
  :class:`~langgraph_memory.write.WritePipeline` (in the turn) or a
  :class:`~langgraph_memory.write.BackgroundWriter` (the turn waits only for a journal fsync).
* :func:`pipeline_of` — the pipeline behind either (its store, redactor and config).
* :data:`LLMOption` / :func:`write_options` — the LLM extractor option, and the check that
  refuses a pipeline given together with options it would ignore.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..write import BackgroundWriter, WriteConfig, WritePipeline
from ..write.extract.llm import LLMExtractor
from ..write.extract.llm_schema import StructuredChatModel

PIPELINE_AND_OPTIONS = (
    "pass either a write pipeline or config/llm_extractor, not both: configure the "
    "WritePipeline itself (WritePipeline(store, config, llm_extractor=...))"
)
NOT_A_PIPELINE = "pipeline must be a WritePipeline or a BackgroundWriter, got {type}"
NOT_A_WRITE_CONFIG = "config must be a WriteConfig, got {type}"

WritePath = WritePipeline | BackgroundWriter
"""What ``save_memory`` writes through: a pipeline (in the turn) or a background writer."""

LLMOption = StructuredChatModel | LLMExtractor
"""An LLM extractor option: a chat model with ``with_structured_output`` or an
:class:`~langgraph_memory.write.LLMExtractor`."""


def write_options(
    pipeline: WritePath | None,
    config: WriteConfig | None,
    llm_extractor: LLMOption | None,
) -> LLMExtractor | None:
    """Check the write options of ``save_memory`` / ``create_memory_agent`` /
    ``MemoryMiddleware`` together; returns the LLM extractor (a model is wrapped). Raises
    :class:`~langgraph_memory.errors.ConfigError` for a bad type or a pipeline given with
    options it would silently ignore."""
    if pipeline is not None and not isinstance(pipeline, WritePipeline | BackgroundWriter):
        raise ConfigError(NOT_A_PIPELINE.format(type=type(pipeline).__name__))
    if config is not None and not isinstance(config, WriteConfig):
        raise ConfigError(NOT_A_WRITE_CONFIG.format(type=type(config).__name__))
    if pipeline is not None and (config is not None or llm_extractor is not None):
        raise ConfigError(PIPELINE_AND_OPTIONS)
    if llm_extractor is None or isinstance(llm_extractor, LLMExtractor):
        return llm_extractor
    return LLMExtractor(llm_extractor)


def pipeline_of(path: WritePath) -> WritePipeline:
    """The :class:`WritePipeline` behind ``path``: itself, or a background writer's own
    pipeline (where its store, redactor and config are: a ``BackgroundWriter`` has no
    ``.store`` of its own)."""
    return path.pipeline if isinstance(path, BackgroundWriter) else path


__all__ = [
    "NOT_A_PIPELINE",
    "NOT_A_WRITE_CONFIG",
    "PIPELINE_AND_OPTIONS",
    "LLMOption",
    "WritePath",
    "pipeline_of",
    "write_options",
]
