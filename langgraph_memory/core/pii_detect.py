"""PII detection: where the personal identifiers and secrets of a text are (no redaction).

:func:`find_pii` returns ``(start, end, type)`` spans; :class:`~.redact.Redactor` applies the
policy to them. Detection runs on a copy of the text whose full-width ASCII forms (``＠``,
``１３８``, ``：``), runs of Chinese digit numerals (``一三八零零零零…``) and typographic dashes
between digits (``555–0123``) are folded to ASCII one character for one, so offsets are those of
the original text. Every pattern matches with ASCII word boundaries (:func:`_rx`), so an English
word glued to Chinese ("我的password是…", "密钥sk-…", "call我…") is still a word.

A value is confirmed by its shape alone only where the shape is distinctive (an e-mail address, a
``+``-prefixed number, a vendor key prefix, a checksum). Where the shape is common (a 7-digit
``555-0100``, an 18-digit number with a bad check digit, a spaced number) it takes a context word
next to it ("call", "电话", "身份证", "card"); a word that makes the number something else
("order", "room", "words") vetoes a phone. The families:

* ``password``: the password of ``scheme://user:password@host`` (only the password); config
  assignments (``DB_PASSWORD=…``, ``"password": "…"``); the value after a password word
  (password, passwd, passcode, passphrase, pwd, pw, PIN, wifi key, 密码, 密碼, 口令, and the
  codes of a door, gate or alarm: "door code", 门禁码), up to five words ("for the router admin
  page") and "is / was / 's / : / = / 是 / 为" unless it is a prose word, a variable, a path or a
  call ("is required", "was leaked", ``${PW}``, ``getpass()``); when the value looks like a
  password (a digit or a symbol), also after "to / set to / now / 改成(了) / 设成 / …" or nothing
  at all ("密码 root1234"). A quoted value is taken whole ("purple monkey dishwasher 42"), a value
  typed a character at a time too ("7 3 9 1"). After "my / the / our … password" or prose after
  "password is" ("the same as my dog's name, Biscuit2019"), a :func:`strong_password` later in
  the clause. One-time, card and lock codes (verification code, CVV, combo, 验证码) with a digit;
  "the / my code is" with 4-8 digits (not "zip code", not "5000 lines"). The other value said
  right after a password ("7719 not 7718", "原来的 Hua@2024"). The part after the slash of
  ``login user / password``, ``jane@example.com / password`` and, next to a login word,
  ``jdoe / Winter2024!``; ``log in as U with P``; ``user U pass P``; ``?key=…`` / ``&token=…``
  URL query values that look like tokens.
* ``api_key``: vendor prefixes (``sk-…`` — a short one needs a part mixing letters and
  digits —, ``sk_live_``, ``ghp_``, ``github_pat_``, ``glpat-``, ``hf_``, ``xox?-``, ``AKIA``,
  ``AIza``, ``npm_``, ``pypi-``, ``SG.``, JWTs, PEM private keys, ``Bearer``,
  ``Authorization: Basic``), and short forms of the vendor prefixes confirmed by
  :func:`looks_secret`; config assignments (``API_KEY=…``, ``"token": "…"``); a
  token-shaped value (12+ characters with a 6+ character part mixing letters and digits)
  within a few characters of "key / token / secret / auth / creds / 密钥 / 令牌"; an AWS secret
  key (32-64 base64 characters, mixed case and a digit) next to "aws / secret / creds / AKIA".
* ``email``: ``local@domain.tld``, ``local [at] domain [dot] tld``, ``local(at)domain.tld``,
  spoken addresses (``jane dot doe at example dot com``, ``jane.doe at example.com``),
  ``jane#example.com`` before a known top-level domain; next to a mail word, ``local @
  domain.tld``; next to a mail word or a verb that takes an address ("write to", "send",
  "cc"), ``local at domain.tld``.
* ``phone``: ``+``-prefixed international numbers and ``+86``/``0086`` mobiles; Chinese mobiles
  (``138 0000 0000``, dots, dashes); Chinese landlines (``010-62000000``, ``021-6234-5678``);
  North American ``(202) 555-0100`` / ``202-555-0100`` / ``1-202-555-0100``; and, next to a
  phone word, national numbers with a trunk ``0`` (``020 7946 0958``, ``06 12 34 56 78``),
  ``00``-prefixed international numbers, 7-digit local numbers (``555-0100``,
  ``555 0100``), space-separated forms (``202 555 0100``, ``(021) 6234 5678``) and, next to a
  dialling word ("call", "text me", "ping me", "电话"), ten digits in one run (``5550102234``);
  ``555-0123`` (a leading zero after the dash: no range) unless a word makes it something
  else; a number typed a digit at a time (``1 3 9 0 0 0 0 4 4 1 7``).
* ``national_id``: 18-character PRC ID numbers with a correct MOD 11-2 check character and a
  real birth date; next to an ID word, also a wrong check character, the 15-digit pre-1999 form
  and spaced groups (``110105 19900101 1234``), as long as the birth date is real; US SSNs
  (``123-45-6789``, valid ranges) unless a word makes it something else ("part number"), and
  next to "SSN" / "social (security)" also ``123 45 6789`` and ``123456789``.
* ``bank_card``: IBANs passing the ISO 13616 mod-97 check; 13-19 digit numbers passing Luhn
  and, next to a card word (card, credit, debit, IBAN, pay, charge, 信用卡, 卡号, 银行卡, 支付…),
  ones failing it.

Forms added with ``pii_dev3``: phones with a glued extension (``555-010-4418x23``), spaced
dashes (``138 - 0000 - 2233``), a fictional ``0`` exchange with spaces (``555 010 6621``) or read
out in words ("five five five, zero one zero, …"); addresses spelled with "点" / "艾特" /
``【at】`` or spaced dots, and a provider's mailbox ("my gmail is jane.doe.5550"); 8-digit local
and grouped numbers next to a phone word; passwords after Chinese words ("密码就是 …",
"password 我记得是 …", "密码是我生日 …"), Chinese passphrases ("口令：芝麻开门2024"), "the pass is
…", "my password? it's …", security answers, command-line flags (``curl -u u:p``, ``mysql
-pP``, ``docker login -p P``, ``redis-cli -a P``, ``--password=P``), share-link codes (提取码),
a card's code by where it is ("the three digits on the back are …"); webhook and bot URL
secrets (Slack, Discord, Telegram), connection-string keys (``AccountKey=``) and more vendor
prefixes; identity documents after their name (passport, driver's licence, national
insurance, 护照, 港澳通行证); dotted card numbers and account numbers right after "account" /
"账号" / "账户" next to a bank word.

Detectors claim text in the order of :data:`DETECTORS` (passwords and config secrets, API keys,
e-mail, prefixed phones, national IDs, bank cards, other phones, digit-at-a-time numbers); a
later match overlapping a
claimed span is dropped.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from datetime import date

Span = tuple[int, int, str]
"""``(start, end, type)`` of one detected value, offsets into the original text."""


def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile`` with ASCII ``\\b``/``\\w``: an English word glued to Chinese
    ("我的password是", "的pin码") still starts at a word boundary, and a Chinese character is
    never part of a token."""
    return re.compile(pattern, flags | re.ASCII)


PLACEHOLDER_RE = _rx(r"\[(PHONE|EMAIL|ID_NUMBER|BANK_CARD|PASSWORD|API_KEY)(?:#[0-9a-f]{8})?\]")
"""Matches any placeholder :class:`~.redact.Redactor` writes."""

# ---------------------------------------------------------------------- checksums
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def cn_id_birth_ok(value: str) -> bool:
    """True when the digits of an 18-digit (YYYYMMDD at 7-14) or 15-digit (YYMMDD at 7-12) PRC
    ID number hold a real birth date (years 1900-2099) and the region code does not start
    with 0 or 9."""
    if value[:1] in ("", "0", "9"):
        return False
    try:
        if len(value) == 18:
            year, month, day = int(value[6:10]), int(value[10:12]), int(value[12:14])
        elif len(value) == 15:
            year, month, day = 1900 + int(value[6:8]), int(value[8:10]), int(value[10:12])
        else:
            return False
        if not 1900 <= year <= 2099:
            return False
        date(year, month, day)
    except ValueError:
        return False
    return True


def cn_id_checksum_ok(value: str) -> bool:
    """True when ``value`` is an 18-character PRC ID number with a valid check character and a
    real birth date (YYYYMMDD at positions 7-14, years 1900-2099)."""
    if len(value) != 18 or not value[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(value[:17], _ID_WEIGHTS, strict=True))
    if _ID_CHECK[total % 11] != value[17].upper():
        return False
    return cn_id_birth_ok(value[:17] + "0")


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


def iban_ok(value: str) -> bool:
    """True when ``value`` (spaces allowed) is an IBAN passing the ISO 13616 mod-97 check."""
    compact = re.sub(r"\s", "", value).upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", compact):
        return False
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def ssn_ok(value: str) -> bool:
    """True when ``ddd-dd-dddd`` is a possible US SSN (area not 000/666/9xx, group not 00,
    serial not 0000)."""
    area, group, serial = value.split("-")
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


# ---------------------------------------------------------------------- value shapes
_CJK = _rx(r"[\u2e80-\u9fff\uac00-\ud7af]")
_STOP_TEXT = (
    "required wrong incorrect invalid correct expired too not the a an my your weak strong same "
    "different case set changed reset saved stored missing empty blank hidden encrypted hashed "
    "protected needed long short secure safe simple easy hard new old ok fine correctly still "
    "now also never always only just being and or of for to in on at here there this that it "
    "str string bytes int optional secretstr any today tomorrow yesterday below above attached "
    "inside written somewhere"
)
_STOP_VALUES = frozenset(_STOP_TEXT.split())
"""Words that follow "password is" in prose ("my password is required") and are no value."""
_NUMBER_RANGE = _rx(r"\d{1,3}(?:[-~]\d{1,3})?")
"""A length or a range of lengths ("密码 8-16 位"), not a password."""


def looks_password(value: str) -> bool:
    """A bare value (no "is"/":" before it) is a password when it is 4-64 characters, holds
    no CJK and has a digit or a symbol ("Tiger#2025", "abc12345"; not "reset", not "8")."""
    if not 4 <= len(value) <= 64 or _CJK.search(value) or PLACEHOLDER_RE.search(value):
        return False
    if value.lower() in _STOP_VALUES or "://" in value or _NUMBER_RANGE.fullmatch(value):
        return False
    if is_reference(value):
        return False
    return any(c.isdigit() for c in value) or any(
        not c.isalnum() and c not in "-_.'" for c in value
    )


