"""The LLM extractor's contract: :class:`StructuredChatModel`, the structured-output schema
(:class:`ExtractedFact`, :class:`ExtractionResult`, lenient about odd kinds and confidences),
the prompts and the user-visible error texts."""

from __future__ import annotations

import re
from typing import Any, Literal, Protocol, runtime_checkable

from langchain_core.language_models import LanguageModelInput
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...core.logsafe import get_logger

log = get_logger("write")


@runtime_checkable
class StructuredChatModel(Protocol):
    """A chat model that can answer in a given schema: any LangChain ``BaseChatModel`` with
    ``with_structured_output`` (``init_chat_model("openai:gpt-4o-mini")``, Anthropic, Ollama,
    ``ChatLlamaCpp``, ...). Only this one method is used."""

    def with_structured_output(
        self, schema: type[BaseModel], **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """A runnable that answers a prompt with an instance of ``schema`` (or its dict)."""
        ...


LLM_KINDS = ("preference", "constraint", "stable_fact", "correction", "event", "other")
"""The kinds the LLM extractor may report (an enum in the schema, so constrained decoding
cannot invent one); anything else a model writes becomes ``other`` (and is rejected by the
kind gate), so one odd value never discards the whole answer."""

LLMKind = Literal["preference", "constraint", "stable_fact", "correction", "event", "other"]

ODD_KIND = (
    "LLM fact kind {value!r} is not one of {kinds}: read as 'other' (the kind gate rejects it)"
)
ODD_CONFIDENCE = "LLM fact confidence {value!r} is {why}: read as {result:g}"
DROPPED_FACT = "dropped LLM fact #{index}: {reason} (the other facts of the answer are kept)"
NOT_A_FACT_LIST = "LLM answer 'facts' is a {type}, not a list: no LLM facts from this answer"


def _llm_kind(value: object) -> str:
    text = re.sub(r"[\s-]+", "_", str(value or "").strip().lower())
    if text in LLM_KINDS:
        return text
    log.info(
        ODD_KIND.format(value=str(value)[:40], kinds=", ".join(LLM_KINDS)),
        extra={"event": "llm_fact_odd_kind"},
    )
    return "other"


def _llm_confidence(value: object) -> float:
    """A model's confidence as a probability, per fact: 0..1 as is, 1..10 read as tenths,
    10..100 as a percentage, above 100 clamped to 1; anything unreadable or negative is 0 (so
    the confidence gate rejects that fact). Every rescale or clamp is logged."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = float("nan")
    if number != number or number < 0:  # NaN, unreadable or negative
        result, why = 0.0, "unreadable or negative"
    elif number <= 1.0:
        return number
    elif number <= 10.0:
        result, why = number / 10.0, "above 1 (a 0-10 scale)"
    elif number <= 100.0:
        result, why = number / 100.0, "above 10 (a percentage)"
    else:
        result, why = 1.0, "above 100 (clamped)"
    log.info(
        ODD_CONFIDENCE.format(value=str(value)[:20], why=why, result=result),
        extra={"event": "llm_fact_odd_confidence"},
    )
    return result


SCHEMA_REQUIRED = ("subject", "predicate", "object", "kind", "quote", "confidence")
"""The fields a structured-output schema asks every fact for."""


def _schema_requires(schema: dict[str, Any]) -> None:
    schema["required"] = list(SCHEMA_REQUIRED)


class ExtractedFact(BaseModel):
    """One fact as the LLM extractor reports it (the structured-output schema).

    ``kind`` is an enum of :data:`LLM_KINDS`; a value outside it (a model not constrained by
    the schema) is read as ``other``. ``confidence`` on a 0–10 or 0–100 scale is rescaled to
    0–1 and clamped (:func:`_llm_confidence`): a small model's odd value costs that fact,
    never the whole answer.

    The JSON schema requires ``subject``, ``quote`` and ``confidence`` besides the fact (a
    grammar built from it makes a constrained model write them; with them optional, small
    models skip them), but validation does not: a model that omits them still yields the
    fact (``subject`` ``user``, an empty quote — grounding checks the turn itself — and
    confidence 0, which the confidence gate rejects with its reason)."""

    model_config = ConfigDict(json_schema_extra=_schema_requires)

    subject: str = Field("user", description="'user', 'assistant' or 'project'")
    predicate: str = Field(description="snake_case attribute, e.g. answer_language, diet, name")
    object: str = Field(description="the value, as short as possible, in the user's words")
    kind: LLMKind = Field(
        description="preference | constraint | stable_fact | correction | event | other"
    )
    quote: str = Field("", description="the exact words of the user this fact comes from")
    confidence: float = Field(0.0, description="between 0 and 1")
    stated_by_user: bool = Field(
        True, description="false when the fact is inferred rather than stated by the user"
    )
    hedged: bool = Field(False, description="true when the user was tentative")
    explicit: bool = Field(False, description="true when the user asked to remember it / always")
    project_level: bool = Field(False, description="true when the fact is about the project")

    @field_validator("kind", mode="before")
    @classmethod
    def _known_kind(cls, value: Any) -> str:  # raw model output: anything
        return _llm_kind(value)

    @field_validator("confidence", mode="before")
    @classmethod
    def _probability(cls, value: Any) -> float:  # raw model output: anything
        return _llm_confidence(value)

    @field_validator("subject", "predicate", "object", "quote", mode="before")
    @classmethod
    def _scalar_text(cls, value: Any) -> Any:  # a number or bool as a value is still a value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        return "" if value is None else value


def _validation_reason(exc: ValidationError) -> str:
    """What was wrong, without the model's values (they may quote the turn)."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'fact'}: {err['msg']}" for err in exc.errors()
    )


