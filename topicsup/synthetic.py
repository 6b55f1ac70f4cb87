"""Synthetic labelled corpora drawn from the supervised LDA generative process.

The ground truth (topics, proportions, assignments, weights) is returned with the corpus, and
the vocabulary is made of real words grouped by theme, so a recovered topic reads as
"orbit rocket launch ..." and can be checked by eye as well as by numbers.

Generative process (docs/math.md notation):

* phi_k ~ Dirichlet, concentrated on theme k's words (theme words get ``topic_purity`` of the
  mass in expectation, the rest is spread over all other words);
* theta_d ~ Dirichlet(alpha); N_d ~ 1 + Poisson(doc_length - 1); z_di ~ theta_d;
  w_di ~ phi_{z_di};
* zbar_d = empirical topic proportions, xt_d = (zbar_d, x_d) with covariates x_d ~ N(0, 1);
* score s_dt = eta_t . xt_d + b_t; labels by ``task``:
  binary y = 1 with probability sigmoid(s); multiclass y ~ softmax over classes;
  multilabel y_t = 1 with probability sigmoid(s_t); real y = s + N(0, noise^2).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from . import validation as check
from .arrays import F64, I32
from .corpus import Corpus
from .labels import LabelKind
from .kernels.fmath import exp
from .kernels.linalg import matmul

THEMES: dict[str, tuple[str, ...]] = {
    "space": ("orbit", "rocket", "launch", "planet", "moon", "shuttle", "nasa", "satellite",
              "astronaut", "telescope", "mars", "galaxy", "solar", "mission", "spacecraft"),
    "hockey": ("hockey", "puck", "goalie", "rink", "skate", "playoff", "penalty", "stick",
               "nhl", "score", "ice", "period", "team", "coach", "season"),
    "medicine": ("doctor", "patient", "disease", "treatment", "symptom", "clinic", "drug",
                 "therapy", "diagnosis", "nurse", "vaccine", "infection", "surgery", "health",
                 "medicine"),
    "computing": ("computer", "software", "memory", "processor", "disk", "driver", "program",
                  "keyboard", "monitor", "windows", "graphics", "network", "server", "file",
                  "code"),
    "religion": ("god", "faith", "church", "bible", "belief", "prayer", "religion", "heaven",
                 "soul", "sin", "gospel", "worship", "christian", "spirit", "moral"),
    "cars": ("car", "engine", "wheel", "brake", "tire", "driver", "speed", "fuel", "dealer",
             "transmission", "mileage", "highway", "motor", "garage", "sedan"),
    "politics": ("government", "election", "senate", "vote", "policy", "law", "president",
                 "congress", "tax", "party", "campaign", "citizen", "rights", "court", "state"),
    "cooking": ("recipe", "oven", "flour", "butter", "garlic", "sauce", "bake", "kitchen",
                "onion", "pepper", "salt", "dinner", "soup", "cheese", "bread"),
    "music": ("guitar", "song", "album", "concert", "band", "drum", "melody", "piano",
              "singer", "chord", "rhythm", "lyrics", "stage", "record", "tour"),
    "weather": ("rain", "storm", "cloud", "wind", "snow", "forecast", "temperature", "sunny",
                "thunder", "humid", "frost", "climate", "flood", "drought", "breeze"),
    "finance": ("bank", "loan", "interest", "stock", "market", "investor", "bond", "credit",
                "profit", "dividend", "budget", "inflation", "trader", "fund", "currency"),
    "gardening": ("garden", "soil", "seed", "flower", "compost", "weed", "prune", "bloom",
                  "shovel", "tomato", "root", "leaf", "harvest", "greenhouse", "mulch"),
}
BACKGROUND: tuple[str, ...] = (
    "people", "think", "know", "time", "good", "year", "like", "question", "point", "way",
    "thing", "day", "work", "new", "problem", "fact", "really", "right", "make", "want")

Task = Literal["binary", "multiclass", "multilabel", "real"]


@dataclass(frozen=True, eq=False)
class Synthetic:
    """A synthetic corpus and the truth it was drawn from.

    Attributes
    ----------
    corpus : Corpus
    topic_word : ndarray (K, V)  true phi, columns in ``corpus.vocabulary`` order
    doc_topic : ndarray (D, K)   true theta
    z : ndarray (n_tokens,)      true assignments, aligned with ``corpus.words``
    eta : ndarray (T, K + P)     true weights, one row per task
    intercept : ndarray (T,)
    scores : ndarray (D, T)      s_dt = eta_t . xt_d + intercept_t
    topic_names : tuple of str   the theme behind each topic
    """

    corpus: Corpus
    topic_word: F64
    doc_topic: F64
    z: I32
    eta: F64
    intercept: F64
    scores: F64
    topic_names: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)


def _check_int(name: str, v: Any, lo: int, hi: int | None = None) -> int:
    return check.integer(name, v, low=lo, high=hi)


def _logistic(x: F64) -> F64:
    """1 / (1 + e^-x) elementwise, through ``kernels.fmath.exp``."""
    x = np.asarray(x, dtype=np.float64)
    return 1.0 / (1.0 + np.array([exp(-v) for v in x.ravel()]).reshape(x.shape))


def make_synthetic(n_docs: int = 400, n_topics: int = 6, doc_length: int = 60, *,
                   task: Task = "binary", n_classes: int = 3, n_covariates: int = 0,
                   alpha: float = 0.3, topic_purity: float = 0.9, weight_scale: float = 8.0,
                   noise: float = 0.3, seed: int = 0) -> Synthetic:
    """Draw a labelled corpus from the supervised LDA generative process.

    Parameters
    ----------
    n_docs : int
        Number of documents D.
    n_topics : int
        Number of topics K (at most the number of themes, 12).
    doc_length : int
        Mean document length.
    task : {"binary", "multiclass", "multilabel", "real"}
        How labels are drawn from the scores (see module doc).
    n_classes : int
        Classes for multiclass and multilabel (binary has 1 task, real 1 output).
    n_covariates : int
        Extra Gaussian document covariates entering the score.
    alpha : float
        Symmetric Dirichlet parameter of theta.
    topic_purity : float
        Expected share of a topic's mass on its theme words, in (0, 1).
    weight_scale : float
        Standard deviation of the true weights eta (larger: labels follow topics more closely).
    noise : float
        Standard deviation of the regression noise.
    seed : int
        Fixes everything.

    Returns
    -------
    Synthetic
    """
    n_docs = _check_int("n_docs", n_docs, 2, 10**7)
    K = _check_int("n_topics", n_topics, 2, len(THEMES))
    doc_length = _check_int("doc_length", doc_length, 1, 10**6)
    n_covariates = _check_int("n_covariates", n_covariates, 0, 1000)
    check.choice("task", task, ("binary", "multiclass", "multilabel", "real"))
    n_classes = _check_int("n_classes", n_classes, 2, 1000)
    topic_purity = check.number("topic_purity", topic_purity, low=0.0, high=1.0, low_open=True,
                                high_open=True)
    alpha = check.number("alpha", alpha, low=1e-3, high=1e3)
    weight_scale = check.number("weight_scale", weight_scale, low=0.0, high=1e3)
    noise = check.number("noise", noise, low=0.0, high=1e6)
    seed = _check_int("seed", seed, 0, 2**63 - 1)
    check.allocation("the synthetic corpus", 64.0 * n_docs * doc_length)
    rs = np.random.default_rng(seed)

    names = tuple(list(THEMES)[:K])
    vocab = sorted({w for t in names for w in THEMES[t]} | set(BACKGROUND))
    index = {w: j for j, w in enumerate(vocab)}
    V = len(vocab)
    phi = np.empty((K, V))
    for k, t in enumerate(names):
        theme = np.zeros(V, bool)
        theme[[index[w] for w in THEMES[t]]] = True
        base = np.where(theme, topic_purity / theme.sum(), (1 - topic_purity) / (~theme).sum())
        phi[k] = rs.dirichlet(base * 50.0)
    theta = rs.dirichlet(np.full(K, alpha), size=n_docs)
    lengths = 1 + rs.poisson(doc_length - 1, size=n_docs)
    z_docs, w_docs = [], []
    cum_phi = np.cumsum(phi, axis=1)
    for d in range(n_docs):
        z = rs.choice(K, size=lengths[d], p=theta[d])
        u = rs.random(lengths[d])
        w = np.minimum((cum_phi[z] < u[:, None]).sum(axis=1), V - 1)
        z_docs.append(z)
        w_docs.append(w)
    zbar = np.stack([np.bincount(z, minlength=K) / len(z) for z in z_docs])
    X = rs.standard_normal((n_docs, n_covariates)) if n_covariates else None
    xt = zbar if X is None else np.hstack([zbar, X])

    T = n_classes if task in ("multiclass", "multilabel") else 1
    eta = rs.normal(0.0, weight_scale, size=(T, K + n_covariates))
    # matmul and fmath.exp, not @ and np.exp: the same corpus on every machine (BLAS and
    # numpy's SIMD exp give other last bits on other CPUs; kernels.linalg, kernels.fmath)
    raw = matmul(xt, np.ascontiguousarray(eta.T))
    if task == "multilabel":
        intercept = -np.quantile(raw, 0.7, axis=0)   # about 30% positives per label
    elif task == "real":
        intercept = np.zeros(T)
    else:
        intercept = -np.median(raw, axis=0)  # balanced classes
    scores = raw + intercept
    kind: LabelKind
    classes: tuple[str, ...] | None
    if task == "binary":
        y = (rs.random(n_docs) < _logistic(scores[:, 0])).astype(int)
        labels, kind, classes = y, "binary", ("negative", "positive")
        labels = np.asarray(classes, dtype=object)[y]
    elif task == "multiclass":
        g = scores + rs.gumbel(size=scores.shape)   # Gumbel-max = a softmax draw
        classes = tuple(f"class_{c}" for c in range(T))
        labels, kind = np.asarray(classes, dtype=object)[g.argmax(axis=1)], "multiclass"
    elif task == "multilabel":
        ind = (rs.random(scores.shape) < _logistic(scores)).astype(np.uint8)
        classes = tuple(f"label_{c}" for c in range(T))
        labels, kind = ind, "multilabel"
    else:
        labels, kind, classes = scores[:, 0] + noise * rs.standard_normal(n_docs), "real", None

    docs = [[vocab[j] for j in w] for w in w_docs]
    corpus = Corpus.from_tokens(docs, labels, X, vocabulary=vocab, label_type=kind,
                                classes=classes, empty="error")
    params = dict(n_docs=n_docs, n_topics=K, doc_length=doc_length, task=task,
                  n_classes=n_classes, n_covariates=n_covariates, alpha=alpha,
                  topic_purity=topic_purity, weight_scale=weight_scale, noise=noise, seed=seed)
    corpus = dataclasses.replace(corpus, preprocessing={**corpus.preprocessing,
                                                        "dataset": "synthetic", **params})
    return Synthetic(corpus=corpus, topic_word=phi, doc_topic=theta,
                     z=np.concatenate(z_docs).astype(np.int32), eta=eta, intercept=intercept,
                     scores=scores, topic_names=names, params=params)