def looks_secret(value: str, *, min_len: int = 12, letters_only: bool = True) -> bool:
    """A token is a secret when it is long and not a word, a version or a model name: at least
    ``min_len`` characters and one ``-_.``-separated part of 6+ characters mixing letters and
    digits, or (``letters_only``) a part of 20+ characters mixing upper and lower case
    ("9f86d0…", "sk-test-abc123xyz"; not "claude-3-5-sonnet-20241022", not "gpt-4o-mini")."""
    if len(value) < min_len or PLACEHOLDER_RE.search(value) or "://" in value:
        return False
    for part in re.split(r"[-_.]", value):
        letters = any(c.isalpha() for c in part)
        if len(part) >= 6 and letters and any(c.isdigit() for c in part):
            return True
        mixed_case = any(c.isupper() for c in part) and any(c.islower() for c in part)
        if letters_only and len(part) >= 20 and mixed_case:
            return True
    return False


_REFERENCE = _rx(
    r"^(?:\$\{?[A-Za-z_]\w*\}?|<[^>]*>|\{\{[^}]*\}\}|%\(?\w+\)?s?|(?:x+|\*+|\.\.\.|…)"
    r"|.*(?:\.\.\.|…)|(?:os\.)?(?:environ|getenv).*|process\.env.*|env\(.*"
    r"|null|none|nil|true|false|undefined|changeme|your[_-].*)$",
    re.IGNORECASE,
)
"""Config values that name a secret without being one (``${API_KEY}``, ``<your-token>``)."""


def is_reference(value: str) -> bool:
    """True when a config value is a variable, a template or a placeholder, not a secret."""
    return bool(_REFERENCE.match(value.strip("\"'")))


# ---------------------------------------------------------------------- context words
_PHONE_WORDS = _rx(
    r"(?i)\b(?:phone|tel|telephone|cell(?:phone)?|mobile|call(?:ed|ing|s)?|text(?:ed)?\s+me"
    r"|(?:a\s+)?text(?:ed|ing)?\s+to\s+(?:me|my|him|her|them|us)\b"
    r"|reach(?:ed)?|contact|dial(?:led)?|fax|whats?app|sms|hotline|landline|ext)\b"
    r"|\b(?:ping|ring|buzz|message|msg|page|signal|telegram|imessage)\s+(?:me|him|her|us|them)\b"
    r"|(?:my|his|her|their|our|your|new|old|'s|phone|contact|cell)\s+(?:number|no\.?|#)"
    r"|\bnumber\s*(?:is|was|:)|\btext(?:ed)?\s+(?:to\s+|on\s+|at\s+)?$"
    r"|电话|手机|号码|这个号|那个号|新号|换号|打给|打我|联系|座机|来电|致电|拨打|短信|微信"
)
_DIAL_WORDS = _rx(
    r"(?i)\b(?:phone|tel|telephone|cell(?:phone)?|mobile|call(?:ed|ing|s)?|text(?:ed)?(?:\s+me)?|dial"
    r"|fax|whats?app|sms|landline)\b|\b(?:ping|ring|text|message)\s+(?:me|him|her|us|them)\b"
    r"|电话|手机|打给|打我|致电|拨打|短信|微信"
)
"""Words that make a run of ten digits a phone ("call me on 5550102234"; not "student number
is 2021003344")."""
_NOT_PHONE_WORDS = _rx(
    r"(?i)\b(?:order|ticket|case|invoice|tracking|reference|ref|part|model|serial|item|flight"
    r"|room|version|build|issue|sku|zip|postal|isbn|pages?|words|lines|units|items|users|times"
    r"|people|rows|requests|records|steps)\b"
    r"|订单|单号|工单|编号|型号|批次|快递|邮编|页|字"
)
_ID_WORDS = _rx(
    r"(?i)身份证|证件号|身份号|居民身份|公民身份|\bID\s*(?:card|number|no\.?|#)"
    r"|\b(?:national|resident|citizen|identity)\s+(?:id|card|number)|\bmy\s+ID\b|\bID\s*(?:is|:)"
)
_SSN_WORDS = _rx(
    r"(?i)\bSSN\b|\bSS\s?#|social\s+security|\bsocial\b(?!\s+(?:media|network|life|skills?|"
    r"worker|work|studies|science))|\bsoc\.?\s+sec\b|社会安全号|社保号"
)
_CARD_WORDS = _rx(
    r"(?i)\b(?:card|credit|debit|visa|master\s?card|amex|unionpay|discover|cc|iban"
    r"|(?:bank\s+)?account\s+(?:number|no\.?|#)|acct|pay(?:ment|ing)?|charge[ds]?|billing"
    r"|checkout)\b|卡|银联|银行账号|银行账户|开户行|付款|支付|刷"
)
_MAIL_WORDS = _rx(r"(?i)\be-?mail\b|\bmail\b|邮箱|邮件|电邮")
_SEND_WORDS = _rx(
    r"(?i)\b(?:e-?mail|mail|write|send|sent|forward|reply|cc|bcc|reach|contact|message)\b"
    r"|邮箱|邮件|电邮|发给|发到|联系"
)
"""Mail words and the verbs that take an address ("write to ana at example.com"): enough for
a spelled ``local at domain.tld`` (not for ``local @ domain``)."""
_SECRET_WORDS = (
    r"(?:api[\s_-]?key|access[\s_-]?key|secret(?:[\s_-]?key)?|token|credential|密钥|秘钥|令牌|口令)"
)
_TOKEN_WORDS = _rx(
    rf"(?i)(?<![A-Za-z]){_SECRET_WORDS}(?![A-Za-z])|\bkeys?\b|\bbearer\b|\bauth\b|\bcreds\b"
)


def near(
    text: str, start: int, end: int, words: re.Pattern[str], *, before: int = 32, after: int = 16
) -> bool:
    """True when ``words`` occurs within ``before`` characters before ``start`` or ``after``
    characters after ``end`` (not crossing a line break)."""
    head = text[max(0, start - before) : start].rsplit("\n", 1)[-1]
    tail = text[end : end + after].split("\n", 1)[0]
    return bool(words.search(head) or words.search(tail))


def _phone_context(text: str, start: int, end: int) -> bool:
    """A phone word is near and no word that makes the number something else ("order 555-0100",
    "200-1000 words") is nearer."""
    if not near(text, start, end, _PHONE_WORDS):
        return False
    return not near(text, start, end, _NOT_PHONE_WORDS, before=16, after=8)


# ---------------------------------------------------------------------- patterns
_QUOTE = r"[\"'“”‘’`]?"
_VALUE = r"[^\s\"'“”‘’`，。、,;；)）\]】}>\u2e80-\u9fff]+"
_PW_WORD = (
    r"(?:\b(?:password|passwd|passcode|passphrase|pwd)\b|\b(?:wi-?fi|wlan|wpa2?|network)\s+key\b"
    r"|\bsecurity\s+(?:question\s+)?answer\b|密码|密碼|口令|密保答案)"
)
"""Password words: also the key of a wireless network ("wifi key") and traditional 密碼."""

