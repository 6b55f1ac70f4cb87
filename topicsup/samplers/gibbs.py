"""Collapsed Gibbs: the exact conditional, O(K) per token (O(K T) with T label tasks); the
reference every other sampler is tested against (``kernels.gibbs``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..kernels import gibbs, supervised
from ..kernels.counts import Dirichlet, move_token
from ..kernels.rng import uniform
from . import REGISTRY, TopicSampler


class GibbsArrays(NamedTuple):
    """Scratch (2, K): the running cumulative conditional and 1 / (n_k + V beta)."""

    scratch: np.ndarray


@REGISTRY.register
@dataclass(frozen=True)
class Gibbs(TopicSampler):
    """Exact collapsed Gibbs sampling (Griffiths & Steyvers 2004; the label factor of Zheng et
    al. 2015 eq. 15-17 for supervised models). No settings, no proposals."""

    name = "gibbs"
    stepping = "exact collapsed Gibbs"

    def allocate(self, model: Any, corpus: Any) -> GibbsArrays:
        return GibbsArrays(np.zeros((2, model.K), np.float64))

    def state_bytes(self, model: Any, corpus: Any) -> float:
        return 4.0 * corpus.n_docs * model.K

    def sweep(self, model, tokens, counts, own, term, supervised, rng, d_start, d_end, info):
        gibbs.gibbs_sweep(tokens, counts, Dirichlet(model.alpha_vector, model.beta), term,
                          own.scratch, rng, d_start, d_end, info)

    # ------------------------------------------------------------------ the inspector's replay
    # ``topicsup.inspector.TokenInspector`` steps a document token by token as
    # ``gibbs_sweep`` would, with the kernel's own functions, so what it shows is the sweep's
    # arithmetic bit for bit (tests/test_inspector.py replays documents against the kernel).
    def begin_pass(self, insp: Any, p: Any) -> None:
        """Nothing beyond the label term's scratch (the inspector's own)."""

    def first_draws(self, insp: Any, p: Any) -> None:
        """Gibbs draws one uniform per token, when it gets there."""

    def load_document(self, insp: Any, p: Any) -> None:
        """A document's label-term rows (``supervised.load_doc``), as the sweep loads them."""
        if p.term.eta_kt.shape[1] > 0:
            supervised.load_doc(p.term, insp.doc, insp.session.state.z, insp.p0, insp.p1, False)

    def proposals(self, insp, i, n_kd, n_kw, n_k, s, g, term) -> dict[str, np.ndarray]:
        """The distribution a step draws from: the exact conditional (``conditional``)."""
        return {"conditional": conditional(insp, n_kd, n_kw, n_k, g)[0]}

    def step_token(self, insp: Any, i: int, reloaded: bool) -> Any:
        """``gibbs_sweep``'s token body: remove the token, sum the conditional, draw by inverse
        cdf with one uniform, add it back."""
        from ..inspector import MHStep
        st, p, corpus = insp.session.state, insp._pass, insp.session.corpus
        exact, _ = insp._distributions(i)
        word = int(corpus.words[i])
        nwk, n_k, ndk = st.counts.n_wk[word], st.counts.n_k, st.counts.n_dk[insp.doc]
        eta_kt = p.term.eta_kt
        T = eta_kt.shape[1]
        old = int(st.z[i])
        move_token(ndk, nwk, n_k, old, -1)
        g = None
        if T > 0:
            # the kernel's bookkept g_d(k), so the conditional has the kernel's bits
            supervised.token_coupling(p.factor, eta_kt, p.c, old, p.v)
            g = np.array([supervised.g_value(p.factor, p.loss_params, p.A, eta_kt, p.c, p.v, k)
                          for k in range(p.model.K)])
        q, total, cum = conditional(insp, ndk, nwk, n_k, g)
        u = uniform(insp.rng)
        new = int(gibbs.search_cumulative(cum, p.model.K, u * total))
        st.z[i] = new
        move_token(ndk, nwk, n_k, new, 1)
        if new != old and T > 0:
            supervised.move(eta_kt, p.c, old, new)
        step = MHStep("conditional", old, new, 1.0, 1.0, float(u), True, q)
        return insp._token_record(i, old, new, (step,), exact, {"conditional": q}, reloaded)


def conditional(insp: Any, n_kd: np.ndarray, n_kw: np.ndarray, n_k: np.ndarray,
                g: np.ndarray | None) -> tuple[np.ndarray, float, np.ndarray]:
    """The conditional as ``gibbs_sweep`` sums it (``gibbs.conditional_weight``, the
    supervised factor exp(g - max g)): (normalised, total, running sums)."""
    m = insp._model()
    alpha = m.alpha_vector
    V_beta = m.beta * insp.session.corpus.n_words
    top = -math.inf if g is None else max(g)
    cum = np.empty(m.K)
    total = 0.0
    for k in range(m.K):
        term = gibbs.conditional_weight(n_kd[k], alpha[k], n_kw[k], m.beta,
                                        1.0 / (n_k[k] + V_beta))
        if g is not None:
            term *= math.exp(g[k] - top)
        total += term
        cum[k] = total
    return np.diff(cum, prepend=0.0) / total, total, cum
