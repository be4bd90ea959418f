"""Write gates: decide, with a reason, whether a candidate may become long-term memory.

Checks run in this order; the first that fails decides (the reason names it):

1. PII whose policy is ``refuse`` in the candidate's clause → ``rejected``.
2. Prompt injection / permission, identity or scope widening attempts → ``rejected``: the
   extractor's flag for the turn (``Candidate.injection``), and independently of it
   :func:`~langgraph_memory.write.extract.detect_injection` on the candidate's own clause
   and object (a candidate from another extractor, or one built by hand, is checked too).
   A memory may restrict the assistant; it may never widen what the assistant may do, who
   the user is, or whose data is visible.
3. Source: only the user's own statements (``user``/``import``) are user facts; what a model
   or tool inferred → ``rejected``. Exception: what the agent explicitly chose to remember
   through the ``manage_memory`` tool (``source=tool``, ``extractor="tool"``, ``explicit``)
   passes unless ``WriteConfig.allow_agent_writes`` is off; the gates below still apply.
4. An instruction for the current task only ("this time", "这次", "this paragraph",
   ``Candidate.one_off``) with a turn id → ``working`` (working memory only), whatever the
   classifier says of it; otherwise, the clause classifier vetoed the candidate (its clause
   is chit-chat, an event, a question or a one-off request: ``Candidate.vetoed``) →
   ``rejected``.
5. Kind must be one of ``WriteConfig.allowed_kinds`` → else ``rejected``.
6. Evidence: at least one turn id → else ``rejected``.
7. Hedged ("maybe", "I think", "可能", "我再想想", "先这样") → ``working`` (working memory only).
8. Confidence ≥ ``WriteConfig.min_confidence`` → else ``rejected``.
9. A redacted value cannot be part of the object (an e-mail stored as ``[EMAIL]`` is noise,
   and a personal-identifier predicate such as ``phone`` is never stored in clear) →
   ``rejected``, unless the ``hash`` policy produced a stable token. (The clause ``text`` may
   still hold placeholders: "I live in London, call me at [PHONE]" stores the city.)
10. Project-level facts need confirmation → ``pending`` until ``confirmed=True`` (they are
    shared with the project). With no ``project_id`` in the scope there is nobody to share
    with: the fact is kept in the user's own memory like any user fact.
11. A preference neither explicit nor repeated → ``pending`` until stated in
    ``WriteConfig.preference_repeats`` turns (the pipeline counts repetitions).

Everything that passes is ``write``; :mod:`~langgraph_memory.write.resolve` then decides
between insert, supersede, reinforce, invalidate and restore.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..core.records import Source
from ..core.redact import PLACEHOLDER_RE
from ..core.scope import Scope
from .extract.injection import detect_injection
from .types import Candidate, WriteConfig

Verdict = Literal["write", "pending", "working", "rejected"]

_HASHED = re.compile(r"\[[A-Z_]+#[0-9a-f]{8}\]")

INJECTION_REASON = (
    "turn looks like a prompt-injection / privilege change attempt ({why}); memory may "
    "restrict the assistant but cannot grant permissions, change who the user is, widen "
    "whose data is visible, or change instructions"
)
"""Reason of a ``rejected`` verdict from the injection gate (``{why}``: the pattern family)."""

PII_PREDICATES = frozenset({"phone", "email", "national_id", "bank_card", "password", "api_key"})
"""Predicates whose value is a personal identifier: stored only as a ``hash`` token."""


@dataclass(frozen=True, slots=True)
class GateResult:
    """The gate's verdict for one candidate."""

    verdict: Verdict
    reason: str
    gate: str
    """Name of the deciding gate (``pii``, ``injection``, ``source``, ``classifier``, ``kind``,
    ``evidence``,
    ``hedge``, ``confidence``, ``pii_object``, ``confirmation``, ``repetition``, ``passed``)."""
    needs: Literal["confirmation", "repetition"] | None = None


