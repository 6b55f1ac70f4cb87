"""Topic prevalence with exact posterior uncertainty: what share of each class's documents a
topic takes (BERTopic's ``topics_per_class``) and how a topic's share moves with a covariate
(stm's ``estimateEffect``), with intervals from posterior draws (docs/prevalence.md).

The draws. A collapsed sampler keeps the topic assignments z, not the documents' proportions
theta. Given z, theta is exactly Dirichlet: theta_d | z ~ Dirichlet(n_d1 + alpha_1, ..., n_dK
+ alpha_K), the documents independent (theta_d's prior is Dirichlet(alpha) and z_d's tokens
are multinomial draws from it; a supervised model's labels depend on z, through zbar, not on
theta, so they change nothing). So after a kept sweep s one draw of every theta_d from that
conditional is a draw of theta from its posterior, and any function of theta computed from it
is a posterior draw of that function: no delta method, no normal approximation (stm's
``estimateEffect`` uses a global approximation to the posterior of theta instead). A model
whose chain holds theta itself (``LogisticNormal``: theta_d = softmax(eta_d)) gives the
sweep's theta, a posterior draw already (``LDA.theta_draw``). What is
kept per draw is only the functionals, never theta itself:

* ``classes`` (C, K): each class's mean theta_d over its documents (multi-label: the
  documents that have the class; a class with no documents is left out; real labels have no
  classes);
* ``effects`` (P + 1, K): per topic, the least-squares coefficients of theta_dk on the design
  [1, covariates] (``corpus.covariates``), when the corpus has covariates;
* ``overall`` (K,): the corpus's mean theta_d.

Memory: (C + P + 2) x K float64 per draw ((C + 1) x K without covariates), at most
``max_draws`` draws (default 500; the oldest dropped: the draws are the latest ``max_draws``
kept sweeps'), whatever the number of documents; e.g. 20 classes, 3 covariates, K = 100:
20 kB a draw, 10 MB for 500.

The sum-to-one point (stm's). Topic proportions sum to one, so across topics a class's
prevalences sum to 1 in every draw, the intercepts sum to 1 and each covariate's effects sum
to 0: an effect on one topic is an effect against the others, never a statement about that
topic alone.

The draws' random numbers come from their own numpy Generator per sweep,
``np.random.default_rng([session.seed, PREVALENCE_STREAM, sweep])``: the chain's own stream
(``session.rng``) is never read, so a chain kept with prevalence draws is the same chain,
bit for bit, as one without, and a sweep's draw is the same whenever it is recorded.

Usage::

    draws = PrevalenceDraws(session, burn=200)
    session.run(1000, callback=draws.collect)   # or run_keeping_prevalence(session, 1000, 200)
    draws.prevalence(by="class")        # tidy: class, topic, label, mean, lower, upper, ...
    draws.effects()                     # tidy: term, topic, label, mean, lower, upper, ...
    prevalence_chart(draws.prevalence())          # Altair, returned not shown
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from . import validation as check
from .arrays import F64, I32, Array
from .corpus import Corpus
from .summaries import ModelFit, doc_topic_counts
# the charts of the draws' frames live with the other charts; offered here too
from .views.prevalence import INTERCEPT, along_chart, effect_chart, prevalence_chart

# the draws' own numpy stream, mixed with the session's seed and the sweep
PREVALENCE_STREAM = 0x5EED
MAX_DRAWS = 500            # default bound on the draws kept
MAX_DRAWS_LIMIT = 1_000_000
BY = ("class", "corpus")
ALL_DOCUMENTS = "all documents"   # the ``class`` of ``prevalence(by="corpus")``'s rows

PREVALENCE_COLUMNS = ["class", "topic", "label", "mean", "lower", "upper", "n_draws", "n_docs"]
EFFECT_COLUMNS = ["term", "topic", "label", "mean", "lower", "upper", "n_draws"]


class _Chain(Protocol):
    """What the draws read of a ``topicsup.Session`` (this layer is below the session's): its
    ``Fit`` through ``readout``, its seed, whether a sweep is part-way, and its run."""

    seed: int

    @property
    def in_sweep(self) -> bool: ...

    def readout(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...

    def locked(self) -> AbstractContextManager[Any]: ...

    def topic_labels(self) -> list[str]: ...

    def run(self, n: int, callback: Callable[[Any], Any] | None = None, every: int = 1,
            progress: bool = False) -> int: ...


@dataclass(frozen=True)
class _Draw:
    """One kept sweep's functionals of theta (module docstring)."""

    sweep: int
    classes: F64            # (C, K)
    effects: F64 | None     # (P + 1, K), None without covariates
    overall: F64            # (K,)


def _chain_of(fit: ModelFit) -> tuple[int, F64, int, Corpus]:
    """K, the documents' alpha, the sweeps so far and the corpus of a chain whose theta given
    z is one Dirichlet per document (refused, naming why, otherwise)."""
    model, problem, state = fit.problem.model, fit.problem, fit.state
    K = int(model.K)
    if model.theta_draw(state, problem) is not None:   # the chain holds theta itself
        return K, np.zeros(0), int(fit.n_sweeps), problem.corpus
    alpha = np.asarray(problem.alpha, dtype=np.float64)
    if alpha.shape != (K,):
        raise ValueError(f"session: {type(model).__name__} has no fixed alpha (its "
                         f"documents' prior is part of the chain's state, as HDP-LDA's is), "
                         f"so theta given z is not one Dirichlet: prevalence draws need a "
                         f"model with alpha, such as LDA")
    if model.topic_sampler.estimates(state.sampler) is not None:
        raise ValueError(f"session: the {model.topic_sampler.name!r} sampler keeps point "
                         f"estimates, not a chain over topic assignments z: prevalence draws "
                         f"need a Markov chain sampler such as 'gibbs'")
    return K, alpha, int(fit.n_sweeps), problem.corpus


def _counts(fit: ModelFit) -> tuple[int, Array | None, F64 | None, F64 | None]:
    """The sweeps so far, then either the chain's own theta (D, K) (a model that samples it,
    such as ``LogisticNormal``: None, None, theta) or n_dk (a copy) and the documents' own
    Dirichlet parameters (D, K) where they differ by document (DMR's, a copy; else None: the
    problem's alpha), None."""
    model = fit.problem.model
    theta = model.theta_draw(fit.state, fit.problem)
    if theta is not None:
        return int(fit.n_sweeps), None, None, theta
    rows = model.doc_alpha_rows(fit.state, fit.problem)
    return int(fit.n_sweeps), doc_topic_counts(fit), rows, None


def _interval(interval: Any) -> float:
    return check.number("interval", interval, low=0.0, high=1.0, low_open=True,
                        high_open=True)


def _summary(x: F64, interval: float) -> tuple[F64, F64, F64]:
    """Mean and equal-tailed ``interval`` over the draws (axis 0), the mean kept inside."""
    q = (1.0 - interval) / 2.0
    lower, upper = np.quantile(x, [q, 1.0 - q], axis=0)
    mean = x.mean(axis=0)
    return mean, np.minimum(lower, mean), np.maximum(upper, mean)


class PrevalenceDraws:
    """Posterior draws of topic prevalence per class and of covariate effects, kept from a
    live Session's sweeps (module docstring; docs/prevalence.md).

    Parameters
    ----------
    session : topicsup.Session
        A chain over topic assignments z with a fixed alpha (LDA, PDP-LDA or any supervised
        model), DMR (each document's own alpha), or a chain that holds theta itself
        (LogisticNormal, the recipe: docs/prevalence.md). HDP-LDA (no fixed alpha: its documents' prior is part of the state) and the
        importance sampler (point estimates, no chain over z) are refused (``ValueError``).
    burn : int
        Sweeps of this session, counted from when the recorder is made, that are not kept:
        sweep s (``session.n_sweeps`` after it) is kept when s - start > burn and
        (s - start - burn) is a multiple of ``every`` (start: ``session.n_sweeps`` now).
    every : int
        Keep every ``every``-th sweep after the burn-in.
    max_draws : int
        At most this many draws are kept: a new draw beyond it drops the oldest (the draws
        are then the latest ``max_draws`` kept sweeps'; ``n_dropped`` counts the dropped).
        Each draw holds (C + P + 2) x K float64 (``bytes_per_draw``; (C + 1) x K without
        covariates): C classes, P covariates, K topics; the number of documents does not
        count.

    ``collect`` is the run callback: ``session.run(n, callback=draws.collect)`` (or
    ``run_keeping_prevalence``). Each kept sweep draws every theta_d ~ Dirichlet(n_dk +
    alpha_k), exactly theta's posterior given z, from the draws' own stream (never the
    chain's), or takes the chain's own theta (LogisticNormal: ``LDA.theta_draw``), and keeps
    only its class means, regression coefficients and overall mean.

    Topic proportions sum to one: in every draw a class's prevalences sum to 1 over topics,
    the intercepts sum to 1 and a covariate's effects sum to 0 over topics. An effect on one
    topic is an effect against the others (stm's point).
    """

    def __init__(self, session: _Chain, burn: int = 0, every: int = 1,
                 max_draws: int = MAX_DRAWS) -> None:
        needed = ("readout", "seed", "in_sweep", "locked", "topic_labels", "run")
        if isinstance(session, type) or not all(hasattr(session, a) for a in needed):
            raise TypeError(f"session must be a topicsup.Session, got "
                            f"{type(session).__name__}")
        self.burn = check.integer("burn", burn, low=0)
        self.every = check.integer("every", every, low=1)
        self.max_draws = check.integer("max_draws", max_draws, low=1, high=MAX_DRAWS_LIMIT)
        self.session = session
        K, alpha, self.start, corpus = session.readout(_chain_of)
        self.K = K
        self.alpha: F64 = alpha.copy()
        self.n_docs = int(corpus.n_docs)
        # the classes: (D, C) weights whose columns average a class's documents
        self.classes: tuple[str, ...] = ()
        self.class_sizes: tuple[int, ...] = ()
        self._class_weights: F64 = np.zeros((self.n_docs, 0))
        labels = corpus.labels
        if labels is not None and labels.kind != "real":
            if labels.kind == "multilabel":
                member = np.asarray(labels.values, dtype=np.float64)
            else:
                codes = np.asarray(labels.values, dtype=np.int64)
                member = (codes[:, None] == np.arange(len(labels.classes))[None, :]
                          ).astype(np.float64)
            sizes = member.sum(axis=0)
            has = sizes > 0          # a class without documents has no mean
            self.classes = tuple(c for c, h in zip(labels.classes, has) if h)
            self.class_sizes = tuple(int(n) for n in sizes[has])
            self._class_weights = member[:, has] / sizes[has]
        # the covariates: theta's least-squares coefficients are pinv(X) @ theta
        self.terms: tuple[str, ...] = ()
        self._pinv: F64 | None = None
        self._covariates: F64 = np.zeros((self.n_docs, 0))
        self.effects_unavailable = "the corpus has no covariates (corpus.covariates)"
        cov = corpus.covariates
        if cov is not None and cov.shape[1]:
            X = np.column_stack([np.ones(self.n_docs), np.asarray(cov, dtype=np.float64)])
            if np.linalg.matrix_rank(X) < X.shape[1]:
                self.effects_unavailable = (
                    "the design [1, covariates] is rank deficient (a covariate is constant "
                    "or a combination of the others), so the effects are not identified")
            else:
                self._pinv = np.linalg.pinv(X)
                self._covariates = np.asarray(cov, dtype=np.float64)
                self.terms = (INTERCEPT, *corpus.covariate_names)
                self.effects_unavailable = ""
        self._draws: deque[_Draw] = deque(maxlen=self.max_draws)
        self._lock = threading.Lock()   # a run's thread appends while a reader reads
        self._last_sweep = -1
        self.n_dropped = 0

    # ------------------------------------------------------------------ sizes
    @property
    def n_covariates(self) -> int:
        return max(len(self.terms) - 1, 0)

    @property
    def bytes_per_draw(self) -> int:
        """A draw's size: (C + P + 2) x K float64 with P covariates (the class means, the
        coefficients with the intercept, the overall mean), (C + 1) x K without (the sweep
        number aside). Besides the draws the recorder holds (C + P + 1) x D float64 fixed
        (the classes' averaging weights and the design's pseudo-inverse)."""
        return 8 * (len(self.classes) + len(self.terms) + 1) * self.K

    def _snapshot(self) -> list[_Draw]:
        with self._lock:
            return list(self._draws)

    @property
    def n_draws(self) -> int:
        return len(self._draws)

    @property
    def sweeps(self) -> np.ndarray:
        """The sweep of each kept draw, oldest first."""
        return np.array([d.sweep for d in self._snapshot()], dtype=np.int64)

    def __repr__(self) -> str:
        return (f"PrevalenceDraws({self.n_draws} draws of {len(self.classes)} classes, "
                f"{self.n_covariates} covariates, K = {self.K}; burn={self.burn}, "
                f"every={self.every}, max_draws={self.max_draws})")

    # ------------------------------------------------------------------ drawing
    def wanted(self, sweep: int) -> bool:
        """Whether sweep ``sweep`` (a completed sweep's number) is one this recorder keeps."""
        after = sweep - self.start - self.burn
        return after > 0 and after % self.every == 0

    def theta_draw(self, n_dk: I32, alpha: F64, rng: np.random.Generator) -> F64:
        """One draw of every theta_d (D, K) from its exact posterior given z,
        Dirichlet(n_dk + alpha) (by normalised gammas); ``alpha`` (K,), or (D, K) when each
        document has its own (DMR). A row whose gammas all underflow (an empty document with
        tiny alpha) is drawn by numpy's Dirichlet, which handles small parameters."""
        rows = alpha if alpha.ndim == 2 else alpha[None, :]
        g = rng.standard_gamma(n_dk + rows)
        total = g.sum(axis=1, keepdims=True)
        bad = np.flatnonzero(total[:, 0] <= 0)
        for d in bad:
            g[d] = rng.dirichlet(n_dk[d] + rows[d if alpha.ndim == 2 else 0])
            total[d] = 1.0
        return np.asarray(g / total, dtype=np.float64)

    def collect(self, session: Any = None) -> None:
        """Keep this sweep's draw if it is one to keep (``burn``, ``every``): the run
        callback, ``session.run(n, callback=draws.collect)``. Reads z's counts with the
        chain held still; returns None (a run callback returning False would stop the run).
        A sweep is kept once, however often this is called after it."""
        if session is not None and session is not self.session:
            raise ValueError("session: collect was called with another session than the one "
                             "these draws record")
        s = self.session
        with s.locked():
            if s.in_sweep:
                raise ValueError("session is part-way through a sweep (a stopped run): "
                                 "prevalence draws are made after whole sweeps; finish the "
                                 "sweep with session.run(1) first")
            sweep, n_dk, rows, theta = s.readout(_counts)
            if sweep == self._last_sweep or not self.wanted(sweep):
                return
        if theta is None:   # theta collapsed: drawn from its Dirichlet given z
            rng = np.random.default_rng([int(s.seed), PREVALENCE_STREAM, sweep])
            theta = self.theta_draw(n_dk, self.alpha if rows is None else rows, rng)
        draw = self.functionals(sweep, theta)
        with self._lock:
            if len(self._draws) == self.max_draws:
                self.n_dropped += 1
            self._draws.append(draw)
            self._last_sweep = sweep

    def functionals(self, sweep: int, theta: F64) -> _Draw:
        """What a draw keeps of theta (D, K): class means, coefficients, overall mean."""
        classes = self._class_weights.T @ theta
        effects = None if self._pinv is None else self._pinv @ theta
        return _Draw(sweep, classes, effects, theta.mean(axis=0))

    # ------------------------------------------------------------------ the draws as arrays
    def _need_draws(self) -> None:
        if not self._draws:
            raise ValueError(f"no draws kept yet: run the session with callback=draws.collect "
                             f"past the burn-in (burn={self.burn} sweeps after sweep "
                             f"{self.start}, every={self.every})")

    @property
    def class_draws(self) -> F64:
        """(S, C, K): each kept draw's class prevalences (each row sums to 1 over topics)."""
        draws = self._snapshot()
        return np.stack([d.classes for d in draws]) if draws \
            else np.zeros((0, len(self.classes), self.K))

    @property
    def effect_draws(self) -> F64:
        """(S, P + 1, K): each kept draw's coefficients, the intercept first (intercepts
        sum to 1 over topics, a covariate's effects to 0)."""
        if self._pinv is None:
            raise ValueError(f"no effects: {self.effects_unavailable}")
        draws = [d.effects for d in self._snapshot() if d.effects is not None]
        return np.stack(draws) if draws else np.zeros((0, len(self.terms), self.K))

    @property
    def overall_draws(self) -> F64:
        """(S, K): each kept draw's corpus mean theta (sums to 1)."""
        draws = self._snapshot()
        return np.stack([d.overall for d in draws]) if draws else np.zeros((0, self.K))

    def _labels(self) -> list[str]:
        labels = list(self.session.topic_labels())
        if len(labels) != self.K:   # every model with alpha shows all K topics
            raise ValueError(f"session shows {len(labels)} topics, not its K = {self.K}")
        return labels

    # ------------------------------------------------------------------ read-outs
    def prevalence(self, by: str = "class", interval: float = 0.9) -> pd.DataFrame:
        """Topic prevalence with its posterior interval: one row per (class, topic) with
        ``class`` (``"all documents"`` for ``by="corpus"``), ``topic``, ``label``
        (``session.topic_labels()``), ``mean`` (the posterior mean of the class's mean
        theta_dk), ``lower`` and ``upper`` (the equal-tailed ``interval`` over the draws),
        ``n_draws`` and ``n_docs`` (the class's documents).

        ``by``: ``"class"`` (each class's documents; multi-label: those having it) or
        ``"corpus"`` (all documents). Topic proportions sum to one, so within a class the
        prevalences sum to 1 over topics in every draw (the means too; the intervals do
        not add up)."""
        by = check.choice("by", by, BY)
        interval = _interval(interval)
        if by == "class" and not self.classes:
            raise ValueError("by='class' needs class labels: the corpus has none (or real "
                             "labels); use by='corpus'")
        self._need_draws()
        if by == "class":
            x, names, sizes = self.class_draws, list(self.classes), list(self.class_sizes)
        else:
            x, names, sizes = self.overall_draws[:, None, :], [ALL_DOCUMENTS], [self.n_docs]
        mean, lower, upper = _summary(x, interval)
        C, K = mean.shape
        labels = self._labels()
        return pd.DataFrame({
            "class": np.repeat(np.asarray(names, dtype=object), K),
            "topic": np.tile(np.arange(K), C), "label": np.tile(np.asarray(labels, object), C),
            "mean": mean.reshape(-1), "lower": lower.reshape(-1), "upper": upper.reshape(-1),
            "n_draws": x.shape[0], "n_docs": np.repeat(np.asarray(sizes, np.int64), K)},
            columns=PREVALENCE_COLUMNS)

    def along(self, covariate: str, topics: Any = None, interval: float = 0.9,
              points: int = 25) -> pd.DataFrame:
        """The expected prevalence of topics as ``covariate`` moves over its range (stm's
        ``plot.estimateEffect`` with ``method="continuous"``): per draw, the regression's
        prediction b_0 + b_x x + sum of the other covariates' b times their means, on
        ``points`` values of x from its smallest to its largest; one row per (topic, x) with
        ``topic``, ``label``, ``covariate``, ``x``, ``mean``, ``lower``, ``upper`` (the
        equal-tailed ``interval`` over the draws: the posterior band). ``topics``: numbers
        to show (default all)."""
        interval = _interval(interval)
        if self._pinv is None:
            raise ValueError(f"along needs covariates: {self.effects_unavailable}")
        if not isinstance(covariate, str) or covariate not in self.terms[1:]:
            raise ValueError(f"covariate must be one of {list(self.terms[1:])[:10]}, got "
                             f"{covariate!r}")
        points = check.integer("points", points, low=2, high=1000)
        shown = list(range(self.K)) if topics is None else \
            [check.integer("topics", k, low=0, high=self.K - 1) for k in topics]
        self._need_draws()
        b = self.effect_draws                                   # (S, P + 1, K)
        cov = np.asarray(self._covariates, dtype=np.float64)    # (D, P)
        j = self.terms.index(covariate) - 1
        grid = np.linspace(cov[:, j].min(), cov[:, j].max(), points)
        at_means = np.concatenate([[1.0], cov.mean(axis=0)])    # the others held at their mean
        base = np.einsum("p,spk->sk", at_means, b) - cov[:, j].mean() * b[:, j + 1]
        curves = base[:, None, :] + grid[None, :, None] * b[:, None, j + 1, :]   # (S, G, K)
        mean, lower, upper = _summary(curves, interval)
        labels = self._labels()
        rows = [{"topic": k, "label": labels[k], "covariate": covariate, "x": float(x),
                 "mean": float(mean[g, k]), "lower": float(lower[g, k]),
                 "upper": float(upper[g, k])}
                for k in shown for g, x in enumerate(grid)]
        return pd.DataFrame(rows, columns=["topic", "label", "covariate", "x", "mean",
                                           "lower", "upper"])

    def effects(self, interval: float = 0.9) -> pd.DataFrame:
        """stm's ``estimateEffect`` with exact draws: per topic the least-squares regression
        of theta_dk on [1, covariates], one row per (term, topic) with ``term``
        (``"intercept"`` or a covariate's name), ``topic``, ``label``, ``mean``, ``lower``,
        ``upper`` (the equal-tailed ``interval`` over the draws) and ``n_draws``.

        Topic proportions sum to one, so in every draw the intercepts sum to 1 over topics
        and each covariate's effects sum to 0: a covariate that raises one topic lowers
        others by as much; an effect is against the other topics, not absolute."""
        interval = _interval(interval)
        if self._pinv is None:
            raise ValueError(f"effects need covariates: {self.effects_unavailable}")
        self._need_draws()
        x = self.effect_draws
        mean, lower, upper = _summary(x, interval)
        T, K = mean.shape
        labels = self._labels()
        return pd.DataFrame({
            "term": np.repeat(np.asarray(self.terms, dtype=object), K),
            "topic": np.tile(np.arange(K), T), "label": np.tile(np.asarray(labels, object), T),
            "mean": mean.reshape(-1), "lower": lower.reshape(-1), "upper": upper.reshape(-1),
            "n_draws": x.shape[0]}, columns=EFFECT_COLUMNS)


def run_keeping_prevalence(session: _Chain, n: int, burn: int = 0, every: int = 1,
                           max_draws: int = MAX_DRAWS, progress: bool = False
                           ) -> PrevalenceDraws:
    """Run ``session`` ``n`` sweeps keeping prevalence draws after ``burn`` of them (every
    ``every``-th, at most ``max_draws``): ``PrevalenceDraws(session, burn, every,
    max_draws)`` and ``session.run(n, callback=draws.collect, progress=progress)``; returns
    the draws (``collect`` them further with later runs)."""
    draws = PrevalenceDraws(session, burn=burn, every=every, max_draws=max_draws)
    session.run(n, callback=draws.collect, progress=progress)
    return draws


__all__ = ["MAX_DRAWS", "PREVALENCE_STREAM", "PrevalenceDraws", "along_chart", "effect_chart",
           "prevalence_chart", "run_keeping_prevalence"]
