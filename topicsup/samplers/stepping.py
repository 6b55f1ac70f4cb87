"""What a sampler's token stepping shares with the token inspector (``topicsup.inspector``):
the proposal distributions it shows, in plain numpy from the counts, and the record of one
Metropolis-Hastings step.

A sampler with stepping (``TopicSampler.stepping``) mirrors its token body in
``begin_pass``, ``first_draws``, ``load_document``, ``proposals`` and ``step_token``, given
the inspector ``insp`` and its pass ``p``. It reads the inspector's public ``session``,
``doc``, ``p0``, ``p1``, ``n_tokens``, ``rng``, ``info`` and ``model``, asks it for the
token's distributions (``insp.distributions(i)``: the exact conditional and the sampler's
proposals) and returns ``insp.token_record(...)``; each MH step goes through
``record_mh_step``, which counts it in the inspector's info record as the kernel counts it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..arrays import F64
from ..kernels import info as info_layout
from ..kernels.light import SUPERVISED_KINDS

# ---------------------------------------------------------------------- the proposals
# Plain numpy from the counts, independent of the kernels' bookkeeping: what the inspector
# shows next to the exact conditional, and what the tests check the kernels' ratios against.

def doc_proposal(n_kd: F64, alpha: F64, s: int) -> F64:
    """q_d(k | s) ∝ n_kd + alpha_k + [k = s]: a random token of the document (token i at its
    current state s) or alpha (``light.draw_doc_proposal``)."""
    q = n_kd + alpha
    q[s] += 1
    return q / q.sum()


def word_proposal(n_kw: F64, beta: float, s: int) -> F64:
    """Exact q_w(k | s) ∝ n_kw + beta + [k = s]: a random occurrence of the word (token i at
    s) or a uniform topic (``light.draw_word_proposal``)."""
    q = n_kw + beta
    q[s] += 1
    return q / q.sum()


def exp_proposal(eta_kt: F64, b_d: F64, w_d: F64, N_d: int) -> F64:
    """q_e(k) ∝ exp(A_d(k)), A_d(k) = sum_t b_td eta_kt / N_d - w_td eta_kt^2 / (2 N_d^2): the
    part of g_d free of the assignments (``kernels.supervised.build_exp_table``). For the
    marginal factor pass the loss's slope at a zero score as ``b_d`` and zeros as ``w_d``."""
    A = (eta_kt * (b_d / N_d)).sum(axis=1) - (w_d * eta_kt ** 2).sum(axis=1) / (2.0 * N_d ** 2)
    return normalize_log(A)


def normalize_log(logp: F64) -> F64:
    """exp(logp) normalised to sum to one."""
    p = np.exp(logp - logp.max())
    return p / p.sum()


# ---------------------------------------------------------------------- the record

@dataclass(frozen=True)
class MHStep:
    """One Metropolis-Hastings step of a token (or the Gibbs draw, ``kind="conditional"``).

    Attributes
    ----------
    kind : str
        ``"doc"``, ``"word"``, ``"exp"`` or ``"conditional"`` (Gibbs).
    current, proposed : int
        The topic s the step moved from and the proposed topic t (Gibbs: the old and the drawn
        topic).
    ratio : float
        p(t) q(s | t) / (p(s) q(t | s)) as the kernel computed it; 1 when t = s and for Gibbs.
    acceptance : float
        min(1, ratio).
    u : float
        The acceptance uniform (Gibbs: the uniform of the inverse-cdf draw).
    accepted : bool
    proposal : ndarray
        The distribution t was drawn from, q(. | s) (Gibbs: the conditional the kernel summed).
    table_rebuilt : bool
        Stale word proposal: the word's table was rebuilt from the current counts for this
        step.
    """

    kind: str
    current: int
    proposed: int
    ratio: float
    acceptance: float
    u: float
    accepted: bool
    proposal: F64 = field(repr=False)
    table_rebuilt: bool = False

    @property
    def moved(self) -> bool:
        return self.accepted and self.proposed != self.current

    def describe(self) -> str:
        """The step in words."""
        if self.kind == "conditional":
            return (f"drew topic {self.proposed} from the exact conditional "
                    f"(p = {self.proposal[self.proposed]:.3g}) with u = {self.u:.3g}")
        table = " (its table rebuilt first)" if self.table_rebuilt else ""
        article = "an" if self.kind == "exp" else "a"
        head = f"drew {article} {self.kind} proposal{table} t = {self.proposed}"
        if self.proposed == self.current:
            return f"{head}, its current topic: nothing to decide"
        verdict = "accepted" if self.accepted else "rejected"
        return (f"{head}, acceptance probability min(1, {self.ratio:.3g}) = "
                f"{self.acceptance:.3g}, u = {self.u:.3g} -> {verdict}")


def record_mh_step(info: F64, kind: int, s: int, t: int, a: float, u: float,
                   accepted: bool, q: F64, rebuilt: bool) -> MHStep:
    """Count an MH step of proposal ``kind`` (``kernels.light``'s code) in the info record
    ``info`` as the kernel counts it (``kernels.info.record_mh``: its acceptance probability
    min(1, a) and whether it was accepted), and return its record: from ``s`` to the proposed
    ``t`` drawn from ``q``, ratio ``a``, uniform ``u``."""
    prob = min(a, 1.0)
    info_layout.record_mh(info, kind, prob, accepted)
    return MHStep(SUPERVISED_KINDS[kind], s, t, float(a), float(prob), float(u), accepted, q,
                  rebuilt)


__all__ = ["MHStep", "doc_proposal", "exp_proposal", "normalize_log", "record_mh_step",
           "word_proposal"]
