"""Read-outs: what a table, a chart or a list shows of a chain, as functions of a ``Fit``
(``topicsup.problem.Fit``: the bound problem, the state, the record and the sweeps at one
moment). ``Session.readout`` and the view table call them; a new read-out is a function here,
a one-line method of ``readouts.Readouts`` if sessions should offer it by name, and a test.
The label task, the weights' names and kinds are the problem's, bound once: no read-out
derives them from the corpus again.

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

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import numpy as np
import pandas as pd

from . import metrics, terms
from . import validation as check
from .arrays import F64, Array
from .corpus import Corpus
from .history import metric as history_metric
from .inspector import document_html, text_html
from .problem import Fit

if TYPE_CHECKING:
    from .models import LDA

WEIGHT_SCALES = ("identified", "raw")

# A read-out over every document takes theta in chunks of about this many values, so at
# 10^6 documents it never holds the (D, K) matrix (400 MB at K = 50), nor, for the light
# sampler, the (D, K) counts it would be computed from
CHUNK_VALUES = 1 << 20


def doc_topic_chunks(fit: ModelFit) -> Iterator[tuple[int, int, F64]]:
    """The training documents' topic proportions in chunks of documents: ``(lo, hi,
    theta[lo:hi])``, the rows of ``doc_topics`` (the same numbers), about ``CHUNK_VALUES``
    values at a time."""
    model, D = fit.problem.model, fit.problem.n_docs
    step = max(1, CHUNK_VALUES // max(model.K, 1))
    for lo in range(0, D, step):
        hi = min(D, lo + step)
        yield lo, hi, model.doc_topic_rows(fit.state, fit.problem, lo, hi)


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


SCALE_MEANING = {
    "identified": "with an intercept, each task's topic weights centred (eta_tk - mean_j "
                  "eta_tj) and their mean added to the intercept: what the likelihood "
                  "determines (the scale of coefficients() and the forest plot)",
    "raw": "the weights as sampled (their level within a task is set by the prior alone "
           "when the model has an intercept)"}


def weight_scale_attrs(scale: str, has_weights: bool) -> dict[str, str]:
    """The ArviZ export's attributes naming the weights' scale (none without weights)."""
    return {"weight_scale": scale, "weight_scale_meaning": SCALE_MEANING[scale]} \
        if has_weights else {}


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


# the fit every read-out takes (``topicsup.problem.Fit``), of a model of the frame
ModelFit: TypeAlias = "Fit[LDA]"


def check_supervised(model: LDA) -> None:
    if not model.supervised:
        raise ValueError(f"{type(model).__name__} is unsupervised: it has no "
                         f"classifier weights and makes no predictions; use a supervised "
                         f"model such as LightMedLDA on a labelled corpus")


LABEL_WORDS = 3   # words of an automatic topic label
MAX_LABEL_LENGTH = 200   # characters of a name a user gives a topic (checkpoints keep it)


def _topic_index(fit: ModelFit, shown: Array) -> pd.Index:
    return (pd.RangeIndex(len(shown), name="topic") if len(shown) == fit.problem.model.K
            else pd.Index(shown, name="topic"))


def _terms(fit: ModelFit, shown: Array, lam: float, frex_weight: float) -> terms.Terms:
    """The ranking measures of the shown topics against the training corpus's word counts."""
    phi = fit.problem.model.topic_word(fit.state, fit.problem)[shown]
    return terms.Terms(phi, fit.state.counts.n_wk.sum(axis=1), lam, frex_weight)


def topic_labels(fit: ModelFit) -> list[str]:
    """One label per topic the model shows: the name the user gave it, else ``"k: w1 w2
    w3"``, its number and its three most relevant words (relevance at lambda = 0.6, the
    pyLDAvis reading: frequent in the topic and specific to it). The number keeps two
    automatic labels apart."""
    shown = fit.problem.model.shown_topics(fit.state)
    missing = [k for k in shown if int(k) not in fit.labels]
    auto: dict[int, str] = {}
    if missing:
        vocab = np.asarray(fit.problem.corpus.vocabulary, dtype=object)
        at = np.flatnonzero(np.isin(shown, missing))
        t = _terms(fit, shown, terms.RELEVANCE_LAMBDA, terms.FREX_WEIGHT)
        for i in at:
            words = vocab[terms.best(t.relevance(int(i)), LABEL_WORDS)]
            auto[int(shown[i])] = f"{int(shown[i])}: {' '.join(words)}"
    return [fit.labels.get(int(k), auto.get(int(k), "")) for k in shown]


