"""Help choosing the number of topics K (issue 37): fit one chain per candidate K and set
held-out perplexity, coherence, exclusivity and (for a supervised model) the held-out score
side by side, as stm's ``searchK`` does.

``search_k(corpus, Ks, model)`` gives a tidy frame, one row per K; ``search_k_chart(frame)``
draws it, one small panel per measure against K; ``exclusivity(topic_word, n_words)`` is the
pure function behind the exclusivity column. docs/choosing_k.md says how to read them.

Altair is imported inside ``search_k_chart`` only, so ``import topicsup`` does not import it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from . import validation as check
from .arrays import F64, I64, Array
from .corpus import Corpus
from .heldout import fold_in_sweeps
from .metrics import top_word_ids
from .models import FOLD_IN_BURN, FOLD_IN_KEEP, LDA, MAX_TOPICS
from .session import Session

if TYPE_CHECKING:
    import altair as alt

# the frame's measures in the chart's order, each with the direction that is better
MEASURES: dict[str, str] = {"perplexity": "lower is better", "coherence": "higher is better",
                            "exclusivity": "higher is better", "score": "higher is better"}
COLUMNS = ("K", "perplexity", "coherence", "exclusivity", "score", "seconds")


def exclusivity(topic_word: Array, n_words: int = 10) -> F64:
    """Exclusivity of each topic's top words: the mean over topic k's ``n_words`` most
    probable words w of phi[k, w] / sum_j phi[j, w], the share of the word's probability
    that topic k holds (the exclusivity half of FREX, Bischof and Airoldi 2012, as stm's
    ``exclusivity`` reads it, taken here as the raw share rather than its ECDF rank).

    Parameters
    ----------
    topic_word : ndarray, shape (K, V)
        Topic-word probabilities (rows of ``Session.topic_word()``): finite, non-negative,
        each word with some probability in some topic where it is a top word.
    n_words : int
        Top words per topic, >= 1 (all V words when larger).

    Returns
    -------
    ndarray of float64, shape (K,)
        In [1/K, 1]: 1 when no other topic gives the topic's top words any probability, 1/K
        when every topic gives them the same. With one topic it is 1, so the values of
        different K are read with that floor of 1/K in mind.

    Raises
    ------
    TypeError
        ``topic_word`` is not a numeric array, or ``n_words`` not an integer.
    ValueError
        ``topic_word`` is not 2-d, not finite or has a negative entry, or ``n_words`` < 1.
    """
    top = top_word_ids(topic_word, n_words)          # checks the array and n_words
    phi = np.asarray(topic_word, dtype=np.float64)
    if (phi < 0).any():
        raise ValueError("topic_word must be non-negative (topic-word probabilities)")
    totals = phi.sum(axis=0)                         # (V,) each word's probability over topics
    rows = np.arange(phi.shape[0])[:, None]
    word_totals = totals[top]
    if (word_totals <= 0).any():
        raise ValueError("topic_word gives a top word no probability in any topic: rows "
                         "must be topic-word probabilities")
    shares: F64 = phi[rows, top] / word_totals
    out: F64 = shares.mean(axis=1)
    return out


# ---------------------------------------------------------------------- the inputs
def _check_Ks(Ks: Any) -> list[int]:
    if isinstance(Ks, (str, bytes)) or not isinstance(Ks, (Sequence, np.ndarray, range)):
        raise TypeError(f"Ks must be a sequence of ints (the numbers of topics to try), got "
                        f"{type(Ks).__name__}")
    values = list(np.asarray(Ks).ravel()) if isinstance(Ks, np.ndarray) else list(Ks)
    if not values:
        raise ValueError("Ks must hold at least one number of topics, got an empty sequence")
    out = [check.integer(f"Ks[{i}]", k, low=1, high=MAX_TOPICS) for i, k in enumerate(values)]
    twice = check.first_duplicate(out)
    if twice is not None:
        raise ValueError(f"Ks must be distinct numbers of topics; {twice} occurs twice")
    return sorted(out)


def _check_model(model: Any) -> LDA | type[LDA]:
    if model is None:
        return LDA
    if isinstance(model, type):
        if issubclass(model, LDA):
            return model
        raise TypeError(f"model must be a topicsup model (an instance such as LightMedLDA() "
                        f"or its class), got the class {model.__name__}")
    if isinstance(model, LDA):
        return model
    raise TypeError(f"model must be a topicsup model (an instance such as LightMedLDA() or "
                    f"its class), or None for LDA, got {type(model).__name__}")


def _with_K(model: LDA | type[LDA], K: int) -> LDA:
    """The model with K topics: a class built with ``K``, an instance replaced."""
    return model(K=K) if isinstance(model, type) else model.replace(K=K)


def split(corpus: Corpus, fraction: float, seed: int = 0) -> tuple[Corpus, Corpus]:
    """(training, held-out) documents of ``corpus``: a random ``fraction`` of them held out
    (at least one document, and at least one left to train on), chosen by ``seed``, each
    part in the corpus's order (``Corpus.take``: labels, covariates and index kept)."""
    if corpus.n_docs < 2:
        raise ValueError(f"corpus has {corpus.n_docs} document: holding some out needs at "
                         f"least 2")
    n_held = min(corpus.n_docs - 1, max(1, round(fraction * corpus.n_docs)))
    held: I64 = np.sort(np.random.default_rng(seed).permutation(corpus.n_docs)[:n_held])
    train = np.setdiff1d(np.arange(corpus.n_docs), held)
    return corpus.take(train), corpus.take(held)


