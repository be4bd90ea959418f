"""Rules that quote the words they ban, "don't forget to…" (an obligation for the assistant, or
advice between people), and people named with colloquial words (对象, 同事). Every utterance
here is written for these tests; the write path runs through ``bench write``'s pipeline with the
real default embedder (no LLM)."""

from __future__ import annotations

import pytest

from langgraph_memory.write.extract.markers import split_clauses
from langgraph_memory.write.slots.preference import dont_forget
from tests.write_turns import written_by_turn


def _written(*texts: str) -> list[list[tuple[str, str, str]]]:
    return written_by_turn(*texts)


@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        (
            "Please quit it with the 'Great question!' openers.",
            ["Please quit it with the 'Great question!' openers."],
        ),
        ("别再说“好问题！”了。我在深圳。", ["别再说“好问题！”了", "我在深圳"]),
        ('He said "Stop! Now." I left.', ['He said "Stop!', 'Now." I left.']),
        ("I'm a nurse. Don't call me. It's fine", ["I'm a nurse.", "Don't call me.", "It's fine"]),
    ],
)
def test_a_short_quotation_does_not_end_the_sentence(text: str, clauses: list[str]) -> None:
    assert split_clauses(text) == clauses


def test_rules_that_quote_the_words_they_ban() -> None:
    openers, as_an_ai, helps, again, mom = _written(
        "Please quit it with the 'Great question!' openers.",
        "Never say 'as an AI'",
        'Don\'t ever say "I hope this helps"',
        "Don't do that again",
        "My mom always says never go to bed angry",
    )
    assert [(s, p) for s, p, _ in openers] == [("assistant", "must_not")]
    assert "great question" in openers[0][2] and "'" not in openers[0][2]
    assert [(s, p) for s, p, _ in as_an_ai] == [("assistant", "must_not")]
    assert "as an ai" in as_an_ai[0][2]
    assert [(s, p) for s, p, _ in helps] == [("assistant", "must_not")]
    assert "i hope this helps" in helps[0][2] and not helps[0][2].startswith("ever")
    assert again == []  # "that" points at something said elsewhere
    assert mom == []  # someone else's words, reported


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Don't forget to cite your sources", (True, "cite your sources")),
        ("please don't ever forget to include the date", (True, "include the date")),
        ("别忘了提醒我吃药", (True, "提醒我吃药")),
        ("Don't forget to prepare emotionally for the interview.", (False, None)),
        ("Don't forget to have fun!", (False, None)),
        ("别忘了带伞哦", (False, None)),
        ("Don't forget that I'm vegan", None),
        ("Never forget where you came from", None),
    ],
)
def test_dont_forget_is_an_obligation_or_advice(
    text: str, expected: tuple[bool, str | None] | None
) -> None:
    got = dont_forget(text)
    if expected is None:
        assert got is None
        return
    assert got is not None and got[0] is expected[0]
    if expected[1] is not None:
        assert got[1] == expected[1]


def test_dont_forget_through_the_write_path() -> None:
    cite, interview, fun, pills, umbrella, nuts = _written(
        "Don't forget to cite your sources in every answer.",
        "Don't forget to prepare emotionally for the interview.",
        "Don't forget to have fun!",
        "别忘了提醒我吃药",
        "别忘了带伞哦",
        "Don't forget that I'm allergic to nuts",
    )
    assert cite == [("assistant", "must", "cite your sources in every answer")]
    assert interview == [] and fun == [] and umbrella == []
    assert pills == [("assistant", "must", "提醒我吃药")]
    assert nuts == [("user", "allergy", "nuts")]


def test_colloquial_words_for_the_users_people() -> None:
    partner, partner_after, coworker = _written(
        "我对象在广州上班，我在深圳", "我在深圳，我对象在广州上班", "我同事不吃辣"
    )
    for written in (partner, partner_after):
        assert ("user", "location", "深圳") in written
        assert ("user", "location", "广州") not in written
        assert ("user", "partner_location", "广州") in written
    assert coworker == [("user", "coworker_dietary_restriction", "辣")]


def test_a_quoted_rule_is_a_rule_only_when_the_words_outside_order_it() -> None:
    sign_off, translate, translate_zh, windows = _written(
        "以后所有 email 都用 'Cheers, Lin' 结尾，别用 'Best regards'。",
        "Translate 'never eat pork' into French",
        "把“不要吃辣”翻译成英文",
        "daily driver 是 Windows 11, 没办法公司要求",
    )
    assert ("assistant", "must_not", "best regards") in sign_off
    assert translate == [] and translate_zh == []  # the rule words are the text to translate
    assert windows == [("user", "operating_system", "windows 11")]  # the company comes after