def check_labels(fit: ModelFit, labels: Mapping[Any, Any]) -> dict[int, str]:
    """``labels`` (topic -> name) checked for ``fit``'s model: topics it shows, names that
    are non-empty str and, with the other topics' labels, all distinct (a table or a chart
    keyed by label must not merge two topics). Returns them with int keys, names stripped."""
    if not isinstance(labels, Mapping):
        raise TypeError(f"labels must be a dict of topic -> name, got {type(labels).__name__}")
    shown = [int(k) for k in fit.problem.model.shown_topics(fit.state)]
    out: dict[int, str] = {}
    for k, name in labels.items():
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"labels: topic {k!r} must be an int topic number")
        if int(k) not in shown:
            which = "" if len(shown) == fit.problem.model.K else ", a live one"
            raise ValueError(f"labels: topic {int(k)} is not one of the model's topics "
                             f"(0..{fit.problem.model.K - 1}{which})")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"labels[{int(k)}] must be a non-empty str, got {name!r}")
        if len(name.strip()) > MAX_LABEL_LENGTH:
            raise ValueError(f"labels[{int(k)}] has {len(name.strip())} characters, more than "
                             f"{MAX_LABEL_LENGTH}")
        out[int(k)] = name.strip()
    merged = topic_labels(fit.with_labels({**fit.labels, **out}))
    seen: dict[str, int] = {}
    for k, name in zip(shown, merged):
        if name in seen:
            raise ValueError(f"labels: topics {seen[name]} and {k} would both be labelled "
                             f"{name!r}; give each topic its own name")
        seen[name] = k
    return out


def topics(fit: ModelFit, n_words: int = 10, by: str = "probability",
           lam: float = terms.RELEVANCE_LAMBDA,
           frex_weight: float = terms.FREX_WEIGHT) -> pd.DataFrame:
    """Top words of each topic: one row per topic the model shows (HDP-LDA: the live ones)
    with its ``label`` (``topic_labels``), ``share`` (fraction of corpus tokens in the
    topic), ``top_words`` (a readable string) and ``word_1`` to ``word_n``, ranked ``by`` one of
    ``terms.RANKINGS``: "probability" (phi), "relevance" (with ``lam``), "frex" (with
    ``frex_weight``), "lift" or "score" (``topicsup.terms``)."""
    n_words = check.integer("n_words", n_words, low=1)
    by = check.choice("by", by, terms.RANKINGS)
    n_wk = fit.state.counts.n_wk
    n_k = fit.state.counts.n_k.astype(np.float64)
    shown = fit.problem.model.shown_topics(fit.state)
    if not len(shown):
        top = np.zeros((0, min(n_words, n_wk.shape[0])), np.int64)
    elif by == "probability":
        # phi_k is increasing in n_kw: the top words by count, ties by word id, one topic
        # at a time (O(V) memory, not a (K, V) copy)
        top = np.stack([metrics.top_indices(n_wk[:, k], n_words) for k in shown])
    else:
        top = _terms(fit, shown, lam, frex_weight).top(by, n_words)
    words = np.asarray(fit.problem.corpus.vocabulary, dtype=object)[top]
    df = pd.DataFrame(words, columns=[f"word_{i + 1}" for i in range(top.shape[1])])
    df.insert(0, "top_words", [" ".join(r) for r in words])
    df.insert(0, "share", n_k[shown] / max(n_k.sum(), 1.0))
    df.insert(0, "label", topic_labels(fit))
    df.index = _topic_index(fit, shown)
    return df


