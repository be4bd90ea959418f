"""The interface every system of the peers benchmark implements."""

from __future__ import annotations

from collections.abc import Sequence


class System:
    """One memory system under test: bulk and single writes into a user's scope, top-k search
    returning the caller's keys. ``available`` / ``reason`` say whether it could run."""

    name = "system"

    def add_batch(self, user: str, items: Sequence[tuple[str, str, str | None]]) -> None:
        """Store ``(key, text, context)`` items in ``user``'s scope (fastest API it has)."""
        raise NotImplementedError

    def add_one(self, user: str, key: str, text: str) -> None:
        """Store one item with the system's single-write API."""
        self.add_batch(user, [(key, text, None)])

    def search(self, user: str, query: str, k: int) -> list[str]:
        """Keys of the top ``k`` items of ``user`` for ``query``, best first."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources."""