_URL_PASSWORD = _rx(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://"  # a scheme: the text is clearly a URL
    r"[^\s:/?#@\[\]]*:"  # the user name (may be empty: redis://:secret@host)
    r"(?P<v>[^\s/?#]+)"  # the password, up to the last "@" of the authority
    r"(?=@[^\s/?#@:])"  # then the host (not consumed: a second URL may follow it)
)
"""The password of ``scheme://user:password@host``: RFC 3986 userinfo, with the password
running to the authority's last ``@`` (passwords are often written with an unencoded ``@``)."""
_CONFIG_SECRET = _rx(
    r"(?i)(?P<q>[\"'])?(?P<k>(?<![\w.-])(?:[A-Za-z0-9]+[_.-])*(?:api[_-]?key|apikey|secret"
    r"|token|password|passwd|pwd|pass|private[_-]?key|access[_-]?key|credentials?))(?P=q)?"
    r"(?P<sep>\s*[:=]\s*|=)(?P<vq>[\"'])?(?P<v>[^\s\"',;}\]]+)"
)
"""``KEY=value``, ``"key": "value"``, ``key: value`` where the key names a secret."""
_QUERY_SECRET = _rx(r"[?&;](?P<k>[A-Za-z0-9_.-]{1,40})=(?P<v>[^&#\s\"'<>，。]+)")
"""A URL query parameter (``?channel=ops&key=Tk4Lq9Zr2Wx7``)."""
_SECRET_PARAM = _rx(
    r"(?i)(?:^|[_.-])(?:key|apikey|token|secret|sig|signature|auth|pass|passwd|password|pwd|pw"
    r"|session|sessionid|sid|code|credentials?|jwt)(?:$|[_.-])"
)
"""Query parameters that carry a secret: their value is one when it looks like a token (letters
and digits mixed; ``?page=2``, ``?code=200`` are not)."""
_DOOR_CODE = (
    r"\b(?:door|gate|entry|entrance|alarm|lock|garage|building|lockbox|keypad|access)\s+code\b"
    r"|门禁(?:码|密码|卡密码)?|开门(?:密)?码|门锁密码|大门密码|车库密码|保险箱密码"
)
"""Codes that open a door, a gate or an alarm ("door code is 4821", "门禁码是 0923#"): a
secret like a password, whatever the value looks like."""
_PIN = r"\bpin(?:\s*(?:code|number|no\.?|码|号|碼))?(?![A-Za-z])"
"""A PIN ("PIN", "pin code", "PIN number", "pin码")."""
_PASSWORD_STRONG = _rx(
    rf"(?i)(?<![@/.-])(?:{_PW_WORD}|{_PIN}|\bpw\b|{_DOOR_CODE})"
    r"(?:\s+(?:for|of|on|to)(?:\s+[^\s,，。.;；:：]+){1,6}?)?"
    rf"(?:\s*(?:is|was)\b|['’]s\b|\s*[:=：]|\s*(?:是|为))\s*{_QUOTE}(?P<v>{_VALUE})"
)
"""A password word, then "is"/"'s"/":"/"="/"是"/"为": whatever follows is the value."""
_QUAL_CODE = (
    r"\b(?:verification|security|confirmation|auth(?:entication|orization)?|one[\s-]?time|otp"
    r"|2fa|mfa|sms|login|unlock|safe|locker|padlock|pin|alarm)\s+code\b"
    r"|\b(?:cvv2?|cvc2?|csc|otp|combo|combination|keypad)\b"
    r"|验证码|校验码|动态码|动态密码|安全码|短信码|取件码|驗證碼|提取码|提取密码|访问码|分享码|取货码"
)
"""One-time, card and lock codes ("verification code", "CVV", "locker combo", "验证码", a
share link's "提取码"): a secret when a digit is in the value."""
_BARE_CODE = r"\b(?:the|my|our|your|his|her|new|old|this|that)\s+code\b"
"""A code with no qualifier ("the code is 7719"; not "zip code", "error code"): a secret when
the value is 4-8 digits."""
_CODE_STRONG = _rx(
    rf"(?i)(?<![@/.-])(?P<w>{_QUAL_CODE}|{_BARE_CODE})"
    r"(?:\s+(?:for|of|on|to)(?:\s+[^\s,，。.;；:：]+){1,6}?)?"
    rf"(?:\s*(?:is|was)\b|['’]s\b|\s*[:=：]|\s*(?:是|为))\s*{_QUOTE}(?P<v>{_VALUE})"
)
_CODE_WEAK = _rx(
    rf"(?i)(?<![@/.-])(?P<w>{_QUAL_CODE}|{_DOOR_CODE}|{_PIN})"
    r"(?:\s*(?:改成|改为|换成|换为|设成|设为|变成|更新为|重置为)了?|\s+(?:is\s+)?(?:now|set\s+to|changed\s+to|to)\b)?"
    r"\s*(?P<v>\d(?:[\d*#-]|\s(?=\d)){2,11}[#*]?)(?![\w.])"
)
"""A code word with a weak connector or none, then digits ("pin 4829", "门禁码 0923#",
"verification code 662913")."""
_CODE_DIGITS = _rx(r"\d{4,8}[#*]?")
_COUNT_AFTER = _rx(
    r"(?i)\s*(?:lines?|loc|words?|chars?|characters?|bytes?|[kmg]b|ms|seconds?|minutes?|hours?"
    r"|tests?|files?|commits?|times?|users?|rows?|steps?|items?|pages?|digits?|%|行|个|字|次|位)"
)
"""A unit after a number makes it a count ("our code was 5000 lines"), not a code."""
_SPACED_RUN = _rx(r"[^\s,，。;；:：]{1,2}(?: [^\s,，。;；:：]{1,2}){3,}(?![^\s,，。;；])")
"""A value typed with a space between its characters ("7 3 9 1", "h u n t e r 2")."""
_PASSWORD_QUOTED = _rx(
    rf"(?i)(?<![@/.-])(?:{_PW_WORD}|\bpin\b|\bpw\b|{_DOOR_CODE})"
    r"(?:\s*(?:is|was)\b|['’]s\b|\s*[:=：]|\s*(?:是|为|改成|改为|设成|设为|换成)了?)\s*"
    r"[\"“'‘「『](?P<v>[^\"”'’」』\n]{2,64})[\"”'’」』]"
)
"""A quoted password, whatever it holds ("我的口令是“芝麻开门123”")."""
_QUOTED_VALUE = _rx(r"[\"“'‘`](?P<v>[^\"”'’`\n]{4,64})[\"”'’`]")
"""A quoted value (a passphrase of several words)."""
_CLAUSE_END = _rx(r"[.!?。！？;；\n](?:\s|$)|[。！？；\n]")
_ALTERNATE = _rx(
    r"(?i)[\s,，]*(?:\(|（)?(?:\bnot\b|\binstead\s+of\b|\brather\s+than\b|\bno\s+wait\b|\bor\b"
    r"|\bnot\s+the\s+old\b|\bthe\s+old\s+one\s+(?:was|is)\b|\bwas\b|\bused\s+to\s+be\b"
    r"|而不是|不是|原来的|原来是|以前的|以前是|之前的|之前是|旧的|老的|或者|还是)"
    rf"\s*(?:是|为|:|：)?\s*{_QUOTE}(?P<v>{_VALUE})"
)
"""What follows a password as its other value ("7719 not 7718", "Hua@2025，原来的 Hua@2024")."""
_PW_MENTION = _rx(
    r"(?i)(?<![@/.-])(?:\b(?:my|our|the|his|her|your|their|same|new|old|current)\s+"
    rf"(?:[A-Za-z-]+\s+)?{_PW_WORD}|(?:我的|我家|他的|她的|新的|旧的|原来的|现在的)\S{{0,6}}?"
    r"(?:密码|密碼|口令))(?!\s*(?:manager|policy|policies|reset|hint|strength|rules?"
    r"|requirements?|field|box|prompt|less|protected|generator|vault|app|checker)\b)"
)
"""A password of someone's ("my password", "the wifi password", "我的密码"): a
:func:`strong_password` later in the clause is its value, whatever stands between ("my
password, by the way, is Fluffy123"; "I use the same password everywhere, Fluffy123")."""
_VERSION = _rx(r"(?i)v?\d+(?:\.\d+)+[a-z]?|[A-Za-z]+[-_]?\d+(?:\.\d+)+")


def strong_password(value: str) -> bool:
    """A token that is a password wherever it stands in a password sentence: it looks like a
    password (:func:`looks_password`), is 6+ characters and mixes a letter with a digit or a
    symbol; not a version ("Python3.11", "v2.3.1"), an address or a URL."""
    if len(value) < 6 or not looks_password(value) or ("@" in value and "." in value):
        return False
    if _VERSION.fullmatch(value):
        return False
    letter = any(c.isalpha() for c in value)
    digit = any(c.isdigit() for c in value)
    symbol = any(not c.isalnum() and c not in "-_.'" for c in value)
    return letter and (digit or symbol)


