"""A diet that ends: "I'm not vegan anymore", "I started eating fish again", "不吃素了" withdraw
the stored diet (and a restriction on the food eaten again) instead of leaving it current —
before this, "I'm not vegan anymore" *reinforced* ``diet=vegan`` and "I started eating fish
again" wrote nothing.

Every utterance here is written for these tests. The pure-function tests run without a model;
the pipeline tests run the real write path (real store, real embedder, shipped classifier)."""

from __future__ import annotations

import pytest

from langgraph_memory import MemoryStore
from langgraph_memory.write.slots.diet import diet_lifted, ended_diet, resumed_food

from .conftest import current_slots


@pytest.mark.parametrize(
    ("clause", "diet"),
    [
        ("I'm not vegan anymore.", "vegan"),
        ("I'm no longer vegetarian", "vegetarian"),
        ("quit keto after the holidays", "keto"),
        ("I gave up being vegetarian last year", "vegetarian"),
        ("我不吃素了", "vegetarian"),
        ("生酮已经停了", "keto"),
    ],
)
def test_a_diet_the_user_no_longer_keeps(clause: str, diet: str) -> None:
    assert ended_diet(clause) == diet


@pytest.mark.parametrize(
    "clause",
    ["I'm not vegan, just vegetarian", "I'm vegan", "my sister quit being vegan", "我妈不吃素了"],
)
def test_a_contrast_a_diet_kept_or_someone_elses_diet_ends_nothing(clause: str) -> None:
    # "not vegan, just vegetarian" is a contrast (no "anymore"); the sister's diet is hers
    assert ended_diet(clause) is None


@pytest.mark.parametrize(
    ("clause", "food"),
    [
        ("I started eating fish again last month", "fish"),
        ("I eat meat now", "meat"),
        ("eggs are back on the menu", "eggs"),
        ("我又开始吃肉了", "肉"),
        ("我现在也开始吃鱼了", "鱼"),
    ],
)
def test_a_food_the_user_eats_again(clause: str, food: str) -> None:
    assert resumed_food(clause) == food


@pytest.mark.parametrize(
    "clause", ["My son started eating fish again", "我妈又开始吃肉了", "I'm eating fish now"]
)
def test_someone_else_or_a_meal_now_resumes_nothing(clause: str) -> None:
    assert resumed_food(clause) is None


@pytest.mark.parametrize(
    ("diet", "said", "ends"),
    [
        ("vegan", "fish", True),
        ("vegetarian", "fish", True),
        ("pescatarian", "fish", False),
        ("pescatarian", "chicken", True),
        ("vegan", "vegetarian", True),  # not vegetarian any more: not vegan either
        ("pescatarian", "vegan", False),
        ("keto", "rice", True),
        ("keto", "fish", False),
    ],
)
def test_which_diets_a_food_or_an_ended_diet_ends(diet: str, said: str, ends: bool) -> None:
    assert diet_lifted(diet, said) is ends


@pytest.mark.parametrize(
    ("setup", "text", "gone", "kept"),
    [
        ("I'm vegan.", "I'm not vegan anymore.", ("diet", "vegan"), None),
        ("I'm vegan.", "I started eating fish again last month.", ("diet", "vegan"), None),
        ("我吃素", "我现在又开始吃肉了。", ("diet", "vegetarian"), None),
        ("I'm pescatarian", "I eat fish again", None, ("diet", "pescatarian")),
        ("I don't eat pork.", "I eat pork again now", ("dietary_restriction", "pork"), None),
        (
            "I'm vegan.",
            "Since I started eating fish again, can you suggest a salmon recipe?",
            ("diet", "vegan"),
            None,
        ),
    ],
)
def test_the_write_path_withdraws_the_diet_that_ended(
    mem: MemoryStore,
    setup: str,
    text: str,
    gone: tuple[str, str] | None,
    kept: tuple[str, str] | None,
) -> None:
    before = current_slots(mem, "diet-before", [setup])
    after = current_slots(mem, "diet-after", [setup, text])
    if gone is not None:
        assert gone in before and gone not in after
    if kept is not None:
        assert kept in after
