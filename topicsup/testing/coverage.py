"""Coverage of prevalence intervals on corpora the model did not generate (issue 50; the test
tests/test_prevalence.py and benchmarks/bench_prevalence_coverage.py share this code).

Two generators whose topic proportions depend on the class, neither of them a topic model's
own prior:

* ``"logistic"``: theta_d = softmax(m_c + 0.8 e_d), e_d ~ N(0, I), the mean m_c of the
  document's class c lifting its own topic by ``strength`` (1.6 by default) on the log scale:
  a logistic normal (stm's and the correlated topic model's prior) with class-dependent
  means, outside every Dirichlet model's family;
* ``"flipped"``: theta_d ~ Dirichlet(0.3 + strength [k = c]) for the document's true class
  c, and 15% of the labels shown changed to another class at random (misspecified labels):
  the estimand is the mean over the documents *labelled* c, as an analyst would ask.

K = 3 topics, each on its own block of 12 words of 30 (neighbours share 3), phi_k ~
Dirichlet(0.1) on its block, redrawn until the topics are at least 1.0 apart in L1; D = 60
documents, 20 per class, of 60 to 100 tokens by default (``lengths``). The estimand is each
class's in-sample mean of the true theta_d (3 x 3 cells); the fitted topics are aligned to the
true ones by the Hungarian assignment on the L1 distance between fitted and true phi.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..corpus import Corpus
from ..labels import make_labels
from ..prevalence import PrevalenceDraws
from ..session import Session

K, V, C, D = 3, 30, 3, 60
BETA = 0.1
BLOCK, STARTS = 12, (0, 9, 18)
LENGTHS = (60, 101)         # tokens per document, numpy's half-open range
GENERATORS = ("logistic", "flipped")
LEVEL = 0.9
BURN, KEEP = 200, 400
FLIP = 0.15
STRENGTH = 1.6


def _topics(rng: np.random.Generator) -> np.ndarray:
    phi = np.zeros((K, V))
    while True:
        for k, s in enumerate(STARTS):
            phi[k] = 0.0
            phi[k, s:s + BLOCK] = rng.dirichlet(np.full(BLOCK, BETA))
        apart = np.abs(phi[:, None, :] - phi[None, :, :]).sum(axis=-1)
        if (apart + 2 * np.eye(K)).min() > 1.0:
            return phi


def simulate(seed: int, generator: str, lengths: tuple[int, int] = LENGTHS,
             strength: float = STRENGTH) -> tuple[Corpus, np.ndarray, np.ndarray]:
    """A corpus from ``generator``, its true phi (K, V) and the class means of the true theta
    over the documents as labelled (C, K). ``strength``: how much a class favours its own
    topic (the logistic mean's lift, the Dirichlet's extra concentration)."""
    if generator not in GENERATORS:
        raise ValueError(f"generator must be one of {GENERATORS}, got {generator!r}")
    rng = np.random.default_rng([seed, 50, GENERATORS.index(generator)])
    phi = _topics(rng)
    cls = np.repeat(np.arange(C), D // C)
    shown = cls.copy()
    if generator == "logistic":
        eta = (strength * np.eye(C, K) - 0.5)[cls] + 0.8 * rng.standard_normal((D, K))
        theta = np.exp(eta)
        theta /= theta.sum(axis=1, keepdims=True)
    else:
        conc = 0.3 + strength * np.eye(C, K)
        theta = np.stack([rng.dirichlet(conc[c]) for c in cls])
        flip = rng.random(D) < FLIP
        shown[flip] = (cls[flip] + rng.integers(1, C, int(flip.sum()))) % C
    n = rng.integers(*lengths, size=D)
    words = []
    for d in range(D):
        z = rng.choice(K, size=n[d], p=theta[d])
        words.append(np.array([rng.choice(V, p=phi[k]) for k in z], dtype=np.int32))
    corpus = Corpus(np.concatenate(words), np.concatenate([[0], np.cumsum(n)]),
                    tuple(f"w{v}" for v in range(V)),
                    labels=make_labels(np.array([f"c{c}" for c in shown]), D))
    means = np.stack([theta[shown == c].mean(axis=0) for c in range(C)])
    return corpus, phi, means


def replicate(seed: int, generator: str, model: Any,
              recorder: Callable[..., Any] | None = None, **shape: Any) -> np.ndarray:
    """One replication: which of the C x K cells the 90% intervals of ``model``'s prevalence
    draws (``PrevalenceDraws`` after ``BURN`` sweeps, ``KEEP`` kept) cover, in the true
    topics' order ((C, K) bool)."""
    corpus, phi, means = simulate(seed, generator, **shape)
    s = Session(model, corpus, seed=seed, log_joint_every=0)
    draws = (recorder or PrevalenceDraws)(s, burn=BURN)
    s.run(BURN + KEEP, callback=draws.collect)
    cost = np.abs(s.topic_word()[:, None, :] - phi[None]).sum(axis=-1)
    _, perm = linear_sum_assignment(cost)
    frame = draws.prevalence("class", LEVEL)
    lo, hi = np.full((C, K), np.nan), np.full((C, K), np.nan)
    for name, topic, a, b in zip(frame["class"], frame["topic"], frame["lower"],
                                 frame["upper"]):
        lo[int(name[1:]), perm[topic]], hi[int(name[1:]), perm[topic]] = a, b
    return (lo <= means) & (means <= hi)