def topic_terms(fit: ModelFit, n_words: int = 10, lam: float = terms.RELEVANCE_LAMBDA,
                frex_weight: float = terms.FREX_WEIGHT) -> pd.DataFrame:
    """The words that read each topic, in long form: for every topic the model shows, the
    ``n_words`` best words by each ranking of ``terms.RANKINGS`` and by relevance at every
    lambda of ``terms.LAMBDA_GRID`` (a word found by several once), one row per (topic, word) with ``topic``, ``label``, ``word``, ``word_id``, every
    measure (``probability``, ``lift``, ``relevance`` at ``lam``, ``frex`` at
    ``frex_weight``, ``score``), ``log_probability`` and ``log_lift`` (a chart recomputes
    relevance for any lambda from them), ``topic_count`` (the word's tokens in the topic),
    ``corpus_count`` (its tokens in the corpus) and one ``rank_<measure>`` per ranking (1 =
    best; 0 when the word is not in that ranking's top ``n_words``). pyLDAvis's term table,
    with stm's measures beside it."""
    n_words = check.integer("n_words", n_words, low=1)
    shown = fit.problem.model.shown_topics(fit.state)
    columns = ["topic", "label", "word", "word_id", *terms.RANKINGS, "log_probability",
               "log_lift", "topic_count", "corpus_count",
               *(f"rank_{by}" for by in terms.RANKINGS)]
    if not len(shown):
        return pd.DataFrame(columns=columns)
    t = _terms(fit, shown, lam, frex_weight)
    n_wk = fit.state.counts.n_wk
    vocab = np.asarray(fit.problem.corpus.vocabulary, dtype=object)
    labels = topic_labels(fit)
    n = min(n_words, n_wk.shape[0])
    parts = []
    for i, k in enumerate(shown):
        scores = t.scores(i)
        ranked = {by: terms.best(scores[by], n) for by in terms.RANKINGS}
        # and every word that is among the best by relevance at a lambda of the grid a
        # chart's slider offers, so re-ranking these rows at any of them is exact
        log_phi = np.log(scores["probability"])
        with np.errstate(divide="ignore"):
            log_lift_all = np.log(scores["lift"])
        on_grid = [terms.best(g * log_phi + (1 - g) * log_lift_all if g < 1 else log_phi, n)
                   for g in terms.LAMBDA_GRID]
        ids = np.unique(np.concatenate([*ranked.values(), *on_grid]))
        log_lift = log_lift_all[ids]
        part: dict[str, object] = {
            "topic": np.full(ids.size, int(k)), "label": labels[i], "word": vocab[ids],
            "word_id": ids, **{m: scores[m][ids] for m in terms.RANKINGS},
            "log_probability": np.log(scores["probability"][ids]), "log_lift": log_lift,
            "topic_count": n_wk[ids, k].astype(np.int64),
            "corpus_count": t.counts[ids].astype(np.int64)}
        for by, top in ranked.items():
            rank = np.zeros(ids.size, np.int64)
            rank[np.searchsorted(ids, top)] = np.arange(1, top.size + 1)
            part[f"rank_{by}"] = rank
        parts.append(pd.DataFrame(part, columns=columns))
    return pd.concat(parts, ignore_index=True)


def label_topics(fit: ModelFit, n_words: int = 7, lam: float = terms.RELEVANCE_LAMBDA,
                 frex_weight: float = terms.FREX_WEIGHT) -> pd.DataFrame:
    """stm's ``labelTopics``: one row per topic the model shows (index ``topic``) with its
    ``label`` and, for each ranking of ``terms.RANKINGS``, its ``n_words`` best words as one
    string, side by side (which words a topic is read by depends on the ranking)."""
    n_words = check.integer("n_words", n_words, low=1)
    shown = fit.problem.model.shown_topics(fit.state)
    vocab = np.asarray(fit.problem.corpus.vocabulary, dtype=object)
    out = pd.DataFrame({"label": topic_labels(fit)}, index=_topic_index(fit, shown))
    t = _terms(fit, shown, lam, frex_weight) if len(shown) else None
    for by in terms.RANKINGS:
        out[by] = ([" ".join(r) for r in vocab[t.top(by, n_words)]] if t is not None
                   else [])
    return out


def _topic_of(fit: ModelFit, topic: object) -> int:
    """A topic the model shows, given by number or by label."""
    shown = [int(k) for k in fit.problem.model.shown_topics(fit.state)]
    if isinstance(topic, str):
        labels = topic_labels(fit)
        if topic not in labels:
            raise ValueError(f"topic {topic!r} is no topic's label; labels: {labels[:8]}"
                             f"{' ...' if len(labels) > 8 else ''}")
        return shown[labels.index(topic)]
    k = check.integer("topic", topic, low=0, high=fit.problem.model.K - 1)
    if k not in shown:
        raise ValueError(f"topic {k} is not a live topic of the model (live: {shown[:10]})")
    return k


def _first_words(text: str, n: int) -> str:
    """The text up to its ``n``-th whitespace-separated word (then " ...")."""
    end = 0
    for i, m in enumerate(re.finditer(r"\S+", text)):
        if i == n:
            return text[:end] + " ..."
        end = m.end()
    return text


MIN_TOKENS = 10   # representative_docs' default: shorter texts say too little to read a topic by


