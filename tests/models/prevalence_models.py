"""What the tests of the models with a prior by class and covariates (DMR, LogisticNormal)
share: a small labelled corpus, Geweke's count comparison and the checks of a fitted chain."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from topicsup.corpus import Corpus


def labelled(n_docs: int = 40, seed: int = 3, covariates: bool = True,
             multilabel: bool = False) -> Corpus:
    """A small corpus whose documents' topics depend on their class: class a's tokens 80% in
    topic 0 (words w0..w3), class b's 80% in topic 1 (w4..w7); a covariate x."""
    gen = np.random.default_rng(seed)
    cls = np.arange(n_docs) % 2
    docs = []
    for d in range(n_docs):
        p = np.array([0.8, 0.2]) if cls[d] == 0 else np.array([0.2, 0.8])
        z = gen.choice(2, size=12, p=p)
        docs.append([f"w{int(gen.integers(0, 4)) + 4 * k}" for k in z])
    labels = [["a", "b"][c] for c in cls]
    if multilabel:
        labels = [["a"] if c == 0 else ["a", "b"] for c in cls]
    x = pd.DataFrame({"x": gen.standard_normal(n_docs)}) if covariates else None
    return Corpus.from_tokens(docs, labels=labels, covariates=x)


def counts_pvalue(got: list[int], reference: np.ndarray, size: int) -> float:
    """Chi-square p-value of the chains' final counts ``got`` against their prior frequencies
    from ``reference`` draws, the cells expected below 5 pooled into one."""
    n = len(got)
    expected = np.bincount(reference, minlength=size) / len(reference)
    observed = np.bincount(got, minlength=size)
    keep = expected * n >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum()) * n
    obs, exp = obs[exp > 0], exp[exp > 0]
    return float(stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue)


def assert_classes_lean_and_the_chain_moves(session) -> np.ndarray:
    """After a run on ``labelled(80)``: the two classes' coefficients (DMR's lambda,
    LogisticNormal's gamma) lean to opposite topics, the log joint is finite and has risen,
    and the slice steps took 3 to 40 density evaluations a coordinate. Returns them."""
    coef = session.state.prior.lam
    order = np.argsort(session.topic_word()[:, :4].sum(axis=1))   # topic of w0..w3 last
    lean = coef[:2, order[1]] - coef[:2, order[0]]
    assert lean[0] > 0 > lean[1], coef
    lj = session.history.query("metric == 'log_joint'")["value"]
    assert np.isfinite(lj).all() and lj.iloc[-1] > lj.iloc[0]
    rows = session.history.query("metric == 'slice_evaluations'")["value"]
    assert (rows >= 3).all() and (rows < 40).all()
    return coef
