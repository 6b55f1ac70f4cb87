"""Exact targets of the table-indicator models (PDP and HDP topic models) by enumeration.

The state is (z, r): topics and table indicators. On a tiny corpus every valid state can be
listed (each (word, topic) of the PDP, each (document, topic) of the HDP, with tokens has at
least one table head), and its probability computed from the joint of docs/math.md sec. 11-12,
written here a second time in plain Python (with its own Stirling numbers) so it checks the
kernels. HDP topics are unlabelled: states are listed as partitions (topics numbered in order
of first appearance) with at most K live topics. The protocol is ``testing.exact``'s:
independent chains started from the exact target, final states against it by chi-square.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Any, Callable, Iterator

import numpy as np

from ..arrays import F64, I32, I64, Array, Rng
from ..corpus import Corpus
from ..kernels import hdp
from ..kernels.rng import seed_state, uniform
from ..problem import Problem


@lru_cache(maxsize=None)
def stirling_number(n: int, m: int, a: float) -> float:
    """S^n_{m,a} by the recurrence, in plain floats (small n only)."""
    if n == 0:
        return 1.0 if m == 0 else 0.0
    if m == 0 or m > n:
        return 0.0
    return stirling_number(n - 1, m - 1, a) + (n - 1 - m * a) * stirling_number(n - 1, m, a)


def _rising(x: float, step: float, n: int) -> float:
    return math.prod(x + i * step for i in range(n))


def _indicator_configs(groups: list[list[int]], n_tokens: int) -> list[np.ndarray]:
    """Every r with at least one head in each group of token positions."""
    per_group = []
    for g in groups:
        per_group.append([bits for bits in itertools.product((0, 1), repeat=len(g))
                          if any(bits)])
    out = []
    for choice in itertools.product(*per_group):
        r = np.zeros(n_tokens, np.int8)
        for g, bits in zip(groups, choice):
            r[g] = bits
        out.append(r)
    return out


def pdp_states(corpus: Corpus, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Every valid (z, r) of the PDP topic model: rows of Z and R."""
    N = corpus.n_tokens
    Zs, Rs = [], []
    for z in itertools.product(range(K), repeat=N):
        groups: dict[tuple[int, int], list[int]] = {}
        for i, k in enumerate(z):
            groups.setdefault((int(corpus.words[i]), k), []).append(i)
        for r in _indicator_configs(list(groups.values()), N):
            Zs.append(z)
            Rs.append(r)
    return np.asarray(Zs, np.int32), np.asarray(Rs, np.int8)


def pdp_log_joint(corpus: Corpus, K: int, alpha: Any, a: float, b: float, beta: float,
                  z: np.ndarray, r: np.ndarray) -> float:
    """log p(W, z, r) of the PDP topic model (docs/math.md sec. 11)."""
    alpha = np.broadcast_to(np.asarray(alpha, np.float64), (K,))
    V = corpus.n_words
    doc_of = np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths)
    out = 0.0
    for d in range(corpus.n_docs):
        n = np.bincount(z[doc_of == d], minlength=K)
        out += math.lgamma(alpha.sum()) - math.lgamma(n.sum() + alpha.sum()) \
            + sum(math.lgamma(n[k] + alpha[k]) - math.lgamma(alpha[k]) for k in range(K))
    S_w = np.zeros(V)
    for k in range(K):
        m_t = int((z == k).sum())
        s_t = int(r[z == k].sum())
        p = _rising(b, a, s_t) / _rising(b, 1.0, m_t)
        for w in range(V):
            sel = (z == k) & (corpus.words == w)
            m, s = int(sel.sum()), int(r[sel].sum())
            if m:
                p *= stirling_number(m, s, a) / math.comb(m, s)
            S_w[w] += s
        out += math.log(p)
    S = S_w.sum()
    out += math.lgamma(V * beta) - math.lgamma(V * beta + S) \
        + sum(math.lgamma(beta + x) - math.lgamma(beta) for x in S_w)
    return out