def representative_docs(fit: ModelFit, topic: object, n: int = 5, cls: object = None,
                        n_words: int = 200, min_tokens: int = MIN_TOKENS) -> pd.DataFrame:
    """The ``n`` training documents that carry ``topic`` (a number or a label) most: ranked
    by its share of the document, theta_dk (stm's ``findThoughts``, BERTopic's representative
    documents), among the documents with at least one token assigned to the topic now (a
    smoothed share alone, as a short document gets from the prior, carries nothing) and at
    least ``min_tokens`` tokens. When fewer than ``n`` of them are that long (a corpus of
    short texts, a small class), the shorter documents that carry the topic fill the
    remaining rows, ranked the same way after every long one (``n_tokens`` tells them
    apart); ``min_tokens=1`` ranks all by share. With ``cls``, among the documents of that
    class (for multi-label, those that have it). One row per document, indexed by
    ``corpus.index``: ``rank``, ``doc`` (its row), ``share``, ``topic_tokens`` (its tokens
    assigned to the topic now, at least 1), ``n_tokens``, ``classes`` (its class names,
    supervised corpora), ``text`` (its first ``n_words`` words) and ``html``: the words
    coloured by their assigned topic as the token inspector colours them, the topic's own in
    bold (``inspector.document_html``; display with IPython's ``HTML``). When the corpus kept
    its original texts (``Corpus.from_texts(..., keep_texts=...)``), ``text`` and ``html``
    are the text as written (up to ``n_words`` words, or tokens), its tokens marked in place,
    the topic's on its colour in bold (``inspector.text_html``; marked where the tokenizer's
    positions are known: the built-in one). Ties by document order; fewer than ``n`` rows
    (none for a topic with no tokens) when fewer documents carry the topic."""
    k = _topic_of(fit, topic)
    n = check.integer("n", n, low=1)
    n_words = check.integer("n_words", n_words, low=1)
    min_tokens = check.integer("min_tokens", min_tokens, low=1)
    corpus = fit.problem.corpus
    labels = corpus.labels
    c = -1
    if cls is not None:
        if labels is None or labels.kind == "real":
            raise ValueError("cls picks documents of a class: the corpus has no class labels")
        if not isinstance(cls, str) or cls not in labels.classes:
            raise ValueError(f"cls must be one of the classes {list(labels.classes)[:10]}, "
                             f"got {cls!r}")
        c = labels.classes.index(cls)
    z = fit.state.counts.z
    # the n best of each chunk against the n best so far: no (D,) ranking, no (D, K) theta
    best = np.zeros(0, np.int64)
    best_share = np.zeros(0)
    best_short = np.zeros(0, bool)
    for lo, hi, theta in doc_topic_chunks(fit):
        ptr = corpus.doc_ptr[lo:hi + 1]
        lengths = np.diff(ptr)
        full = lengths > 0
        mine = np.zeros(hi - lo, np.int64)   # the chunk's documents' tokens of the topic
        if full.any():
            # summed from each non-empty document's start to the next one's: its own tokens
            # (not by a cumsum, whose peak under tracemalloc grew with the number of chunks:
            # tests/widgets/test_bounded.py)
            mine[full] = np.add.reduceat(z[ptr[0]:ptr[-1]] == k, ptr[:-1][full] - ptr[0],
                                         dtype=np.int64)
        keep = mine > 0
        if labels is not None and c >= 0:
            keep &= (labels.values[lo:hi, c] > 0 if labels.kind == "multilabel"
                     else labels.values[lo:hi] == c)
        docs = np.concatenate([best, lo + np.flatnonzero(keep)])
        share = np.concatenate([best_share, theta[keep, k]])
        short = np.concatenate([best_short, lengths[keep] < min_tokens])
        top = np.lexsort((docs, -share, short))[:n]   # long first, ties by document order
        best, best_share, best_short = docs[top], share[top], short[top]
    order = best
    names: list[str] | None = None
    if labels is not None and labels.kind != "real":   # the rows shown only
        names = [", ".join(x) if isinstance(x, (set, frozenset, list, tuple)) else str(x)
                 for x in labels.take(order).names()]
    vocab = np.asarray(corpus.vocabulary, dtype=object)
    labels_shown = topic_labels(fit)
    shown = [int(j) for j in fit.problem.model.shown_topics(fit.state)]
    by_topic = [""] * fit.problem.model.K
    for j, name in zip(shown, labels_shown):
        by_topic[j] = name
    rows = []
    K = fit.problem.model.K
    for rank, (d, share_d) in enumerate(zip(order, best_share), 1):
        lo, hi = corpus.doc_ptr[d], corpus.doc_ptr[d + 1]
        words = vocab[corpus.words[lo:hi]]
        topics_d = z[lo:hi]
        if corpus.texts is not None:   # what was written, the tokens marked where known
            text = corpus.text(int(d))
            spans = corpus.spans(int(d)) or []
            shown_text = _first_words(text, n_words)
            page = text_html(text, [(a, b, t) for (a, b), t in zip(spans, topics_d)], K,
                             highlight=k, labels=by_topic, max_tokens=n_words) if spans \
                else text_html(shown_text, [], K)
        else:
            shown_text = " ".join(words[:n_words]) + (" ..." if hi - lo > n_words else "")
            page = document_html(words, topics_d, K, highlight=k, labels=by_topic,
                                 max_tokens=n_words)
        rows.append({"rank": rank, "doc": int(d), "share": float(share_d),
                     "topic_tokens": int((topics_d == k).sum()), "n_tokens": int(hi - lo),
                     **({"classes": names[rank - 1]} if names is not None else {}),
                     "text": shown_text, "html": page})
    columns = ["rank", "doc", "share", "topic_tokens", "n_tokens",
               *(["classes"] if names is not None else []), "text", "html"]
    index = cast(pd.Index, corpus.index)   # set by Corpus.__post_init__
    return pd.DataFrame(rows, columns=columns, index=pd.Index(index[order], name=index.name))