class WriteGate:
    """Applies the gates above. Stateless; repetition counts are supplied by the caller."""

    def __init__(self, config: WriteConfig | None = None) -> None:
        self.config = config or WriteConfig()

    def check(
        self,
        candidate: Candidate,
        *,
        scope: Scope,
        confirmed: bool = False,
        repeats: int = 1,
    ) -> GateResult:
        """Decide for ``candidate``. ``repeats`` is the number of distinct turns that stated
        the same preference (this one included)."""
        cfg = self.config
        c = candidate
        if c.refused_pii:
            return GateResult(
                "rejected",
                f"clause contains {', '.join(c.refused_pii)}; PII policy is refuse, "
                "nothing from it is stored",
                "pii",
            )
        injection = c.injection or detect_injection(c.text) or detect_injection(c.object)
        if injection:
            return GateResult("rejected", INJECTION_REASON.format(why=injection), "injection")
        agent_write = c.extractor == "tool" and c.source is Source.TOOL and c.explicit
        if agent_write and not cfg.allow_agent_writes:
            return GateResult(
                "rejected",
                "the agent's own memory writes are disabled (allow_agent_writes)",
                "source",
            )
        if c.source not in cfg.allowed_sources and not agent_write:
            return GateResult(
                "rejected",
                f"source={c.source.value}: inferred by the {c.source.value}, "
                "not stated by the user; "
                "not a user fact",
                "source",
            )
        if c.one_off and c.evidence.turn_ids:
            # before the model's veto: an instruction about the artifact in front of the user
            # belongs to the current task whatever the model calls it (it is never stored)
            return GateResult(
                "working",
                "instruction for the current task only ('this time', '这次', 'this email', "
                "'这段代码', or a condition of the request it was said with): working memory only",
                "one_off",
            )
        if c.vetoed:
            return GateResult("rejected", c.vetoed, "classifier")
        if c.kind not in cfg.allowed_kinds:
            return GateResult(
                "rejected",
                f"kind {c.kind!r} is not storable (allowed: {', '.join(cfg.allowed_kinds)})",
                "kind",
            )
        if not c.evidence.turn_ids:
            return GateResult(
                "rejected", "no evidence turn id: cannot trace the memory to a turn", "evidence"
            )
        if c.hedged:
            return GateResult(
                "working", "hedged/tentative statement: kept in working memory only", "hedge"
            )
        if c.confidence < cfg.min_confidence:
            return GateResult(
                "rejected",
                f"confidence {c.confidence:.2f} below threshold {cfg.min_confidence:.2f}",
                "confidence",
            )
        unhashed = PLACEHOLDER_RE.sub(lambda m: "" if "#" in m.group(0) else m.group(0), c.object)
        if not c.retract and (
            (c.predicate in PII_PREDICATES and not _HASHED.fullmatch(c.object.strip()))
            or PLACEHOLDER_RE.search(unhashed)
        ):
            return GateResult(
                "rejected",
                "the value is a redacted personal identifier; it is not stored",
                "pii_object",
            )
        if (
            c.scope_level == "project"
            and scope.project_id is not None
            and cfg.project_needs_confirmation
            and not confirmed
        ):
            return GateResult(
                "pending",
                f"project-level fact for project {scope.project_id!r} needs user confirmation",
                "confirmation",
                needs="confirmation",
            )
        if c.kind == "preference" and not c.explicit and not c.correction:
            if repeats < cfg.preference_repeats:
                return GateResult(
                    "pending",
                    f"implicit preference seen in {repeats} turn(s); "
                    f"needs {cfg.preference_repeats} "
                    "or an explicit statement",
                    "repetition",
                    needs="repetition",
                )
            return GateResult("write", f"implicit preference repeated in {repeats} turns", "passed")
        return GateResult("write", "passed all gates", "passed")


__all__ = ["INJECTION_REASON", "PII_PREDICATES", "GateResult", "Verdict", "WriteGate"]