_PASSWORD_WEAK = _rx(
    rf"(?i)(?<![@/.-])(?P<w>{_PW_WORD})"
    r"(?P<c>\s*(?:改成|改为|换成|换为|设成|设为|设置为|设置成|设置|变成|更新为|更改为|重置为|重置成|改)了?"
    r"|\s+(?:is\s+)?(?:now|set\s+to|changed\s+to|updated\s+to|reset\s+to|to)\b"
    r"|\s*(?:->|→|=>))?"
    rf"(?P<gap>\s*){_QUOTE}(?P<v>{_VALUE})"
)
"""A password word, then a weak connector or none: the value must look like a password (and,
after an English word with no connector, be separated from it: "password-protected" is no
value)."""
_CREDENTIAL_PAIR = _rx(
    r"(?i)(?:(?<![\w/.-])(?:log\s?-?in|sign[\s-]?in|credentials?|creds|account|username"
    r"|wi-?fi|ssid)"
    r"(?:\s*(?:is\s+|[:：=]\s*)|\s+)|(?<![\w/.-])user\s*[:=]\s*"
    r"|(?:账号|帐号|帳號|賬號|账户|帳戶|用户名|用戶名|登录|登入)\s*[:：]?\s*)"
    r"(?P<u>[^\s/|,，。<>]*[A-Za-z0-9][^\s/|,，。<>]*)\s*[/|]\s*"
    r"(?P<v>[^\s\"'“”‘’`，。、,;；)）\]】<>/]+)(?![^\s\"'“”‘’`，。、,;；)）\]】<>])"
)
"""``login user / password``, ``账号 alice/Secr3t``, ``WiFi: HomeNet / pass``: the part after the
slash."""
_EMAIL_PAIR = _rx(
    r"(?<![\w.%+:/-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
    r"(?:\s+[/|]\s*|\s*[/|]\s+|\|)(?P<v>[^\s\"'“”‘’`，。、,;；)）\]】]+)"
)
"""``jane@example.com / Pa55word!``: an address, a slash, then the password."""
_BARE_PAIR = _rx(
    r"(?<![\w/.:@-])[A-Za-z][A-Za-z0-9._-]{1,30}\s+[/|]\s+"
    r"(?P<v>[^\s\"'“”‘’`，。、,;；)）\]】<>/]{6,64})(?![^\s\"'“”‘’`，。、,;；)）\]】<>])"
)
"""``jdoe / Winter2024!`` with no login word right before it: only next to one in the sentence
(:data:`_LOGIN_WORDS`), and the part after the slash must be a :func:`strong_password`."""
_LOGIN_WORDS = _rx(
    r"(?i)\b(?:log(?:ged|s)?\s?-?(?:in|on)|login|sign(?:ed|s)?[\s-]?in(?:to)?|creds?"
    r"|credentials|account|portal|vpn|ssh|admin|user(?:name)?|use)\b|登录|登入|账号|帐号|帳號"
)
_LOGIN_AS = _rx(
    r"(?i)\b(?:log(?:ged|s)?\s?-?(?:in|on)|sign(?:ed|s)?[\s-]?in|ssh)(?:\s+to\s+\S+)?\s+as\s+"
    r"[\w.@+-]+\s+(?:with|using|and|pw|pass(?:word)?)\s+"
    rf"(?:(?:the\s+|my\s+)?(?:password|pw|pass)\s+)?{_QUOTE}(?P<v>{_VALUE})"
)
"""``log in as tnguyen with Orchid#5520``: the value must look like a password."""
_USER_PASS = _rx(
    r"(?i)(?<![\w/.-])(?:user(?:name)?|login|uid|账号|帐号|帳號|用户名|用戶名)\s*[:=：]?\s*"
    r"[\w.@+-]+[\s,;，；]+(?:pass|pw|pwd)(?![A-Za-z])\s*[:=：]?\s*"
    rf"{_QUOTE}(?P<v>{_VALUE})"
)
"""``user mkumar pass Tiger$Lily7``: "pass" is a password word after a user name."""
_PASS_ASSIGN = _rx(rf"(?i)(?<![\w@/.-])pass\s*[:=：]\s*{_QUOTE}(?P<v>{_VALUE})")
_COLON_PAIR = _rx(
    r"(?i)(?<![\w/.-])(?:log\s?-?in|sign[\s-]?in|credentials?|creds|account)"
    r"(?:\s+(?:is|are)\b|\s*[:=：])?\s*[A-Za-z][\w.-]{0,30}:"
    rf"(?P<v>{_VALUE})"
)
"""``creds are admin:Adm1n!2024``: after a login word, ``user:password`` (the password must be a
:func:`strong_password`; ``localhost:8080`` is none)."""
"""``pass: Tiger$Lily7``."""
_API_KEYS = [
    _rx(r"(?<![\w-])sk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{16,}"),
    # short ones are confirmed by looks_secret (a part mixing letters and digits)
    _rx(r"(?<![\w-])(?:sk-|(?:sk|pk|rk)_(?:live|test)_)[A-Za-z0-9_-]{5,}[A-Za-z0-9]"),
    _rx(r"(?<!\w)gh[pousr]_[A-Za-z0-9]{20,}"),
    _rx(r"(?<!\w)github_pat_[A-Za-z0-9_]{20,}"),
    _rx(r"(?<![\w-])glpat-[A-Za-z0-9_-]{20,}"),
    _rx(r"(?<!\w)hf_[A-Za-z0-9]{30,}"),
    _rx(r"(?<!\w)npm_[A-Za-z0-9]{36}"),
    _rx(r"(?<![\w-])pypi-[A-Za-z0-9_-]{50,}"),
    _rx(r"(?<!\w)SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    _rx(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{12,20}(?![A-Z0-9])"),
    _rx(r"(?<!\w)xox[abprs]-[A-Za-z0-9-]{10,}"),
    _rx(r"(?<!\w)AIza[0-9A-Za-z_-]{35}"),
    _rx(r"(?<![\w-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}"),
    _rx(r"(?i)(?<=bearer\s)[A-Za-z0-9._~+/-]{16,}=*"),
    _rx(r"(?i)(?<=authorization:\sbasic\s)[A-Za-z0-9+/]{4,}=*"),
    _rx(r"(?<!\w)(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    _rx(
        r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----[\s\S]*?"
        r"(?:-----END (?:[A-Z]+ )?PRIVATE KEY-----|$)"
    ),
]
_SHORT_SK = _API_KEYS[1]
_SHORT_VENDOR = _rx(
    r"(?<![\w-])(?P<p>gh[pousr]_|github_pat_|glpat-|hf_|npm_|pypi-|xox[abprs]-|shpat_|sq0atp-)"
    r"(?P<v>[A-Za-z0-9_-]{6,})"
)
"""A vendor prefix shorter than the real keys (test data, truncated keys): confirmed by
:func:`looks_secret` on what follows the prefix."""
_AWS_SECRET = _rx(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{32,64}(?![A-Za-z0-9/+=])")
"""An AWS secret access key (40 base64 characters; fakes vary in length): mixed case and a
digit, next to "aws", "secret", "creds" or an access key id."""
_AWS_WORDS = _rx(r"(?i)\baws\b|secret|\bcreds?\b|credential|AKIA|ASIA")
_SK_PREFIX = _rx(r"^(?:sk-|(?:sk|pk|rk)_(?:live|test)_)")
_KEYWORD_SECRET = _rx(
    rf"(?i){_SECRET_WORDS}(?:\s+(?:is|was|=|:)"
    rf"|\s*[:=：是为])\s*[\"'“”]?(?P<v>[A-Za-z0-9._~+/=-]{{8,}})"
)
_LONG_SECRET = _rx(
    rf"(?i){_SECRET_WORDS}[^\n]{{0,24}}?(?<![A-Za-z0-9])(?P<v>[0-9a-f]{{32,}}"
    rf"|[A-Za-z0-9+/_-]{{32,}}={{0,2}})(?![A-Za-z0-9])"
)
_TOKEN = _rx(
    r"(?<![\w.+/=~@-])[A-Za-z0-9][A-Za-z0-9_~+/=-]*(?:\.[A-Za-z0-9_~+/=-]+)*(?![\w+/=~@-])"
)
"""A token-shaped run (the candidates :func:`looks_secret` judges next to a secret word)."""

_EMAIL = _rx(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
    r"(?![A-Za-z0-9-])"
)
_EMAIL_OBFUSCATED = _rx(
    r"(?i)(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+\s*[\[(<{]\s*at\s*[\])>}]\s*[A-Za-z0-9-]+"
    r"(?:(?:\s*[\[(<{]\s*dot\s*[\])>}]\s*|\.)[A-Za-z0-9-]+)+"
)
"""``jane [at] example [dot] com``, ``jane(at)example.com``."""
_NOT_MAILBOX = frozenset(
    {
        "me", "you", "him", "her", "us", "them", "it", "we", "i", "meet", "see", "look", "be",
        "is", "was", "noon", "night", "midnight", "home", "work", "school", "lunch", "dinner",
        "breakfast", "the", "a", "an", "this", "that", "one", "two", "three",
    }
)  # fmt: skip
"""Words that are never the mailbox or domain of a spoken address."""
_EMAIL_SPACED = _rx(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+\s+@\s*[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
    r"\.[A-Za-z]{2,}(?![A-Za-z0-9-])|(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@\s+[A-Za-z0-9-]+"
    r"(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])"
)
"""``jane @ example.com``: only next to a mail word."""
_EMAIL_HASHED = _rx(
    r"(?i)(?<![A-Za-z0-9._%+#-])[A-Za-z0-9._%+-]*[A-Za-z0-9]#[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
    r"\.(?:com|org|net|io|edu|gov|co|cn|de|uk|fr|me|ai|dev|info|biz|us|ca|au|jp|nl|es|it)"
    r"(?![A-Za-z0-9-])"
)
"""``wangli#example.com``: an address with ``#`` for ``@`` before a known top-level domain is
distinctive without a mail word (no hashtag or ``C#`` is followed by ``.com``)."""
_EMAIL_SPELLED = _rx(
    r"(?i)(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+(?:\s+at\s+|\s*(?:#|艾特|\(at\))\s*)[A-Za-z0-9-]+"
    r"(?:(?:\s+dot\s+|\.)[A-Za-z0-9-]+)*(?:\s+dot\s+|\.)[A-Za-z]{2,}(?![A-Za-z0-9-])"
)
"""``jane at example dot com``, ``jane#example.com``: only next to a mail word."""
_SPELLED_LOCAL = r"[A-Za-z0-9._%+-]+(?:\s+(?:dot|underscore|dash|hyphen)\s+[A-Za-z0-9_%+-]+)*"
_EMAIL_SPOKEN = _rx(
    rf"(?i)(?<![A-Za-z0-9._%+-]){_SPELLED_LOCAL}\s+(?:at|\[at\]|\(at\))\s+[A-Za-z0-9-]+"
    r"(?:\s+dot\s+[A-Za-z0-9-]+)*\s+dot\s+(?:com|org|net|io|edu|gov|co|cn|de|uk|fr|me|ai|dev"
    r"|info|biz|us|ca|au|jp|nl|es|it)(?:\s+dot\s+[a-z]{2})?(?![A-Za-z0-9-])"
    rf"|(?<![A-Za-z0-9._%+-]){_SPELLED_LOCAL}\s+(?:dot|underscore)\s+[A-Za-z0-9_%+-]+\s+at\s+"
    r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])"
    r"|(?<![A-Za-z0-9._%+-])[A-Za-z0-9%+-]+[._][A-Za-z0-9._%+-]*[A-Za-z0-9]\s+at\s+[A-Za-z0-9-]+"
    r"(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])"
)
"""An address spoken out ("jane dot doe at example dot com", "tom_lee at example.com",
"jane.doe at example.com"): distinctive without a mail word — a spelled ``dot`` before the
top-level domain, or a local part with a dot or underscore and a dotted domain ("work at
acme.com" is not one)."""

