"""PII redaction: runs before anything from a turn is extracted, stored, journaled or logged.

Detected types and how a match is confirmed (false positives matter as much as misses):

* ``phone``: Chinese mobile numbers (``1[3-9]x xxxx xxxx``, optional ``+86``), Chinese
  landlines (``0xx-xxxxxxxx``), international numbers written with a leading ``+`` and
  8-15 digits (E.164-ish), and North American ``(202) 555-0100`` / ``202-555-0100``.
* ``email``: ``local@domain.tld``.
* ``national_id``: 18-character PRC resident ID numbers whose ISO 7064 MOD 11-2 check
  character is correct and whose birth date is a real date (an 18-digit number with a wrong
  check digit is not an ID).
* ``bank_card``: 13-19 digit numbers (spaces/dashes allowed) that pass the Luhn check (a
  16-digit number failing Luhn is not a card).
* ``password``: the value after "password is/:/=", "密码是/为/：", and the password of a
  URL's ``user:password@`` part when the URL has a scheme (``postgresql://``, ``mysql://``,
  ``redis://``, ``mongodb+srv://``, ``amqp://``, ``https://``, ...): only the password is
  replaced, the rest of the URL stays readable (``postgresql://alice:[PASSWORD]@db:5432/app``).
  ``user:pass@host`` without ``scheme://`` is not matched (too many false positives).
* ``api_key``: ``sk-...``, ``sk_live_...``, ``ghp_...``/``github_pat_...``, ``AKIA...``,
  ``xox?-...``, ``AIza...``, JWTs, PEM private keys, ``Bearer <token>``, values after
  "api key/token/secret is ...", and long hex/base64 strings next to such words.

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
from datetime import date

from .types import PIIAction

PLACEHOLDERS: dict[str, str] = {
    "phone": "PHONE",
    "email": "EMAIL",
    "national_id": "ID_NUMBER",
    "bank_card": "BANK_CARD",
    "password": "PASSWORD",
    "api_key": "API_KEY",
}

PLACEHOLDER_RE = re.compile(
    r"\[(PHONE|EMAIL|ID_NUMBER|BANK_CARD|PASSWORD|API_KEY)(?:#[0-9a-f]{8})?\]"
)
"""Matches any placeholder this module writes."""

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def cn_id_checksum_ok(value: str) -> bool:
    """True when ``value`` is an 18-character PRC ID number with a valid check character and a
    real birth date (YYYYMMDD at positions 7-14, years 1900-2099)."""
    if len(value) != 18 or not value[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(value[:17], _ID_WEIGHTS, strict=True))
    if _ID_CHECK[total % 11] != value[17].upper():
        return False
    try:
        year, month, day = int(value[6:10]), int(value[10:12]), int(value[12:14])
        if not 1900 <= year <= 2099:
            return False
        date(year, month, day)
    except ValueError:
        return False
    return True


def cn_id_check_char(first17: str) -> str:
    """The check character of an ID number's first 17 digits (used to build test data)."""
    total = sum(int(d) * w for d, w in zip(first17, _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11]


def luhn_ok(digits: str) -> bool:
    """True when the digit string passes the Luhn checksum."""
    if not digits.isdigit() or not digits:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


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


_SECRET_WORDS = (
    r"(?:api[\s_-]?key|access[\s_-]?key|secret(?:[\s_-]?key)?|token|credential|密钥|秘钥|令牌|口令)"
)

# (type, pattern, group holding the value or 0, validator name)
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])"
)
_PASSWORD = re.compile(
    r"(?i)(?:\b(?:password|passwd|passcode|pwd|pin(?:\s*code)?)\b(?:\s+(?:is|was|=|:)|\s*[:=：])\s*"
    r"|(?:密码|登录密码|支付密码|口令)\s*(?:是|为|:|：|=)\s*)"
    r"[\"'“”‘’]?(?P<v>[^\s\"'“”‘’，。,;；]+)"
)
_URL_PASSWORD = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://"  # a scheme: the text is clearly a URL
    r"[^\s:/?#@\[\]]*:"  # the user name (may be empty: redis://:secret@host)
    r"(?P<v>[^\s/?#]+)"  # the password, up to the last "@" of the authority
    r"(?=@[^\s/?#@:])"  # then the host (not consumed: a second URL may follow it)
)
"""The password of ``scheme://user:password@host``: RFC 3986 userinfo, with the password
running to the authority's last ``@`` (passwords are often written with an unencoded ``@``)."""
_API_KEYS = [
    re.compile(r"(?<![\w-])sk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{16,}"),
    re.compile(r"(?<!\w)gh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"(?<!\w)github_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])"),
    re.compile(r"(?<!\w)xox[abprs]-[A-Za-z0-9-]{10,}"),
    re.compile(r"(?<!\w)AIza[0-9A-Za-z_-]{35}"),
    re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    re.compile(r"(?i)(?<=bearer\s)[A-Za-z0-9._~+/-]{16,}=*"),
    re.compile(r"(?<!\w)(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    re.compile(
        r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----[\s\S]*?"
        r"(?:-----END (?:[A-Z]+ )?PRIVATE KEY-----|$)"
    ),
]
_KEYWORD_SECRET = re.compile(
    rf"(?i){_SECRET_WORDS}(?:\s+(?:is|was|=|:)"
    rf"|\s*[:=：是为])\s*[\"'“”]?(?P<v>[A-Za-z0-9._~+/=-]{{12,}})"
)
_LONG_SECRET = re.compile(
    rf"(?i){_SECRET_WORDS}[^\n]{{0,24}}?(?<![A-Za-z0-9])(?P<v>[0-9a-f]{{32,}}"
    rf"|[A-Za-z0-9+/_-]{{32,}}={{0,2}})(?![A-Za-z0-9])"
)
_CN_MOBILE = re.compile(r"(?<![\d+])(?:(?:\+|00)86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?!\d)")
_CN_LANDLINE = re.compile(r"(?<![\d+])0\d{2,3}-\d{7,8}(?!\d)")
_INTL_PHONE = re.compile(r"(?<![\w+])\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,6}(?![\d])")
_NANP_PHONE = re.compile(r"(?<![\w+-])(?:\(\d{3}\)\s?|\d{3}[-.\s])\d{3}[-.]\d{4}(?![\w-])")
"""North American numbers written without +1: (202) 555-0100, 202-555-0100, 202.555.0100."""
_ID_CANDIDATE = re.compile(r"(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])")
_CARD_CANDIDATE = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])")


