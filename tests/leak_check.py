"""What the PII leak tests look for: every log line of the package, and a secret's forms.

Shared by ``test_pii_leaks2.py`` and ``test_pii_leaks3.py``."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager


class LogLines(logging.Handler):
    """Every record of the package's loggers as the text a handler could write."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        extra = {k: v for k, v in vars(record).items() if k not in _STANDARD}
        self.lines.append(record.getMessage() + " " + json.dumps(extra, default=str))


_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


@contextmanager
def captured_log_lines() -> Iterator[list[str]]:
    """The lines the package logs (DEBUG and up) while the block runs."""
    handler = LogLines()
    root = logging.getLogger("langgraph_memory")
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler.lines
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def found(value: str, text: str) -> bool:
    """``value`` (or its digits, when it has 7+) in ``text``; digits-only values as a whole
    token (an id's hex or a float's digits hold any short digit string by chance)."""
    forms = [value]
    digits = re.sub(r"\D", "", value)
    if len(digits) >= 7 and digits != value:
        forms.append(digits)
    for form in forms:
        if form.isdigit():
            if re.search(rf"(?<![0-9A-Za-z]){form}(?![0-9A-Za-z])", text):
                return True
        elif form in text:
            return True
    return False
