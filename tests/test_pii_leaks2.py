"""Secrets that reached the store, the report or the logs before (dev set ``pii_dev2``): each
turn runs through the real write pipeline on a real store, and the raw value must be nowhere
in what was stored (records, episodes, ledger), the turn's report or the package's log
records. A durable item said next to the secret is still written.

All values are fake (555 numbers, ``@example.com``, made-up ids and keys).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.core.redact import Redactor
from tests.leak_check import captured_log_lines, found

# (name, setup turns, turn, raw values that must not survive, a (predicate, object) that must
# still be current or None)
LEAKS: list[tuple[str, list[str], str, list[str], tuple[str, str] | None]] = [
    ("pair-no-keyword", [], "use jdoe / Winter2024! to sign into the vendor portal",
     ["Winter2024!"], None),
    ("login-as-with", [], "I log in as tnguyen with Orchid#5520, why does SSO reject it?",
     ["Orchid#5520"], None),
    ("user-pass", [], "user mkumar pass Tiger$Lily7 — add that to the runbook",
     ["Tiger$Lily7"], None),
    ("pin-bare", [], "pin 4829 for the voicemail box, and please always answer me in English",
     ["4829"], ("answer_language", "English")),
    ("wifi-key", [], "the wifi key is Garden-Gnome-2024, write it on the welcome card",
     ["Garden-Gnome-2024"], None),
    ("password-then-prose", [],
     "My password is the same as my dog's name, Biscuit2019. I have a beagle.",
     ["Biscuit2019"], ("pet", "beagle")),
    ("quoted-passphrase", [], 'set the vault passphrase to "purple monkey dishwasher 42" please',
     ["purple monkey dishwasher 42"], None),
    ("spaced-pin", [], "my bank pin is 7 3 9 1, don't tell anyone", ["7 3 9 1", "3 9 1"],
     None),  # not only its first digit
    ("code-for-the-alarm", [], "the code for the alarm panel is 5512, text it to the sitter",
     ["5512"], None),
    ("long-preposition", [], "the password for the router admin page is BlueHeron-4411",
     ["BlueHeron-4411"], None),
    ("locker-combo", [], "the locker combo is 12-36-08, keep it in my gym notes", ["12-36-08"],
     None),
    ("verification-code", [], "verification code 662913 came by text, what is it?", ["662913"],
     None),
    ("aws-secret", [],
     "AWS creds: AKIAQ3EXAMPLE7H2KD9F / wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY — deploy it",
     ["AKIAQ3EXAMPLE7H2KD9F", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"], None),
    ("url-query-key", [],
     "the webhook is https://hooks.example.com/notify?channel=ops&key=Tk4Lq9Zr2Wx7 and I work "
     "at Northwind", ["Tk4Lq9Zr2Wx7"], ("employer", "Northwind")),
    ("social", [], "For the W-4 my social is 521-44-8723; I'm a self-employed electrician",
     ["521-44-8723"], None),
    ("ssn-spaced", [], "My SSN is 219 09 9999, does the form need it?", ["219 09 9999"], None),
    ("phone-ping", [], "ping me on 555 010 4418 when the report is ready", ["555 010 4418"],
     None),
    ("phone-no-word", [], "I'm at 555-0199 most evenings", ["555-0199"], None),
    ("phone-en-dash", [], "call 555–010–2290 to book a table", ["555–010–2290"], None),
    ("mail-write-to", [], "write to ana at example.com if the parcel is late; I'm vegetarian",
     ["ana at example.com"], ("diet", "vegetarian")),
    ("alternate-value", ["My garage code is 7718 and I live in Denver."],
     "actually the code is 7719 not 7718, and it's Boulder, not Denver", ["7718", "7719"],
     ("location", "Boulder")),
    ("traditional-chinese", [], "我的密碼是 Bamboo#8826，幫我記在備忘錄裡", ["Bamboo#8826"], None),
    ("chinese-numerals", [], "我的手机号是一三八零零零零五六七八，我对花生过敏",
     ["一三八零零零零五六七八"], ("allergy", "花生")),
    ("door-code-bare", [], "门禁码 0923#，帮我发给快递员", ["0923#"], None),
    ("yanzhengma", [], "验证码 482913 是什么意思？", ["482913"], None),
    ("changed-le", [], "我的密码改成了 Hua@2025，原来的 Hua@2024 不用了", ["Hua@2025", "Hua@2024"],
     None),
    ("glued-password", [], "我的password是Qwe!2468，帮我登录一下", ["Qwe!2468"], None),
    ("glued-key", [], "密钥sk-test-Zr8Lm2Qx9Kp4，帮我配一下CI", ["sk-test-Zr8Lm2Qx9Kp4"], None),
    ("glued-pin", [], "我的pin码是5306，别告诉别人", ["5306"], None),
    ("glued-phone", [], "call我555-010-7781，有急事的话", ["555-010-7781"], None),
    ("digit-at-a-time", [], "手机 1 3 9 0 0 0 0 4 4 1 7，我是会计", ["1 3 9 0 0 0 0 4 4 1 7"],
     ("occupation", "会计")),
    ("creds-colon", [], "creds are admin:Adm1n!2024 for the staging box", ["Adm1n!2024"], None),
    ("quoted-chinese", [], "我的口令是“芝麻开门123”，别告诉别人", ["芝麻开门123"], None),
    ("bank-account", [], "wire it to bank account 12345678, I'm in London", ["12345678"],
     ("location", "London")),
    ("login-cjk-pair", [], "login 用 zhang.wei / Panda@2021，帮我 check 一下 VPN",
     ["Panda@2021"], None),
]  # fmt: skip

LOOK_ALIKES: list[tuple[str, str]] = [
    ("phone", "our code was 5000 lines before the refactor"),
    ("password", "our code was 5000 lines before the refactor"),
    ("password", "my password manager is 1Password"),
    ("password", "the password was leaked in 2019"),
    ("password", "I switched from gpt-4 / gpt-4o last week"),
    ("password", "I'm between Python 3.11 / 3.12"),
    ("password", "the error code is 1045 when I connect"),
    ("password", "my zip code is 94110"),
    ("password", "pin 13 on the arduino"),
    ("phone", "My student number is 2021003344"),
    ("phone", "eat 300-1200 calories a day"),
    ("phone", "他一九八八年出生"),
    ("national_id", "part number 123-45-6789"),
    ("email", "I'm at work at acme.com"),
]
"""Near-misses that must stay as they are (the rules above hold for a reason, not a shape)."""


@pytest.fixture
def log_lines() -> Iterator[list[str]]:
    with captured_log_lines() as lines:
        yield lines


@pytest.mark.parametrize(
    ("setup", "turn", "values", "kept"), [c[1:] for c in LEAKS], ids=[c[0] for c in LEAKS]
)
def test_secret_is_nowhere_after_the_write_path(
    mstore: MemoryStore,
    log_lines: list[str],
    setup: list[str],
    turn: str,
    values: list[str],
    kept: tuple[str, str] | None,
) -> None:
    pipeline = WritePipeline(mstore)
    scope = Scope(user_id="leaks2")
    reports = []
    for i, text in enumerate([*setup, turn]):
        reports.append(pipeline.process_turn(text, scope=scope, turn_id=f"t{i}", thread_id="th"))
    stored = [
        r.model_dump_json()
        for r in mstore.list(scope=scope, current_only=False, include_internal=True)
    ]
    places = {
        "store": "\n".join(stored),
        "reports": "\n".join(r.model_dump_json() for r in reports),
        "logs": "\n".join(log_lines),
    }
    for value in values:
        leaked = [where for where, text in places.items() if found(value, text)]
        assert not leaked, (value, leaked, reports[-1].redacted_text)
    if kept is not None:
        current = {(r.predicate, r.object) for r in mstore.list(scope=scope)}
        assert kept in current, current


@pytest.mark.parametrize(("kind", "text"), LOOK_ALIKES)
def test_look_alikes_are_kept(kind: str, text: str) -> None:
    result = Redactor().redact(text)
    assert kind not in result.types, (text, result.text)


def test_a_long_turn_is_not_cut_inside_a_secret(mstore: MemoryStore) -> None:
    """The turn limit falls inside the key: the key goes whole (not its unrecognisable head)."""
    from langgraph_memory.write import WriteConfig

    key = "sk-test-Zr8Lm2Qx9Kp4Wv"
    text = "I prefer green tea. " * 10 + f"my key is {key} and more"
    limit = text.index(key) + 12  # cuts "sk-test-Zr8L|m2Qx…"
    pipeline = WritePipeline(mstore, WriteConfig(max_turn_chars=limit))
    report = pipeline.process_turn(text, scope=Scope(user_id="cut"), turn_id="t", thread_id="th")
    assert report.truncated_from == len(text)
    assert key[:10] not in report.redacted_text, report.redacted_text
    stored = [r.model_dump_json() for r in mstore.list(scope=Scope(user_id="cut"))]
    assert not any(key[:10] in s for s in stored)


def test_a_labelled_login_keeps_its_labels() -> None:
    """Only the password goes: "Password" is not read as "pass" + a value "word:"."""
    text = "Username: alice, Password: Wonderland#9"
    assert Redactor().redact(text).text == "Username: alice, Password: [PASSWORD]"
