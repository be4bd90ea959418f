"""Cross-tenant isolation: 50 users with overlapping texts, >= 1,000 random queries per backend,
zero results outside the caller's user, project and acl; and the engine filter agrees with the
keyword side's evaluation of the same filter tree."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from langgraph_memory import MemoryRecord, Scope
from langgraph_memory.core import tokenize
from langgraph_memory.core.text import query_tokenize
from langgraph_memory.store.filters import recall_filter

from .conftest import BACKENDS, make_store

USERS = [f"user-{i:02d}" for i in range(50)]
PROJECTS = [None, "apollo", "zeus"]
ACLS: list[list[str]] = [[], [], ["finance"], ["hr"]]
TOPICS = [
    "prefers green tea",
    "is allergic to peanuts",
    "works on the billing service",
    "喜欢爬山",
    "住在上海",
    "password hint is the cat's name",
    "meets the dentist on Friday",
    "uses dark mode",
    "answers must be in English",
    "以后都用中文回答",
]


@pytest.fixture(scope="module", params=BACKENDS)
def populated(request, tmp_path_factory, embedder):  # type: ignore[no-untyped-def]
    """One store holding the same topics for every user, in several projects and acls."""
    rng = random.Random(42)
    store = make_store(request.param, tmp_path_factory.mktemp("iso"), embedder)
    owner: dict[str, MemoryRecord] = {}
    for user in USERS:
        batch = []
        for topic in TOPICS:
            project = rng.choice(PROJECTS)
            rec = MemoryRecord(
                user_id=user,
                project_id=project,
                acl=rng.choice(ACLS),
                text=f"{topic} (shared wording across tenants)",
            )
            batch.append(rec)
        by_project: dict[str | None, list[MemoryRecord]] = {}
        for rec in batch:
            by_project.setdefault(rec.project_id, []).append(rec)
        for project, recs in by_project.items():
            store.add_many(recs, scope=Scope(user, project_id=project))
        owner.update({r.id: r for r in batch})
    yield store, owner
    store.close()


def _allowed(rec: MemoryRecord, scope: Scope) -> bool:
    return scope.can_read(rec.user_id, rec.project_id, rec.acl)


def test_random_queries_never_cross_tenants(populated) -> None:  # type: ignore[no-untyped-def]
    store, owner = populated
    rng = random.Random(7)
    vocabulary = [*" ".join(TOPICS).split(), "tea", "中文", "上海", "shared", "tenants"]
    queries = 0
    leaks: list[tuple[Scope, str]] = []
    for _ in range(1000):
        scope = Scope(
            rng.choice(USERS),
            project_id=rng.choice(PROJECTS),
            acl=tuple(rng.sample(["finance", "hr"], rng.randint(0, 2))),
        )
        query = " ".join(rng.sample(vocabulary, rng.randint(1, 4)))
        mode = rng.choice(["hybrid", "dense", "keyword"])
        result = store.search(query, scope, k=rng.choice([1, 5, 10, 50]), mode=mode)
        queries += 1
        for rid in result.ids:
            if not _allowed(owner[rid], scope):
                leaks.append((scope, rid))
        # a scope that can see something relevant always gets something back: a visible
        # record sharing one of the query's keyword terms (function words are not query
        # terms, see langgraph_memory.core.text.query_tokenize)
        if mode == "keyword" and not result.hits:
            visible = [r for r in owner.values() if _allowed(r, scope)]
            terms = set(query_tokenize(query))
            assert not any(terms & set(tokenize(r.text)) for r in visible), (scope, query)
    assert queries >= 1000
    assert leaks == []


def test_listing_and_counting_never_cross_tenants(populated) -> None:  # type: ignore[no-untyped-def]
    store, owner = populated
    for user in USERS[:10]:
        for project in PROJECTS:
            scope = Scope(user, project_id=project, acl=("finance",))
            listed = store.list(scope=scope)
            expected = {r.id for r in owner.values() if _allowed(r, scope)}
            assert {r.id for r in listed} == expected
            assert store.count(scope=scope) == len(expected)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    user=st.sampled_from(USERS[:5]),
    project=st.sampled_from(PROJECTS),
    acl=st.lists(st.sampled_from(["finance", "hr"]), max_size=2),
    kinds=st.lists(st.sampled_from(["stable_fact", "preference"]), max_size=2),
)
def test_engine_filter_equals_python_evaluation(populated, user, project, acl, kinds) -> None:  # type: ignore[no-untyped-def]
    store, owner = populated
    scope = Scope(user, project_id=project, acl=tuple(acl))
    cond = recall_filter(scope, filters={"kind": kinds} if kinds else None)
    engine = {p["id"] for p in store.backend.scroll(cond)}
    python = {rid for rid, rec in owner.items() if cond.matches(rec.to_payload())}
    assert engine == python