def topic_map(fit: ModelFit, interval: float = 0.9, scale: str = "identified") -> pd.DataFrame:
    """Where the topics the model shows lie from each other, for an intertopic distance map
    (pyLDAvis, BERTopic): one row per topic (index ``topic``) with ``label``, ``share`` of the
    tokens, ``x`` and ``y``, the classical multidimensional scaling (principal coordinates)
    of the topics' Jensen-Shannon distances (natural log, so in [0, sqrt(log 2)]), and for a
    supervised model the class it drives most: ``task`` (the largest mean weight of the
    topic over the tasks) with that weight's ``mean``, ``lower`` and ``upper``
    (``coefficients``' interval and scale) and ``sign_certain`` (the interval excludes 0).
    The axes' units are the distances' (the first two coordinates keep the most of them)."""
    shown = fit.problem.model.shown_topics(fit.state)
    phi = fit.problem.model.topic_word(fit.state, fit.problem)[shown]
    n_k = fit.state.counts.n_k.astype(np.float64)
    out = pd.DataFrame({"label": topic_labels(fit), "share": n_k[shown] / max(n_k.sum(), 1.0)},
                       index=_topic_index(fit, shown))
    xy = terms.classical_mds(terms.js_distances(phi), 2)
    out["x"], out["y"] = xy[:, 0], xy[:, 1]
    if fit.problem.model.supervised:
        coefs = coefficients(fit, interval, scale)
        topic_rows = coefs[coefs["kind"] == "topic"]
        best_rows = (topic_rows.sort_values("mean", ascending=False, kind="stable")
                     .groupby("index", sort=False).head(1).set_index("index"))
        at = best_rows.loc[shown]
        out["task"] = at["task"].to_numpy()
        for c in ("mean", "lower", "upper"):
            out[c] = at[c].to_numpy()
        out["sign_certain"] = ((at["lower"] > 0) | (at["upper"] < 0)).to_numpy()
    return out


def feature_names(fit: ModelFit) -> list[str]:
    """The weights' columns: the topics by their labels (``topic_labels``), then the
    intercept and the covariates."""
    return topic_labels(fit) + list(fit.problem.covariate_names)


def kept_weights(fit: ModelFit) -> tuple[Array, int]:
    """The weight draws (S, T, M) the prediction averages: after ``burn_in``, and from the
    last sweep of an LDA initialisation on (before it the weights are not drawn yet: zeros);
    all traced ones while none is kept; the current weights before any sweep. And how many
    draws that is (0 for the current weights)."""
    samples = fit.record.traces.get("eta", [])
    first = fit.n_sweeps - len(samples) + 1   # the sweep samples[0] was drawn in
    first_kept = max(fit.problem.model.burn_in + 1, fit.problem.model.lda_init_sweeps)
    kept = samples[max(first_kept - first, 0):] or samples
    if not kept:
        return fit.state.supervision.weights.eta.copy()[None], 0
    return np.stack(kept), len(kept)


def coefficients(fit: ModelFit, interval: float = 0.9, scale: str = "identified") -> pd.DataFrame:
    """``coefficient_table`` of the kept weight draws (``kept_weights``)."""
    check_supervised(fit.problem.model)
    scale = weight_scale(scale)
    draws, n = kept_weights(fit)
    return coefficient_table(draws, list(fit.problem.task_names), feature_names(fit),
                             list(fit.problem.feature_kinds), interval, scale, n_samples=n)


