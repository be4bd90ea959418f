"""Secrets that reached the store, the report or the logs before (dev set ``pii_dev3``): each
turn runs through the real write pipeline on a real store, and the raw value must be nowhere
in what was stored (records, episodes, ledger), the turn's report or the package's log
records. A durable item said next to the secret is still written. Then, per class, the
redactor alone on more forms, and near-misses that must stay as they are.

All values are fake (555 numbers, 138-0000 numbers, ``@example.com``, made-up ids and keys).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from langgraph_memory import MemoryStore, Scope, WritePipeline
from langgraph_memory.core.redact import Redactor
from tests.leak_check import captured_log_lines, found

# (name, turn, raw values that must not survive, a (predicate, object) that must still be
# current or None)
LEAKS: list[tuple[str, str, list[str], tuple[str, str] | None]] = [
    ("phone-extension", "my cell is 555-010-4418x23 and I live in Tucson", ["555-010-4418"],
     ("location", "Tucson")),
    ("phone-spaced-dashes", "tel: 555 - 010 - 7762, text me there", ["555 - 010 - 7762"], None),
    ("phone-spoken", "My number is five five five, zero one zero, three three nine one.",
     ["five five five, zero one zero, three three nine one"], None),
    ("phone-text-bare", "text 5550107733 if you can't reach me by mail", ["5550107733"], None),
    ("phone-fictional-spaced", "I'm on 555 010 6621 most days", ["555 010 6621"], None),
    ("mobile-spaced-dashes", "我的手机是 138 - 0000 - 2233，我是老师", ["138 - 0000 - 2233"],
     ("occupation", "老师")),
    ("cjk-digits-commas", "我的手机号码是一三八，零零零零，八八九九，帮我登记一下",
     ["一三八，零零零零，八八九九"], None),
    ("email-spaced-dots", "send the invoice to jane @ example . com please",
     ["jane @ example . com"], None),
    ("email-provider-handle", "my gmail is jane.doe.5550, add it to the guest list",
     ["jane.doe.5550"], None),
    ("email-chinese-dot", "我邮箱 wangfang 艾特 example 点 com，我在北京工作",
     ["wangfang 艾特 example 点 com"], ("location", "北京")),
    ("email-fullwidth-brackets", "我的邮箱：zhao.lei【at】example.cn", ["zhao.lei【at】example.cn"],
     None),
    ("password-for-the-x-colon", "Password for the NAS: Tr33house!Loft, I moved to Austin",
     ["Tr33house!Loft"], None),
    ("pin-number", "my PIN number is 4455, please don't store it", ["4455"], None),
    ("the-pass-is", "the wifi is HomeNet5G and the pass is Sunflower-88", ["Sunflower-88"], None),
    ("service-pair", "Netflix: jdoe55 / Movie#Night7, share it with my sister", ["Movie#Night7"],
     None),
    ("the-pw-bare", "my login for the library is kpatel and the pw Book$worm42", ["Book$worm42"],
     None),
    ("curl-user", "curl -u admin:Adm1nPa55! https://api.example.com/health returns 401",
     ["Adm1nPa55!"], None),
    ("mysql-glued-p", "mysql -u root -pS3cr3tSql! -h db.example.com doesn't connect",
     ["S3cr3tSql!"], None),
    ("docker-login-p", "docker login -u bob -p Dck3r!Pass registry.example.com fails",
     ["Dck3r!Pass"], None),
    ("sshpass-quoted", "sshpass -p 'Tr0ub4dor&3' ssh ops@10.0.0.7", ["Tr0ub4dor&3"], None),
    ("redis-cli-a", "redis-cli -a R3disPass!9 ping gives NOAUTH", ["R3disPass!9"], None),
    ("long-flag", "run the migration with --password=Sup3rS3cret and --user=deploy",
     ["Sup3rS3cret"], None),
    ("json-pass-key", 'the config has {"user": "ops", "pass": "Wint3r!Is"} in it', ["Wint3r!Is"],
     None),
    ("cjk-gap", "密码就是 Qq123456，帮我登录一下", ["Qq123456"], None),
    ("cjk-gap-long", "密码我设的是 Huo@2024，记不住了帮我存一下", ["Huo@2024"], None),
    ("cjk-gap-mixed", "password 我记得是 Mango#7788，帮我 login 一下", ["Mango#7788"], None),
    ("cjk-passphrase", "口令：芝麻开门2024，这是家里路由器的", ["芝麻开门2024"], None),
    ("cjk-digit-code", "验证码是六六二九一三，帮我填一下", ["六六二九一三"], None),
    ("share-code", "百度网盘链接 https://pan.baidu.com/s/1AbCdEfG 提取码: x7k2", ["x7k2"], None),
    ("keypad", "the garage keypad is 4-8-1-5-#, text it to the plumber", ["4-8-1-5-#"], None),
    ("cvv-by-place", "the three digits on the back are 737", ["737"], None),
    ("cvv-by-place-zh", "信用卡背面的三位数是 392，帮我在网上付款", ["392"], None),
    ("azure-account-key",
     "AccountName=acmestore;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==;EndpointSuffix=x",
     ["Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg=="], None),
    ("slack-webhook",
     "post alerts to https://hooks.slack.com/services/T0EXAMPLE1/B0EXAMPLE2/aB3dE5fG7hJ9kL1mN3pQ5rS7",
     ["aB3dE5fG7hJ9kL1mN3pQ5rS7"], None),
    ("telegram-bot",
     "why does https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe 404?",
     ["AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"], None),
    ("vendor-whsec", "whsec_9Kx2Lm4Nq6Rs8Tu0Vw2Xy4Za6Bc8De0 is what Stripe gave me",
     ["whsec_9Kx2Lm4Nq6Rs8Tu0Vw2Xy4Za6Bc8De0"], None),
    ("vendor-ya29", "curl with ya29.a0AfH6SMBexampleTok9xQ2lM7pR4 gives 403",
     ["ya29.a0AfH6SMBexampleTok9xQ2lM7pR4"], None),
    ("passport", "my passport number is 912803456, I'm flying to Tokyo next week", ["912803456"],
     None),
    ("passport-zh", "我的护照号是 E12345678，下周去新加坡", ["E12345678"], None),
    ("hk-macau-permit", "港澳通行证 C12345678，我是深圳人", ["C12345678"], ("hometown", "深圳")),
    ("ni-number", "National Insurance number QQ 12 34 56 C, for the payroll form",
     ["QQ 12 34 56 C"], None),
    ("driving-licence", "my driver's license number is D1234-56789-01234", ["D1234-56789-01234"],
     None),
    ("account-sort-code", "sort code 20-00-00, account 31926819, I bank with Barclays",
     ["31926819"], None),
    ("account-zh", "收款账户 6214830123456789，户名张三", ["6214830123456789"], None),
    ("card-dotted", "charge 4111.1111.1111.1111 for the hotel in Lisbon", ["4111.1111.1111.1111"],
     None),
]  # fmt: skip

MORE_FORMS: list[tuple[str, str, str]] = [
    ("phone", "call 138 - 0000 - 5566 tonight", "138 - 0000 - 5566"),
    ("phone", "my number's five five five oh one oh two two eight four", "five five five"),
    ("phone", "ring my mobile on double five five, zero one zero, four four one eight", "zero one"),
    ("phone", "(555) 010-2234 ext. 41 is my desk", "(555) 010-2234"),
    ("email", "my outlook is k.lee_77, put it on the form", "k.lee_77"),
    ("email", "邮箱是 li_lei at example 点 com", "li_lei"),
    ("email", "邮箱 chen 艾特 example 點 cn", "chen"),
    ("password", "我的 wifi password 就是 Home#2024", "Home#2024"),
    ("password", "我的密码一般都用 Lin19880512", "Lin19880512"),
    ("password", "我的 PIN number 是 5521，别 save", "5521"),
    ("password", "the code for the storage unit: 7731", "7731"),
    ("password", "mongosh -u admin -p M0ngo!Pw22 --host db.example.com", "M0ngo!Pw22"),
    ("password", "docker login --username bob --password Dck3r!Pass9", "Dck3r!Pass9"),
    ("api_key", "the CLI wants --token Gh0stT0ken9x7Lm2 as a flag", "Gh0stT0ken9x7Lm2"),
    ("api_key", "dckr_pat_Ab3dEf5GhIjK7lMnOp9QrSt is my docker hub PAT", "dckr_pat_Ab3dEf5Gh"),
    ("api_key", "xapp-1-A0EXAMPLE12-4412345678901-9f8e7d6c5b4a39281706f5e4d3c2b1a0 stopped",
     "xapp-1-A0EXAMPLE12"),
    ("api_key", "https://discord.com/api/webhooks/112233/Xy9-Ab3dEf5GhIjK7lMnOp9QrStUv1WxYz3",
     "Xy9-Ab3dEf5GhIjK7lMnOp9QrStUv1WxYz3"),
    ("national_id", "我的 passport number 是 G12345678", "G12345678"),
    ("bank_card", "对方的账号是 1234 5678 9012，帮我转五百块", "1234 5678 9012"),
    ("bank_card", "卡号 6212.2612.0200.1234.567，帮我还信用卡", "6212.2612.0200.1234.567"),
    ("password", "card 是 5105 1051 0510 5100，security code 背面那三位是 218", "218"),
    ("phone", "座机：62345678，找前台就行", "62345678"),
    ("phone", "我的香港手机 9123 4567", "9123 4567"),
    ("phone", "my phone number is 555 0123 4567", "555 0123 4567"),
    ("phone", "phone (555)0102234", "0102234"),
    ("password", "my password? it's Tulip$2020, don't judge", "Tulip$2020"),
    ("password", "登录密码是我生日 19900307，帮我记着", "19900307"),
    ("password", "ATM 密码 6 位：135246", "135246"),
    ("password", "security answer: Fluffy2009, in case the bank asks", "Fluffy2009"),
]  # fmt: skip
"""(type, text, a raw value or its start that must not survive the redactor)."""

LOOK_ALIKES: list[tuple[str, str]] = [
    ("phone", "scores were 415 555 0132"),
    ("phone", "the stats: 100 - 200 - 3000"),
    ("phone", "one two three four five six seven, here we go"),
    ("phone", "Zoom meeting ID 845 1234 5678"),
    ("phone", "the ticket is 555-0100 in jira"),
    ("phone", "call the function with 3 args"),
    ("phone", "the meeting is 14:30-15:45 in room 305"),
    ("bank_card", "订单号 2024051833910277 帮我查一下物流"),
    ("bank_card", "release 2024.0518.0001.0002 shipped"),
    ("bank_card", "IP is 192.168.10.254"),
    ("bank_card", "we fixed issue 4417 2290 3381 yesterday"),
    ("bank_card", "账号 liwei88 登不上去"),
    ("bank_card", "今年营业额是 13800000 元左右"),
    ("password", "PIN 码是 4 位数字还是 6 位？"),
    ("password", "密码至少要 8 位"),
    ("password", "docker run -p 8080:80 nginx"),
    ("password", "mysql -u root -p -h db.example.com"),
    ("password", "use --password-stdin with docker login"),
    ("password", "the pass is valid until June"),
    ("password", "I passed the exam with 95 points"),
    ("password", "the jersey number on the back is 123"),
    ("password", "第一二三四名都有奖"),
    ("api_key", "--max-tokens=4096 --temperature 0.7"),
    ("api_key", "our deploy hooks live at https://example.com/hooks/deploy-production-east"),
    ("api_key", "version v1.2.3-rc.4 is out"),
    ("email", "my gmail is full again"),
    ("email", "the outlook is 2.5% growth next year"),
    ("email", "I'm at acme.com most days"),
    ("national_id", "the passport office is open 9 to 5"),
    ("national_id", "护照快过期了，续签要多久？"),
    ("national_id", "the EIN form is confusing"),
    ("national_id", "我是 1990 年 3 月 7 日出生的"),
    ("phone", "会议号 62345678，下午三点开会"),
    ("phone", "the meeting ID is 555 0123 4567, join at noon"),
    ("phone", "we sold 62345678 units"),
    ("password", "密码长度是 8 位"),
]
"""Near-misses that must stay as they are (room numbers, dates, times, versions, counts)."""


@pytest.fixture
def log_lines() -> Iterator[list[str]]:
    with captured_log_lines() as lines:
        yield lines


@pytest.mark.parametrize(
    ("turn", "values", "kept"), [c[1:] for c in LEAKS], ids=[c[0] for c in LEAKS]
)
def test_secret_is_nowhere_after_the_write_path(
    mstore: MemoryStore,
    log_lines: list[str],
    turn: str,
    values: list[str],
    kept: tuple[str, str] | None,
) -> None:
    pipeline = WritePipeline(mstore)
    scope = Scope(user_id="leaks3")
    report = pipeline.process_turn(turn, scope=scope, turn_id="t0", thread_id="th")
    stored = [
        r.model_dump_json()
        for r in mstore.list(scope=scope, current_only=False, include_internal=True)
    ]
    places = {
        "store": "\n".join(stored),
        "reports": report.model_dump_json(),
        "logs": "\n".join(log_lines),
    }
    for value in values:
        leaked = [where for where, text in places.items() if found(value, text)]
        assert not leaked, (value, leaked, report.redacted_text)
    if kept is not None:
        current = {(r.predicate, r.object) for r in mstore.list(scope=scope)}
        assert kept in current, current


@pytest.mark.parametrize(("kind", "text", "value"), MORE_FORMS)
def test_more_forms_are_redacted(kind: str, text: str, value: str) -> None:
    result = Redactor().redact(text)
    assert kind in result.types, (text, result.text)
    assert value not in result.text, (text, result.text)


@pytest.mark.parametrize(("kind", "text"), LOOK_ALIKES)
def test_look_alikes_are_kept(kind: str, text: str) -> None:
    result = Redactor().redact(text)
    assert kind not in result.types, (text, result.text)


def test_a_room_number_next_to_a_phone_stays() -> None:
    text = "I'm in Room 1203, call me on 555-010-4418x23"
    assert Redactor().redact(text).text == "I'm in Room 1203, call me on [PHONE]x23"
