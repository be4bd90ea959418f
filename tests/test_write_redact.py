"""PII redaction: each type with true and false cases, the three policies, and the guarantee
that no raw value survives."""

from __future__ import annotations

import pytest

from langgraph_memory.write.redact import (
    Redactor,
    cn_id_check_char,
    cn_id_checksum_ok,
    luhn_ok,
    only_placeholders,
)

BASE17 = "11010519900307123"
VALID_ID = BASE17 + cn_id_check_char(BASE17)
BAD_ID = BASE17 + ("0" if cn_id_check_char(BASE17) != "0" else "1")

TRUE_CASES = [
    ("phone", "call me at 138-0000-0000", "138-0000-0000"),
    ("phone", "我的手机号是13900000000", "13900000000"),
    ("phone", "my number is +86 139 0000 0000", "+86 139 0000 0000"),
    ("phone", "London office: +44 20 7946 0000", "+44 20 7946 0000"),
    ("phone", "US line +1 202-555-0100", "+1 202-555-0100"),
    ("phone", "座机 010-62000000", "010-62000000"),
    ("phone", "office (202) 555-0100 ext 2", "(202) 555-0100"),
    ("phone", "cell 202-555-0199", "202-555-0199"),
    ("email", "write to jane.doe@example.com please", "jane.doe@example.com"),
    ("email", "邮箱是test_user+tag@example.org", "test_user+tag@example.org"),
    ("national_id", f"身份证号{VALID_ID}", VALID_ID),
    ("national_id", f"my ID is {VALID_ID}.", VALID_ID),
    ("bank_card", "card 4111 1111 1111 1111", "4111 1111 1111 1111"),
    ("bank_card", "卡号5555555555554444", "5555555555554444"),
    ("bank_card", "amex 378282246310005", "378282246310005"),
    ("password", "my password is Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("password", "我的密码是abc12345，别告诉别人", "abc12345"),
    ("password", "pwd: s3cr3t!", "s3cr3t!"),
    ("api_key", "key sk-proj-abcdefghijklmnopqrstuvwx", "sk-proj-abcdefghijklmnopqrstuvwx"),
    (
        "api_key",
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ),
    ("api_key", "aws AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("api_key", "stripe sk_test_0000aaaa1111bbbb2222", "sk_test_0000aaaa1111bbbb2222"),
    (
        "api_key",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
    ),
    ("api_key", "Authorization: Bearer abc123DEF456ghi789JKL", "abc123DEF456ghi789JKL"),
    (
        "api_key",
        "my api key is 9f86d081884c7d659a2feaa0c55ad015",
        "9f86d081884c7d659a2feaa0c55ad015",
    ),
    (
        "api_key",
        "密钥：ZXhhbXBsZVNlY3JldEtleTEyMzQ1Njc4OTA=",
        "ZXhhbXBsZVNlY3JldEtleTEyMzQ1Njc4OTA=",
    ),
    ("password", "db: postgresql://alice:s3cretPass@db.internal:5432/app", "s3cretPass"),
    ("password", "DSN=mysql://root:hunter2@10.0.0.5:3306/shop", "hunter2"),
    ("password", "cache at redis://:p4ssw0rd@cache:6379/0", "p4ssw0rd"),
    ("password", "mongodb+srv://bob:M0ng0Pw@cluster0.ab1cd.mongodb.net/test?w=1", "M0ng0Pw"),
    ("password", "broker amqp://guest:guestpw@rabbit:5672/", "guestpw"),
    ("password", "clone https://user:pa55word@git.example.com/repo.git", "pa55word"),
    ("password", "jdbc:postgresql://app:p@ss:w0rd@db:5432/x", "p@ss:w0rd"),
]

# (text, its redaction: only the password goes, the rest of the URL stays as it was)
URL_CASES = [
    (
        "postgresql://alice:s3cretPass@db.internal:5432/app",
        "postgresql://alice:[PASSWORD]@db.internal:5432/app",
    ),
    ("mysql://root:hunter2@10.0.0.5/shop", "mysql://root:[PASSWORD]@10.0.0.5/shop"),
    ("redis://:p4ss@cache:6379/0", "redis://:[PASSWORD]@cache:6379/0"),
    (
        "mongodb+srv://bob:M0ng0Pw@cluster0.abc.mongodb.net/test?retryWrites=true",
        "mongodb+srv://bob:[PASSWORD]@cluster0.abc.mongodb.net/test?retryWrites=true",
    ),
    ("amqp://guest:guest@rabbit:5672/", "amqp://guest:[PASSWORD]@rabbit:5672/"),
    ("see https://user:pass@example.com/x.", "see https://user:[PASSWORD]@example.com/x."),
    (
        'urls "mysql://u:pw1@h1/a" and redis://:pw2@h2',
        'urls "mysql://u:[PASSWORD]@h1/a" and redis://:[PASSWORD]@h2',
    ),
]

FALSE_CASES = [
    ("phone", "the order number is 12345"),
    ("phone", "version 13.8.0 released"),
    ("phone", "in 2024 we shipped 1,380 units"),
    ("phone", "released on 2024-01-15 as 3.11.4"),
    ("phone", "ISBN 978-3-16-148410-0"),
    ("phone", "part no. 1234-5678-90"),
    ("email", "use the @ sign or user@localhost"),
    ("national_id", f"ticket {BAD_ID}"),  # 18 digits, wrong check character
    ("national_id", "reference 110105199013071234"),  # month 13: not a date
    ("bank_card", "number 4111111111111112"),  # 16 digits failing Luhn
    ("bank_card", "tracking 1234567890123"),
    ("bank_card", "zeros 0000000000000000"),
    ("password", "I forgot my password yesterday"),
    ("password", "密码学是一门学科"),
    ("password", "log in as alice:secret@host"),  # no scheme: not clearly a URL
    ("password", "ssh deploy:hunter2@build-01 then restart"),
    ("password", "ratio 3:2@home, meet at 10:30@lobby"),
    ("password", "served at https://example.com:8443/app?next=/home"),  # a port, no user
    ("password", "see https://example.com/a:b@c/d"),  # ":" and "@" in the path
    ("password", "mail https://example.com:8080/x?to=jane@example.org"),
    ("api_key", "commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b fixed it"),
    ("api_key", "the skeleton sk-8 model"),
    ("api_key", "I use a token bucket algorithm"),
]


@pytest.mark.parametrize(("kind", "text", "value"), TRUE_CASES)
def test_pii_detected_and_removed(kind: str, text: str, value: str) -> None:
    result = Redactor().redact(text)
    assert kind in result.types, (text, result.text)
    assert value not in result.text
    again = Redactor().redact(result.text)
    assert again.findings == [] and again.text == result.text  # idempotent


@pytest.mark.parametrize(("kind", "text"), FALSE_CASES)
def test_not_pii(kind: str, text: str) -> None:
    result = Redactor().redact(text)
    assert kind not in result.types, (text, result.text)


@pytest.mark.parametrize(("text", "redacted"), URL_CASES)
def test_url_password_is_redacted_and_the_url_kept(text: str, redacted: str) -> None:
    result = Redactor().redact(text)
    assert result.text == redacted
    assert set(result.types) == {"password"} and result.refused == ["password"]
    hashed = Redactor({"password": "hash"}).redact(text).text
    assert "[PASSWORD#" in hashed and "[EMAIL" not in hashed  # never mistaken for an address


def test_checksums() -> None:
    assert cn_id_checksum_ok(VALID_ID) and not cn_id_checksum_ok(BAD_ID)
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")


def test_policies_redact_hash_refuse() -> None:
    text = "mail jane@example.com, phone 13800000000, password is hunter22"
    redacted = Redactor().redact(text)
    assert redacted.text == "mail [EMAIL], phone [PHONE], password is [PASSWORD]"
    assert redacted.refused == ["password"]
    hashed = Redactor({"email": "hash"}, salt="s1").redact(text)
    token = hashed.text.split()[1].rstrip(",")
    assert token.startswith("[EMAIL#") and "jane" not in hashed.text
    # equal values hash equally (so they can be matched), different salts differ
    assert Redactor({"email": "hash"}, salt="s1").redact("JANE@example.com").text == token
    assert Redactor({"email": "hash"}, salt="s2").redact("jane@example.com").text != token
    refuse = Redactor({"phone": "refuse"}).redact(text)
    assert "phone" in refuse.refused and "13800000000" not in refuse.text


def test_only_placeholders() -> None:
    assert only_placeholders("[EMAIL]") and only_placeholders(" [PHONE], [EMAIL#0a1b2c3d] ")
    assert not only_placeholders("[EMAIL] at work") and not only_placeholders("tea")


# ---------------------------------------------------------------------- property tests
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_FILLER = st.text(
    alphabet=st.sampled_from(list("abcdefghij XYZ 我的你好是在 ,.，。!")), min_size=0, max_size=20
)


def _luhn_complete(prefix: str) -> str:
    for d in "0123456789":
        if luhn_ok(prefix + d):
            return prefix + d
    raise AssertionError


@st.composite
def _pii_value(draw: st.DrawFn) -> tuple[str, str]:
    kind = draw(st.sampled_from(["phone", "email", "national_id", "bank_card"]))
    if kind == "phone":
        digits = draw(st.text(alphabet="0123456789", min_size=8, max_size=8))
        return (
            kind,
            f"1{draw(st.sampled_from('3456789'))}{draw(st.sampled_from('0123456789'))}{digits}",
        )
    if kind == "email":
        local = draw(st.from_regex(r"[a-z][a-z0-9._]{0,10}[a-z0-9]", fullmatch=True))
        return kind, f"{local}@example.com"
    if kind == "national_id":
        year = draw(st.integers(1930, 2020))
        month = draw(st.integers(1, 12))
        day = draw(st.integers(1, 28))
        seq = draw(st.text(alphabet="0123456789", min_size=3, max_size=3))
        base = f"110105{year:04d}{month:02d}{day:02d}{seq}"
        return kind, base + cn_id_check_char(base)
    prefix = "4" + draw(st.text(alphabet="0123456789", min_size=14, max_size=14))
    value = _luhn_complete(prefix)
    if len(set(value)) == 1:
        value = _luhn_complete("4" + "1" * 13 + "2")
    return kind, value


@settings(max_examples=150, deadline=None)
@given(before=_FILLER, after=_FILLER, pii=_pii_value())
def test_generated_pii_never_survives_redaction(
    before: str, after: str, pii: tuple[str, str]
) -> None:
    kind, value = pii
    text = f"{before} {value} {after}"
    result = Redactor().redact(text)
    assert value not in result.text
    assert kind in result.types


@settings(max_examples=150, deadline=None)
@given(text=_FILLER)
def test_plain_text_has_no_pii(text: str) -> None:
    assert Redactor().redact(text).findings == []


_SCHEMES = ["postgresql", "postgres", "mysql", "redis", "rediss", "mongodb+srv", "amqp", "https"]


@settings(max_examples=150, deadline=None)
@given(
    scheme=st.sampled_from(_SCHEMES),
    user=st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True),
    password=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9!$%&*+=@:~_-]{5,15}", fullmatch=True),
    host=st.from_regex(r"[a-z][a-z0-9-]{0,8}(\.[a-z]{2,5}){0,2}", fullmatch=True),
    before=_FILLER,
)
def test_generated_url_password_never_survives(
    scheme: str, user: str, password: str, host: str, before: str
) -> None:
    assume(password not in f"{before} {scheme}://{user}@{host}:5432/app ok")  # else it shows
    url = f"{scheme}://{user}:{password}@{host}:5432/app"
    result = Redactor().redact(f"{before} {url} ok")
    assert password not in result.text
    assert f"{scheme}://{user}:[PASSWORD]@{host}:5432/app" in result.text