_CN_MOBILE = _rx(r"(?<![\d+])(?:(?:\+|00)86[\s.-]?)?1[3-9]\d(?:[\s.-]?\d{4}){2}(?!\d)")
_CN_MOBILE_PREFIXED = _rx(r"(?<![\d+])(?:\+|00)86[\s.-]?1[3-9]\d(?:[\s.-]?\d{4}){2}(?!\d)")
_CN_LANDLINE = _rx(r"(?<![\d+])0\d{2,3}-\d{7,8}(?!\d)|(?<![\d+-])0\d{2,3}-\d{3,4}-\d{4}(?![\d-])")
_CN_LANDLINE_SPACED = _rx(r"(?<![\d+])(?:\(0\d{2,3}\)|0\d{2,3})[\s-]?\d{3,4}[\s-]?\d{4}(?!\d)")
"""``(021) 6234 5678``, ``021 62345678``: only next to a phone word."""
_INTL_PHONE = _rx(r"(?<![\w+])\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,6}(?![\d])")
_NANP_PHONE = _rx(
    r"(?<![\w+.-])(?:1[-.\s])?(?:\(\d{3}\)\s?|\d{3}[-.])\d{3}[-.]\d{4}"
    r"(?:(?![\w-])|(?=(?:x|ext\.?)\d))"
)
"""North American numbers written without +1: (202) 555-0100, 202-555-0100, 202.555.0100,
1-202-555-0100, and with an extension glued on (555-010-4418x23)."""
_NANP_SPACED = _rx(r"(?<![\w+.-])(?<!\d\s)(?:1\s)?\d{3}\s\d{3}\s\d{4}(?![\w.-]|\s\d)")
"""``202 555 0100``: only next to a phone word."""
_FICTIONAL_LOCAL = _rx(r"(?<![\w+.,/:-])(?<!\d\s)[2-9]\d{2}-0\d{3}(?![\w-]|[.,/:]\d|\s\d)")
"""``555-0123``: a dash then a leading zero is no range or count ("300-1200 calories"): a local
number without a phone word, unless a word makes it something else ("order 555-0123")."""
_FICTIONAL_SPACED = _rx(r"(?<![\w+.-])(?<!\d\s)(?:1\s)?[2-9]\d{2}\s0\d{2}\s\d{4}(?![\w.-]|\s\d)")
"""``555 010 6621``: 3-3-4 with an exchange starting with 0 (never a real exchange, the fictional
numbers' form; "415 555 0132" still takes a phone word): a phone unless a word makes it
something else."""
_MEETING_WORDS = _rx(r"(?i)\b(?:meeting|conference|zoom|webex|teams|id)\b|会议")
"""Words that make a grouped number a meeting ID ("电话会议 ID 845 1234 5678")."""
_LOCAL8_PHONE = _rx(r"(?<![\w+.,/-])(?<!\d:)(?<!\d\s)[2-9]\d{3}[\s-]?\d{4}(?![\w-]|[.,/:]\d|\s\d)")
"""``62345678``, ``6234 5678``: an 8-digit local number (a city landline without its area code,
a Hong Kong mobile): only next to a phone word."""
_GROUPED_PHONE = _rx(
    r"(?<![\w+.,/:-])(?<!\d\s)(?:\d{3,4}(?:[\s.-]\d{3,4}){2}|\(\d{3}\)\s?\d{7})"
    r"(?![\w-]|[.,/:]\d|\s\d)"
)
"""``555 0123 4567``, ``(555)0102234``: ten or eleven digits in groups, only next to a phone
word."""
_LOCAL_PHONE = _rx(r"(?<![\w+.,/:-])(?<!\d\s)[2-9]\d{2}[-.\s]\d{4}(?![\w-]|[.,/:]\d|\s\d)")
"""``555-0100``, ``555 0100``: only next to a phone word, and not a piece of a longer digit
sequence (``845 1234 5678`` is a meeting ID)."""
_INTL_00 = _rx(r"(?<![\w+])00[1-9]\d{0,2}(?:[\s.-]?\(?\d{1,4}\)?){2,6}(?!\d)")
"""``0044 20 7946 0000`` (``00`` for ``+``): only next to a phone word."""
_BARE_NANP = _rx(r"(?<![\w+.-])1?[2-9]\d{9}(?![\w-]|\.\d)")
"""``5550102234``: ten digits (or 1 and ten) in one run, only next to a phone word."""
_NATIONAL_PHONE = _rx(
    r"(?<![\w+.,/:-])(?<!\d\s)\(?0\d{1,4}\)?(?:[\s.-]?\d{2,4}){1,4}(?![\w-]|[.,/:]\d|\s\d)"
)
"""A national number with its trunk ``0`` (``020 7946 0958``, ``07700 900123``, ``06 12 34 56
78``, ``0151 23456789``, ``(030) 901820``): 9 to 12 digits, only next to a phone word."""
_ID_CANDIDATE = _rx(r"(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])")
_ID_GROUPED = _rx(r"(?<![0-9A-Za-z])\d(?:[ -]?\d){16}[ -]?[\dXx](?![0-9A-Za-z])")
"""18 characters with single spaces or dashes between groups (``110105 1990 0101 1234``)."""
_ID_OLD = _rx(r"(?<![0-9A-Za-z])\d{15}(?![0-9A-Za-z])")
_SSN = _rx(r"(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])")
_NOT_SSN_WORDS = _rx(
    "(?i)"
    + _NOT_PHONE_WORDS.pattern.removeprefix("(?i)")
    + r"|\b(?:no\.?|number|#|id|code|policy|claim|account)\s*$"
)
"""Words that make ``ddd-dd-dddd`` something other than an SSN ("part number 123-45-6789")."""
_SSN_LOOSE = _rx(r"(?<![\w.-])\d{3}(?P<s>[ .]?)\d{2}(?P=s)\d{4}(?![\w-]|\.\d)")
"""``219 09 9999``, ``219.09.9999``, ``219099999``: only next to an SSN word."""
_ACCOUNT_WORDS = _rx(
    r"(?i)\b(?:bank|checking|savings|current|deposit)\s+(?:account|acct)\b"
    r"|\b(?:account|acct)\s*(?:number|no\.?|#)|\bacct\b|银行账号|银行账户|银行帐号|对公账户"
    r"|收款账号|收款帐号|开户行"
)
_NOT_CARD_WORDS = _rx(
    r"(?i)\b(?:order|ticket|invoice|tracking|reference|ref|serial|sku|isbn|waybill|shipment)\b"
    r"|订单|单号|工单|运单|快递|物流|流水号"
)
"""Words that make a Luhn-passing number something else when no card word is near."""
_ACCOUNT_NUMBER = _rx(r"(?<![\w.-])\d(?:[ -]?\d){7,18}(?![\w-]|\.\d)")
"""A bank account number (8-19 digits): only next to a bank-account word."""
_DIGIT_RUN = _rx(r"(?<![\w.-])\d(?:[ -]\d){6,18}(?![\w]|[ -]\d)")
"""``1 3 8 0 0 0 0 1 2 3 4``: a number typed a digit at a time."""
_CARD_CANDIDATE = _rx(r"(?<![\d-])(?<!\d\.)\d(?:[ -]?\d){12,18}(?![\d])")
_IBAN = _rx(
    r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?(?![A-Za-z0-9])"
)


# ---------------------------------------------------------------------- more forms (pii_dev3)
_PASSWORD_CJK_GAP = _rx(
    rf"(?i)(?<![@/.-])(?:{_PW_WORD}|{_PIN}|\bpw\b)"
    r"(?:\s*[\u4e00-\u9fff0-9 ]{0,8}?[\u4e00-\u9fff][\u4e00-\u9fff0-9 ]{0,8}?(?:是|为|用|成|[:：])"
    r"|\s*(?:是|为|[:：]))\s*(?:[\u4e00-\u9fff]{1,6}\s*)?"
    rf"{_QUOTE}(?P<v>{_VALUE})"
)
"""A password word, a few Chinese words, then the value ("密码就是 Qq123456", "密码我设的是
Huo@2024", "password 我记得是 Mango#7788", "ATM 密码 6 位：135246", "密码是我生日 19900307"): the
value must look like a password."""
_PW_QUESTION = _rx(
    rf"(?i)(?<![@/.-]){_PW_WORD}\s*[?？]+\s*(?:it['’]?s|it\s+is|that['’]?s|是|就是)\s*"
    rf"{_QUOTE}(?P<v>{_VALUE})"
)
"""``my password? it's Tulip$2020``."""
_PASSWORD_CJK_VALUE = _rx(
    rf"(?<![@/.-])(?:{_PW_WORD})\s*(?:是|为|[:：])\s*"
    r"(?P<v>[\u4e00-\u9fff]{1,8}[A-Za-z0-9!@#$%^&*_.-]*\d[A-Za-z0-9!@#$%^&*_.-]*)"
)
"""A password of Chinese characters and digits ("口令：芝麻开门2024")."""
_PASS_WORD = _rx(
    rf"(?i)(?<![\w@/.-])(?:pass|pw)\s+(?:is|was)\s+{_QUOTE}(?P<v>{_VALUE})"
    rf"|(?<![\w@/.-])(?:the|my|a|your|our|his|her)\s+(?:pass|pw)\s+(?!(?:is|was)\b){_QUOTE}(?P<s>{_VALUE})"
)
"""``the pass is Sunflower-88`` (looks like a password), ``the pw Book$worm42`` (a
:func:`strong_password`)."""
_CLI_COMMAND = _rx(
    r"(?i)(?<![\w-])(?P<c>curl|wget|http|mysql\w*|mariadb|psql|pg_dump|sshpass|docker|podman|nerdctl"
    r"|helm|redis-cli|mongo\w*|sqlcmd|smbclient|lftp|ftp|htpasswd|git|npm|pip|twine|ansible\S*)\b"
    r"[^\n|;&]{0,120}"
)
"""A command line: its short flags that take a secret (``curl -u user:pw``, ``mysql -pPW``,
``docker login -p PW``, ``redis-cli -a PW``)."""
_CLI_USER_PW = _rx(rf"(?<!\S)(?:-u|--user)\s+[^\s:'\"]+:['\"]?(?P<v>{_VALUE})")
_CLI_GLUED_P = _rx(rf"(?<!\S)-p['\"]?(?P<v>(?!-){_VALUE})")
_CLI_SPACED_P = _rx(rf"(?<!\S)(?:-p|-a|--pass|--password)\s+['\"]?(?P<v>(?!-){_VALUE})")
_CLI_LONG_FLAG = _rx(
    r"(?i)(?<![\w-])--(?P<k>[\w-]*(?:password|passwd|pass|pwd|token|secret|api[-_]?key|auth))"
    rf"(?:=|\s+)['\"]?(?P<v>(?!-){_VALUE})"
)
"""``--password=Sup3rS3cret``, ``--token Gh0st...``: a secret flag of any command."""
_BARE_STRONG_SYMBOLS = frozenset("!#$%&*@?^~+=")
_CVV_BACK = _rx(
    r"(?i)\b(?:(?:(?:three|four|3|4)[\s-]digits?|digits)\s+on\s+the\s+back"
    r"(?:\s+of\s+(?:the|my)\s+card)?|numbers?\s+on\s+the\s+back\s+of\s+(?:the|my)\s+card)\s*(?:are|is|:|=)?\s*(?P<v>\d{3,4})(?!\d)"
    r"|背面(?:的|那)?(?:三|四|3|4)位(?:数字?|号码?)?\s*(?:是|为|:|：)?\s*(?P<z>\d{3,4})(?!\d)"
)
"""A card's security code by where it is ("the three digits on the back are 737", "背面的三位数是
392")."""
_ID_DOC_WORDS = (
    r"\bpassports?|\bdriver['’]?s?\s+licen[cs]e|\bdriving\s+licen[cs]e|\blicen[cs]e\s+(?=number|no)"
    r"|\bnational\s+insurance|\bNI\s+(?=number|no)|\bNINO\b|\btax\s+id|\b(?:ITIN|NRIC|HKID|aadhaa?r)\b|\b(?-i:TIN|EIN|PAN)\b|\bresidence\s+permit|\bgreen\s+card|\bvisa\s+(?=number|no)"
    r"|护照|護照|通行证|通行證|驾驶证|驾照|駕照|居住证|签证号|台胞证|回乡证|军官证"
)
_ID_DOC = _rx(
    rf"(?i)(?:{_ID_DOC_WORDS})(?:\s*(?:number|num|no\.?|#|id|号码|号|號碼|號))?"
    r"(?:\s*(?:is|was)\b|\s*[:：=]|\s*(?:是|为))?\s*"
    r"(?P<v>[A-Za-z]{0,3}[\s-]?\d+(?:[\s-]?(?:\d[A-Za-z0-9]*|[A-Za-z](?![A-Za-z])))*)"
)
"""An identity document's number after its name (passport, driver's licence, national
insurance, 护照, 港澳通行证): six or more digits, maybe letters ("E12345678", "QQ 12 34 56 C")."""
_CARD_DOTTED = _rx(r"(?<![\w.])\d{4}(?:\.\d{4}){2,3}(?:\.\d{1,4})?(?![\w]|\.\d)")
"""``4111.1111.1111.1111``: a card written with dots (groups of four: no IP or version)."""
_PLAIN_ACCOUNT = _rx(
    r"(?i)\b(?:account|acct)\s*(?:is|:|=)?\s*$|(?:账号|帐号|账户|帐户|賬號|帳號|帳戶)(?:是|为|:|：)?\s*$"
)
"""``account 31926819``, ``收款账户 6214…``, ``账号是 1234 5678 9012``: the word right before the
number (digits only, so no login name)."""
_BANK_CONTEXT = _rx(
    r"(?i)\b(?:sort\s+code|routing|bank|wire|deposit|transfer|iban|swift|bic|payee|beneficiary"
    r"|payroll|remit\w*)\b|银行|转账|转|汇款|打款|收款|户名|开户|工资"
)
_MAIL_HANDLE = _rx(
    r"(?i)(?:\b(?:my|his|her|your|their|our|the)\s+|我的|我)(?:gmail|g-mail|outlook|hotmail|yahoo|icloud|proton(?:mail)?|qq\s*邮箱|163\s*邮箱"
    r"|126\s*邮箱)(?:\s+(?:address|account|id|handle))?\s*(?:is|:|：|=|是)\s*"
    r"(?P<v>[A-Za-z0-9][A-Za-z0-9._%+-]{2,63})(?![A-Za-z0-9@])"
)
"""``my gmail is jane.doe.5550``: a mailbox named by its provider (a digit, a dot or an
underscore in it)."""
_CN_DOT = r"(?:\s*(?:点|點|\.|\[dot\]|\(dot\)|【dot】)\s*|\s+dot\s+)"
_EMAIL_CN = _rx(
    r"(?i)(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+\s*(?:艾特|圈a|@|\[at\]|\(at\)|【at】|\s+at\s+)\s*"
    rf"[A-Za-z0-9-]+(?:{_CN_DOT}[A-Za-z0-9-]+)*{_CN_DOT}"
    r"(?:com|org|net|io|edu|gov|co|cn|de|uk|fr|me|ai|dev|info|biz|us|ca|au|jp|nl|es|it|hk|tw)"
    r"(?![A-Za-z0-9-])"
)
"""An address spelled with Chinese "点" or full-width brackets ("wangfang 艾特 example 点 com",
"zhao.lei【at】example.cn", "jane @ example . com"): a known top-level domain ends it."""
_EN_DIGIT = r"(?:(?:double|triple)\s+)?(?:zero|oh|o|one|two|three|four|five|six|seven|eight|nine)"
_EN_DIGIT_VALUE = {
    "zero": "0", "oh": "0", "o": "0", "one": "1", "two": "2", "three": "3", "four": "4",
    "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
}  # fmt: skip
_SPOKEN_NUMBER = _rx(
    rf"(?i)(?<![\w-]){_EN_DIGIT}(?:(?:\s*[,-]\s*|\s+){_EN_DIGIT}){{6,16}}(?![\w-])"
)
"""A number read out in English words ("five five five, zero one zero, three three nine one")."""
_PHONE_SPACED_DASH = _rx(
    r"(?<![\d+])(?:1[3-9]\d\s+-\s+\d{4}\s+-\s+\d{4}|(?P<n>[2-9]\d{2}\s+-\s+\d{3}\s+-\s+\d{4}))"
    r"(?!\d)"
)
"""``138 - 0000 - 2233``, ``555 - 010 - 7762``: a mobile or North American number with spaced
dashes (the latter next to a phone word or with a fictional ``0`` exchange: "100 - 200 - 3000"
is arithmetic)."""
_CN_MOBILE_COMMA = _rx(r"(?<![\d,，])1[3-9]\d[,，、]\s?\d{4}[,，、]\s?\d{4}(?![\d,，]\d)")
"""``138，0000，8899`` (groups of four: no thousands separator)."""
_WEBHOOK_SECRET = _rx(
    r"(?i)hooks\.slack\.com/(?:services|workflows|triggers)/(?:[A-Za-z0-9]+/)*(?P<v>[A-Za-z0-9]{16,})"
    r"|/api/webhooks/\d+/(?P<d>[A-Za-z0-9_-]{20,})"
    r"|(?<![A-Za-z0-9])(?:bot)?\d{6,12}:(?P<t>[A-Za-z0-9_-]{30,})"
    r"|/(?:hooks?|webhooks?|tokens?|secrets?|keys?|services)/(?:[^\s/?#]+/)*?"
    r"(?P<p>[A-Za-z0-9_-]{20,})(?=[/?#\s]|$)"
)
"""The secret in a webhook or bot URL (Slack ``hooks.slack.com/services/T…/B…/<secret>``,
Discord ``/api/webhooks/<id>/<token>``, Telegram ``bot<id>:<token>``) and a long token-shaped
path segment under ``/hooks/``, ``/token/``, ``/secret/``…"""
_AZURE_KEY = _rx(
    r"(?i)(?<![A-Za-z])(?:AccountKey|SharedAccessKey|SharedAccessSignature|SharedSecret"
    r"|ClientSecret|sig)\s*=\s*(?P<v>[A-Za-z0-9+/%_-]{16,}={0,2})"
)
"""The key of a connection string (``AccountKey=…==;``, ``SharedAccessKey=…``)."""
_VENDOR_MORE = _rx(
    r"(?<![\w-])(?:xapp-|whsec_|ya29\.|dop_v1_|doo_v1_|dckr_pat_|shpss_|shpca_|lin_api_|sbp_"
    r"|ntn_|figd_|glptt-|gldt-|GOCSPX-|pat-(?:na|eu)1-|sk-ant-|rk_live_|AKID)[A-Za-z0-9_.-]{12,}"
)
"""More vendor token prefixes (Slack app, Stripe webhook, Google OAuth, DigitalOcean, Docker,
Shopify, Linear, Supabase, Notion, Figma, GitLab, Google client secret, HubSpot)."""