def canonical(z: np.ndarray) -> np.ndarray:
    """Topics renumbered in order of first appearance (the partition z induces)."""
    out = np.empty_like(z)
    seen: dict[int, int] = {}
    for i, k in enumerate(z):
        out[i] = seen.setdefault(int(k), len(seen))
    return out


def _partitions(n: int, max_blocks: int) -> Iterator[tuple[int, ...]]:
    """Restricted growth strings of length n with at most ``max_blocks`` blocks."""
    def rec(prefix: list[int], top: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == n:
            yield tuple(prefix)
            return
        for k in range(min(top + 1, max_blocks)):
            yield from rec(prefix + [k], max(top, k + 1))
    yield from rec([], 0)


def hdp_states(corpus: Corpus, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Every valid (partition z, r) of HDP-LDA with at most K topics."""
    N = corpus.n_tokens
    doc_of = np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths)
    Zs, Rs = [], []
    for z in _partitions(N, K):
        groups: dict[tuple[int, int], list[int]] = {}
        for i, k in enumerate(z):
            groups.setdefault((int(doc_of[i]), k), []).append(i)
        for r in _indicator_configs(list(groups.values()), N):
            Zs.append(z)
            Rs.append(r)
    return np.asarray(Zs, np.int32), np.asarray(Rs, np.int8)


def hdp_log_joint(corpus: Corpus, b0: float, b1: float, beta: float, z: np.ndarray,
                  r: np.ndarray) -> float:
    """log p(W, z, r) of HDP-LDA (docs/math.md sec. 12)."""
    V = corpus.n_words
    doc_of = np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths)
    topics = sorted(set(int(k) for k in z))
    out = 0.0
    T_k = {k: 0 for k in topics}
    for d in range(corpus.n_docs):
        sel_d = doc_of == d
        out -= math.log(_rising(b1, 1.0, int(sel_d.sum())))
        for k in topics:
            sel = sel_d & (z == k)
            n, t = int(sel.sum()), int(r[sel].sum())
            if n:
                out += math.log(b1 ** t * stirling_number(n, t, 0.0) / math.comb(n, t))
            T_k[k] += t
    T = sum(T_k.values())
    out += len(topics) * math.log(b0) + sum(math.lgamma(T_k[k]) for k in topics) \
        - math.log(_rising(b0, 1.0, T))
    for k in topics:
        m = np.bincount(corpus.words[z == k], minlength=V)
        out += math.lgamma(V * beta) - math.lgamma(m.sum() + V * beta) \
            + sum(math.lgamma(x + beta) - math.lgamma(beta) for x in m)
    return out


def target(log_joints: np.ndarray) -> np.ndarray:
    p = np.exp(log_joints - log_joints.max())
    return p / p.sum()


def sample_final_table_states(model: Any, corpus: Corpus, Z: np.ndarray, R: np.ndarray,
                              p: np.ndarray, *, n_chains: int, n_sweeps: int, seed: int,
                              unlabelled: bool = False,
                              prepare: Callable[[Any], None] | None = None) -> np.ndarray:
    """Independent chains started from the exact target ``p`` over the states (Z, R); their
    final states' indices (topics compared as partitions when ``unlabelled``). ``prepare``
    may change each fresh state's sampler arrays (e.g. tables rebuilt before every draw)."""
    index = {(tuple(z), tuple(r)): j for j, (z, r) in enumerate(zip(Z, R))}
    starts = np.random.default_rng(seed).choice(len(p), size=n_chains, p=p)
    problem = model.bind(corpus)
    resolved, choice = model.resolve(problem)
    if choice is not None:   # sampler="auto": the sampler a Session would run
        model = resolved
    info = np.zeros(model.info_size)
    out = np.empty(n_chains, np.int64)
    for c in range(n_chains):
        state = model.allocate_state(problem)
        if prepare is not None:
            prepare(state)
        state.counts.z[:] = Z[starts[c]]
        state.tables.r[:] = R[starts[c]]
        model.refresh_state(state, problem)
        rng = seed_state(seed, stream=c + 1)
        for sweep in range(n_sweeps):
            model.sweep_block(state, problem, rng, 0, corpus.n_docs, info)
            model.end_sweep(state, problem, rng, sweep + 1)   # as a Session: the tables' epoch
        z = canonical(state.counts.z) if unlabelled else state.counts.z
        out[c] = index[(tuple(z), tuple(state.tables.r))]
    return out


def frozen_tables(seed: int = 0, supply: int = 64,
                  scale: float = 1.0) -> Callable[[Any], None]:
    """A ``prepare`` hook giving an alias sampler's state FROZEN stale tables: fixed
    positive masses unrelated to the chain (the same for every chain), with ``supply`` fresh
    draws from them stored per chain (more than a short test uses, so the tables are never
    rebuilt). Every proposal is then independent of the state, so each Metropolis-Hastings
    step is exact: a test of the ratio and of the proposal's mixture alone (the papers'
    rebuilt tables are tested for their bias separately). ``scale`` multiplies the stale
    masses: large, nearly every proposal is the stale table's; small, nearly every one is
    the exact document part's (each part of the mixture made the proposal almost alone; the
    document part cannot be alone, it cannot propose a topic the document lacks)."""
    chains = itertools.count()

    def prepare(state: Any) -> None:
        _freeze(state, np.random.default_rng(seed), np.random.default_rng([seed, next(chains)]),
                supply, scale)
    return prepare


def _freeze(state: Any, g: np.random.Generator, draws: np.random.Generator,
            supply: int, scale: float) -> None:
    t = state.sampler.tables
    V, L = t.q.shape
    if isinstance(state.tables, hdp.DocTables):
        # AliasHDP, a table per word over (topic slot, new topic). HDP topics are unlabelled
        # and a chain's slot numbers carry information about the token being moved (they
        # number topics in order of appearance), so a frozen mass must not depend on the
        # slot: per word one value for every topic, one for a new topic
        q = np.repeat(g.uniform(0.2, 2.0, size=(V, 1)), L, axis=1)
        q[:, -1] = g.uniform(0.2, 2.0, size=V)
    else:   # AliasPDP: a table per word over (topic, table)
        q = g.uniform(0.2, 2.0, size=(V, L))
    q *= scale
    samples = np.stack([draws.choice(L, size=supply, p=row / row.sum())
                        for row in q]).astype(np.int32)
    new = t._replace(q=q, mass=q.sum(axis=1), samples=samples, used=np.zeros_like(t.used),
                     supply=np.full_like(t.supply, supply), built=np.full_like(t.built, 10**9),
                     epoch=np.zeros_like(t.epoch))
    state.sampler = state.sampler._replace(tables=new)


# ----------------------------------------------------------------------------------- mutants
class ReferenceSweeps:
    """A model whose sweeps are a plain-Python Gibbs step over (z, r), token by token from
    counts recomputed each time, with an optional ``mutation`` (the papers' text or code where
    the enumeration settles them, each of which must fail):

    * ``None``: the conditionals of docs/math.md (a control: it must pass);
    * ``"printed_root"`` (PDP): eq. 8's root factor as printed, (gamma + s_tw) / (V gamma +
      s_t) over the topic's own tables instead of the shared base's S_w / S;
    * ``"printed_eq9"`` (HDP): eq. 9's factor for a new table of a topic absent from the
      document as printed, b1 T_t^2 / ((T_t + 1)(T + b0)), instead of b1 T_t / (T + b0);
    * ``"inexact_removal"`` (both): a token heading the only table of a dish others still eat
      leaves anyway, handing its head to the first of them (what the count-only samplers do
      instead of keeping it).
    """

    def __init__(self, model: Any, mutation: str | None = None) -> None:
        self._model = model
        self.mutation = mutation
        self.hdp = type(model).__name__ == "HDPLDA"

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def sweep_block(self, state: Any, problem: Problem, rng: Rng, d_start: int, d_end: int,
                    info: F64) -> None:
        z, r, corpus = state.counts.z, state.tables.r, problem.corpus
        words = corpus.words
        doc_of = np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths)
        for i in range(corpus.doc_ptr[d_start], corpus.doc_ptr[d_end]):
            group = (doc_of == doc_of[i]) if self.hdp else (words == words[i])
            mates = np.flatnonzero(group & (z == z[i]))
            mates = mates[mates != i]
            if r[i] and mates.size and not r[mates].any():
                if self.mutation != "inexact_removal":
                    continue
                r[mates[0]] = 1
            outcomes, weights = self._conditional(corpus, z, r, i, doc_of)
            u = uniform(rng) * sum(weights)
            j = int(np.searchsorted(np.cumsum(weights), u, side="right"))
            z[i], r[i] = outcomes[min(j, len(outcomes) - 1)]
        self._model.refresh_state(state, problem)

    def _conditional(self, corpus: Corpus, z: I32, r: Array, i: int, doc_of: I64
                     ) -> tuple[list[tuple[int, int]], list[float]]:
        m = self._model
        V, w, d = corpus.n_words, corpus.words[i], doc_of[i]
        rest = np.arange(len(z)) != i
        outcomes, weights = [], []
        if not self.hdp:
            a, b, g = m.discount, m.concentration, m.beta
            alpha = m.alpha_vector
            S_w = r[rest & (corpus.words == w)].sum()
            S = r[rest].sum()
            for t in range(m.K):
                in_t = rest & (z == t)
                mt, st_ = in_t.sum(), r[in_t].sum()
                sel = in_t & (corpus.words == w)
                mw, sw = sel.sum(), r[sel].sum()
                base = (alpha[t] + (in_t & (doc_of == d)).sum()) / (b + mt)
                if sw:
                    outcomes.append((t, 0))
                    weights.append(base * stirling_number(mw + 1, sw, a)
                                   / stirling_number(mw, sw, a) * (mw + 1 - sw) / (mw + 1))
                root = ((g + sw) / (V * g + st_) if self.mutation == "printed_root"
                        else (g + S_w) / (V * g + S))
                outcomes.append((t, 1))
                weights.append(base * (b + a * st_) * stirling_number(mw + 1, sw + 1, a)
                               / stirling_number(mw, sw, a) * (sw + 1) / (mw + 1) * root)
            return outcomes, weights
        b0, b1, beta = m.b0, m.b1, m.beta
        live = sorted(set(z[rest]))
        T = r[rest].sum()
        for t in live:
            in_t = rest & (z == t)
            T_t = r[in_t].sum()
            word = ((in_t & (corpus.words == w)).sum() + beta) / (in_t.sum() + V * beta)
            sel = in_t & (doc_of == d)
            n, tt = sel.sum(), r[sel].sum()
            if tt:
                outcomes.append((t, 0))
                weights.append(word * stirling_number(n + 1, tt, 0.0)
                               / stirling_number(n, tt, 0.0) * (n + 1 - tt) / (n + 1))
            root = (T_t ** 2 / (T_t + 1) if self.mutation == "printed_eq9" and tt == 0
                    else T_t) / (b0 + T)
            outcomes.append((t, 1))
            weights.append(word * b1 * stirling_number(n + 1, tt + 1, 0.0)
                           / stirling_number(n, tt, 0.0) * (tt + 1) / (n + 1) * root)
        if len(live) < m.K:
            outcomes.append((min(set(range(m.K)) - set(live)), 1))
            weights.append(b1 * b0 / (b0 + T) / V)
        return outcomes, weights


class Perturbed:
    """A model whose kernel sweeps with other parameters (``wrong``: e.g. concentration 1.5
    times too large): the exact-target test must reject it through the real kernel."""

    def __init__(self, model: Any, **wrong: Any) -> None:
        self._model = model
        self._wrong = model.replace(**wrong)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def sweep_block(self, state: Any, problem: Problem, rng: Rng, d_start: int, d_end: int,
                    info: F64) -> None:
        # the wrong parameters bound as a Session binds them: the kernel reads the problem's
        wrong = self._wrong
        wrong.sweep_block(state, wrong.bind(problem.corpus), rng, d_start, d_end, info)