def weight_trace(fit: ModelFit, scale: str = "identified") -> pd.DataFrame:
    """One row per (sweep, task, feature) of the traced weights on ``scale``: ``sweep``,
    ``task``, ``feature``, ``kind``, ``index`` (column of eta) and ``value``."""
    check_supervised(fit.problem.model)
    scale = weight_scale(scale)
    samples = fit.record.traces.get("eta", [])
    T, M = fit.state.supervision.weights.eta.shape
    S = len(samples)
    eta = np.stack(samples) if S else np.zeros((0, T, M), np.float32)
    kinds = list(fit.problem.feature_kinds)
    if scale == "identified":
        eta = identified(eta, kinds)
    tasks = list(fit.problem.task_names)
    return pd.DataFrame({
        "sweep": np.repeat(np.arange(fit.n_sweeps - S + 1, fit.n_sweeps + 1), T * M),
        "task": np.tile(np.repeat(tasks, M), S),
        "feature": np.tile(feature_names(fit), S * T),
        "kind": np.tile(kinds, S * T),
        "index": np.tile(np.arange(M), S * T),
        "value": eta.reshape(-1).astype(np.float64)})


def signal_topics(fit: ModelFit, n: int = 3, n_words: int = 10, interval: float = 0.9,
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
    order = {t: i for i, t in enumerate(list(fit.problem.task_names))}
    best = best.sort_values(["task", "mean"], key=lambda c: c.map(order) if c.name == "task"
                            else -c, kind="stable")
    at = best["index"].to_numpy()
    return pd.DataFrame({
        "task": best["task"].to_numpy(),
        "rank": best.groupby("task", sort=False).cumcount().to_numpy() + 1,
        "topic": at, "mean": best["mean"].to_numpy(),
        "lower": best["lower"].to_numpy(), "upper": best["upper"].to_numpy(),
        "sign_certain": (best["lower"] > 0).to_numpy(),
        "label": words["label"].to_numpy()[at],
        "share": words["share"].to_numpy()[at], "top_words": words["top_words"].to_numpy()[at]})


def shrinkage(fit: ModelFit, top: int = 3, interval: float = 0.9, scale: str = "identified"
              ) -> pd.DataFrame:
    """One row per task (index ``task``): ``top_share`` (``metrics.top_weight_share``),
    ``n_certain`` (topics whose interval excludes 0) and ``n_topics``. A task whose topic
    weights are all zero, none fitted yet (``MCMedLDA`` before its first SVM step, a chain
    before its first sweep or in its LDA initialisation), has no concentration to measure
    and no row."""
    coefs = coefficients(fit, interval, scale)
    out = metrics.top_weight_share(coefs, top).to_frame("top_share")
    topic = coefs[coefs["kind"] == "topic"]
    certain = (topic["lower"] > 0) | (topic["upper"] < 0)
    out["n_certain"] = certain.groupby(topic["task"], sort=False).sum()
    out["n_topics"] = fit.problem.model.K
    # top_weight_share is NaN exactly for all-zero weights: a row of no meaning, left out
    return out[out["top_share"].notna()]


def document_prior(fit: ModelFit) -> pd.DataFrame:
    """DMR's (or LogisticNormal's) prior on the documents' topics at this sweep, tidy: one
    row per (feature, topic) with ``feature`` (``class=...``, ``intercept`` or a covariate), ``kind``
    (``"class"``, ``"intercept"``, ``"covariate"``), ``topic``, ``label``, ``lam`` (lambda_fk)
    and ``shift``: for a class, lambda minus the classes' mean for the topic (how much more,
    on the log scale of alpha, the class's documents lean to the topic than the classes on
    average); for the others lambda itself (LogisticNormal: its gamma, the mean of eta, on
    the same columns; ``attrs["scale"]`` says which). A ``ValueError`` for a model without
    such a prior."""
    prior = getattr(fit.state, "prior", None)
    if prior is None:
        raise ValueError(f"session: {type(fit.problem.model).__name__} has no prior that "
                         f"depends on the documents (DMR has)")
    names = list(prior.design.names)
    lam = np.asarray(prior.lam, dtype=np.float64)
    kinds = ["class" if n.startswith("class=") else "intercept" if n == "intercept"
             else "covariate" for n in names]
    is_class = np.array([k == "class" for k in kinds])
    shift = lam.copy()
    if is_class.any():
        shift[is_class] -= lam[is_class].mean(axis=0, keepdims=True)
    F, K = lam.shape
    labels = topic_labels(fit)
    frame = pd.DataFrame({"feature": np.repeat(names, K), "kind": np.repeat(kinds, K),
                          "topic": np.tile(np.arange(K), F), "label": labels * F,
                          "lam": lam.ravel(), "shift": shift.ravel()})
    # what lam is on: DMR's log alpha, or LogisticNormal's mean of eta (the heatmap's legend)
    frame.attrs["scale"] = getattr(fit.problem.model, "PRIOR_SCALE", "log alpha")
    return frame


def doc_topics(fit: ModelFit, as_frame: bool = True) -> pd.DataFrame | F64:
    """Document-topic proportions (n_docs, K) from the state: a DataFrame indexed by
    ``corpus.index`` with a column per topic (``as_frame``), else the array."""
    as_frame = check.flag("as_frame", as_frame)
    theta = fit.problem.model.doc_topic(fit.state, fit.problem)
    if not as_frame:
        return theta
    return pd.DataFrame(theta, index=fit.problem.corpus.index,
                        columns=pd.Index(range(theta.shape[1]), name="topic"))


def coherence(fit: ModelFit, n_words: int = 10, measure: str = "c_npmi",
              window_size: int | None = None, reference: Corpus | None = None
              ) -> pd.DataFrame:
    """One row per topic (index ``topic``): ``coherence`` of its ``n_words`` top words
    (``metrics.topic_coherence``: ``measure`` one of ``metrics.MEASURES``, gensim's numbers
    for ``"c_npmi"``, ``"c_v"``, ``"c_uci"`` and ``"u_mass"``, ``window_size`` for the
    window measures) on the training corpus, or on ``reference``, a Corpus of the training
    corpus's vocabulary (``fit.problem.corpus.map``); and ``top_words``."""
    n_words = check.integer("n_words", n_words, low=2)
    # the stack level names the caller of Session.coherence (through Session.readout)
    measure = metrics.coherence_measure(measure, stacklevel=5)
    counts_from = fit.problem.corpus if reference is None else reference
    if not isinstance(counts_from, Corpus):
        raise TypeError(f"reference must be a topicsup.Corpus or None, got "
                        f"{type(reference).__name__}")
    if counts_from.vocabulary != fit.problem.corpus.vocabulary:
        raise ValueError(f"reference must have the training corpus's vocabulary (the topics' "
                         f"word ids index it), got one of {counts_from.n_words} words for "
                         f"{fit.problem.corpus.n_words}; map its documents with the training "
                         f"corpus's map(...)")
    top = metrics.top_word_ids(fit.problem.model.topic_word(fit.state, fit.problem), n_words)
    values = metrics.topic_coherence(counts_from, top, measure, window_size=window_size)
    vocab = np.asarray(fit.problem.corpus.vocabulary, dtype=object)
    return pd.DataFrame({"coherence": values, "top_words": [" ".join(r) for r in vocab[top]]},
                        index=pd.RangeIndex(top.shape[0], name="topic"))


def document_entropy(fit: ModelFit) -> pd.Series:
    """Entropy (nats) of each training document's topic proportions, indexed like
    ``doc_topics``."""
    entropy = np.empty(fit.problem.n_docs)
    for lo, hi, theta in doc_topic_chunks(fit):
        entropy[lo:hi] = metrics.document_entropy(theta)
    return pd.Series(entropy, index=fit.problem.corpus.index, name="entropy")


def topic_sizes(fit: ModelFit) -> pd.DataFrame:
    """How much of the corpus each topic the model shows holds, one row per topic (index
    ``topic``, largest first): ``label`` (``topic_labels``), ``share`` of the tokens and
    ``documents``, the number of documents in which it is the largest topic (ties to the
    lower topic number; empty documents count for none), and their ``document_share``.
    BERTopic's topic sizes, for a sampled chain."""
    words = topics(fit, 3)
    shown = words.index.to_numpy()
    ptr = fit.problem.corpus.doc_ptr
    lead = np.zeros(fit.problem.model.K, np.int64)
    n_full = 0
    for lo, hi, theta in doc_topic_chunks(fit):
        full = np.diff(ptr[lo:hi + 1]) > 0   # empty documents lead no topic
        lead += np.bincount(theta[full].argmax(axis=1), minlength=lead.size)
        n_full += int(np.count_nonzero(full))
    lead = lead[shown]
    out = pd.DataFrame({"label": words["label"].to_numpy(),
                        "share": words["share"].to_numpy(), "documents": lead,
                        "document_share": lead / max(n_full, 1)},
                       index=words.index)
    return out.sort_values("share", ascending=False, kind="stable")


# ---------------------------------------------------------------------- the record
def history(fit: ModelFit) -> pd.DataFrame:
    """One tidy row per (sweep, metric[, proposal]): columns sweep, metric, value, proposal."""
    return fit.record.history.frame()


def metric(fit: ModelFit, name: str, proposal: str | None = None) -> pd.Series:
    """One metric as a Series indexed by sweep (``history.metric``)."""
    return history_metric(history(fit), name, proposal, fit.n_sweeps)


def trace(fit: ModelFit, name: str = "eta") -> Array:
    """The values of a traced array after every sweep, stacked: (n_sweeps, ...)."""
    return fit.record.trace(name)


def settings_changes(fit: ModelFit) -> pd.DataFrame:
    """Every change of a live setting: ``sweep``, ``parameter``, ``old``, ``new``."""
    return fit.record.changes_frame()


def sampler_choice(fit: ModelFit) -> str | None:
    """What ``sampler="auto"`` chose and why, kept with the chain as the change of
    ``sampler`` before sweep 1; None when the model named its sampler."""
    for c in fit.record.changes:
        if c["sweep"] == 0 and c["parameter"] == "sampler" and c["old"] == "auto":
            return str(c["new"])
    return None


# ---------------------------------------------------------------------- estimates
def topic_word(fit: ModelFit) -> F64:
    """(K, V) point estimate of the topics."""
    return fit.problem.model.topic_word(fit.state, fit.problem)


def topic_snapshot(fit: ModelFit) -> Array:
    """The current topics as fold-in takes them (V, K) float32."""
    return fit.problem.model.topic_snapshot(fit.state, fit.problem)


def doc_topic_counts(fit: ModelFit) -> Array:
    """n_dk (D, K) of the training documents, int32 (a copy)."""
    return np.array(fit.problem.model.doc_topic_counts(fit.state, fit.problem), dtype=np.int32)


def mean_weights(fit: ModelFit) -> F64:
    """(T, M) the weights prediction uses: eta averaged over the kept samples (the current
    eta before any is kept)."""
    check_supervised(fit.problem.model)
    return fit.problem.model.coefficients(fit.state)


def summary(fit: ModelFit, seed: int, in_sweep: bool) -> pd.Series:
    """Model, corpus, progress and the latest metrics in one Series; ``sampler_exact`` says
    whether the topic sampler is exact (False: an approximation, labelled), and
    ``sampler_choice`` what ``sampler="auto"`` chose and why ("" when it was named). The
    metrics ``log_joint``, ``log_joint_per_token`` and ``tokens_per_second`` are the newest
    values recorded (the log joint is measured every ``log_joint_every`` sweeps); one not
    recorded yet (before the first sweep, or never: ``log_joint_every=0``) has no entry, not
    a NaN."""
    h = history(fit)
    plain = h[h["proposal"].isna() & np.isfinite(h["value"].astype(np.float64))]
    newest = plain.sort_values("sweep", kind="stable").drop_duplicates("metric", keep="last")
    lastv = dict(zip(newest["metric"], newest["value"]))
    total_s = h.loc[h["metric"] == "seconds", "value"].sum() if len(h) else 0.0
    c = fit.problem.corpus
    model = fit.problem.model
    info = {
        "model": type(model).__name__,
        **{f"param.{k}": v for k, v in model.get_params().items()},
        "sampler_exact": model.topic_sampler.exact,
        "sampler_choice": sampler_choice(fit) or "",
        "n_docs": c.n_docs, "n_words": c.n_words, "n_tokens": c.n_tokens, "seed": seed,
        "sweeps": fit.n_sweeps, "in_sweep": in_sweep, "sampling_seconds": total_s,
        **{m: lastv[m] for m in ("log_joint", "log_joint_per_token", "tokens_per_second")
           if m in lastv},
    }
    return pd.Series(info, name="session", dtype=object)


__all__ = ["ModelFit", "WEIGHT_SCALES", "check_labels", "check_supervised",
           "coefficient_table", "coefficients", "coherence", "doc_topic_counts", "doc_topics",
           "document_entropy", "feature_names", "history", "identified", "kept_weights",
           "label_topics", "mean_weights", "metric", "representative_docs",
           "sampler_choice", "settings_changes", "shrinkage", "signal_topics", "summary",
           "topic_labels", "topic_map", "topic_sizes", "topic_snapshot", "topic_terms",
           "topic_word", "topics", "trace", "weight_scale", "weight_trace"]
