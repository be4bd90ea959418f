"""``import langgraph_memory`` works without the POSIX-only ``fcntl``: the write journal
imports it only when it takes its file lock, and says clearly when it cannot."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_CHILD = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {repo!r})
    sys.modules["fcntl"] = None  # as on a platform without it: importing it raises
    import langgraph_memory
    from langgraph_memory import BackgroundWriter, WritePipeline
    from langgraph_memory.write.journal import OfflineJournal
    from langgraph_memory.errors import ConfigError
    from langgraph_memory.write._filelock import NO_FILE_LOCK
    assert "fcntl" not in [m for m, v in sys.modules.items() if v is not None]
    try:
        OfflineJournal({journal!r})
    except ConfigError as exc:
        assert str(exc) == NO_FILE_LOCK, exc
        print("REFUSED")
    """
)


def test_the_package_imports_without_fcntl(tmp_path: Path) -> None:
    code = _CHILD.format(repo=str(REPO), journal=str(tmp_path / "memory.journal"))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "REFUSED" in done.stdout
