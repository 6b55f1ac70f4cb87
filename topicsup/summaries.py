"""Read-outs: what a table, a chart or a list shows of a chain, as functions of a ``Fit``
(the model, its state, the corpus and the traced draws at one moment). ``Session`` and the
views call them; a new read-out is a function here, a one-line method and a test.

For the classifier weights, two rules, so that what is shown is what it says:

* **One set of draws.** A coefficient's mean and its interval come from the same kept draws
  (``coefficient_table``), so the mean cannot fall outside its own interval, as it could when
  the mean was the running average prediction uses (accumulated in float64 over every kept
  sweep) and the interval came from the float32 trace.
* **The identified quantity by default.** Topic proportions sum to one, so with an intercept
  adding c to every topic weight of a class and -c to its intercept changes no score: the
  likelihood sees only the topic weights' differences, and the raw weights' level is set by
  the prior alone. Their intervals are then not calibrated where the truth's level is not
  the one the prior favours, while the within-class centred weights' are: DOLDA fitted to
  eight data sets with known weights, 90% intervals covered the known identified values 100
  times in 120 and the raw ones 53 (tests/test_summaries.py). ``scale="identified"`` (the default) shows each class's topic
  weights centred, eta_tk - mean_j eta_tj (the topic's pull on the class's score against the
  average topic's), and the intercept plus that mean (the score of a document spread evenly
  over the topics); covariate weights are identified as they are. Without an intercept the
  topic weights' level is the class's bias, seen by the likelihood, and nothing is changed.
  ``scale="raw"`` shows the draws as sampled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from . import metrics
from . import validation as check
from .arrays import F64, Array
from .corpus import Corpus

if TYPE_CHECKING:
    from .models import Model, State

WEIGHT_SCALES = ("identified", "raw")


def identified(draws: Array, kinds: Sequence[str]) -> F64:
    """Draws (S, T, M) of the weights on the identified scale (module docstring): with an
    intercept column, each draw's topic weights centred within the task and their mean added
    to the intercept; a float64 copy either way."""
    out = np.array(draws, dtype=np.float64)
    kinds = list(kinds)
    if "intercept" not in kinds or "topic" not in kinds:
        return out
    topics = np.array([k == "topic" for k in kinds])
    level = out[..., topics].mean(axis=-1, keepdims=True)
    out[..., topics] -= level
    out[..., kinds.index("intercept")] += level[..., 0]
    return out


def weight_scale(scale: str) -> str:
    return check.choice("scale", scale, WEIGHT_SCALES)


def coefficient_table(draws: Array, tasks: Sequence[str], features: Sequence[str],
                      kinds: Sequence[str], interval: float, scale: str = "identified",
                      n_samples: int | None = None) -> pd.DataFrame:
    """One row per (task, feature): ``mean`` and the equal-tailed ``interval`` (``lower``,
    ``upper``, ``width``) of the draws (S, T, M) on the ``scale``, all from the same
    draws; ``n_samples`` (S unless given: 0 where the draws stand for the current weights
    before any is kept)."""
    scale = weight_scale(scale)
    interval = check.number("interval", interval, low=0.0, high=1.0, low_open=True,
                            high_open=True)
    x = identified(draws, kinds) if scale == "identified" else np.asarray(draws, np.float64)
    S, T, M = x.shape
    q = (1 - interval) / 2
    lower, upper = np.quantile(x, [q, 1 - q], axis=0)
    mean = x.mean(axis=0)
    # a quantile is an interpolation between two draws and the mean an average of all: on
    # nearly equal draws they can differ in the last bit, which must not put the mean outside
    lower, upper = np.minimum(lower, mean), np.maximum(upper, mean)
    return pd.DataFrame({
        "task": np.repeat(np.asarray(tasks, dtype=object), M),
        "feature": np.tile(np.asarray(features, dtype=object), T),
        "kind": np.tile(np.asarray(kinds, dtype=object), T),
        "index": np.tile(np.arange(M), T), "mean": mean.reshape(-1),
        "lower": lower.reshape(-1), "upper": upper.reshape(-1),
        "width": (upper - lower).reshape(-1), "n_samples": S if n_samples is None else n_samples,
        "scale": scale})


@dataclass(frozen=True)
class Fit:
    """A chain at one moment, as the read-outs see it: the ``model``, its ``state``, the
    training ``corpus``, the ``traces`` (name -> the traced array of each of the last
    sweeps) and ``n_sweeps`` completed. The caller holds the chain still while a read-out
    runs (``Session`` takes its lock)."""

    model: Model
    state: State
    corpus: Corpus
    traces: dict[str, list[Array]]
    n_sweeps: int


def check_supervised(model: Model) -> None:
    if not model.supervised:
        raise ValueError(f"{type(model).__name__} is unsupervised: it has no "
                         f"classifier weights and makes no predictions; use a supervised "
                         f"model such as LightMedLDA on a labelled corpus")


def topics(fit: Fit, n_words: int = 10) -> pd.DataFrame:
    """Top words of each topic: one row per topic the model shows (HDP-LDA: the live ones)
    with ``share`` (fraction of corpus tokens in the topic), ``top_words`` (a readable
    string) and ``word_1 .. word_n``, the words in order of phi."""
    n_words = check.integer("n_words", n_words, low=1)
    n_wk = fit.state.counts.n_wk
    n_k = fit.state.counts.n_k.astype(np.float64)
    # phi_k is increasing in n_kw: the top words by count, ties by word id, one topic at a
    # time (O(V) memory, not a (K, V) copy)
    shown = fit.model.shown_topics(fit.state)
    top = np.stack([metrics.top_indices(n_wk[:, k], n_words) for k in shown]) \
        if len(shown) else np.zeros((0, min(n_words, n_wk.shape[0])), np.int64)
    words = np.asarray(fit.corpus.vocabulary, dtype=object)[top]
    df = pd.DataFrame(words, columns=[f"word_{i + 1}" for i in range(top.shape[1])])
    df.insert(0, "top_words", [" ".join(r) for r in words])
    df.insert(0, "share", n_k[shown] / max(n_k.sum(), 1.0))
    df.index = (pd.RangeIndex(len(shown), name="topic") if len(shown) == fit.model.K
                else pd.Index(shown, name="topic"))
    return df


def feature_names(fit: Fit) -> list[str]:
    """The weights' columns: topics labelled by their 3 top words, then the intercept and
    the covariates."""
    words = topics(fit, 3)["top_words"]
    return ([f"{k}: {w}" for k, w in zip(words.index, words)]
            + fit.model.covariate_names(fit.corpus))


def kept_weights(fit: Fit) -> tuple[Array, int]:
    """The weight draws (S, T, M) the prediction averages: after ``burn_in``, and from the
    last sweep of an LDA initialisation on (before it the weights are not drawn yet: zeros);
    all traced ones while none is kept; the current weights before any sweep. And how many
    draws that is (0 for the current weights)."""
    samples = fit.traces.get("eta", [])
    first = fit.n_sweeps - len(samples) + 1   # the sweep samples[0] was drawn in
    first_kept = max(fit.model.burn_in + 1, fit.model.lda_init_sweeps)
    kept = samples[max(first_kept - first, 0):] or samples
    if not kept:
        return fit.state.supervision.weights.eta.copy()[None], 0
    return np.stack(kept), len(kept)


def coefficients(fit: Fit, interval: float = 0.9, scale: str = "identified") -> pd.DataFrame:
    """``coefficient_table`` of the kept weight draws (``kept_weights``)."""
    check_supervised(fit.model)
    scale = weight_scale(scale)
    draws, n = kept_weights(fit)
    return coefficient_table(draws, fit.model.task_names(fit.corpus), feature_names(fit),
                             fit.model.feature_kinds(fit.corpus), interval, scale, n_samples=n)


def weight_trace(fit: Fit, scale: str = "identified") -> pd.DataFrame:
    """One row per (sweep, task, feature) of the traced weights on ``scale``: ``sweep``,
    ``task``, ``feature``, ``kind``, ``index`` (column of eta) and ``value``."""
    check_supervised(fit.model)
    scale = weight_scale(scale)
    samples = fit.traces.get("eta", [])
    T, M = fit.state.supervision.weights.eta.shape
    S = len(samples)
    eta = np.stack(samples) if S else np.zeros((0, T, M), np.float32)
    kinds = fit.model.feature_kinds(fit.corpus)
    if scale == "identified":
        eta = identified(eta, kinds)
    tasks = fit.model.task_names(fit.corpus)
    return pd.DataFrame({
        "sweep": np.repeat(np.arange(fit.n_sweeps - S + 1, fit.n_sweeps + 1), T * M),
        "task": np.tile(np.repeat(tasks, M), S),
        "feature": np.tile(feature_names(fit), S * T),
        "kind": np.tile(kinds, S * T),
        "index": np.tile(np.arange(M), S * T),
        "value": eta.reshape(-1).astype(np.float64)})


def signal_topics(fit: Fit, n: int = 3, n_words: int = 10, interval: float = 0.9,
                  scale: str = "identified") -> pd.DataFrame:
    """Each class's ``n`` topics with the largest positive mean weights, one row per (class,
    rank): ``task``, ``rank`` (1 = strongest), ``topic``, ``mean``, ``lower``, ``upper``,
    ``sign_certain`` (the interval excludes 0), ``share`` and ``top_words``."""
    n = check.integer("n", n, low=1)
    coefs = coefficients(fit, interval, scale)
    words = topics(fit, n_words)
    coefs = coefs[(coefs["kind"] == "topic") & (coefs["mean"] > 0)]
    best = (coefs.sort_values("mean", ascending=False, kind="stable")
            .groupby("task", sort=False).head(n))
    order = {t: i for i, t in enumerate(fit.model.task_names(fit.corpus))}
    best = best.sort_values(["task", "mean"], key=lambda c: c.map(order) if c.name == "task"
                            else -c, kind="stable")
    at = best["index"].to_numpy()
    return pd.DataFrame({
        "task": best["task"].to_numpy(),
        "rank": best.groupby("task", sort=False).cumcount().to_numpy() + 1,
        "topic": at, "mean": best["mean"].to_numpy(),
        "lower": best["lower"].to_numpy(), "upper": best["upper"].to_numpy(),
        "sign_certain": (best["lower"] > 0).to_numpy(),
        "share": words["share"].to_numpy()[at], "top_words": words["top_words"].to_numpy()[at]})


def shrinkage(fit: Fit, top: int = 3, interval: float = 0.9, scale: str = "identified"
              ) -> pd.DataFrame:
    """One row per task (index ``task``): ``top_share`` (``metrics.top_weight_share``),
    ``n_certain`` (topics whose interval excludes 0) and ``n_topics``."""
    coefs = coefficients(fit, interval, scale)
    out = metrics.top_weight_share(coefs, top).to_frame("top_share")
    topic = coefs[coefs["kind"] == "topic"]
    certain = (topic["lower"] > 0) | (topic["upper"] < 0)
    out["n_certain"] = certain.groupby(topic["task"], sort=False).sum()
    out["n_topics"] = fit.model.K
    return out


def doc_topics(fit: Fit, as_frame: bool = True) -> pd.DataFrame | F64:
    """Document-topic proportions (n_docs, K) from the state: a DataFrame indexed by
    ``corpus.index`` with a column per topic (``as_frame``), else the array."""
    as_frame = check.flag("as_frame", as_frame)
    theta = fit.model.doc_topic(fit.state, fit.corpus)
    if not as_frame:
        return theta
    return pd.DataFrame(theta, index=fit.corpus.index,
                        columns=pd.Index(range(theta.shape[1]), name="topic"))


def coherence(fit: Fit, n_words: int = 10, measure: str = "npmi") -> pd.DataFrame:
    """One row per topic (index ``topic``): ``coherence`` of its ``n_words`` top words on the
    training corpus (``metrics.topic_coherence``) and ``top_words``."""
    n_words = check.integer("n_words", n_words, low=2)
    measure = check.choice("measure", measure, metrics.MEASURES)
    top = metrics.top_word_ids(fit.model.topic_word(fit.state), n_words)
    values = metrics.topic_coherence(fit.corpus, top, measure)
    vocab = np.asarray(fit.corpus.vocabulary, dtype=object)
    return pd.DataFrame({"coherence": values, "top_words": [" ".join(r) for r in vocab[top]]},
                        index=pd.RangeIndex(top.shape[0], name="topic"))


def document_entropy(fit: Fit) -> pd.Series:
    """Entropy (nats) of each training document's topic proportions, indexed like
    ``doc_topics``."""
    theta = fit.model.doc_topic(fit.state, fit.corpus)
    return pd.Series(metrics.document_entropy(theta), index=fit.corpus.index, name="entropy")


def topic_sizes(fit: Fit) -> pd.DataFrame:
    """How much of the corpus each topic the model shows holds, one row per topic (index
    ``topic``, largest first): ``label`` (its 3 top words), ``share`` of the tokens and
    ``documents``, the number of documents in which it is the largest topic (ties to the
    lower topic number; empty documents count for none), and their ``document_share``.
    BERTopic's topic sizes, for a sampled chain."""
    words = topics(fit, 3)
    theta = fit.model.doc_topic(fit.state, fit.corpus)
    shown = words.index.to_numpy()
    full = fit.corpus.doc_lengths > 0
    lead = np.bincount(theta[full].argmax(axis=1), minlength=theta.shape[1])[shown]
    out = pd.DataFrame({"label": words["top_words"].to_numpy(),
                        "share": words["share"].to_numpy(), "documents": lead,
                        "document_share": lead / max(int(full.sum()), 1)},
                       index=words.index)
    return out.sort_values("share", ascending=False, kind="stable")