class Redactor:
    """Finds PII in text and applies the per-type policy. Thread-safe and deterministic."""

    def __init__(
        self, policy: Mapping[str, PIIAction] | None = None, *, salt: str = "langgraph-memory"
    ) -> None:
        from .types import _default_pii_policy

        self.policy: dict[str, PIIAction] = {**_default_pii_policy(), **(policy or {})}
        self._salt = salt.encode("utf-8")

    # ------------------------------------------------------------------ detection
    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        spans: list[tuple[int, int, str]] = []
        reserved = [(m.start(), m.end()) for m in PLACEHOLDER_RE.finditer(text)]

        def add(start: int, end: int, kind: str) -> None:
            if end <= start:
                return
            for s, e in reserved:
                if start < e and s < end:
                    return  # already a placeholder: redaction is idempotent
            for s, e, _ in spans:
                if start < e and s < end:
                    return  # an earlier, more specific match already covers it
            spans.append((start, end, kind))

        for m in _URL_PASSWORD.finditer(text):  # before email: "pw@db.host" is no address
            add(m.start("v"), m.end("v"), "password")
        for m in _PASSWORD.finditer(text):
            add(m.start("v"), m.end("v"), "password")
        for pattern in _API_KEYS:
            for m in pattern.finditer(text):
                add(m.start(), m.end(), "api_key")
        for m in _KEYWORD_SECRET.finditer(text):
            value = m.group("v")
            if _looks_secret(value):
                add(m.start("v"), m.end("v"), "api_key")
        for m in _LONG_SECRET.finditer(text):
            if _looks_secret(m.group("v")):
                add(m.start("v"), m.end("v"), "api_key")
        for m in _EMAIL.finditer(text):
            add(m.start(), m.end(), "email")
        for m in _ID_CANDIDATE.finditer(text):
            if cn_id_checksum_ok(m.group()):
                add(m.start(), m.end(), "national_id")
        for m in _CARD_CANDIDATE.finditer(text):
            digits = re.sub(r"[ -]", "", m.group())
            if 13 <= len(digits) <= 19 and luhn_ok(digits) and not _is_trivial(digits):
                add(m.start(), m.end(), "bank_card")
        for pattern in (_CN_MOBILE, _CN_LANDLINE):
            for m in pattern.finditer(text):
                add(m.start(), m.end(), "phone")
        for m in _INTL_PHONE.finditer(text):
            digits = re.sub(r"\D", "", m.group())
            if 8 <= len(digits) <= 15:
                add(m.start(), m.end(), "phone")
        for m in _NANP_PHONE.finditer(text):
            add(m.start(), m.end(), "phone")
        spans.sort()
        return spans

    def detect(self, text: str) -> list[str]:
        """The PII types present in ``text`` (no redaction)."""
        return sorted({kind for _, _, kind in self._spans(text)})

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
        spans = self._spans(text)
        out: list[str] = []
        findings: list[PIIFinding] = []
        cursor = 0
        for start, end, kind in spans:
            replacement, action = self._replacement(kind, text[start:end])
            out.append(text[cursor:start])
            out.append(replacement)
            findings.append(PIIFinding(kind, start, end, action, replacement))
            cursor = end
        out.append(text[cursor:])
        return RedactionResult(text="".join(out), findings=findings)


def _is_trivial(digits: str) -> bool:
    """All-same-digit strings (000..., 111...) are not card numbers."""
    return len(set(digits)) == 1


def _looks_secret(value: str) -> bool:
    """A value looks like a secret when it is long and not a plain word (has digits, or mixed
    case, or is hex of 32+ characters)."""
    if PLACEHOLDER_RE.fullmatch(value):
        return False
    if len(value) < 12:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_upper = any(c.isupper() for c in value)
    has_lower = any(c.islower() for c in value)
    return (has_digit and (has_upper or has_lower)) or (
        has_upper and has_lower and len(value) >= 20
    )


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
