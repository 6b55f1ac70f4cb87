"""Exact-target testing of topic kernels by enumeration (docs/math.md sec. 7).

On a tiny corpus (a few documents of a few tokens, K = 2-3) every assignment Z can be listed,
so the target p(Z | W, ...) is known exactly. A kernel is right iff it leaves that distribution
invariant. The test here is exact, with no burn-in guess:

1. draw ``n_chains`` independent starting states Z_0 from the exact target;
2. build each start's state with the model's own ``refresh_state`` and run ``n_sweeps`` sweeps
   of the model's own ``sweep_block`` (the code a Session runs);
3. the final states are independent draws from pi P^n; if the kernel leaves pi invariant they
   are exactly pi-distributed, so a chi-square goodness-of-fit test against pi is valid at its
   nominal level for any run length, and its power grows with ``n_chains``.

A kernel with a wrong conditional or acceptance ratio moves mass away from pi at every sweep
and fails; ``tests/kernels/test_gibbs.py`` shows it for a perturbed alpha and for a
forgotten count decrement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy import stats
from scipy.special import gammaln

from ..arrays import F64, Rng
from ..corpus import Corpus
from ..kernels.rng import seed_state
from ..problem import Problem


def tiny_corpus(doc_words: list[list[int]], n_words: int | None = None, labels: Any = None,
                covariates: Any = None) -> Corpus:
    """A corpus from word ids, e.g. ``[[0, 1], [1, 2, 2], [0, 2, 1]]`` (words named w0..),
    optionally with labels and covariates."""
    V = n_words if n_words is not None else 1 + max(max(d) for d in doc_words)
    vocab = [f"w{j}" for j in range(V)]
    return Corpus.from_tokens([[vocab[w] for w in d] for d in doc_words], vocabulary=vocab,
                              labels=labels, covariates=covariates)


def enumerate_assignments(n_tokens: int, K: int) -> np.ndarray:
    """All K**n_tokens assignments as rows; row r has z_i = (r // K**i) % K."""
    if K ** n_tokens > 2_000_000:
        raise ValueError(f"{K}**{n_tokens} states are too many to enumerate")
    r = np.arange(K ** n_tokens, dtype=np.int64)[:, None]
    return ((r // K ** np.arange(n_tokens, dtype=np.int64)) % K).astype(np.int32)


def state_index(Z: np.ndarray, K: int) -> np.ndarray:
    """Inverse of ``enumerate_assignments`` for one assignment or a stack of them."""
    Z = np.asarray(Z, dtype=np.int64)
    return Z @ (K ** np.arange(Z.shape[-1], dtype=np.int64))


def lda_log_joint_states(corpus: Corpus, K: int, alpha: float | np.ndarray, beta: float,
                         Z: np.ndarray) -> np.ndarray:
    """log p(W, Z) of collapsed LDA for every row of ``Z``, written independently of the
    numba kernels (plain numpy over counts) so it can check them. ``alpha``: one value, K
    values, or (D, K), each document its own (DMR's exp(x_d lambda))."""
    V, D = corpus.n_words, corpus.n_docs
    alpha = np.broadcast_to(np.asarray(alpha, np.float64), (D, K))
    doc_of = np.repeat(np.arange(D), corpus.doc_lengths)
    S = Z.shape[0]
    n_dk = np.zeros((S, D, K))
    n_kw = np.zeros((S, K, V))
    rows = np.arange(S)
    for i in range(corpus.n_tokens):
        np.add.at(n_dk, (rows, doc_of[i], Z[:, i]), 1)
        np.add.at(n_kw, (rows, Z[:, i], corpus.words[i]), 1)
    n_k = n_kw.sum(axis=2)
    N_d = n_dk.sum(axis=2)
    topic = (gammaln(V * beta) - V * gammaln(beta)) * K \
        + gammaln(n_kw + beta).sum(axis=(1, 2)) - gammaln(n_k + V * beta).sum(axis=1)
    A = alpha.sum(axis=1)
    doc = (gammaln(A) - gammaln(alpha).sum(axis=1)).sum() \
        + gammaln(n_dk + alpha).sum(axis=(1, 2)) - gammaln(N_d + A).sum(axis=1)
    return topic + doc


def lda_log_given_phi_states(corpus: Corpus, K: int, alpha: float | np.ndarray,
                             phi_wk: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """log p(W, Z | Phi) with Theta collapsed, up to a constant, for every row of ``Z``:
    sum_i log phi[w_i, z_i] + sum_{d,k} log Gamma(n_dk + alpha_k) (the target of the
    partially collapsed sampler's Z step, DOLDA eq. 4.1); ``phi_wk`` (V, K)."""
    alpha = np.broadcast_to(np.asarray(alpha, np.float64), (K,))
    return np.log(phi_wk[corpus.words[None, :], Z]).sum(axis=1) \
        + gammaln(doc_topic_states(corpus, K, Z) + alpha).sum(axis=(1, 2))


def doc_topic_states(corpus: Corpus, K: int, Z: np.ndarray) -> np.ndarray:
    """n_dk (S, D, K) for every row of ``Z`` (plain numpy)."""
    doc_of = np.repeat(np.arange(corpus.n_docs), corpus.doc_lengths)
    S = Z.shape[0]
    n_dk = np.zeros((S, corpus.n_docs, K))
    for i in range(corpus.n_tokens):
        np.add.at(n_dk, (np.arange(S), doc_of[i], Z[:, i]), 1.0)
    return n_dk


def score_states(corpus: Corpus, K: int, eta: np.ndarray, Z: np.ndarray,
                 covariates: np.ndarray | None = None) -> np.ndarray:
    """The scores s_td = eta_t . (zbar_d, x_d) for every row of ``Z``: (S, T, D), ``eta``
    (T, K + P). ``covariates`` (D, P): the features after the topics, the corpus's own by
    default (pass ``model.covariate_matrix(corpus)`` for a model with an intercept). Plain
    numpy, independent of the kernels."""
    zbar = doc_topic_states(corpus, K, Z) / np.maximum(corpus.doc_lengths, 1)[None, :, None]
    s = np.einsum("sdk,tk->std", zbar, eta[:, :K])
    cov = corpus.covariates if covariates is None else covariates
    if eta.shape[1] != K + (0 if cov is None else cov.shape[1]):
        raise ValueError(f"eta has {eta.shape[1]} columns, the features K = {K} + "
                         f"{0 if cov is None else cov.shape[1]} covariates")
    if cov is not None and cov.shape[1]:
        s += (eta[:, K:] @ cov.T)[None]
    return s


def supervised_log_factor_states(corpus: Corpus, K: int, eta: np.ndarray, b: np.ndarray,
                                 w: np.ndarray, Z: np.ndarray,
                                 covariates: np.ndarray | None = None) -> np.ndarray:
    """sum_{t,d} b_td s_td - w_td s_td^2 / 2 for every row of ``Z``: the supervised factor of
    the target given the augmentation (docs/math.md sec. 1), with s_td = eta_t . (zbar_d, x_d).
    ``eta`` is (T, K + P); ``b``, ``w`` are (T, D); ``covariates`` as for ``score_states``."""
    s = score_states(corpus, K, eta, Z, covariates)
    return (b[None] * s - 0.5 * w[None] * s * s).sum(axis=(1, 2))


def loss_log_factor_states(corpus: Corpus, K: int, eta: np.ndarray, y: np.ndarray, loss: Any,
                           Z: np.ndarray, covariates: np.ndarray | None = None) -> np.ndarray:
    """sum_{t,d} log psi(y_td | s_td) for every row of ``Z``: the supervised factor of the
    target with the augmentation integrated out (``supervised_factor="marginal"``), from the
    loss's ``log_psi``; ``y`` (T, D); ``covariates`` as for ``score_states``."""
    return loss.log_psi(y[None], score_states(corpus, K, eta, Z, covariates)).sum(axis=(1, 2))


# Every way the exact Gibbs sampler and the light sampler's proposals are run in a supervised
# model: each light proposal alone (one MH step from a mixture with one positive weight), the
# three in a cycle, doc and word alone in a cycle (the LightMedLDA preset's), and a uniform
# mixture. A kernel test parametrized over these checks each proposal alone and composed.
TOPIC_KERNEL_VARIANTS = {
    "gibbs": dict(sampler="gibbs"),
    "doc-alone": dict(sampler="light", composition="mixture", mh_steps=1,
                      proposal_weights=(1, 0, 0)),
    "word-alone": dict(sampler="light", composition="mixture", mh_steps=1,
                       proposal_weights=(0, 1, 0)),
    "exp-alone": dict(sampler="light", composition="mixture", mh_steps=1,
                      proposal_weights=(0, 0, 1)),
    "cycle": dict(sampler="light", composition="cycle", mh_steps=3,
                  proposal_weights=(1, 1, 1)),
    "cycle-doc-word": dict(sampler="light", composition="cycle", mh_steps=2,
                           proposal_weights=(1, 1, 0)),
    "mixture": dict(sampler="light", composition="mixture", mh_steps=6),
    # the partially collapsed sampler, whole sweeps (Phi | Z, then Z | Phi): its marginal on
    # Z must leave the same collapsed target invariant
    "pc-dense": dict(sampler="partially_collapsed", kernel="dense"),
    "pc-sparse": dict(sampler="partially_collapsed", kernel="sparse", mh_steps=2),
}


def fixed_augmentation(model: Any, corpus: Corpus, eta: np.ndarray, scores: np.ndarray,
                       seed: int, b_factor: float = 1.0
                       ) -> tuple[np.ndarray, Callable[[Any], None]]:
    """The exact target over Z with the weights ``eta`` and one draw of the model's loss
    augmentation (b, w) at ``scores`` (T, D) held fixed (the collapsed LDA posterior times the
    Gaussian factors exp(b s - w s^2 / 2), docs/math.md sec. 1), and the ``prepare`` hook of
    ``sample_final_states`` that fixes them in a state. ``b_factor`` scales the b the kernels
    see, not the target's: a mutant that must fail."""
    loss = model.loss_function
    bound = model.bind(corpus, check_labels=False)   # a harness's tiny corpus, as given
    y = bound.targets
    aug = loss.allocate(*y.shape)
    loss.start(aug, seed_state(seed))
    loss.augment(y, np.asarray(scores, dtype=np.float64), seed_state(seed + 1), aug)
    b, w = aug.b.copy(), aug.w.copy()
    Z = enumerate_assignments(corpus.n_tokens, model.K)
    logp = lda_log_joint_states(corpus, model.K, model.alpha_vector, model.beta, Z) \
        + supervised_log_factor_states(corpus, model.K, eta, b, w, Z, bound.covariates)

    def prepare(state: Any) -> None:
        sup = state.supervision
        sup.weights.eta[...] = eta
        sup.loss.b[...] = b * b_factor
        sup.loss.w[...] = w

    return normalize_log(logp), prepare


def normalize_log(logp: np.ndarray) -> np.ndarray:
    """exp and normalise a vector of unnormalised log probabilities."""
    p = np.exp(logp - logp.max())
    return p / p.sum()


def sample_final_states(model: Any, corpus: Corpus, target: np.ndarray, *,
                        n_chains: int, n_sweeps: int, seed: int,
                        prepare: Callable[[Any], None] | None = None) -> np.ndarray:
    """Run independent chains started from ``target`` and return their final state indices.

    Parameters
    ----------
    model : a topicsup model (its ``allocate_state``, ``refresh_state``, ``sweep_block``)
    corpus : the tiny corpus
    target : exact probabilities over ``enumerate_assignments(corpus.n_tokens, model.K)``
    n_chains, n_sweeps : number of independent draws and sweeps per chain
    seed : fixes the starts and every chain's random stream
    prepare : optional hook called on each fresh state (e.g. to fix supervised parameters)
    """
    K = model.K
    Z = enumerate_assignments(corpus.n_tokens, K)
    starts = np.random.default_rng(seed).choice(len(target), size=n_chains, p=target)
    out = np.empty(n_chains, dtype=np.int64)
    problem = model.bind(corpus)
    resolved, choice = model.resolve(problem)
    if choice is not None:   # sampler="auto": the sampler a Session would run
        model = resolved
    info = np.zeros(model.info_size, dtype=np.float64)
    for c in range(n_chains):
        state = model.allocate_state(problem)
        state.z[:] = Z[starts[c]]
        if prepare is not None:
            prepare(state)
        model.refresh_state(state, problem)
        rng = seed_state(seed, stream=c + 1)
        for _ in range(n_sweeps):
            model.sweep_block(state, problem, rng, 0, corpus.n_docs, info)
        out[c] = state_index(state.z, K)
    return out


@dataclass(frozen=True)
class GoodnessOfFit:
    """Result of comparing sampled state indices with the exact target."""

    statistic: float
    df: int
    pvalue: float
    total_variation: float
    expected_total_variation: float  # E[TV] of an exact sampler with this many draws (approx.)
    n: int

    def __str__(self) -> str:
        return (f"chi2={self.statistic:.1f} on {self.df} df, p={self.pvalue:.3g}, "
                f"TV={self.total_variation:.4f} (exact sampler ~{self.expected_total_variation:.4f}"
                f", n={self.n})")


def goodness_of_fit(indices: np.ndarray, target: np.ndarray,
                    min_expected: float = 5.0) -> GoodnessOfFit:
    """Pearson chi-square of i.i.d. draws against ``target``, pooling states whose expected
    count is below ``min_expected`` into one cell so the chi-square approximation holds."""
    n = len(indices)
    counts = np.bincount(indices, minlength=len(target)).astype(np.float64)
    expected = n * target
    big = expected >= min_expected
    obs = list(counts[big])
    exp = list(expected[big])
    if (~big).any():
        obs.append(counts[~big].sum())
        exp.append(expected[~big].sum())
    obs_a, exp_a = np.asarray(obs), np.asarray(exp)
    keep = exp_a > 0
    stat = float(((obs_a[keep] - exp_a[keep]) ** 2 / exp_a[keep]).sum())
    df = int(keep.sum() - 1)
    tv = 0.5 * float(np.abs(counts / n - target).sum())
    etv = 0.5 * float(np.sqrt(2 * target * (1 - target) / (np.pi * n)).sum())
    return GoodnessOfFit(stat, df, float(stats.chi2.sf(stat, df)), tv, etv, n)


def assert_matches_target(indices: np.ndarray, target: np.ndarray,
                          level: float = 1e-3) -> GoodnessOfFit:
    """Fail unless the draws are consistent with ``target`` at significance ``level``."""
    gof = goodness_of_fit(indices, target)
    if not gof.pvalue > level:
        raise AssertionError(f"sampled states do not follow the exact target: {gof}")
    return gof


class PerturbedModel:
    """Test-only mutant: behaves as ``model`` but its kernel sweeps with alpha * alpha_factor
    and beta * beta_factor, i.e. a conditional or acceptance ratio that is slightly wrong. The
    exact-target test must reject it; that is how a test proves it has teeth."""

    def __init__(self, model: Any, alpha_factor: float = 1.0, beta_factor: float = 1.0):
        if model.topic_sampler.chooses:   # the harness would run the chosen sampler, unperturbed
            raise ValueError("a mutant perturbs a named sampler: give the model sampler=...")
        a = model.alpha
        wrong_alpha = (tuple(x * alpha_factor for x in a) if isinstance(a, tuple)
                       else a * alpha_factor)
        self._model = model
        self._wrong = model.replace(alpha=wrong_alpha, beta=model.beta * beta_factor)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def sweep_block(self, state: Any, problem: Problem, rng: Rng, d_start: int, d_end: int,
                    info: F64) -> None:
        # the wrong parameters bound as a Session binds them: the kernel reads the problem's
        wrong = self._wrong
        wrong.sweep_block(state, wrong.bind(problem.corpus), rng, d_start, d_end, info)