class ExtractionResult(BaseModel):
    """Structured output of the LLM extractor: a list of facts (possibly empty).

    Facts are validated one by one: a malformed fact (no predicate, a value that is not
    text, not an object at all) is dropped and logged with the reason, the others are kept;
    ``facts: null`` or a missing list is an empty answer."""

    facts: list[ExtractedFact] = Field(default_factory=list)

    @field_validator("facts", mode="before")
    @classmethod
    def _each_fact(cls, value: Any) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, dict):  # one fact instead of a list of one
            value = [value]
        if not isinstance(value, list | tuple):
            log.warning(
                NOT_A_FACT_LIST.format(type=type(value).__name__),
                extra={"event": "llm_fact_dropped"},
            )
            return []
        kept: list[ExtractedFact] = []
        for index, item in enumerate(value):
            if isinstance(item, ExtractedFact):
                kept.append(item)
                continue
            try:
                kept.append(ExtractedFact.model_validate(item))
            except ValidationError as exc:
                reason = _validation_reason(exc)
                log.warning(
                    DROPPED_FACT.format(index=index, reason=reason),
                    extra={"event": "llm_fact_dropped", "index": index, "reason": reason},
                )
        return kept


LLM_SYSTEM_PROMPT = (
    "Extract durable facts about the user from the user's message: preferences, constraints, "
    "stable facts, corrections. Return only what the user stated; quote their exact words. "
    "Do not summarise. Do not extract requests that concern only the current task. "
    "Placeholders like [EMAIL] are redacted values: never guess them. Return an empty list "
    "when there is nothing durable."
)

LLM_TURNS_PROMPT = (
    "Extract durable facts about the user from the user's messages below (several turns of "
    "one conversation, oldest first, separated by lines of ---): preferences, constraints, "
    "stable facts, corrections. A later message may change an earlier one: report the value "
    "the user settled on. Return only what the user stated; quote their exact words from one "
    "message. Do not summarise. Do not extract requests that concern only the current task. "
    "Placeholders like [EMAIL] are redacted values: never guess them. Return an empty list "
    "when there is nothing durable."
)
"""System prompt of :meth:`LLMExtractor.extract_turns` (one call over a burst of turns)."""

TURN_SEPARATOR = "\n---\n"
"""Between the turns of one :meth:`LLMExtractor.extract_turns` prompt."""

NOT_A_CHAT_MODEL = (
    "llm_extractor must be an LLMExtractor or a chat model with with_structured_output "
    "(e.g. init_chat_model('openai:gpt-4o-mini')), got {type}"
)


NO_STRUCTURED_OUTPUT = "{type} does not support with_structured_output (it needs tool calling)"


__all__ = [
    "DROPPED_FACT",
    "LLM_KINDS",
    "LLM_SYSTEM_PROMPT",
    "LLM_TURNS_PROMPT",
    "NOT_A_CHAT_MODEL",
    "NOT_A_FACT_LIST",
    "NO_STRUCTURED_OUTPUT",
    "ODD_CONFIDENCE",
    "ODD_KIND",
    "SCHEMA_REQUIRED",
    "TURN_SEPARATOR",
    "ExtractedFact",
    "ExtractionResult",
    "LLMKind",
    "StructuredChatModel",
]
