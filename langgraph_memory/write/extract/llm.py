"""The optional LLM extractor: :class:`LLMExtractor` calls a chat model through
``with_structured_output`` and keeps only candidates grounded in the (redacted) turn
(:func:`value_in_text`); ungrounded or inferred facts get ``source=model``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ...core.records import Evidence, Source
from ...core.redact import PLACEHOLDER_RE
from ...core.text import detect_language, is_cjk, normalize_for_matching
from ...errors import ConfigError
from ..lexicon import language_of, timezone_of, topic_of
from ..types import Candidate
from .injection import detect_injection
from .llm_schema import (
    LLM_SYSTEM_PROMPT,
    LLM_TURNS_PROMPT,
    NO_STRUCTURED_OUTPUT,
    NOT_A_CHAT_MODEL,
    TURN_SEPARATOR,
    ExtractionResult,
    StructuredChatModel,
    log,
)
from .markers import is_hedged


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s*|\n+")


def _words(text: str) -> list[str]:
    return _WORD.findall(normalize_for_matching(text))


def _same_word(a: str, b: str) -> bool:
    """Equal, or one the simple plural of the other (``s``, ``es``, ``y``→``ies``)."""
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return long in (short + "s", short + "es") or (
        short.endswith("y") and long == short[:-1] + "ies"
    )


def value_in_text(value: str, text: str) -> bool:
    """True when ``value`` occurs in ``text`` up to normalisation: Unicode NFKC (full- and
    half-width forms alike), case, whitespace and punctuation between words, and simple
    plurals ("tulip" in "I love tulips"). A value with CJK characters must occur as a
    contiguous run (spaces and punctuation ignored); other values as a run of whole words.
    An empty value never occurs."""
    wanted = _words(value)
    if not wanted:
        return False
    if any(is_cjk(ch) for word in wanted for ch in word):
        return "".join(wanted) in "".join(_words(text))
    have = _words(text)
    size = len(wanted)
    return any(
        all(_same_word(w, h) for w, h in zip(wanted, have[start : start + size], strict=True))
        for start in range(len(have) - size + 1)
    )


def _sentence_with(value: str, text: str) -> str:
    """The first sentence (or line) of ``text`` in which ``value`` occurs, else ``text``."""
    for sentence in _SENTENCE_END.split(text):
        if sentence.strip() and value_in_text(value, sentence):
            return sentence.strip()
    return text.strip()


class LLMExtractor:
    """Extractor backed by any LangChain chat model supporting ``with_structured_output``.

    The model receives the already-redacted turn. Each returned fact is grounded against
    that redacted turn by the extractor itself, not by trusting the model: the fact is the
    user's when its ``quote`` occurs in the turn (whitespace-normalised; the candidate's text
    is then the quote) or, failing that, when its value (``object``) occurs in the turn up to
    case, width, whitespace and simple plurals (:func:`value_in_text`; the candidate's text is
    then the turn's sentence holding it), and ``stated_by_user`` is true. Otherwise the
    candidate is marked ``source=model`` (model inference, never stored as a user fact).
    Gates (PII, injection, kind, confidence, confirmation...) run after it in the write
    pipeline exactly as for rule candidates.

    ::

        from langchain.chat_models import init_chat_model
        from langgraph_memory.write import LLMExtractor, WritePipeline

        extractor = LLMExtractor(init_chat_model("openai:gpt-4o-mini"))
        pipeline = WritePipeline(store, llm_extractor=extractor)   # or pass the model itself

    A model without ``with_structured_output`` raises :class:`ConfigError` here, not at the
    first turn.
    """

    def __init__(
        self, model: StructuredChatModel, *, system_prompt: str = LLM_SYSTEM_PROMPT
    ) -> None:
        if not isinstance(model, StructuredChatModel) or not callable(
            getattr(model, "with_structured_output", None)
        ):
            raise ConfigError(NOT_A_CHAT_MODEL.format(type=type(model).__name__))
        self.model = model
        try:
            self._structured = model.with_structured_output(ExtractionResult)
        except NotImplementedError as exc:  # e.g. a chat model without tool calling
            raise ConfigError(NO_STRUCTURED_OUTPUT.format(type=type(model).__name__)) from exc
        self.system_prompt = system_prompt
        self.turns_prompt = LLM_TURNS_PROMPT

    def _messages(self, text: str) -> list[tuple[str, str]]:
        return [("system", self.system_prompt), ("human", text)]

    def _turn_messages(self, texts: Sequence[str]) -> list[tuple[str, str]]:
        return [("system", self.turns_prompt), ("human", TURN_SEPARATOR.join(texts))]

    def extract(
        self, text: str, *, evidence: Evidence, source: Source = Source.USER
    ) -> list[Candidate]:
        """Candidates the model found in ``text`` (sync)."""
        return self._convert(self._structured.invoke(self._messages(text)), text, evidence, source)

    async def aextract(
        self, text: str, *, evidence: Evidence, source: Source = Source.USER
    ) -> list[Candidate]:
        """:meth:`extract` through the model's ``ainvoke`` (as asynchronous as the model's own
        async API). For callers that drive the extractor themselves: the write pipeline never
        calls it (``aprocess_turn`` runs :meth:`extract` in a worker thread; the deferred LLM
        pass awaits :meth:`aextract_turns`)."""
        result = await self._structured.ainvoke(self._messages(text))
        return self._convert(result, text, evidence, source)

    def extract_turns(
        self,
        texts: Sequence[str],
        *,
        evidence: Sequence[Evidence],
        source: Source = Source.USER,
    ) -> list[tuple[int, Candidate]]:
        """One model call over several (redacted) turns of a conversation, oldest first.

        Returns ``(turn index, candidate)`` pairs: each fact belongs to the turn its quote
        comes from and carries that turn's evidence and injection flag. A fact whose quote is
        in no single turn (or that the model marks inferred) is ``source=model`` and is
        attributed to the last turn, so the gate's rejection stays visible. Model errors
        propagate (the caller decides about retries; rule results are never involved)."""
        if len(texts) != len(evidence):
            raise ConfigError("extract_turns needs one evidence per turn")
        if not texts:
            return []
        result = self._structured.invoke(self._turn_messages(texts))
        return self._convert_turns(result, texts, evidence, source)

    async def aextract_turns(
        self,
        texts: Sequence[str],
        *,
        evidence: Sequence[Evidence],
        source: Source = Source.USER,
    ) -> list[tuple[int, Candidate]]:
        """Async :meth:`extract_turns`."""
        if len(texts) != len(evidence):
            raise ConfigError("extract_turns needs one evidence per turn")
        if not texts:
            return []
        result = await self._structured.ainvoke(self._turn_messages(texts))
        return self._convert_turns(result, texts, evidence, source)

    def _convert_turns(
        self,
        result: object,
        texts: Sequence[str],
        evidence: Sequence[Evidence],
        source: Source,
    ) -> list[tuple[int, Candidate]]:
        joined = TURN_SEPARATOR.join(texts)
        normalized = [_norm(t) for t in texts]
        out: list[tuple[int, Candidate]] = []
        for cand in self._convert(result, joined, evidence[-1], source):
            quote = _norm(cand.text)
            owner = next(
                (i for i in range(len(texts) - 1, -1, -1) if quote and quote in normalized[i]),
                None,
            )
            if owner is None:  # in no single turn: the model's words, not the user's
                update: dict[str, Any] = {"source": Source.MODEL, "injection": cand.injection}
                out.append((len(texts) - 1, cand.model_copy(update=update)))
                continue
            update = {"evidence": evidence[owner], "injection": detect_injection(texts[owner])}
            out.append((owner, cand.model_copy(update=update)))
        return out

    def _convert(
        self, result: object, text: str, evidence: Evidence, source: Source
    ) -> list[Candidate]:
        if isinstance(result, dict):
            result = ExtractionResult.model_validate(result)
        if not isinstance(result, ExtractionResult):
            log.warning(
                "LLM extractor returned an unexpected type (%s); no LLM candidates",
                type(result).__name__,
                extra={"event": "llm_extract_bad_output", "type": type(result).__name__},
            )
            return []
        out: list[Candidate] = []
        norm_text = re.sub(r"\s+", " ", text)
        injection = detect_injection(text)
        for fact in result.facts:
            quote = re.sub(r"\s+", " ", fact.quote.strip())
            grounded_text = quote if quote and quote in norm_text else None
            if grounded_text is None and value_in_text(fact.object, text):
                grounded_text = _sentence_with(fact.object, text)[:500]
            grounded = grounded_text is not None
            fact_source = source if (grounded and fact.stated_by_user) else Source.MODEL
            predicate = re.sub(r"[^\w]+", "_", fact.predicate.strip().lower()).strip("_") or "note"
            obj = fact.object.strip()
            if predicate == "answer_language":
                obj = language_of(obj) or obj
            elif predicate == "timezone":
                obj = timezone_of(obj) or obj
            else:
                topic = topic_of(obj)
                if topic and topic[0] == predicate:
                    obj = topic[1]
            if PLACEHOLDER_RE.search(obj) and not PLACEHOLDER_RE.search(text):
                fact_source = Source.MODEL  # a placeholder the user never wrote
            out.append(
                Candidate(
                    subject=fact.subject.strip().lower() or "user",
                    predicate=predicate,
                    object=obj or "?",
                    text=grounded_text if grounded_text is not None else (quote or text)[:500],
                    kind=fact.kind.strip().lower(),
                    confidence=fact.confidence,
                    evidence=evidence,
                    scope_level="project"
                    if fact.project_level or fact.subject.strip().lower() == "project"
                    else "user",
                    hedged=fact.hedged or is_hedged(grounded_text or quote),
                    explicit=fact.explicit,
                    language=detect_language(grounded_text or quote or text),
                    source=fact_source,
                    extractor="llm",
                    injection=injection,
                )
            )
        return out


__all__ = [
    "LLMExtractor",
    "value_in_text",
]