# ---------------------------------------------------------------------- through the write path
import json  # noqa: E402
import logging  # noqa: E402
from collections.abc import Iterator  # noqa: E402

from langgraph_memory import MemoryStore, Scope  # noqa: E402
from langgraph_memory.write import WriteConfig, WritePipeline  # noqa: E402

from .conftest import make_store  # noqa: E402

DSN_SECRET = "s3cretPass"
DSN_TURN = (
    f"Our staging database is postgresql://alice:{DSN_SECRET}@db.internal:5432/app. I prefer tea."
)


@pytest.fixture
def mem(tmp_path, embedder) -> Iterator[MemoryStore]:  # type: ignore[no-untyped-def]
    st_ = make_store("server", tmp_path, embedder)
    yield st_
    st_.close()


def _everything_logged(caplog: pytest.LogCaptureFixture) -> str:
    """Every log message with every attribute of its record (``extra=`` included)."""
    return "\n".join(
        r.getMessage() + json.dumps(vars(r), default=str, ensure_ascii=False)
        for r in caplog.records
    )


@pytest.mark.parametrize("policy", ["refuse", "redact", "hash"])
def test_url_password_never_reaches_store_logs_or_report(
    mem: MemoryStore, caplog: pytest.LogCaptureFixture, policy: str
) -> None:
    alice = Scope("alice")
    pipeline = WritePipeline(mem, WriteConfig(pii_policy={"password": policy}))  # type: ignore[dict-item]
    with caplog.at_level(logging.DEBUG, logger="langgraph_memory"):
        report = pipeline.process_turn(DSN_TURN, scope=alice, turn_id="t1", thread_id="th")
    records = mem.list(scope=alice, current_only=False)
    stored = "\n".join(r.model_dump_json() for r in records)
    assert report.pii_found == ["password"]
    assert DSN_SECRET not in report.model_dump_json()
    assert DSN_SECRET not in stored
    assert DSN_SECRET not in _everything_logged(caplog)
    assert "I prefer tea" in stored  # the clause without the secret is still kept
    if policy == "refuse":  # nothing from the secret's clause, not even the episode
        assert "db.internal" not in stored
    else:  # the redacted URL is kept readable, password replaced
        assert "postgresql://alice:[PASSWORD" in stored and "@db.internal:5432/app" in stored