# ---------------------------------------------------------------------- detectors
def _prose_word(value: str) -> bool:
    """A stop word, or a lowercase word that reads as a verb or an adverb ("leaked",
    "expiring", "weekly"): prose after "password is", not a value."""
    if value.lower() in _STOP_VALUES:
        return True
    return value.isalpha() and value.islower() and value.endswith(("ed", "ing", "ly"))


def _not_a_value(value: str, text: str, end: int) -> bool:
    """What follows "password is/:/=" is no password when it is a prose word, a variable, a
    path (``PWD=/home/x``) or a call (``getpass()``)."""
    if _prose_word(value) or is_reference(value) or value[0] in "/~":
        return True
    return value.endswith("(") or text[end : end + 1] == "("


def _literal(value: str, text: str, end: int) -> bool:
    """An unquoted config value is a literal (not a variable, a call or a type) when it has a
    digit or a symbol and no call follows it."""
    if value.lower() in _STOP_VALUES or "(" in value or text[end : end + 1] == "(":
        return False
    return any(c.isdigit() for c in value) or any(not c.isalnum() and c != "_" for c in value)


Detector = Callable[[str], Iterator[Span]]


_QUOTES = "\"“'‘`"
_CLAUSE_TOKEN = _rx(r"[^\s\"'“”‘’`，。、,;；:：)）(（\]】}>]+")
_DIGITISH = _rx(r"[\d\s#*-]+")


def _value_span(text: str, start: int, end: int) -> tuple[int, int]:
    """A value's span, widened to a whole quoted passphrase ("purple monkey dishwasher 42") or
    to a value typed with spaces between its characters ("7 3 9 1")."""
    if start > 0 and text[start - 1] in _QUOTES:
        quoted = _QUOTED_VALUE.match(text, start - 1)
        if quoted and " " in quoted.group("v").strip():
            return quoted.start("v"), quoted.end("v")
    if end - start <= 2:
        run = _SPACED_RUN.match(text, start)
        if run:
            return run.start(), run.end()
    return start, end


def _clause_after(text: str, end: int, limit: int = 80) -> tuple[int, str]:
    """The rest of the clause after ``end`` (to a sentence end, at most ``limit`` characters)."""
    window = text[end : end + limit]
    cut = _CLAUSE_END.search(window)
    return end, window[: cut.start()] if cut else window


def _clause_secrets(text: str, end: int, *, code: bool) -> Iterator[Span]:
    """Secrets later in a clause whose password word was followed by prose ("my password is
    the same as my dog's name, Biscuit2019"; "the code is not 7718, it's 7719"): tokens that
    are :func:`strong_password` (a code: 4-8 digits)."""
    offset, clause = _clause_after(text, end)
    for m in _CLAUSE_TOKEN.finditer(clause):
        token = m.group()
        if _CODE_DIGITS.fullmatch(token) if code else strong_password(token):
            yield offset + m.start(), offset + m.end(), "password"


def _alternates(text: str, start: int, end: int) -> Iterator[Span]:
    """The other value said right after a password ("7719 not 7718", "Hua@2025，原来的
    Hua@2024"): one of the same shape (as many digits, or one that looks like a password)."""
    m = _ALTERNATE.match(text, end)
    if m is None or m.end("v") - end > 48:
        return
    value, first = m.group("v"), text[start:end]
    if _DIGITISH.fullmatch(first):
        digits = lambda v: len(re.sub(r"\D", "", v))  # noqa: E731
        same = _DIGITISH.fullmatch(value) is not None and abs(digits(value) - digits(first)) <= 1
    else:
        same = looks_password(value)
    if same:
        yield m.start("v"), m.end("v"), "password"