def summary(fit: Fit, history: pd.DataFrame, seed: int, in_sweep: bool) -> pd.Series:
    """Model, corpus, progress and the latest metrics in one Series."""
    h = history
    last = h[h["sweep"] == fit.n_sweeps] if len(h) else h
    lastv = {m: v for m, v, p in zip(last["metric"], last["value"], last["proposal"])
             if p is None or p != p}
    total_s = h.loc[h["metric"] == "seconds", "value"].sum() if len(h) else 0.0
    c = fit.corpus
    info = {
        "model": type(fit.model).__name__,
        **{f"param.{k}": v for k, v in fit.model.get_params().items()},
        "n_docs": c.n_docs, "n_words": c.n_words, "n_tokens": c.n_tokens, "seed": seed,
        "sweeps": fit.n_sweeps, "in_sweep": in_sweep, "sampling_seconds": total_s,
        "log_joint": lastv.get("log_joint", np.nan),
        "log_joint_per_token": lastv.get("log_joint_per_token", np.nan),
        "tokens_per_second": lastv.get("tokens_per_second", np.nan),
    }
    return pd.Series(info, name="session", dtype=object)


__all__ = ["Fit", "WEIGHT_SCALES", "coefficient_table", "coefficients", "coherence",
           "doc_topics", "document_entropy", "feature_names", "identified", "kept_weights",
           "shrinkage", "signal_topics", "summary", "topic_sizes", "topics", "weight_scale",
           "weight_trace"]
