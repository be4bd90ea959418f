"""Clause classifier: what kind of statement a clause is, decided by a learned model.

Regular expressions do not generalise to words nobody wrote a rule for; a sentence embedding
does. :class:`ClauseClassifier` is a multinomial logistic regression over

* the clause's sentence embedding (the default multilingual embedder, so Chinese, English and
  mixed turns share one model), and
* a handful of language-cue features (:data:`CUES`: question form, hedge, prohibition,
  obligation, "remember"/"from now on", correction marker, past/future time, first/second
  person, greeting, exclamation, length) that the embedding blurs, and
* hashed character n-gram TF-IDF (:mod:`langgraph_memory.write.char_ngrams`): the clause's
  wording in every script, which a sentence embedding blurs too ("别用" vs "用", "吗" at the
  end, typos).

It predicts one of :data:`CLAUSE_KINDS`; the write path (:mod:`langgraph_memory.write.decide`)
uses the prediction to veto rule candidates in clauses that are chit-chat, events, questions or
one-off requests, to retype a rule candidate (a "记住" note that is a prohibition is a
constraint), and to extract a candidate where no rule fired.

Inference is pure numpy (no scikit-learn import at run time). The weights ship in the package
(``write/data/clause_classifier.npz``) with the name of the embedder they were trained with; the
classifier always embeds with that embedder, whatever embedder the store uses.

Training (developers only, needs scikit-learn, a dependency of sentence-transformers)::

    python -m langgraph_memory train-classifier            # dev sets → the shipped weights

trains on ``tests/data/write/dev/*.jsonl`` only; ``tests/data/write/heldout/`` is never read
here. Out-of-fold probabilities on the dev set choose the thresholds (see :func:`train`).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.logsafe import get_logger
from ..embeddings import Embedder, load_embedder
from .char_ngrams import BUCKETS as CHAR_BUCKETS
from .char_ngrams import VERSION as CHAR_NGRAM_VERSION
from .char_ngrams import CharNgrams

if TYPE_CHECKING:  # scipy comes with scikit-learn, which only training needs
    from scipy import sparse

log = get_logger("write")

CLAUSE_KINDS: tuple[str, ...] = (
    "preference",
    "constraint",
    "stable_fact",
    "correction",
    "event",
    "hedge",
    "question",
    "one_off",
    "chitchat",
    "injection",
)
"""Every kind the classifier predicts (see ``tests/data/write/README.md`` for definitions)."""
WRITE_KINDS: frozenset[str] = frozenset({"preference", "constraint", "stable_fact", "correction"})
"""Kinds that belong in semantic memory."""
NOISE_KINDS: frozenset[str] = frozenset({"event", "question", "one_off", "chitchat"})
"""Kinds whose clauses assert nothing durable (an event is kept as an episode, not a fact)."""

DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "data" / "clause_classifier.npz"
DEFAULT_EMBEDDER = "use-multilingual"

# ---------------------------------------------------------------------- language cues
_CUE_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "question",
        r"[?？]\s*$|^(?:do|does|did|is|are|was|were|can|could|should|would|will|what|which|who"
        r"|why|how|where|when)\b|[吗呢]\s*[?？]?\s*$|(?:什么|哪个|哪里|为什么|怎么|如何|是不是|能不能"
        r"|要不要|有没有)",
    ),
    (
        "hedge",
        r"\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|not sure|thinking about"
        r"|considering|someday|we'll see|undecided|kind of|sort of)\b|可能|也许|或许|大概|说不定"
        r"|不确定|考虑|还没想好|再说吧|看情况|想想",
    ),
    (
        "prohibit",
        r"\b(?:never|don't|do not|dont|avoid|no more|stop|without|not allowed|must not|mustn't"
        r"|shouldn't|should not|no\s+\w+\s+please)\b|不要|别|绝对不|不得|禁止|不准|不许|千万别|严禁"
        r"|不能|勿",
    ),
    (
        "oblige",
        r"\b(?:always|must|only|make sure|ensure|need to|needs to|has to|have to|required"
        r"|at most|at least|under \d+|no longer than)\b"
        r"|必须|务必|只|一律|总是|一定要|始终|都要|要求",
    ),
    (
        "explicit",
        r"\b(?:remember|note that|keep in mind|don't forget|from now on|going forward|in future"
        r"|in the future|for future reference)\b|记住|记一下|记得|以后|今后|从现在|往后|下次",
    ),
    (
        "correct",
        r"\b(?:actually|correction|scratch that|i meant|i mean|not\s+\w+\s*,?\s*but|wrong"
        r"|sorry|no wait|changed to|switched to|instead)\b|不对|其实|说错|更正|纠正|不是.{1,12}是"
        r"|改成|换成|刚才",
    ),
    (
        "past",
        r"\b(?:yesterday|last (?:week|month|year|night|weekend)|ago|just|earlier today"
        r"|went|had|was|were|did|finally)\b|昨天|前天|上周|上个月|去年|刚刚|刚才|前几天|那天|终于",
    ),
    (
        "future",
        r"\b(?:tomorrow|next (?:week|month|year)|tonight|this weekend|going to|gonna|will be"
        r"|planning to|plan to)\b|明天|后天|下周|下个月|明年|今晚|周末|打算|准备",
    ),
    (
        "habit",
        r"\b(?:usually|every (?:day|morning|week)|each (?:day|week)|generally|normally"
        r"|typically|tend to|all the time)\b|一般|平时|每天|通常|经常|一直|习惯",
    ),
    ("first_person", r"\b(?:i|i'm|im|my|me|mine|we|we're|our|us)\b|我|咱"),
    ("second_person", r"\b(?:you|your|you're|u)\b|你|您"),
    (
        "possessive",
        r"\b(?:my|our)\s+\w+(?:'s\s+\w+)?\s+(?:is|are|was|uses|runs)\b|我的.{1,8}是|我们的?.{1,10}(?:是|用)",
    ),
    (
        "request",
        r"^(?:(?:please|pls|ok|okay|now|so|next)[,\s]+)?(?:can you|could you|help me|translate"
        r"|write|summari[sz]e|fix|make this|rewrite|give me|show me|tell me|draft|list|explain"
        r"|check|plan|book|find|suggest|recommend|create|generate|compare|calculate|convert"
        r"|outline|design|debug|review|edit|proofread|brainstorm|schedule|search|look up|build"
        r"|implement|refactor|optimi[sz]e|pick|choose|describe|analy[sz]e|estimate|format|sort"
        r"|rank|organi[sz]e|prepare|compose|recap|research|sketch|map out|walk me through"
        r"|quiz me|come up with|think of|work out|figure out)\b"
        r"|帮我|帮忙|给我|请.{0,4}(?:写|翻译|总结|改|看)|这次|这一次|这回"
        r"|^(?:请|麻烦)?(?:规划|推荐|查一下|查查|比较一下|算一下|计算|整理一下|列一下|列出|写一[个段篇封]"
        r"|设计|解释一下|分析一下|生成|起个|取个|想几个|找几个|找一下|搜一下|订一?[个张间])",
    ),
    (
        "social",
        r"\b(?:hi|hello|hey|thanks|thank you|thx|lol|haha|awesome|great|cool|wow|congrats"
        r"|good luck|bye|ok|okay|sure)\b|你好|谢谢|哈哈|嗯|好的|加油|太棒|恭喜|晚安|早安|hhh",
    ),
    ("exclaim", r"[!！]|[\U0001F300-\U0001FAFF\u2600-\u27BF]"),
    ("digits", r"\d"),
)
_CUES = tuple((name, re.compile(p, re.IGNORECASE)) for name, p in _CUE_PATTERNS)
CUES: tuple[str, ...] = (*(name for name, _ in _CUES), "short", "long", "cjk")
"""Names of the language-cue features, in feature order."""
CUE_VERSION = hashlib.sha256(
    json.dumps(_CUE_PATTERNS, ensure_ascii=False).encode("utf-8")
).hexdigest()[:12]
"""Changes whenever a cue pattern changes: weights trained with other cues are refused."""


def cues_of(text: str) -> frozenset[str]:
    """The names of the language cues (:data:`CUES`, patterns only) ``text`` shows."""
    return frozenset(name for name, pattern in _CUES if pattern.search(text))


def cue_features(text: str) -> np.ndarray:
    """The language-cue feature vector of ``text`` (0/1 per :data:`CUES`)."""
    out = np.zeros(len(CUES), dtype=np.float32)
    for i, (_, pattern) in enumerate(_CUES):
        if pattern.search(text):
            out[i] = 1.0
    cjk = len(re.findall(r"[\u4e00-\u9fff]", text))
    words = len(re.findall(r"[A-Za-z0-9']+", text)) + cjk / 2
    base = len(_CUES)
    out[base] = 1.0 if words <= 3 else 0.0
    out[base + 1] = 1.0 if words >= 30 else 0.0
    out[base + 2] = 1.0 if cjk * 2 >= max(1, len(text.strip())) else 0.0
    return out


@dataclass(frozen=True, slots=True)
class KindPrediction:
    """The classifier's verdict on one clause."""

    kind: str
    """The most probable kind (one of :data:`CLAUSE_KINDS`)."""
    probability: float
    """Its probability."""
    write_probability: float
    """Total probability of the kinds that belong in semantic memory (:data:`WRITE_KINDS`)."""
    probabilities: dict[str, float]
    """Every kind's probability."""

    @property
    def writes(self) -> bool:
        """True when the most probable kind belongs in semantic memory."""
        return self.kind in WRITE_KINDS


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Decision thresholds, chosen on out-of-fold dev predictions at training time."""

    extract: float = 0.75
    """``write_probability`` above which a clause no rule understood becomes a candidate."""
    veto: float = 0.8
    """Probability of a noise kind (:data:`NOISE_KINDS`) above which rule candidates of a
    clause are dropped (explicit "remember"/"from now on" candidates are never dropped)."""
    retype: float = 0.6
    """Probability of ``constraint`` above which a rule's free-text note becomes a
    constraint."""


class ClauseClassifier:
    """Multinomial logistic regression over embedding + cue (+ character n-gram) features
    (see module docstring). Weights rows: embedding, then :data:`CUES`, then, when
    ``char_ngrams`` is given, :data:`~langgraph_memory.write.char_ngrams.BUCKETS` n-gram buckets.

    ``predict`` is thread-safe and deterministic for a given embedder.
    """

    def __init__(
        self,
        weights: np.ndarray,
        bias: np.ndarray,
        *,
        kinds: Sequence[str] = CLAUSE_KINDS,
        embedder_name: str,
        thresholds: Thresholds | None = None,
        cue_version: str = CUE_VERSION,
        trained_on: dict[str, Any] | None = None,
        char_ngrams: CharNgrams | None = None,
    ) -> None:
        if cue_version != CUE_VERSION:
            raise ValueError(
                f"classifier weights were trained with cue features {cue_version}, this code "
                f"has {CUE_VERSION}: retrain with `python -m langgraph_memory train-classifier`"
            )
        if weights.ndim != 2 or weights.shape[1] != len(kinds) or bias.shape != (len(kinds),):
            raise ValueError("classifier weights do not match its kinds")
        if char_ngrams is not None and weights.shape[0] <= CHAR_BUCKETS + len(CUES):
            raise ValueError("classifier weights have no rows for the character n-gram features")
        self.weights = weights.astype(np.float32)
        self.bias = bias.astype(np.float32)
        self.kinds = tuple(kinds)
        self.embedder_name = embedder_name
        self.thresholds = thresholds or Thresholds()
        self.trained_on = dict(trained_on or {})
        self.char_ngrams = char_ngrams
        self._write_mask = np.array([k in WRITE_KINDS for k in self.kinds])
        self._embedder: Embedder | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ persistence
    @classmethod
    def load(cls, path: str | Path = DEFAULT_WEIGHTS) -> ClauseClassifier:
        """Load weights saved by :meth:`save` (default: the shipped ones)."""
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            char_ngrams = None
            if "char_idf" in data.files:
                if meta.get("char_ngrams") != CHAR_NGRAM_VERSION:
                    raise ValueError(
                        f"classifier weights were trained with character n-grams "
                        f"{meta.get('char_ngrams')!r}, this code has {CHAR_NGRAM_VERSION!r}: "
                        f"retrain with `python -m langgraph_memory train-classifier`"
                    )
                char_ngrams = CharNgrams(data["char_idf"])
            return cls(
                data["weights"],
                data["bias"],
                kinds=meta["kinds"],
                embedder_name=meta["embedder"],
                thresholds=Thresholds(**meta["thresholds"]),
                cue_version=meta["cue_version"],
                trained_on=meta.get("trained_on"),
                char_ngrams=char_ngrams,
            )

    def save(self, path: str | Path) -> None:
        """Write the weights and their metadata to ``path`` (``.npz``)."""
        meta = {
            "kinds": list(self.kinds),
            "embedder": self.embedder_name,
            "thresholds": {
                "extract": self.thresholds.extract,
                "veto": self.thresholds.veto,
                "retype": self.thresholds.retype,
            },
            "cue_version": CUE_VERSION,
            "trained_on": self.trained_on,
        }
        if self.char_ngrams is None:
            np.savez_compressed(
                path, weights=self.weights, bias=self.bias, meta=np.array(json.dumps(meta))
            )
            return
        meta["char_ngrams"] = CHAR_NGRAM_VERSION
        np.savez_compressed(
            path,
            weights=self.weights,
            bias=self.bias,
            char_idf=self.char_ngrams.idf,
            meta=np.array(json.dumps(meta)),
        )

    # ------------------------------------------------------------------ inference
    def use_embedder(self, embedder: Embedder) -> None:
        """Share ``embedder`` (e.g. the store's) when it is the one the weights expect."""
        if _same_embedder(embedder.name, self.embedder_name):
            self._embedder = embedder

    def _embedding(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = _shared_embedder(self.embedder_name)
            return self._embedder

    def features(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> np.ndarray:
        """The feature matrix of ``texts`` (embedding ⊕ cues ⊕ character n-grams when the
        classifier has them); ``vectors`` when already embedded with the classifier's
        embedder."""
        if vectors is None:
            vectors = np.asarray(self._embedding().encode(list(texts)), dtype=np.float32)
        cues = np.stack([cue_features(t) for t in texts]) if texts else np.zeros((0, len(CUES)))
        blocks = [vectors.astype(np.float32), cues.astype(np.float32)]
        if self.char_ngrams is not None:
            blocks.append(self.char_ngrams.dense(texts))
        return np.hstack(blocks)

    def predict(self, texts: Sequence[str]) -> list[KindPrediction]:
        """One :class:`KindPrediction` per text (an empty list for no texts)."""
        if not texts:
            return []
        probs = self.probabilities(self.features(texts))
        out = []
        for row in probs:
            best = int(np.argmax(row))
            out.append(
                KindPrediction(
                    kind=self.kinds[best],
                    probability=float(row[best]),
                    write_probability=float(row[self._write_mask].sum()),
                    probabilities={k: float(p) for k, p in zip(self.kinds, row, strict=True)},
                )
            )
        return out

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Softmax probabilities, one row per feature row, columns in :attr:`kinds` order."""
        logits = features @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return np.asarray(exp / exp.sum(axis=1, keepdims=True))


def _same_embedder(a: str, b: str) -> bool:
    aliases = {"use-multilingual", "use-multilingual-v3"}
    return a == b or (a in aliases and b in aliases)


_EMBEDDERS: dict[str, Embedder] = {}
_EMBEDDERS_LOCK = threading.Lock()


def _shared_embedder(name: str) -> Embedder:
    with _EMBEDDERS_LOCK:
        if name not in _EMBEDDERS:
            _EMBEDDERS[name] = load_embedder(
                DEFAULT_EMBEDDER if _same_embedder(name, DEFAULT_EMBEDDER) else name
            )
        return _EMBEDDERS[name]


_DEFAULT: ClauseClassifier | None = None
_DEFAULT_LOCK = threading.Lock()


def default_classifier() -> ClauseClassifier:
    """The shipped classifier (loaded once per process)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = ClauseClassifier.load()
        return _DEFAULT


# ---------------------------------------------------------------------- training
_CATEGORY_KIND = {
    "preference": "preference",
    "constraint": "constraint",
    "stable_fact": "stable_fact",
    "project": "stable_fact",
    "correction": "correction",
    "hedge": "hedge",
    "chitchat": "chitchat",
    "injection": "injection",
    "one_off": "one_off",
}
"""Kinds of the older rule sets, which carry a ``category`` and no ``kind``; categories with
no single kind (``pii``, ``implicit_preference``, ``model_source``…) are not used."""


def item_kind(item: dict[str, Any]) -> str | None:
    """The training label of a labelled utterance, or ``None`` when it has none."""
    kind = item.get("kind") or _CATEGORY_KIND.get(str(item.get("category", "")))
    return kind if kind in CLAUSE_KINDS else None


LONG_TURN_CLAUSES = 3
"""Clauses from which a turn that writes trains on the clauses holding its items: the model
reads clauses, and a long turn's label (its item's kind) does not describe the small talk,
the story or the question around the item."""


def training_examples(items: Iterable[dict[str, Any]]) -> list[tuple[int, str, str]]:
    """``(item index, text, kind)`` training examples of the labelled items, redacted as the
    write path redacts them.

    A turn is one example labelled with its kind — except a turn that writes and has at least
    :data:`LONG_TURN_CLAUSES` clauses: its examples are the clauses that hold an expected
    value, each labelled with that item's kind (the turn whole when no clause holds one,
    e.g. a canonical value such as ``concise``). The rest of such a turn is not an example:
    it is neither the item nor labelled as anything."""
    from ..core.redact import Redactor
    from .extract.markers import split_clauses

    redactor = Redactor()
    out: list[tuple[int, str, str]] = []
    for index, item in enumerate(items):
        kind = item_kind(item)
        if kind is None or item.get("source", "user") != "user":
            continue
        text = redactor.redact(str(item["text"])).text
        clauses = split_clauses(text)
        held: dict[str, str] = {}
        if item.get("should_write") and len(clauses) >= LONG_TURN_CLAUSES:
            for triple in item.get("expected") or []:
                values = [triple[2]] if isinstance(triple[2], str) else list(triple[2])
                item_kind_of = str(triple[3]) if len(triple) > 3 else kind
                if item_kind_of not in CLAUSE_KINDS:
                    continue
                for clause in clauses:
                    if clause not in held and any(
                        str(v).casefold() in clause.casefold() for v in values if str(v).strip()
                    ):
                        held[clause] = item_kind_of
                        break
        out.append((index, text, kind))
        out.extend((index, clause, k) for clause, k in held.items())
    return out


def training_texts(items: Iterable[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """``(texts, kinds)`` of :func:`training_examples`."""
    examples = training_examples(items)
    return [t for _, t, _ in examples], [k for _, _, k in examples]


def fit(
    features: np.ndarray | sparse.spmatrix,
    labels: Sequence[str],
    *,
    c: float = 2.0,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Weights ``(W, b)`` of a class-balanced, L2-regularised multinomial logistic regression
    (scikit-learn's lbfgs) over ``features``; columns follow :data:`CLAUSE_KINDS`."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=3000, class_weight="balanced", random_state=seed)
    model.fit(features, list(labels))
    weights = np.zeros((features.shape[1], len(CLAUSE_KINDS)), dtype=np.float32)
    bias = np.full(len(CLAUSE_KINDS), -30.0, dtype=np.float32)  # kinds never seen: never chosen
    for j, kind in enumerate(model.classes_):
        col = CLAUSE_KINDS.index(str(kind))
        weights[:, col] = model.coef_[j]
        bias[col] = model.intercept_[j]
    return weights, bias