def _password_spans(text: str) -> Iterator[Span]:
    """The password values after a password word, a code word or a login (not config or URL
    secrets): see the module docstring."""
    for m in _PASSWORD_STRONG.finditer(text):
        value = m.group("v")
        if value.isdigit() and len(value) <= 2 and _COUNT_AFTER.match(text, m.end("v")):
            continue  # "PIN 码是 4 位数字": a length, not the PIN
        if not _not_a_value(value, text, m.end("v")):
            yield *_value_span(text, m.start("v"), m.end("v")), "password"
        elif _prose_word(value):
            yield from _clause_secrets(text, m.start("v"), code=False)
    for m in _PASSWORD_QUOTED.finditer(text):
        if not _prose_word(m.group("v")) and not is_reference(m.group("v")):
            yield m.start("v"), m.end("v"), "password"
    for m in _PW_MENTION.finditer(text):
        yield from _clause_secrets(text, m.end(), code=False)
    for m in _PASSWORD_WEAK.finditer(text):
        glued = not m.group("c") and not m.group("gap") and m.group("w").isascii()
        start, end = _value_span(text, m.start("v"), m.end("v"))
        if not glued and (looks_password(m.group("v")) or (m.group("c") and end > m.end("v"))):
            yield start, end, "password"
    for m in _CODE_STRONG.finditer(text):
        value, bare = m.group("v"), re.fullmatch(_BARE_CODE, m.group("w"), re.IGNORECASE | re.ASCII)
        if _prose_word(value):
            yield from _clause_secrets(text, m.start("v"), code=True)
        elif _COUNT_AFTER.match(text, m.end("v")):
            continue
        elif _CODE_DIGITS.fullmatch(value) if bare else any(c.isdigit() for c in value):
            yield *_value_span(text, m.start("v"), m.end("v")), "password"
    for m in _CODE_WEAK.finditer(text):
        short_ok = not re.match(rf"(?i){_DOOR_CODE}|pin", m.group("w"))
        if len(re.sub(r"\D", "", m.group("v"))) >= (3 if short_ok else 4):
            yield m.start("v"), m.end("v"), "password"
    for pattern in (_LOGIN_AS, _USER_PASS, _PASS_ASSIGN):
        for m in pattern.finditer(text):
            if looks_password(m.group("v")):
                yield m.start("v"), m.end("v"), "password"
    for pattern in (_CREDENTIAL_PAIR, _EMAIL_PAIR):
        for m in pattern.finditer(text):
            value = m.group("v")
            if looks_password(value) and not _EMAIL.fullmatch(value) and _has_letter(value):
                yield m.start("v"), m.end("v"), "password"
    for m in _COLON_PAIR.finditer(text):
        if strong_password(m.group("v")):
            yield m.start("v"), m.end("v"), "password"
    for m in _BARE_PAIR.finditer(text):
        value = m.group("v")
        if strong_password(value) and (
            near(text, m.start(), m.end(), _LOGIN_WORDS, before=40, after=60)
            or (_BARE_STRONG_SYMBOLS & set(value) and "@" not in value[1:-1])
        ):
            yield m.start("v"), m.end("v"), "password"
    yield from _more_password_spans(text)


def _more_password_spans(text: str) -> Iterator[Span]:
    """Password forms of ``pii_dev3``: Chinese words between the password word and the value, a
    Chinese passphrase, "the pass is …", command-line flags, a card's code by where it is."""
    for pattern in (_PASSWORD_CJK_GAP, _PW_QUESTION):
        for m in pattern.finditer(text):
            if looks_password(m.group("v")):
                yield m.start("v"), m.end("v"), "password"
    for m in _PASSWORD_CJK_VALUE.finditer(text):
        yield m.start("v"), m.end("v"), "password"
    for m in _PASS_WORD.finditer(text):
        if m.group("v") is not None and looks_password(m.group("v")):
            yield m.start("v"), m.end("v"), "password"
        elif m.group("s") is not None and strong_password(m.group("s")):
            yield m.start("s"), m.end("s"), "password"
    for m in _CLI_LONG_FLAG.finditer(text):
        value, key = m.group("v"), m.group("k").lower()
        if is_reference(value) or not looks_password(value):
            continue
        kind = "password" if any(w in key for w in ("pass", "pwd")) else "api_key"
        yield m.start("v"), m.end("v"), kind
    for cmd in _CLI_COMMAND.finditer(text):
        name, seg, base = cmd.group("c").lower(), cmd.group(), cmd.start()
        flags: list[re.Pattern[str]] = []
        if name in ("curl", "wget", "http"):
            flags.append(_CLI_USER_PW)
        if name.startswith(("mysql", "mariadb")):
            flags.append(_CLI_GLUED_P)
        if name in ("sshpass", "redis-cli", "smbclient") or name.startswith("mongo"):
            flags.append(_CLI_SPACED_P)
        elif name in ("docker", "podman", "nerdctl", "helm") and re.match(
            r"\S+\s+(?:registry\s+)?login\b", seg
        ):
            flags.append(_CLI_SPACED_P)  # "docker run -p 8080:80" maps a port
        for flag in flags:
            for m in flag.finditer(seg):
                if looks_password(m.group("v")) and not is_reference(m.group("v")):
                    yield base + m.start("v"), base + m.end("v"), "password"
    for m in _CVV_BACK.finditer(text):
        group = "v" if m.group("v") is not None else "z"
        yield m.start(group), m.end(group), "password"


def _has_letter(value: str) -> bool:
    return any(c.isalpha() for c in value)


def _passwords(text: str) -> Iterator[Span]:
    for m in _URL_PASSWORD.finditer(text):  # before e-mail: "pw@db.host" is no address
        yield m.start("v"), m.end("v"), "password"
    for m in _CONFIG_SECRET.finditer(text):
        value, key = m.group("v"), m.group("k").lower()
        code_like = m.group("q") or m.group("vq") or "_" in key or m.group("sep") == "="
        start, end = _value_span(text, m.start("v"), m.end("v"))
        if not code_like or len(value) < 4 or _not_a_value(value, text, m.end("v")):
            if end - start <= len(value):
                continue  # prose, a variable, a path (PWD=/home/x), a call
        elif m.group("vq") is None and not _literal(value, text, m.end("v")):
            continue  # an unquoted identifier or call is a variable, not the secret
        kind = "password" if any(w in key for w in ("pass", "pwd")) else "api_key"
        if kind == "api_key" and (value.isdigit() or len(value) < 6):
            continue  # max_token=4096 is a count
        yield start, end, kind
    for m in _QUERY_SECRET.finditer(text):
        key, value = m.group("k"), m.group("v")
        if _SECRET_PARAM.search(key) and (
            looks_secret(value, min_len=6)
            or (len(value) >= 8 and _has_letter(value) and any(c.isdigit() for c in value))
        ):
            kind = "password" if re.search(r"(?i)pass|pwd|pw", key) else "api_key"
            yield m.start("v"), m.end("v"), kind
    for start, end, kind in _password_spans(text):
        yield start, end, kind
        yield from _alternates(text, start, end)


def _api_keys(text: str) -> Iterator[Span]:
    for pattern in _API_KEYS:
        for m in pattern.finditer(text):
            if pattern is _SHORT_SK and not looks_secret(_SK_PREFIX.sub("", m.group()), min_len=6):
                continue
            yield m.start(), m.end(), "api_key"
    for m in _SHORT_VENDOR.finditer(text):
        if looks_secret(m.group("v"), min_len=6):
            yield m.start(), m.end(), "api_key"
    for m in _AWS_SECRET.finditer(text):
        value = m.group()
        mixed = value != value.lower() and value != value.upper() and re.search(r"\d", value)
        if mixed and near(text, m.start(), m.end(), _AWS_WORDS, before=64, after=16):
            yield m.start(), m.end(), "api_key"
    for m in _KEYWORD_SECRET.finditer(text):
        if looks_secret(m.group("v"), min_len=8):
            yield m.start("v"), m.end("v"), "api_key"
    for m in _LONG_SECRET.finditer(text):
        if looks_secret(m.group("v")) or re.fullmatch(r"[0-9a-fA-F]{32,}", m.group("v")):
            yield m.start("v"), m.end("v"), "api_key"
    for m in _TOKEN.finditer(text):
        if looks_secret(m.group(), letters_only=False) and near(
            text, m.start(), m.end(), _TOKEN_WORDS, before=24, after=12
        ):
            yield m.start(), m.end(), "api_key"
    for m in _VENDOR_MORE.finditer(text):
        if looks_secret(m.group(), min_len=16):
            yield m.start(), m.end(), "api_key"
    for m in _AZURE_KEY.finditer(text):
        value = m.group("v")
        if _has_letter(value) and any(c.isdigit() for c in value):
            yield m.start("v"), m.end("v"), "api_key"
    for m in _WEBHOOK_SECRET.finditer(text):
        group = next(g for g in ("v", "d", "t", "p") if m.group(g) is not None)
        value = m.group(group)
        if group != "p" or looks_secret(value, min_len=20):
            yield m.start(group), m.end(group), "api_key"


def _emails(text: str) -> Iterator[Span]:
    for m in _EMAIL.finditer(text):
        yield m.start(), m.end(), "email"
    for m in _EMAIL_OBFUSCATED.finditer(text):
        yield m.start(), m.end(), "email"
    for m in _EMAIL_HASHED.finditer(text):
        yield m.start(), m.end(), "email"
    for m in _EMAIL_SPOKEN.finditer(text):
        local, _, domain = re.split(r"(?i)\s+(at|\[at\]|\(at\))\s+", m.group(), maxsplit=1)
        if local.casefold() in _NOT_MAILBOX or domain.split()[0].casefold() in _NOT_MAILBOX:
            continue  # "meet me at noon dot com": words, not a mailbox
        yield m.start(), m.end(), "email"
    for m in _EMAIL_SPACED.finditer(text):
        if near(text, m.start(), m.end(), _MAIL_WORDS):
            yield m.start(), m.end(), "email"
    for m in _EMAIL_CN.finditer(text):
        local = re.split(
            r"(?i)\s*(?:艾特|圈a|@|\[at\]|\(at\)|【at】|\s+at\s+)", m.group(), maxsplit=1
        )[0]
        spelled = re.search(r"点|點|艾特|圈a|【|\s\.|\.\s", m.group())
        if spelled and local.strip().casefold() not in _NOT_MAILBOX:
            yield m.start(), m.end(), "email"
    for m in _MAIL_HANDLE.finditer(text):
        value = m.group("v")
        if value.lower() not in _STOP_VALUES and re.search(r"[\d._]", value) and _has_letter(value):
            yield m.start("v"), m.end("v"), "email"
    for m in _EMAIL_SPELLED.finditer(text):
        local = re.split(r"(?i)\s+at\s+|#|艾特|\(at\)", m.group(), maxsplit=1)[0].strip()
        if local.casefold() not in _NOT_MAILBOX and near(text, m.start(), m.end(), _SEND_WORDS):
            yield m.start(), m.end(), "email"


def _prefixed_phones(text: str) -> Iterator[Span]:
    """Numbers written with ``+`` or ``0086`` are phones even when they would pass Luhn."""
    for m in _CN_MOBILE_PREFIXED.finditer(text):
        yield m.start(), m.end(), "phone"
    for m in _INTL_PHONE.finditer(text):
        if 8 <= len(re.sub(r"\D", "", m.group())) <= 15:
            yield m.start(), m.end(), "phone"