def _check_heldout(corpus: Corpus, heldout: Any, seed: int) -> tuple[Corpus, Corpus]:
    if isinstance(heldout, Corpus):
        if heldout.vocabulary != corpus.vocabulary:
            raise ValueError(f"heldout must use the corpus's vocabulary ({corpus.n_words} "
                             f"words), got a Corpus of {heldout.n_words} other words: map "
                             f"the documents with corpus.map(...)")
        if heldout.covariate_names != corpus.covariate_names:
            raise ValueError(f"heldout has the covariates {list(heldout.covariate_names)}, the "
                             f"corpus {list(corpus.covariate_names)}: they must be the same")
        return corpus, heldout
    if isinstance(heldout, (bool, np.bool_)) or not isinstance(
            heldout, (float, int, np.floating, np.integer)):
        raise TypeError(f"heldout must be a fraction of the documents in (0, 1) or a held-out "
                        f"Corpus, got {type(heldout).__name__}")
    fraction = check.number("heldout", heldout, low=0.0, high=1.0, low_open=True,
                            high_open=True, why=" (the share of documents held out)")
    return split(corpus, fraction, seed)


# ---------------------------------------------------------------------- the search
def _mean(values: Array) -> float:
    """The mean of the finite values, NaN when there is none (no warning)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    return float(v.mean()) if v.size else float("nan")


def search_k(corpus: Corpus, Ks: Sequence[int], model: Any = None, *,
             heldout: float | Corpus = 0.2, sweeps: int = 100, seed: int = 0,
             n_words: int = 10, n_burn: int = FOLD_IN_BURN,
             n_keep: int = FOLD_IN_KEEP) -> pd.DataFrame:
    """Fit one chain per number of topics and measure each, to help choose K.

    For each K of ``Ks``: a ``Session`` of ``model`` with K topics (``model.replace(K=K)``)
    on the training documents, seeded by ``seed``, run ``sweeps`` sweeps; then

    * ``perplexity``: held-out perplexity by document completion on the held-out documents
      (``Session.perplexity``: half of each document's tokens, drawn at random, folded in,
      the other half scored; lower is better);
    * ``coherence``: the mean over topics of ``Session.coherence(n_words)`` (its default
      measure) on the training documents (higher is better);
    * ``exclusivity``: the mean over topics of ``exclusivity(topic_word, n_words)``, the share
      of each top word's probability its topic holds (higher is better; at least 1/K);
    * ``score``: for a supervised model and labelled held-out documents only, the held-out
      accuracy (micro F1 for multi-label, predictive R^2 for a response; ``Session.score``);
    * ``seconds``: the wall-clock time of that K, its sweeps and its measures.

    Cost: the chains run one after the other, ``len(Ks)`` of them, each ``sweeps`` sweeps
    plus two fold-ins of the held-out documents (one for a model without a score), so the
    time is about the sum of ``len(Ks)`` fits, and a sweep costs what the sampler
    ``sampler="auto"`` chooses at each K costs (docs/samplers.md): O(K) per token for collapsed
    Gibbs, its choice at small K, O(k_w) (the word's topics) for ``sparse_gibbs``, its choice
    at large K (``LDA(sampler="light")``: O(1)). One chain is held in memory at a time: the
    peak is the largest K's session (``Session`` refuses one that does not fit in memory).
    Each chain is one draw: a difference between neighbouring K smaller than between two
    seeds says nothing; repeat with other seeds to see it.

    Parameters
    ----------
    corpus : Corpus
        The documents (with labels for a supervised model).
    Ks : sequence of int
        Distinct numbers of topics >= 1 to try, in any order.
    model : topicsup model, model class, or None
        What to fit at each K: an instance (e.g. ``LightMedLDA(lam=50)``, its settings kept,
        K replaced), a class (built with K and its defaults otherwise), or None for ``LDA``.
    heldout : float or Corpus
        The share of ``corpus``'s documents held out, in (0, 1), chosen at random by
        ``seed`` (at least one on each side); or the held-out documents as a Corpus on
        ``corpus``'s vocabulary (then all of ``corpus`` trains). A held-out document needs 2
        words to be scored.
    sweeps : int
        Sweeps of each chain, >= 1.
    seed : int
        Seeds the split, every chain and the fold-ins: the same seed, the same frame (but for
        ``seconds``).
    n_words : int
        Top words per topic for coherence and exclusivity, >= 2.
    n_burn, n_keep : int
        Fold-in sweeps discarded and averaged for the perplexity and the score.

    Returns
    -------
    pandas.DataFrame
        One row per K, increasing: ``K``, ``perplexity``, ``coherence``, ``exclusivity``,
        ``score`` (only when scored) and ``seconds``. ``search_k_chart`` draws it.

    Raises
    ------
    TypeError, ValueError
        An argument of the wrong type or out of range, named (before any chain runs).

    Examples
    --------
    >>> frame = search_k(corpus, [5, 10, 20, 40], sweeps=200)     # doctest: +SKIP
    >>> search_k_chart(frame)                                     # doctest: +SKIP
    """
    if not isinstance(corpus, Corpus):
        raise TypeError(f"corpus must be a topicsup.Corpus, got {type(corpus).__name__}")
    Ks_ = _check_Ks(Ks)
    given = _check_model(model)
    sweeps = check.integer("sweeps", sweeps, low=1, high=check.INT32_MAX)
    seed = check.integer("seed", seed, low=0, high=2**63 - 1)
    n_words = check.integer("n_words", n_words, low=2)
    n_burn, n_keep = fold_in_sweeps(n_burn, n_keep)
    models = {K: _with_K(given, K) for K in Ks_}   # each K checked before a chain runs
    train, test = _check_heldout(corpus, heldout, seed)
    first = models[Ks_[0]]
    if first.supervised and train.labels is None:
        raise ValueError(f"corpus must have labels: {type(first).__name__} is supervised")
    scored = bool(first.supervised) and test.labels is not None
    rows = []
    for K, m in models.items():
        start = time.perf_counter()
        with Session(m, train, seed=seed) as s:
            if s.run(sweeps) < sweeps:      # a stop request (Ctrl-C) ended the chain early
                raise KeyboardInterrupt(f"search_k was interrupted at K = {K}")
            row: dict[str, float] = {
                "K": K,
                "perplexity": s.perplexity(test, n_burn, n_keep, seed=seed),
                "coherence": _mean(s.coherence(n_words)["coherence"].to_numpy()),
                "exclusivity": _mean(exclusivity(s.topic_word(), n_words)),
            }
            if scored:
                row["score"] = s.score(test, n_burn=n_burn, n_keep=n_keep, seed=seed)
        row["seconds"] = time.perf_counter() - start
        rows.append(row)
    frame = pd.DataFrame(rows, columns=[c for c in COLUMNS if scored or c != "score"])
    return frame.astype({"K": np.int64})


# ---------------------------------------------------------------------- the chart
def search_k_chart(frame: pd.DataFrame, width: int = 230, height: int = 180) -> alt.Chart:
    """One small panel per measure of ``search_k``'s frame against K (its header says which
    way is better), points joined by a line, each panel with its own y scale; tooltips give
    K, the value and the seconds. Rows whose value is NaN are left out (no NaN in the spec).
    Frames of several seeds stacked with a ``seed`` column (``pd.concat([search_k(...,
    seed=s).assign(seed=s) for s in seeds])``) get a line per seed, so the spread between
    chains shows beside the differences between K.

    Parameters
    ----------
    frame : pandas.DataFrame
        ``search_k``'s output: ``K`` and any of ``perplexity``, ``coherence``,
        ``exclusivity``, ``score`` (``seconds`` shows in the tooltips); optionally ``seed``.
    width, height : int
        Of each panel, in pixels (the default four panels fit in 1280 pixels).

    Returns
    -------
    alt.Chart
        Returned, not shown.
    """
    import altair as alt  # a front-end library: not imported by ``import topicsup``

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be search_k's DataFrame, got {type(frame).__name__}")
    shown = [m for m in MEASURES if m in frame.columns]
    if "K" not in frame.columns or not shown:
        raise ValueError(f"frame must be search_k's output: K and some of {list(MEASURES)}, "
                         f"got the columns {list(frame.columns)}")
    width = check.integer("width", width, low=50, high=2000)
    height = check.integer("height", height, low=50, high=2000)
    extra = [c for c in ("seconds", "seed") if c in frame.columns]
    long = frame[["K", *extra, *shown]].melt(id_vars=["K", *extra], value_vars=shown,
                                             var_name="measure")
    long = long.replace([np.inf, -np.inf], np.nan).dropna()
    if long.empty:
        raise ValueError("frame has no finite value to draw")
    long = long.astype({"K": np.int64}).sort_values(["measure", "K"], kind="stable")
    long["panel"] = [f"{m} ({MEASURES[m]})" for m in long["measure"]]
    order = [f"{m} ({MEASURES[m]})" for m in shown if m in set(long["measure"])]
    tooltip = [alt.Tooltip("K:Q"), alt.Tooltip("measure:N"),
               alt.Tooltip("value:Q", format=".4g"),
               *[alt.Tooltip(f"{c}:Q", format=".1f" if c == "seconds" else "d")
                 for c in extra]]
    by_seed = {"detail": alt.Detail("seed:N")} if "seed" in extra else {}
    return (alt.Chart(long, title="Choosing the number of topics K")
            .mark_line(point=alt.OverlayMarkDef(filled=True, size=50))
            .encode(x=alt.X("K:Q", title="topics K", scale=alt.Scale(zero=False)),
                    y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=False)),
                    column=alt.Column("panel:N", sort=order, title=None),
                    tooltip=tooltip, **by_seed)
            .properties(width=width, height=height)
            .resolve_scale(y="independent"))


__all__ = ["COLUMNS", "MEASURES", "exclusivity", "search_k", "search_k_chart", "split"]
