"""PII redaction: runs before anything from a turn is extracted, stored, journaled or logged.

What is detected, and how a match is confirmed (false positives matter as much as misses), is
:mod:`langgraph_memory.core.pii_detect`: phones, e-mail addresses, national ID numbers (PRC
ID with its check character, or next to an ID word; US SSN next to "SSN"), bank cards (Luhn,
or next to a card word; IBAN mod-97), passwords (after a password word, in config assignments,
``login user / password``, the password of ``scheme://user:password@host``) and API keys
(vendor prefixes, config assignments, token-shaped values next to "key"/"token"/"密钥").

Each type has a policy (:class:`~langgraph_memory.write.types.WriteConfig.pii_policy`):
``redact`` replaces the value with ``[TYPE]``; ``hash`` with ``[TYPE#<8 hex>]`` (a salted
HMAC-SHA256, so equal values can be matched without being stored); ``refuse`` also replaces it
with ``[TYPE]`` and marks the finding so the gate refuses to store anything from that clause.
:class:`PIIFinding` never holds the raw value.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from .pii_detect import (
    PLACEHOLDER_RE,
    cn_id_check_char,
    cn_id_checksum_ok,
    find_pii,
    fold_fullwidth,
    luhn_ok,
)

PLACEHOLDERS: dict[str, str] = {
    "phone": "PHONE",
    "email": "EMAIL",
    "national_id": "ID_NUMBER",
    "bank_card": "BANK_CARD",
    "password": "PASSWORD",
    "api_key": "API_KEY",
}


PIIAction = Literal["redact", "hash", "refuse"]
"""What happens to a PII value: replaced by ``[TYPE]``, by ``[TYPE#<8 hex>]`` (salted HMAC), or
replaced and the candidate refused."""


def default_pii_policy() -> dict[str, PIIAction]:
    """The action for each PII type when the caller names none."""
    return {
        "phone": "redact",
        "email": "redact",
        "national_id": "redact",
        "bank_card": "redact",
        "password": "refuse",
        "api_key": "refuse",
    }


@dataclass(frozen=True, slots=True)
class PIIFinding:
    """One detected PII value: its type, where it was (in the original text) and the action
    taken. The raw value is deliberately not kept."""

    type: str
    start: int
    end: int
    action: PIIAction
    replacement: str


@dataclass(slots=True)
class RedactionResult:
    """The redacted text and what was found in it."""

    text: str
    findings: list[PIIFinding] = field(default_factory=list)

    @property
    def types(self) -> list[str]:
        """Distinct PII types found, in order of first appearance."""
        seen: list[str] = []
        for f in self.findings:
            if f.type not in seen:
                seen.append(f.type)
        return seen

    @property
    def refused(self) -> list[str]:
        """Distinct PII types whose policy is ``refuse``."""
        return [
            t
            for t in self.types
            if any(f.type == t and f.action == "refuse" for f in self.findings)
        ]


class Redactor:
    """Finds PII in text and applies the per-type policy. Thread-safe and deterministic."""

    def __init__(
        self, policy: Mapping[str, PIIAction] | None = None, *, salt: str = "langgraph-memory"
    ) -> None:
        self.policy: dict[str, PIIAction] = {**default_pii_policy(), **(policy or {})}
        self._salt = salt.encode("utf-8")

    # ------------------------------------------------------------------ detection
    def detect(self, text: str) -> list[str]:
        """The PII types present in ``text`` (no redaction)."""
        return sorted({kind for _, _, kind in find_pii(text)})

    # ------------------------------------------------------------------ redaction
    def _replacement(self, kind: str, value: str) -> tuple[str, PIIAction]:
        action = self.policy.get(kind, "redact")
        label = PLACEHOLDERS[kind]
        if action == "hash":
            normal = re.sub(r"[\s-]", "", value).lower()
            digest = hmac.new(self._salt, f"{kind}:{normal}".encode(), hashlib.sha256).hexdigest()
            return f"[{label}#{digest[:8]}]", action
        return f"[{label}]", action

    def redact(self, text: str) -> RedactionResult:
        """Replace every PII value in ``text`` according to the policy.

        Guarantee: the returned text contains none of the detected raw values, and running
        ``redact`` again on it finds nothing new (placeholders are not PII).
        """
        if not text:
            return RedactionResult(text=text or "")
        spans = find_pii(text)
        out: list[str] = []
        findings: list[PIIFinding] = []
        cursor = 0
        for start, end, kind in spans:
            replacement, action = self._replacement(kind, fold_fullwidth(text[start:end]))
            out.append(text[cursor:start])
            out.append(replacement)
            findings.append(PIIFinding(kind, start, end, action, replacement))
            cursor = end
        out.append(text[cursor:])
        return RedactionResult(text="".join(out), findings=findings)


def contains_placeholder(text: str) -> bool:
    """True when ``text`` holds a redaction placeholder."""
    return bool(PLACEHOLDER_RE.search(text))


def only_placeholders(text: str) -> bool:
    """True when ``text`` is nothing but placeholders, punctuation and spaces."""
    rest = PLACEHOLDER_RE.sub("", text)
    return bool(PLACEHOLDER_RE.search(text)) and not re.sub(r"[\W_]+", "", rest)


__all__ = [
    "PLACEHOLDERS",
    "PLACEHOLDER_RE",
    "PIIFinding",
    "RedactionResult",
    "Redactor",
    "cn_id_check_char",
    "cn_id_checksum_ok",
    "contains_placeholder",
    "luhn_ok",
    "only_placeholders",
]