def _national_ids(text: str) -> Iterator[Span]:
    for m in _ID_CANDIDATE.finditer(text):
        value = m.group()
        if cn_id_checksum_ok(value) or (
            cn_id_birth_ok(value) and near(text, m.start(), m.end(), _ID_WORDS)
        ):
            yield m.start(), m.end(), "national_id"
    for pattern in (_ID_GROUPED, _ID_OLD):
        for m in pattern.finditer(text):
            value = re.sub(r"[\s-]", "", m.group())
            if cn_id_birth_ok(value) and (
                cn_id_checksum_ok(value) or near(text, m.start(), m.end(), _ID_WORDS)
            ):
                yield m.start(), m.end(), "national_id"
    for m in _ID_DOC.finditer(text):
        value = m.group("v").rstrip(" -")
        digits = sum(c.isdigit() for c in value)
        if digits >= 6 and len(value) <= 24:
            yield m.start("v"), m.start("v") + len(value), "national_id"
    for pattern in (_SSN, _SSN_LOOSE):
        for m in pattern.finditer(text):
            digits = re.sub(r"\D", "", m.group())
            dashed = f"{digits[:3]}-{digits[3:5]}-{digits[5:]}"
            if not ssn_ok(dashed):
                continue
            if near(text, m.start(), m.end(), _SSN_WORDS) or (
                pattern is _SSN and not near(text, m.start(), m.end(), _NOT_SSN_WORDS)
            ):
                yield m.start(), m.end(), "national_id"


def _bank_cards(text: str) -> Iterator[Span]:
    for m in _IBAN.finditer(text):  # first: its digit groups would pass for a card next to "IBAN"
        if iban_ok(m.group()):
            yield m.start(), m.end(), "bank_card"
    for m in _CARD_CANDIDATE.finditer(text):
        digits = re.sub(r"[ -]", "", m.group())
        if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
            continue  # all-same-digit strings (000…) are not card numbers
        card_word = near(text, m.start(), m.end(), _CARD_WORDS)
        if not card_word and near(text, m.start(), m.end(), _NOT_CARD_WORDS, before=16, after=4):
            continue  # "订单号 2024051833910277" passes Luhn by chance
        if luhn_ok(digits) or card_word:
            yield m.start(), m.end(), "bank_card"
    for m in _CARD_DOTTED.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if 13 <= len(digits) <= 19 and (
            (luhn_ok(digits) and digits[0] in "3456")  # a card's issuer digit: no release
            or near(text, m.start(), m.end(), _CARD_WORDS)
        ):
            yield m.start(), m.end(), "bank_card"
    for m in _ACCOUNT_NUMBER.finditer(text):
        head = text[max(0, m.start() - 16) : m.start()]
        if near(text, m.start(), m.end(), _ACCOUNT_WORDS, before=32, after=8) or (
            _PLAIN_ACCOUNT.search(head)
            and (
                near(text, m.start(), m.end(), _BANK_CONTEXT, before=48, after=48)
                or re.search("[账帐賬帳]", head)
            )
        ):
            yield m.start(), m.end(), "bank_card"


def _digit_runs(text: str) -> Iterator[Span]:
    """A number typed a digit at a time ("1 3 8 0 0 0 0 1 2 3 4"): judged on its digits as a
    Chinese mobile, a PRC ID, a card (Luhn or a card word) or, next to a phone word, a phone."""
    for m in _DIGIT_RUN.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if len(digits) == 18 and cn_id_checksum_ok(digits):
            kind = "national_id"
        elif 13 <= len(digits) <= 19 and (
            luhn_ok(digits) or near(text, m.start(), m.end(), _CARD_WORDS)
        ):
            kind = "bank_card"
        elif re.fullmatch(r"1[3-9]\d{9}", digits) or near(text, m.start(), m.end(), _PHONE_WORDS):
            kind = "phone"
        else:
            continue
        yield m.start(), m.end(), kind


def _phones(text: str) -> Iterator[Span]:
    for pattern in (_CN_MOBILE, _CN_LANDLINE, _NANP_PHONE):
        for m in pattern.finditer(text):
            yield m.start(), m.end(), "phone"
    for pattern in (_INTL_00, _CN_LANDLINE_SPACED, _NANP_SPACED, _LOCAL_PHONE):
        for m in pattern.finditer(text):
            if _phone_context(text, m.start(), m.end()):
                yield m.start(), m.end(), "phone"
    for pattern in (_LOCAL8_PHONE, _GROUPED_PHONE):
        for m in pattern.finditer(text):
            if _phone_context(text, m.start(), m.end()) and not near(
                text, m.start(), m.end(), _MEETING_WORDS, before=24, after=8
            ):
                yield m.start(), m.end(), "phone"
    for m in _FICTIONAL_LOCAL.finditer(text):
        if not near(text, m.start(), m.end(), _NOT_PHONE_WORDS, before=24, after=12):
            yield m.start(), m.end(), "phone"
    for m in _BARE_NANP.finditer(text):
        if near(text, m.start(), m.end(), _DIAL_WORDS) and _phone_context(text, m.start(), m.end()):
            yield m.start(), m.end(), "phone"
    for m in _NATIONAL_PHONE.finditer(text):
        digits = len(re.sub(r"\D", "", m.group()))
        if 9 <= digits <= 12 and _phone_context(text, m.start(), m.end()):
            yield m.start(), m.end(), "phone"
    for pattern in (_PHONE_SPACED_DASH, _CN_MOBILE_COMMA):
        for m in pattern.finditer(text):
            if near(text, m.start(), m.end(), _NOT_PHONE_WORDS, before=24, after=12):
                continue
            nanp = m.groupdict().get("n")
            if (
                nanp
                and not re.search(r"-\s+0", nanp)
                and not near(text, m.start(), m.end(), _PHONE_WORDS)
            ):
                continue
            yield m.start(), m.end(), "phone"
    for m in _FICTIONAL_SPACED.finditer(text):
        if not near(text, m.start(), m.end(), _NOT_PHONE_WORDS, before=24, after=12):
            yield m.start(), m.end(), "phone"
    for m in _SPOKEN_NUMBER.finditer(text):
        spoken = _spoken_digits(m.group())
        if 7 <= len(spoken) <= 15 and (
            len(spoken) >= 10 or near(text, m.start(), m.end(), _PHONE_WORDS)
        ):
            yield m.start(), m.end(), "phone"


def _spoken_digits(value: str) -> str:
    """The digits of a number read out in words ("double five" is "55")."""
    out: list[str] = []
    words = re.findall(r"[A-Za-z]+", value.lower())
    repeat = 1
    for word in words:
        if word in ("double", "triple"):
            repeat = 2 if word == "double" else 3
            continue
        if word in _EN_DIGIT_VALUE:
            out.append(_EN_DIGIT_VALUE[word] * repeat)
        repeat = 1
    return "".join(out)


DETECTORS: tuple[Detector, ...] = (
    _passwords,
    _api_keys,
    _emails,
    _prefixed_phones,
    _national_ids,
    _bank_cards,
    _phones,
    _digit_runs,
)
"""In priority order: a span overlapping one claimed earlier is dropped."""

_FULLWIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def fold_fullwidth(text: str) -> str:
    """``text`` with full-width ASCII forms and the ideographic space folded to ASCII (same
    length: offsets are unchanged)."""
    return text.translate(_FULLWIDTH)


_CJK_DIGIT = {ord(c): ord(str(i % 10)) for i, c in enumerate("零一二三四五六七八九")} | {
    ord("〇"): ord("0"),
    ord("幺"): ord("1"),
    ord("洞"): ord("0"),
}
_CJK_DIGIT_RUN = _rx(
    r"[零〇一二三四五六七八九幺洞](?:[\s,，、-]?[零〇一二三四五六七八九幺洞]){6,}"
    r"|(?<=[码是为:：\s])[零〇一二三四五六七八九幺洞]{4,8}(?![零〇一二三四五六七八九十百千万亿])"
)
"""Seven or more digits written as Chinese numerals one by one ("一三八零零零零五六七八",
also with commas: "一三八，零零零零，八八九九"), or four to eight after "码 / 是 / :"
("验证码是六六二九一三"): how a phone, a card number or a code is read out, never a quantity
(those carry 十/百/千/万)."""


_DIGIT_DASH = _rx(r"(?<=\d)[\u2010-\u2015\u2212\ufe63](?=\d)")
"""A typographic dash or minus between two digits ("555–0123")."""


def fold_digits(text: str) -> str:
    """``text`` with runs of Chinese digit numerals (:data:`_CJK_DIGIT_RUN`) folded to ASCII
    digits and typographic dashes between digits folded to ``-``, one character for one
    (offsets are unchanged)."""
    text = _DIGIT_DASH.sub("-", text)
    return _CJK_DIGIT_RUN.sub(lambda m: m.group().translate(_CJK_DIGIT), text)


FOUND_TEXTS = 512
"""Texts whose PII spans :func:`find_pii` remembers (least recently used first out)."""

_found: OrderedDict[bytes, tuple[Span, ...]] = OrderedDict()
_found_lock = threading.Lock()


def _text_key(text: str) -> bytes:
    """The exact identity of ``text`` without the text: a 256-bit BLAKE2b digest of its
    UTF-8 (lone surrogates kept distinct)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=32).digest()


def find_pii(text: str) -> list[Span]:
    """The PII spans of ``text``, sorted and not overlapping; placeholders already in the text
    are never part of a span (redaction is idempotent).

    The spans of the last :data:`FOUND_TEXTS` texts are remembered: one turn's text is
    redacted by the write path, again as the next turn's context and once more by the log
    and trace redaction, and detection is a pure function of the text. The memory is keyed
    by a digest of the text and holds only offsets and types, never a text or a value."""
    key = _text_key(text)
    with _found_lock:
        spans = _found.get(key)
        if spans is not None:
            _found.move_to_end(key)
            return list(spans)
    found = _detect(text)
    with _found_lock:
        _found[key] = tuple(found)
        if len(_found) > FOUND_TEXTS:
            _found.popitem(last=False)
    return found


def _detect(text: str) -> list[Span]:
    """:func:`find_pii` without the memory: every detector over the folded text."""
    folded = fold_digits(fold_fullwidth(text))
    claimed = [(m.start(), m.end()) for m in PLACEHOLDER_RE.finditer(folded)]
    spans: list[Span] = []
    for detector in DETECTORS:
        for start, end, kind in detector(folded):
            if end <= start or any(start < e and s < end for s, e in claimed):
                continue
            claimed.append((start, end))
            spans.append((start, end, kind))
    spans.sort()
    return spans


__all__ = [
    "DETECTORS",
    "PLACEHOLDER_RE",
    "Span",
    "cn_id_birth_ok",
    "cn_id_check_char",
    "cn_id_checksum_ok",
    "find_pii",
    "fold_fullwidth",
    "iban_ok",
    "looks_password",
    "looks_secret",
    "luhn_ok",
    "near",
    "ssn_ok",
]
