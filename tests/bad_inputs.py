"""The bad-input battery: ordinary mistakes and hostile files at every public boundary.

Each case calls the public API with one bad input and states the exception it must raise:
its type, a regex of its message, and the name of the input that the message must contain.
The cases run in a child process (``python -m tests.bad_inputs <tmpdir> <case ids>``), which
prints one JSON line per case, so a case that crashes the interpreter (a segmentation fault
in a kernel) or hangs fails that case instead of killing the test run; ``run_isolated``
restarts the child after such a case and continues with the rest.

``tests/test_bad_input.py`` parametrizes over ``CASES``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import signal
import sys
import time
import traceback
import zipfile
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .testing.threads import run_in_thread

# a case that runs longer counts as a hang: a bound on hangs, not a judge of speed (a case
# takes well under a second, a first compile of a kernel seconds), so far beyond any machine
CASE_SECONDS = 600
# past this, a case stuck where the alarm cannot interrupt it (in compiled code holding the
# GIL) has its stacks dumped and its process ended, which fails that case alone
STUCK_SECONDS = CASE_SECONDS + 60


@dataclasses.dataclass(frozen=True)
class Case:
    category: str
    name: str
    call: Callable[["Fixtures"], Any]
    error: str                 # exception class name (the raised one or a base class)
    match: str                 # regex the message must match
    input: str                 # the input the message must name

    @property
    def id(self) -> str:
        return f"{self.category}-{self.name}"


# ---------------------------------------------------------------------- shared fixtures
class Fixtures:
    """Corpora, sessions and checkpoint files the cases share, built on first use."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self._cache: dict[str, Any] = {}

    def _get(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    @property
    def corpus(self):
        from topicsup.datasets import make_synthetic
        return self._get("corpus", lambda: make_synthetic(n_docs=60, n_topics=3, doc_length=20,
                                                          seed=1).corpus)

    @property
    def covariate_corpus(self):
        from topicsup.datasets import make_synthetic
        return self._get("cov", lambda: make_synthetic(n_docs=60, n_topics=3, doc_length=20,
                                                       n_covariates=2, seed=2).corpus)

    @property
    def lda(self):
        from topicsup import LDA, Session
        return self._get("lda", lambda: _ran(Session(LDA(K=3), self.corpus, seed=0), 1))

    @property
    def responses(self):
        """A corpus with a real response per document."""
        from topicsup.datasets import make_synthetic
        return self._get("responses", lambda: make_synthetic(
            n_docs=60, n_topics=3, doc_length=20, task="real", seed=1).corpus)

    @property
    def slda(self):
        from topicsup import SLDA, Session
        return self._get("slda", lambda: _ran(Session(SLDA(K=3), self.responses, seed=0), 2))

    @property
    def light(self):
        from topicsup import LightMedLDA, Session
        return self._get("light", lambda: _ran(Session(LightMedLDA(K=3, lam=4.0), self.corpus,
                                                       seed=0), 2))

    @property
    def X(self):
        return self.corpus.to_matrix()

    @property
    def y(self):
        return self.corpus.labels.names()

    def checkpoint(self, kind: str) -> Path:
        """A good checkpoint of an LDA (gibbs), an AliasLDA, a LightMedLDA or a GSLDA session."""
        def make() -> Path:
            from topicsup import GSLDA, LDA, LightMedLDA, Session
            model = {"lda": LDA(K=3), "alias": LDA(K=3, sampler="alias"),
                     "light": LightMedLDA(K=3, lam=4.0), "gslda": GSLDA(K=3, c=2.0),
                     "learned": LDA(K=3, optimize="alpha", optimize_every=1)}[kind]
            s = Session(model, self.corpus, seed=0)
            s.run(2)
            return s.save(self.tmp / f"good-{kind}.npz")
        return self._get(f"ck-{kind}", make)

    def forged(self, kind: str, mutate: Callable[[dict, dict], None], *,
               recompute: bool = True) -> Path:
        """A copy of a good checkpoint with ``mutate(arrays, meta)`` applied; with
        ``recompute`` the checksum is recomputed (a forger's file), else left stale."""
        from topicsup.checkpoint import checksum
        with np.load(self.checkpoint(kind), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        meta = json.loads(arrays.pop("meta").tobytes())
        mutate(arrays, meta)
        if recompute:
            meta["checksum"] = {"algorithm": "sha256", "digest": checksum(arrays)}
        path = self.tmp / f"forged-{len(list(self.tmp.iterdir()))}.npz"
        np.savez(path, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
        return path

    def raw_file(self, name: str, data: bytes) -> Path:
        path = self.tmp / name
        path.write_bytes(data)
        return path


def _ran(session, n):
    session.run(n)
    return session


def _load(path):
    from topicsup import Session
    return Session.load(path).run(1)


def _set(key, value):
    def mutate(arrays, meta):
        arrays[key] = value(arrays[key]) if callable(value) else value
    return mutate


def _logistic_draw(score):
    """One Polya-Gamma augmentation at a given score (losses.logistic)."""
    from topicsup.kernels.rng import seed_state
    from topicsup.losses.logistic import Logistic
    loss = Logistic()
    own = loss.allocate(1, 1)
    loss.start(own, seed_state(0))
    loss.augment(np.ones((1, 1)), np.full((1, 1), score), seed_state(1), own)


def _raising_tokenizer(text):
    raise RuntimeError("no tokens today")


def _with(a, i, value):
    """A copy of array ``a`` with ``a[i] = value``."""
    out = a.copy()
    out[i] = value
    return out


def _meta(key, value):
    def mutate(arrays, meta):
        meta[key] = value
    return mutate


# ---------------------------------------------------------------------- the cases
def _corpus_cases() -> list[Case]:
    from topicsup import Corpus
    import pandas as pd
    import scipy.sparse as sp

    def direct(**kw):
        args = dict(words=np.array([0, 1, 1], np.int32), doc_ptr=np.array([0, 2, 3], np.int64),
                    vocabulary=("a", "b"))
        return lambda f: Corpus(**{**args, **kw})

    def malformed_csr(f):
        m = sp.csr_matrix((np.array([1, 1]), np.array([0, 7]), np.array([0, 1, 2])),
                          shape=(2, 2))
        return Corpus.from_matrix(m, ["a", "b"])

    c = "corpus"
    return [
        Case(c, "a-tokenizer-that-raises",
             lambda f: Corpus.from_texts(["one text", "another"], tokenizer=_raising_tokenizer),
             "ValueError", r"tokenizer on texts\[0\]: .*_raising_tokenizer raised "
             r"RuntimeError: no tokens today", "tokenizer"),
        Case("corpus", "real-labels-beyond-the-response-limit",
             lambda f: __import__("topicsup").corpus.make_labels(np.array([1.0, 2e7]), 2,
                                                                  kind="real"),
             "ValueError", r"real labels must be at most 1e\+06 in magnitude", "real labels"),
        Case(c, "word-id-beyond-vocabulary", direct(words=np.array([0, 5000, 1], np.int32)),
             "ValueError", r"words\[1\] = 5000 is not a word id", "words"),
        Case(c, "negative-word-id", direct(words=np.array([0, -1, 1], np.int32)),
             "ValueError", r"words\[1\] = -1 is not a word id", "words"),
        Case(c, "doc-ptr-past-the-tokens", direct(doc_ptr=np.array([0, 2, 100003])),
             "ValueError", "doc_ptr must start at 0 and end at the number of tokens",
             "doc_ptr"),
        Case(c, "doc-ptr-decreasing", direct(doc_ptr=np.array([0, 3, 2, 3])), "ValueError",
             r"doc_ptr must not decrease", "doc_ptr"),
        Case(c, "float-words", direct(words=np.array([0.0, 1.0, 1.0])), "TypeError",
             "words must hold integers", "words"),
        Case(c, "labels-of-the-wrong-length",
             lambda f: dataclasses.replace(f.corpus, labels=f.corpus.labels.take(np.arange(5))),
             "ValueError", "labels has 5 entries but the corpus has 60", "labels"),
        Case(c, "count-overflowing-int64",
             lambda f: Corpus.from_matrix(np.array([[2**62, 2**62, 2**62]]), ["a", "b", "c"]),
             "ValueError", r"X holds the count 4611686018427387904", "X"),
        Case(c, "counts-beyond-int32-tokens",
             lambda f: Corpus.from_matrix(np.array([[2**30, 2**30, 2**30]]), ["a", "b", "c"]),
             "ValueError", r"X holds 3221225472 tokens", "X"),
        Case(c, "malformed-sparse-matrix", malformed_csr, "ValueError",
             "X is a malformed sparse matrix", "X"),
        Case(c, "ragged-rows", lambda f: Corpus.from_matrix([[1, 2], [1]], ["a", "b"]),
             "ValueError", "rows of equal length", "X"),
        Case(c, "dataframe-columns-not-the-vocabulary",
             lambda f: Corpus.from_matrix(pd.DataFrame([[1, 2]], columns=["b", "a"]),
                                          ["a", "b"]),
             "ValueError", "column names differ from vocabulary", "vocabulary"),
        Case(c, "fractional-counts",
             lambda f: Corpus.from_matrix(np.array([[0.5, 1.0]]), ["a", "b"]), "ValueError",
             "X must hold integer counts", "X"),
        Case(c, "blocks-of-no-tokens", lambda f: f.corpus.blocks(0), "ValueError",
             r"block_tokens must be an integer in \[1, ", "block_tokens"),
        Case(c, "stop-words-misspelt",
             lambda f: Corpus.from_texts(["the cat"], stop_words="englsh"), "ValueError",
             "stop_words must be 'english', None or an iterable of str", "stop_words"),
        Case(c, "nan-label",
             lambda f: Corpus.from_tokens([["a"], ["b"], ["c"]], labels=["x", math.nan, "y"]),
             "ValueError", r"labels\[1\] is missing \(NaN\)", "labels"),
        Case(c, "labels-as-a-dict",
             lambda f: Corpus.from_tokens([["a"], ["b"]], labels={"x": 1, "y": 0}),
             "TypeError", "labels must be a sequence .* got a dict", "labels"),
        Case(c, "labels-as-a-set",
             lambda f: Corpus.from_tokens([["a"], ["b"]], labels={"x", "y"}), "TypeError",
             "labels must be a sequence .* got a set", "labels"),
        Case(c, "labels-mixing-strings-and-numbers",
             lambda f: Corpus.from_tokens([["a"], ["b"], ["c"]], labels=[1, "1", 2]),
             "TypeError", "labels mix numbers and strings", "labels"),
        Case(c, "label-matrix-without-columns",
             lambda f: Corpus.from_tokens([["a"], ["b"]], labels=np.zeros((2, 0))),
             "ValueError", "a 2-d labels array needs at least one column", "labels"),
        Case(c, "huge-covariates",
             lambda f: Corpus.from_tokens([["a"], ["b"]], covariates=np.array([1e200, 0.0])),
             "ValueError", r"covariates must be at most 1e\+06 in magnitude", "covariates"),
        Case(c, "complex-covariates",
             lambda f: Corpus.from_tokens([["a"], ["b"]],
                                          covariates=pd.DataFrame({"x": [1 + 1j, 2]})),
             "TypeError", "covariates must be real numbers", "covariates"),
        Case(c, "duplicate-covariate-columns",
             lambda f: Corpus.from_tokens([["a"], ["b"]], covariates=pd.DataFrame(
                 [[1, 2], [3, 4]], columns=["x", "x"])),
             "ValueError", "covariates has the duplicate column name 'x'", "covariates"),
        Case(c, "vocabulary-word-with-nul",
             lambda f: Corpus.from_tokens([["ab\x00"]]), "ValueError",
             "vocabulary word .* contains a NUL character", "vocabulary"),
        Case(c, "vocabulary-as-a-set",
             lambda f: Corpus.from_matrix(np.ones((1, 2), int), {"a", "b"}), "TypeError",
             "vocabulary must be a sequence of str", "vocabulary"),
        Case(c, "labels-a-zero-dimensional-array",
             lambda f: Corpus.from_tokens([["a"]], labels=np.array(5)), "TypeError",
             "labels must be a sequence with one label per document", "labels"),
        Case(c, "labels-that-are-dicts",
             lambda f: Corpus.from_tokens([["a"], ["b"]], labels=[{"a": 1}, {"b": 2}]),
             "TypeError", r"labels\[0\] is a dict; a label is a class name or number",
             "labels"),
        Case(c, "labels-mixing-bools-and-numbers",
             lambda f: Corpus.from_tokens([["a"], ["b"], ["c"]], labels=[True, 1, 2]),
             "TypeError", "labels mix bools and numbers", "labels"),
        Case(c, "ragged-covariates",
             lambda f: Corpus.from_tokens([["a"], ["b"]], covariates=[[1, 2], [3]]),
             "ValueError", "covariates must be a 2-d array with rows of equal length",
             "covariates"),
        Case(c, "stop-words-of-lists",
             lambda f: Corpus.from_texts(["the cat"], stop_words=[["the"]]), "TypeError",
             r"stop_words must hold str; stop_words\[0\] is \['the'\]", "stop_words"),
        Case(c, "dataframe-with-mixed-column-names",
             lambda f: Corpus.from_matrix(pd.DataFrame([[5, 0, 0]], columns=["c", 1, "a"]),
                                          ["a", "b", "c"]),
             "ValueError", "column names differ from vocabulary", "vocabulary"),
        Case(c, "texts-with-a-none",
             lambda f: f.corpus.map(["orbit rocket", None]), "TypeError",
             r"docs\[1\] is a NoneType while docs\[0\] is a str", "docs"),
        Case(c, "cutoffs-with-a-given-vocabulary",
             lambda f: Corpus.from_texts(["rocket moon"], vocabulary=["rocket"], min_count=5),
             "ValueError", "min_count and max_df build a vocabulary", "min_count"),
    ]


def _model_cases() -> list[Case]:
    from topicsup import DMR, LDA, LightMedLDA, MedLDA
    m = "models"
    return [
        Case(m, "an-optimize-schedule-without-optimize", lambda f: LDA(optimize_every=5),
             "ValueError", "optimize_every=5 would be ignored: nothing is learned without "
             "optimize", "optimize_every"),
        Case(m, "an-optimize-burn-in-without-optimize", lambda f: LDA(optimize_burn_in=3),
             "ValueError", "optimize_burn_in=3 would be ignored", "optimize_burn_in"),
        Case(m, "regression-on-responses-that-barely-differ",
             lambda f: __import__("topicsup").Session(
                 __import__("topicsup").SLDA(K=3), __import__("dataclasses").replace(
                     f.responses, labels=__import__("topicsup").corpus.make_labels(
                         1.0 + 1e-9 * np.arange(60), 60, kind="real"))),
             "ValueError", "responses that differ by at least 1e-06", "responses"),
        Case(m, "logistic-scores-beyond-the-draws-range", lambda f: _logistic_draw(200.0),
             "ValueError", "a score of magnitude 200 is beyond 150", "score"),
        Case(m, "beta-overflowing", lambda f: LDA(beta=1e308), "ValueError",
             r"beta must be a finite number in \[1e-10, 1e\+06\]", "beta"),
        Case(m, "alpha-zero", lambda f: LDA(alpha=0.0), "ValueError",
             r"alpha must be a finite number in \[1e-10", "alpha"),
        Case(m, "alpha-nan", lambda f: LDA(alpha=math.nan), "ValueError",
             "alpha must be a finite number", "alpha"),
        Case(m, "alpha-of-the-wrong-length", lambda f: LDA(K=3, alpha=(0.1, 0.2)),
             "ValueError", "alpha has 2 values but K = 3", "alpha"),
        Case(m, "K-as-a-string", lambda f: LDA(K="3"), "TypeError",
             r"K must be an integer .*got '3' \(a str\)", "K"),
        Case(m, "K-absurd", lambda f: LDA(K=10**9), "ValueError",
             r"K must be an integer in \[1, 100000\]", "K"),
        Case(m, "mh-steps-absurd", lambda f: LDA(sampler="alias", mh_steps=10**12),
             "ValueError", r"mh_steps must be an integer in \[1, 1024\]", "mh_steps"),
        Case(m, "mh-steps-as-a-string", lambda f: LDA(mh_steps="2"), "TypeError",
             "mh_steps must be an integer", "mh_steps"),
        Case(m, "lam-overflowing", lambda f: LightMedLDA(lam=1e308), "ValueError",
             r"lam must be a finite number in \[1e-06, 1e\+06\]", "lam"),
        Case(m, "nu-as-a-string", lambda f: LightMedLDA(nu="1"), "TypeError",
             "nu must be a number", "nu"),
        Case(m, "negative-proposal-weight", lambda f: LightMedLDA(proposal_weights=(-1, 1, 1)),
             "ValueError", r"proposal_weights\[0\] must be a finite number", "proposal_weights"),
        Case(m, "weight-shift-as-a-string", lambda f: MedLDA(weight_shift="yes"), "TypeError",
             "weight_shift must be True or False", "weight_shift"),
        Case(m, "supervised-alias", lambda f: MedLDA(sampler="alias"), "ValueError",
             "sampler 'auto' or 'gibbs' or 'light'", "sampler"),
        Case(m, "composition-a-number", lambda f: LDA(composition=3), "TypeError",
             r"composition must be one of \['cycle', 'mixture'\], got 3$",
             "composition"),
        Case(m, "a-setting-the-sampler-ignores", lambda f: MedLDA(sampler="gibbs", mh_steps=500),
             "ValueError",
             r"mh_steps=500 \(sampler='gibbs' does not use it\): would be ignored",
             "mh_steps"),
        Case(m, "coordinate-passes-absurd", lambda f: LightMedLDA(S_gibbs=10**6),
             "ValueError", r"S_gibbs must be an integer in \[1, 1024\]", "S_gibbs"),
        Case(m, "dmr-sigma-zero", lambda f: DMR(sigma=0.0), "ValueError",
             r"sigma must be a finite number in \[0.001, 1000\]", "sigma"),
        Case(m, "dmr-prevalence-unknown", lambda f: DMR(prevalence="topics"), "ValueError",
             r"prevalence must be one of \['classes\+covariates'", "prevalence"),
        Case(m, "dmr-lambda-never-drawn", lambda f: DMR(lambda_every=0), "ValueError",
             r"lambda_every must be an integer in \[1,", "lambda_every"),
        Case(m, "dmr-classes-of-a-corpus-without-labels",
             lambda f: __import__("topicsup").Session(
                 DMR(K=3, prevalence="classes"),
                 __import__("dataclasses").replace(f.corpus, labels=None)),
             "ValueError", "corpus has no class labels: DMR", "prevalence"),
    ]


def _session_cases() -> list[Case]:
    from topicsup import LDA, Corpus, MedLDA, Session
    from topicsup.inspector import TokenInspector
    import scipy.sparse as sp

    def busy(f):
        s = Session(LDA(K=3), f.corpus, seed=0, block_tokens=50, log_joint_every=0)
        worker, _, started = run_in_thread(s, 10**9)
        try:
            started.wait()   # the worker's run owns the session from here until stopped
            s.run(1)
        finally:
            s.request_stop()
            worker.join()

    def too_big(f):
        V = 70_000
        wide = Corpus.from_matrix(sp.csr_matrix(np.ones((1, V), np.int64)),
                                  [f"w{j}" for j in range(V)])
        return Session(LDA(K=100_000), wide)

    def held_out_without_covariates(f):
        from topicsup import LightMedLDA
        s = Session(LightMedLDA(K=3, lam=4.0), f.covariate_corpus, seed=0)
        return s.predict([f.covariate_corpus.document(0)])

    s = "session"
    return [
        Case("session", "regression-score-on-one-document",
             lambda f: f.slda.score(f.responses.to_matrix()[:1], labels=[1.0]),
             "ValueError", r"score \(R\^2 of held-out responses\) needs at least two documents",
             "responses"),
        Case(s, "model-class-not-instance", lambda f: Session(LDA, f.corpus), "TypeError",
             "model must be a model instance such as LDA.K=20., got the class LDA", "model"),
        Case(s, "corpus-not-a-corpus", lambda f: Session(LDA(), [["a"]]), "TypeError",
             "corpus must be a topicsup.Corpus", "corpus"),
        Case(s, "supervised-without-labels",
             lambda f: Session(MedLDA(K=3), dataclasses.replace(f.corpus, labels=None)),
             "ValueError", "needs a labelled corpus: corpus.labels is None", "labels"),
        Case(s, "state-too-big-for-memory", too_big, "ValueError",
             r"LDA with K = 100000 on this corpus would need .* GiB", "K"),
        Case(s, "seed-beyond-64-bits", lambda f: Session(LDA(K=3), f.corpus, seed=2**64),
             "ValueError", r"seed must be an integer in \[0, 2\*\*64\)", "seed"),
        Case(s, "one-class-present",
             lambda f: Session(MedLDA(K=3), dataclasses.replace(
                 f.corpus, labels=dataclasses.replace(
                     f.corpus.labels, values=np.zeros(60, np.int32)))),
             "ValueError", "needs documents of at least 2 classes to classify; every document "
                           "of the corpus's labels is 'negative'", "labels"),
        Case(s, "run-negative", lambda f: f.lda.run(-1), "ValueError",
             "n must be an integer >= 0, got -1", "n"),
        Case(s, "run-a-string", lambda f: f.lda.run("3"), "TypeError",
             "n must be an integer", "n"),
        Case(s, "second-concurrent-run", busy, "SessionBusyError",
             "this Session is already running in thread", "run"),
        Case(s, "predict-unsupervised", lambda f: f.lda.predict(f.corpus), "ValueError",
             "LDA is unsupervised", "LDA"),
        Case(s, "score-with-unknown-classes",
             lambda f: f.light.score([f.corpus.document(0)], labels=["mystery"]),
             "ValueError", r"labels\[0\] is 'mystery', which is not one of the classes",
             "labels"),
        Case(s, "fold-in-burn-a-string",
             lambda f: f.light.decision_function(f.corpus, n_burn="a"), "TypeError",
             "n_burn must be an integer", "n_burn"),
        Case(s, "fold-in-no-kept-sweeps",
             lambda f: f.light.decision_function(f.corpus, n_keep=0), "ValueError",
             r"n_keep must be an integer in \[1, 100000\]", "n_keep"),
        Case(s, "fold-in-key-of-the-wrong-kind",
             lambda f: f.light.decision_function(f.corpus, key=np.arange(4)), "TypeError",
             r"key must be a xoshiro state: a uint64 array of shape \(4,\)", "key"),
        Case(s, "fold-in-key-all-zero",
             lambda f: f.light.fold_in(f.corpus, key=np.zeros(4, np.uint64)), "ValueError",
             "key is the all-zero state", "key"),
        Case(s, "snapshot-of-another-shape",
             lambda f: f.light.decision_function(
                 f.corpus, snapshots=[f.light.topic_snapshot()[:, :2]]), "ValueError",
             r"snapshots\[0\] must be a float \(V, K\)", "snapshots"),
        Case(s, "snapshot-not-probabilities",
             lambda f: f.light.fold_in(f.corpus, snapshots=[-f.light.topic_snapshot()]),
             "ValueError", r"snapshots\[0\] must hold each topic's word probabilities",
             "snapshots"),
        Case(s, "snapshots-not-a-list",
             lambda f: f.light.decision_function(f.corpus, snapshots=f.light.topic_snapshot()),
             "TypeError", "snapshots must be a list of topic snapshots", "snapshots"),
        Case(s, "readout-not-callable", lambda f: f.lda.readout("topics"), "TypeError",
             "fn must be a read-out", "fn"),
        Case(s, "weights-on-an-unknown-scale", lambda f: f.light.coefficients(scale="centred"),
             "ValueError", "scale must be one of", "scale"),
        Case(s, "interval-out-of-range", lambda f: f.light.coefficients(interval=1.5),
             "ValueError", r"interval must be a finite number in \(0, 1\)", "interval"),
        Case(s, "unknown-metric", lambda f: f.lda.metric("loglik"), "ValueError",
             "no metric named 'loglik'", "loglik"),
        Case(s, "change-the-posterior", lambda f: f.lda.set_params(K=7), "ValueError",
             r"cannot change \['K'\] during a chain", "K"),
        Case(s, "inspect-a-missing-document", lambda f: TokenInspector(f.lda, doc=10**6),
             "ValueError", r"doc must be an integer in \[0, 59\]", "doc"),
        Case(s, "held-out-without-the-covariates", held_out_without_covariates, "ValueError",
             r"held-out documents have the covariates \[\], the model's corpus \['x0', 'x1'\]",
             "covariates"),
        Case(s, "save-to-a-number", lambda f: f.lda.save(3), "TypeError",
             "path must be a file path", "path"),
    ]


def _checkpoint_cases() -> list[Case]:
    def lzma_bomb(f):
        path = f.tmp / "bomb.npz"
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_LZMA) as z:
            z.writestr("meta.npy", b"\x93NUMPY" + bytes(64 * 2**20))
        return _load(path)

    def pickled_member(f):
        path = f.tmp / "pickled.npz"
        np.savez(path, meta=np.array([{"format": "topicsup-session"}], dtype=object))
        return _load(path)

    def huge_header(f):
        import io
        buf = io.BytesIO()
        np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False,
                                                   "shape": (10**12,)})
        path = f.tmp / "header.npz"
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("meta.npy", buf.getvalue() + bytes(16))
        return _load(path)

    def unknown_member(f):
        path = f.tmp / "extra.npz"
        with zipfile.ZipFile(f.checkpoint("lda")) as good, \
                zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as out:
            for info in good.infolist():
                out.writestr(info, good.read(info))
            out.writestr("junk.npy", b"\x93NUMPY" + bytes(64 * 2**20))   # 64 MB of zeros
        return _load(path)

    def many_objects(f):
        def mutate(arrays, meta):
            meta["preprocessing"] = {"pad": [{}] * 1_200_000}
        return _load(f.forged("lda", mutate))

    def deep_preprocessing(f):
        def mutate(arrays, meta):
            deep: dict = {}
            for _ in range(900):
                deep = {"x": deep}
            meta["preprocessing"] = deep
        return _load(f.forged("lda", mutate))

    def negative_shape(f):
        import io
        buf = io.BytesIO()
        np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False,
                                                   "shape": (-1, -1)})
        def mutate(arrays, meta):
            pass
        path = f.forged("lda", mutate)
        out = f.tmp / "negative.npz"
        with zipfile.ZipFile(path) as good, zipfile.ZipFile(out, "w") as dst:
            for info in good.infolist():
                data = buf.getvalue() + bytes(16) if info.filename == "info.npy" \
                    else good.read(info)
                dst.writestr(info.filename, data)
        return _load(out)

    def huge_int(f):
        with np.load(f.checkpoint("lda"), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        text = arrays["meta"].tobytes().replace(b'"seed": 0', b'"seed": 1' + b"0" * 5000)
        arrays["meta"] = np.frombuffer(text, np.uint8)
        path = f.tmp / "bigint.npz"
        np.savez(path, **arrays)
        return _load(path)

    def huge_state(f):
        def mutate(arrays, meta):
            V = 70_000
            meta["params"]["K"] = 100_000
            arrays["corpus/vocabulary"] = np.array([f"w{j}" for j in range(V)])
        return _load(f.forged("lda", mutate))

    k = "checkpoint"
    return [
        Case(k, "a-learned-alpha-made-negative",
             lambda f: _load(f.forged("learned", _set("state/hyper_alpha", lambda a: -a))),
             "ValueError", r"state/hyper_alpha must hold finite values in \[1e-10",
             "state/hyper_alpha"),
        Case(k, "unknown-member-of-zeros", unknown_member, "ValueError",
             "field 'junk': is not a member of a topicsup checkpoint", "junk"),
        Case(k, "metadata-of-a-million-objects", many_objects, "ValueError",
             r"field 'meta': holds \d+ JSON objects and lists, more than 1000000", "meta"),
        Case(k, "preprocessing-nested-deep", deep_preprocessing, "ValueError",
             "field 'corpus': preprocessing.* is nested more than 32 levels deep",
             "preprocessing"),
        Case(k, "negative-array-shape", negative_shape, "ValueError",
             r"field 'info': cannot be read .*declares the shape \(-1, -1\)", "info"),
        Case(k, "history-value-infinite",
             lambda f: _load(f.forged("lda", _set("history/value",
                                                  lambda a: np.where(np.arange(a.size) == 0,
                                                                     np.inf, a)))),
             "ValueError", "field 'history': values must be finite", "history"),
        Case(k, "history-code-out-of-range",
             lambda f: _load(f.forged("lda", _set("history/metric", lambda a: a + 10**6))),
             "ValueError", "field 'history': a row's metric or proposal code names no",
             "history"),
        Case(k, "checksum-deleted",
             lambda f: _load(f.forged("lda", lambda a, m: m.pop("checksum"), recompute=False)),
             "ValueError", "field 'checksum': must be", "checksum"),
        Case(k, "huge-int-in-metadata", huge_int, "ValueError",
             "field 'meta': is not valid JSON", "meta"),
        Case(k, "state-beyond-memory", huge_state, "ValueError",
             r"field 'params': LDA with K = 100000 on this corpus would need", "K"),
        Case(k, "missing-file", lambda f: _load(f.tmp / "nowhere.npz"), "FileNotFoundError",
             "does not exist", "nowhere.npz"),
        Case(k, "a-directory", lambda f: _load(f.tmp), "ValueError", "is not a file",
             "checkpoint"),
        Case(k, "empty-file", lambda f: _load(f.raw_file("empty.npz", b"")), "ValueError",
             "not a topicsup checkpoint: not a readable .npz", "empty.npz"),
        Case(k, "text-file", lambda f: _load(f.raw_file("text.npz", b"hello")), "ValueError",
             "not a readable .npz", "text.npz"),
        Case(k, "truncated",
             lambda f: _load(f.raw_file("cut.npz", f.checkpoint("lda").read_bytes()[:900])),
             "ValueError", "not a readable .npz|cannot be read", "cut.npz"),
        Case(k, "altered-without-checksum",
             lambda f: _load(f.forged("lda", _set("corpus/words", lambda a: a + 100000),
                                      recompute=False)),
             "ValueError", "field 'checksum': the arrays do not match", "checksum"),
        Case(k, "forged-word-ids",
             lambda f: _load(f.forged("lda", _set("corpus/words", lambda a: a + 100000))),
             "ValueError", r"field 'corpus': words\[0\] = \d+ is not a word id", "corpus"),
        Case(k, "forged-doc-pointers",
             lambda f: _load(f.forged("lda", _set("corpus/doc_ptr",
                                                  lambda a: np.where(np.arange(len(a)) == 5,
                                                                     10**9, a)))),
             "ValueError", "field 'corpus': doc_ptr must not decrease", "doc_ptr"),
        Case(k, "forged-short-vocabulary",
             lambda f: _load(f.forged("lda", _set("corpus/vocabulary", lambda a: a[:3]))),
             "ValueError", "field 'corpus': words.* is not a word id", "corpus"),
        Case(k, "forged-zero-generator",
             lambda f: _load(f.forged("lda", _set("rng", np.zeros(4, np.uint64)))),
             "ValueError", "field 'rng': is the all-zero generator state", "rng"),
        Case(k, "forged-float-generator",
             lambda f: _load(f.forged("lda", _set("rng", np.zeros(4)))),
             "ValueError", "field 'rng': has dtype float64, expected uint64", "rng"),
        Case(k, "forged-topics-out-of-range",
             lambda f: _load(f.forged("lda", _set("state/z", lambda a: a + 7))),
             "ValueError", "state/z has topics outside 0..2", "state/z"),
        Case(k, "forged-z-of-another-dtype",
             lambda f: _load(f.forged("lda", _set("state/z", lambda a: a.astype(np.int64)))),
             "ValueError", "field 'state/z': has dtype int64, expected int32", "state/z"),
        Case(k, "forged-params",
             lambda f: _load(f.forged("lda", lambda a, m: m["params"].update(K="x"))),
             "ValueError", "field 'params': K must be an integer", "params"),
        Case(k, "forged-unknown-model", lambda f: _load(f.forged("lda", _meta("model", "Evil"))),
             "ValueError", "field 'params': unknown model 'Evil'", "model"),
        Case(k, "forged-block-position", lambda f: _load(f.forged("lda", _meta("block", 99))),
             "ValueError", r"field 'block': block must be an integer in \[0, 0\]", "block"),
        Case(k, "forged-history-sweep",
             lambda f: _load(f.forged("lda", _set("history/sweep", lambda a: a + 997))),
             "ValueError", r"field 'history': sweeps must be in 1..2", "history"),
        Case(k, "forged-info-record",
             lambda f: _load(f.forged("lda", _set("info", np.zeros(1)))),
             "ValueError", r"field 'info': has shape \(1,\), expected \(2,\)", "info"),
        Case(k, "forged-augmentation",
             lambda f: _load(f.forged("light", _set("state/b", lambda a: a * 0 + 1e308))),
             "ValueError", r"state/b and state/w: b is not y \(lam \+ w\)", "state/b"),
        Case(k, "forged-polya-gamma-generator",
             lambda f: _load(f.forged("gslda", _set("state/pg_generator",
                                                   lambda a: a * np.uint64(0)))),
             "ValueError", r"pg_generator is not a PCG64 state", "pg_generator"),
        Case(k, "forged-polya-gamma-buffered-half",
             lambda f: _load(f.forged("gslda", _set("state/pg_generator",
                                                   lambda a: _with(a, 5, 2**40)))),
             "ValueError", r"pg_generator is not a PCG64 state", "pg_generator"),
        Case(k, "forged-polya-gamma-draws-beyond-their-range",
             lambda f: _load(f.forged("gslda", _set("state/w", lambda a: a * 0 + 1.7e308))),
             "ValueError", r"w must hold the Polya-Gamma draws omega, finite, in \[0, 1e\+100\]",
             "state/w"),
        Case(k, "forged-logistic-augmentation",
             lambda f: _load(f.forged("gslda", _set("state/b", lambda a: a * 2))),
             "ValueError", r"b is not c y / 2", "state/b"),
        Case(k, "forged-empty-alias-tables",
             lambda f: _load(f.forged("alias", _set("state/wt_q", lambda a: a * 0))),
             "ValueError", "state/wt_q and wt_mass: a table in use must hold positive",
             "wt_q"),
        Case(k, "forged-trace-of-the-wrong-shape",
             lambda f: _load(f.forged("light", _set("trace/eta", lambda a: a[:, :, :1]))),
             "ValueError", r"field 'trace/eta': has shape \(2, 1, 1\)", "trace/eta"),
        Case(k, "forged-meta-not-json", _not_json, "ValueError",
             "field 'meta': is not valid JSON", "meta"),
        Case(k, "pickled-object-member", pickled_member, "ValueError",
             "field 'meta': cannot be read .*dtype object", "meta"),
        Case(k, "decompression-bomb", lzma_bomb, "ValueError",
             r"field 'meta': declares 67108870 bytes from \d+ compressed", "meta"),
        Case(k, "header-larger-than-the-member", huge_header, "ValueError",
             r"field 'meta': cannot be read .*declares shape \(1000000000000,\)", "meta"),
    ]


def _not_json(f):
    with np.load(f.checkpoint("lda"), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["meta"] = np.frombuffer(b"{not json", np.uint8)
    path = f.tmp / "notjson.npz"
    np.savez(path, **arrays)
    return _load(path)


def _estimator_cases() -> list[Case]:
    from topicsup.estimators import MedLDAClassifier

    def est(**kw):
        return MedLDAClassifier(**{"n_topics": 3, "n_iter": 2, **kw})

    def fitted(f):
        return f._get("est", lambda: est().fit(f.X, f.y))

    e = "estimators"
    return [
        Case("estimators", "regressor-setting-its-loss-ignores",
             lambda f: __import__("topicsup.estimators", fromlist=["x"]).SupervisedLDARegressor(
                 3, n_iter=2, lam=5.0).fit(f.responses.to_matrix(), f.responses.labels.values),
             "ValueError", r"lam=5.0 \(loss='gaussian' does not use it\)", "lam"),
        Case(e, "nan-label", lambda f: est().fit(f.X, np.r_[np.nan, np.ones(59)]),
             "ValueError", "Input y contains NaN", "y"),
        Case(e, "continuous-target", lambda f: est().fit(f.X, np.linspace(0, 1, 60)),
             "ValueError", "Unknown label type: continuous", "label"),
        Case(e, "one-class", lambda f: est().fit(f.X, np.ones(60)), "ValueError",
             "at least 2 classes .* only one class", "class"),
        Case(e, "negative-counts", lambda f: est().fit(-f.X.toarray(), f.y), "ValueError",
             r"Negative values in data passed to MedLDAClassifier \(input X\)", "X"),
        Case(e, "fractional-counts", lambda f: est().fit(f.X.toarray() * 0.5, f.y),
             "ValueError", "X must hold integer counts", "X"),
        Case(e, "predict-before-fit", lambda f: est().predict(f.X), "NotFittedError",
             "This MedLDAClassifier instance is not fitted yet", "MedLDAClassifier"),
        Case(e, "predict-other-width", lambda f: fitted(f).predict(f.X[:, :5]), "ValueError",
             "X has 5 features, but MedLDAClassifier is expecting", "X"),
        Case(e, "n-topics-a-string", lambda f: est(n_topics="5").fit(f.X, f.y), "TypeError",
             "n_topics must be an integer", "n_topics"),
        Case(e, "negative-lam", lambda f: est(lam=-1.0).fit(f.X, f.y), "ValueError",
             "lam must be a finite number", "lam"),
        Case(e, "negative-random-state", lambda f: est(random_state=-1).fit(f.X, f.y),
             "ValueError", "random_state must be an integer", "random_state"),
        Case(e, "vocabulary-as-a-set", lambda f: est(vocabulary={"a", "b"}).fit(f.X, f.y),
             "TypeError", "vocabulary must be a sequence of str", "vocabulary"),
        Case(e, "texts-on-unnamed-columns",
             lambda f: fitted(f).predict(["rocket orbit"]), "ValueError",
             "fitted on a count matrix without word names", "vocabulary"),
        Case(e, "labels-mixing-types", lambda f: est().fit(f.X, [1, "a"] * 30), "TypeError",
             "y mix numbers and strings", "y"),
        Case(e, "zero-threads", lambda f: est(n_jobs=0).fit(f.X, f.y), "ValueError",
             "n_jobs must be a positive number", "n_jobs"),
        Case(e, "ragged-label-lists", lambda f: est().fit(f.X, [[0, 1], [1]] * 30),
             "ValueError", "rows have different lengths", "y"),
        Case(e, "multilabel-score-of-the-wrong-length",
             lambda f: est().fit(f.X, [{"a"}, {"b"}] * 30).score(f.X[:50], [{"a"}] * 60),
             "ValueError", "y must give one set of labels for each of the 50 documents", "y"),
        Case(e, "texts-with-a-none",
             lambda f: est(vocabulary=list(f.corpus.vocabulary)).fit(f.X, f.y).predict(
                 ["orbit", None]),
             "TypeError", r"docs\[1\] is a NoneType", "docs"),
        Case(e, "label-matrix-without-columns",
             lambda f: est().fit(f.X, np.zeros((60, 0))), "ValueError",
             "y has no columns", "y"),
        Case(e, "classifier-setting-its-loss-ignores",
             lambda f: est(loss="logistic", lam=5.0).fit(f.X, f.y), "ValueError",
             r"lam=5.0 \(loss='logistic' does not use it\)", "lam"),
        Case(e, "logistic-c-a-string", lambda f: est(loss="logistic", c="25").fit(f.X, f.y),
             "TypeError", "c must be a number", "c"),
        Case(e, "unknown-classification-loss",
             lambda f: est(loss="squared").fit(f.X, f.y), "ValueError",
             "loss must be one of", "loss"),
    ]


def _loader_cases() -> list[Case]:
    from topicsup.datasets import load_20newsgroups, make_synthetic

    def archive(f):
        return f._get("archive", lambda: f.raw_file("20news-bydate.tar.gz", b"not a tar"))

    ld = "loaders"
    return [
        Case(ld, "unknown-subset", lambda f: load_20newsgroups("dev"), "ValueError",
             "subset must be one of", "subset"),
        Case(ld, "categories-a-string", lambda f: load_20newsgroups(categories="sci.med"),
             "TypeError", "categories must be a list of newsgroup names", "categories"),
        Case(ld, "unknown-newsgroup", lambda f: load_20newsgroups(categories=["sci.cooking"]),
             "ValueError", "unknown newsgroup", "sci.cooking"),
        Case(ld, "missing-archive",
             lambda f: load_20newsgroups(path=f.tmp / "none.tar.gz", download=False),
             "FileNotFoundError", "does not exist", "path"),
        Case(ld, "archive-not-a-tar", lambda f: load_20newsgroups(path=archive(f)),
             "ValueError", "is not a readable gzip tar archive", "20news-bydate.tar.gz"),
        Case(ld, "min-count-zero", lambda f: load_20newsgroups(min_count=0), "ValueError",
             r"min_count must be an integer >= 1", "min_count"),
        Case(ld, "cache-dir-a-number", lambda f: load_20newsgroups(cache_dir=5), "TypeError",
             "cache_dir must be a file path", "cache_dir"),
        Case(ld, "return-frame-a-string", lambda f: load_20newsgroups(return_frame="no"),
             "TypeError", "return_frame must be True or False", "return_frame"),
        Case(ld, "synthetic-nan-weight-scale",
             lambda f: make_synthetic(n_docs=20, weight_scale=math.nan), "ValueError",
             "weight_scale must be a finite number", "weight_scale"),
        Case(ld, "synthetic-negative-seed", lambda f: make_synthetic(n_docs=20, seed=-1),
             "ValueError", "seed must be an integer", "seed"),
        Case(ld, "synthetic-unknown-task", lambda f: make_synthetic(task="ranking"),
             "ValueError", "task must be one of", "task"),
    ]


def _widget_cases() -> list[Case]:
    from topicsup.inspector import TokenInspector

    def dash(f, **kw):
        from topicsup.widgets import Dashboard
        return Dashboard(f.lda, **kw)

    def inspector(f, **kw):
        from topicsup.widgets import InspectorWidget
        return InspectorWidget(f.lda, **kw)

    wd = "widgets"
    return [
        Case(wd, "dashboard-of-a-string",
             lambda f: __import__("topicsup.widgets").widgets.Dashboard("x"), "TypeError",
             "session must be a topicsup Session", "session"),
        Case(wd, "views-a-string", lambda f: dash(f, views="loglik"), "TypeError",
             "views must be a list or tuple", "views"),
        Case(wd, "views-repeated", lambda f: dash(f, views=["loglik", "loglik"]), "ValueError",
             "views lists a view twice", "views"),
        Case(wd, "sweeps-absurd", lambda f: dash(f, sweeps=10**10), "ValueError",
             r"sweeps must be an integer in \[1, 1000000000\]", "sweeps"),
        Case(wd, "refresh-nan", lambda f: dash(f, refresh_seconds=math.nan), "ValueError",
             "refresh_seconds must be a finite number", "refresh_seconds"),
        Case(wd, "run-zero-sweeps", lambda f: dash(f).run(0), "ValueError",
             "n must be an integer in", "n"),
        Case(wd, "inspector-no-topics", lambda f: inspector(f, max_topics=0), "ValueError",
             r"max_topics must be an integer in \[1, 100000\]", "max_topics"),
        Case(wd, "inspector-negative-document", lambda f: inspector(f, doc=-1), "ValueError",
             r"doc must be an integer in \[0, 59\]", "doc"),
        Case(wd, "inspector-generator-too-short",
             lambda f: setattr(TokenInspector(f.lda), "rng", np.ones(1, np.uint64)), "TypeError",
             r"rng must be a xoshiro state: a uint64 array of shape \(4,\)", "rng"),
        Case(wd, "inspector-step-zero", lambda f: inspector(f).step(0), "ValueError",
             "n must be an integer >= 1", "n"),
    ]


def _view_cases() -> list[Case]:
    from topicsup import views
    from topicsup.report import write_report
    v = "views"
    return [
        Case(v, "heatmap-for-an-unknown-target",
             lambda f: views.coefficient_heatmap(f.light.coefficients(), target="label"),
             "ValueError", "target must be one of", "target"),
        Case(v, "thin-to-nothing", lambda f: views.thin(f.lda.history, 0), "ValueError",
             "max_rows must be an integer >= 1, got 0", "max_rows"),
        Case(v, "heatmap-of-nan",
             lambda f: views.coefficient_heatmap(f.light.coefficients().assign(mean=np.nan)),
             "ValueError", "coefficients has non-finite values", "coefficients"),
        Case(v, "conditional-chart-of-none", lambda f: views.conditional_chart(None),
             "TypeError", "table must be a pandas DataFrame", "table"),
        Case(v, "trace-features-a-float",
             lambda f: views.weight_trace_chart(f.light.weights(), features=0.0), "TypeError",
             "features must be a name, a number or a list", "features"),
        Case(v, "thin-by-a-missing-column", lambda f: views.thin(f.lda.history, by="nope"),
             "ValueError", "by must be a column of the frame, got 'nope'", "by"),
        Case(v, "heatmap-of-too-many-tasks", lambda f: views.coefficient_heatmap(
            __import__("pandas").DataFrame({"task": range(5000), "feature": "t",
                                            "mean": 1.0, "lower": 0.0, "upper": 2.0})),
             "ValueError", "coefficients has 5000 tasks, more than a heatmap can draw",
             "tasks"),
        Case(v, "report-title-none",
             lambda f: write_report(f.lda, f.tmp / "r.html", title=None), "TypeError",
             "title must be a str", "title"),
    ]


def all_cases() -> list[Case]:
    return (_corpus_cases() + _model_cases() + _session_cases() + _checkpoint_cases()
            + _estimator_cases() + _loader_cases() + _widget_cases() + _view_cases())


def harness_cases() -> list[Case]:
    """Cases that test the runner itself (not in the battery): a segmentation fault and a
    call that returns without an error must both be reported as failures."""
    import ctypes
    h = "harness"
    return [Case(h, "segfault", lambda f: ctypes.string_at(0), "ValueError", "", ""),
            Case(h, "silent", lambda f: None, "ValueError", "", "")]


# ---------------------------------------------------------------------- running
def _check(case: Case, exc: BaseException | None) -> tuple[bool, str]:
    if exc is None:
        return False, "no exception was raised"
    names = [k.__name__ for k in type(exc).__mro__]
    message = str(exc)
    if case.error not in names:
        return False, f"raised {type(exc).__name__} ({message[:300]}), expected {case.error}"
    if not re.search(case.match, message):
        return False, f"message {message[:400]!r} does not match {case.match!r}"
    if case.input not in message:
        return False, f"message {message[:400]!r} does not name the input {case.input!r}"
    return True, f"{type(exc).__name__}: {message[:200]}"


def _alarm(signum: int, frame: Any) -> None:
    raise TimeoutError(f"the case ran longer than {CASE_SECONDS} s")


def main(argv: list[str]) -> None:
    """Child process: run the named cases, one JSON line each."""
    import faulthandler
    import warnings
    warnings.simplefilter("ignore")
    tmp = Path(argv[0])
    wanted = set(argv[1:])
    faulthandler.dump_traceback_later(STUCK_SECONDS, exit=True)
    fixtures = Fixtures(tmp)
    faulthandler.cancel_dump_traceback_later()
    signal.signal(signal.SIGALRM, _alarm)
    for case in all_cases() + harness_cases():
        if case.id not in wanted:
            continue
        print(json.dumps({"start": case.id}), flush=True)
        exc = None
        t0 = time.perf_counter()
        faulthandler.dump_traceback_later(STUCK_SECONDS, exit=True)
        signal.alarm(CASE_SECONDS)
        try:
            case.call(fixtures)
        except BaseException as e:   # noqa: BLE001 - the point is to see what comes out
            exc = e
        finally:
            signal.alarm(0)
            faulthandler.cancel_dump_traceback_later()
        ok, detail = _check(case, exc)
        if not ok and exc is not None:
            detail += "\n" + "".join(traceback.format_exception(exc))[-1500:]
        print(json.dumps({"id": case.id, "ok": ok, "detail": detail,
                          "seconds": round(time.perf_counter() - t0, 3)}), flush=True)


def run_isolated(ids: list[str], tmp: Path) -> dict[str, dict]:
    """Run the cases ``ids`` in child processes; a case during which the child died (a crash,
    or a hang the child's own watchdog ended, ``STUCK_SECONDS``) is reported as such and the
    rest continue in a fresh child. No limit on the whole: many cases on a slow machine take
    long, and that is not a failure."""
    import os
    import subprocess
    results: dict[str, dict] = {}
    root = Path(__file__).resolve().parents[1]
    todo = list(ids)
    while todo:
        proc = subprocess.run([sys.executable, "-m", "tests.bad_inputs", str(tmp), *todo],
                              cwd=root, capture_output=True, text=True,
                              env={**os.environ, "PYTHONFAULTHANDLER": "1"})
        stdout, stderr, code = proc.stdout, proc.stderr, proc.returncode
        started = None
        for line in stdout.splitlines():
            if not line.startswith("{"):
                continue
            rec = json.loads(line)
            if "start" in rec:
                started = rec["start"]
            else:
                results[rec["id"]] = rec
                started = None
        todo = [i for i in todo if i not in results]
        if started is not None:   # the child ended inside this case
            results[started] = {"id": started, "ok": False,
                                "detail": f"the process died inside the case (exit code "
                                          f"{code}):\n{stderr[-2000:]}"}
            todo.remove(started)
        elif todo:
            for i in todo:
                results[i] = {"id": i, "ok": False,
                              "detail": f"the child ended before the case ran (exit code "
                                        f"{code}):\n{stderr[-2000:]}"}
            todo = []
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
