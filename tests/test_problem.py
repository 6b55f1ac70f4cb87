"""The problem bound once (issue 36): what a chain reads of (model, corpus) is derived when a
Session starts (``Model.bind``: ``topicsup.problem.Problem``), a sweep's features are
computed once, and each part names its checkpointed arrays in one place (``Part.SAVED``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import topicsup.models.supervised as supervised_module
from topicsup import Session
from topicsup.corpus import Corpus, Labels
from topicsup.inspector import TokenInspector
from topicsup.kernels.counts import tokens_of
from topicsup.losses import REGISTRY as LOSSES
from topicsup.models import DMR, LDA, PDPLDA, HDPLDA, MCMedLDA, SupervisedLDA
from topicsup.models.presets import DOLDA
from topicsup.priors import REGISTRY as PRIORS
from topicsup.samplers import REGISTRY as SAMPLERS
from topicsup.testing.exact import tiny_corpus

DOCS = [[0, 1, 2, 1], [2, 3, 3], [0, 4, 1, 4, 2], [3, 1, 0]]


def _labelled(labels=("a", "b", "a", "c"), covariates=None) -> Corpus:
    return tiny_corpus(DOCS, labels=list(labels), covariates=covariates)


class _Counting:
    """Wraps a function of a module, counting its calls."""

    def __init__(self, monkeypatch, module, name):
        self.calls, self._f = 0, getattr(module, name)
        monkeypatch.setattr(module, name, self)

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self._f(*args, **kwargs)


class _CountingMethod:
    """Wraps a method of a class, counting its calls (on any instance)."""

    def __init__(self, monkeypatch, cls, name):
        self.calls, f = 0, getattr(cls, name)

        def counted(obj, *args, **kwargs):
            self.calls += 1
            return f(obj, *args, **kwargs)
        monkeypatch.setattr(cls, name, counted)


def test_a_session_builds_the_label_task_once(monkeypatch, tmp_path):
    corpus = _labelled()
    calls = _Counting(monkeypatch, supervised_module, "task_for")
    s = Session(SupervisedLDA(K=3, sampler="light"), corpus, seed=1)
    assert calls.calls == 1
    s.sweep(2)
    assert calls.calls == 1   # the sweeps read the bound task and targets
    path = s.save(tmp_path / "s.npz")
    calls.calls = 0
    Session.load(path)
    assert calls.calls == 1


def test_no_reader_derives_the_label_task_again(monkeypatch, tmp_path):
    """Every reader of a chain takes its ``Fit``, whose problem holds the label task, the
    targets, the weights' names and kinds: the task is derived once when a Session starts
    (and once when one loads), and never by a read-out, a held-out fold-in, a prediction, a
    score, a setting changed, the chains' diagnostics or a prevalence draw (issue 48)."""
    from topicsup import summaries
    from topicsup.chains import Chains
    from topicsup.prevalence import PrevalenceDraws
    corpus = _labelled(covariates=np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]]))
    held = tiny_corpus([[0, 1, 4], [2, 3]], labels=["a", "c"], covariates=np.ones((2, 2)))
    derived = _CountingMethod(monkeypatch, SupervisedLDA, "_labels")
    built = _Counting(monkeypatch, supervised_module, "task_for")
    s = Session(SupervisedLDA(K=3, sampler="light", intercept=True), corpus, seed=1)
    chains = Chains(SupervisedLDA(K=3, sampler="gibbs"), corpus, n_chains=2, seed=3)
    assert (derived.calls, built.calls) == (3, 3)   # one per Session
    draws = PrevalenceDraws(s)
    s.run(3, callback=draws.collect)
    chains.run(4)
    s.set_params(mh_steps=3)
    s.set_topic_labels({0: "first"})
    s.topics(3), s.topic_terms(3), s.label_topics(3), s.topic_labels(), s.doc_topics()
    s.coefficients(), s.weights(), s.signal_topics(), s.shrinkage(), s.feature_names()
    s.representative_docs(1, cls="a"), s.readout(summaries.topic_map), s.summary()
    s.readout(summaries.topic_sizes), s.coherence(3), s.mean_weights(), s.to_arviz()
    s.decision_function(held), s.predict(held), s.score(held), s.fold_in(held)
    s.score(held.take([0, 1]), labels=["c", "a"]), s.perplexity(held)
    s.decision_function(held, snapshots=[s.topic_snapshot()])
    draws.prevalence(), draws.effects()
    chains.diagnostics(), chains.convergence(weights=True), chains.weight_draws()
    assert (derived.calls, built.calls) == (3, 3)
    path = s.save(tmp_path / "s.npz")
    r = Session.load(path)
    assert (derived.calls, built.calls) == (4, 4)   # the load binds once
    r.run(1), r.predict(held), r.coefficients()
    assert (derived.calls, built.calls) == (4, 4)


@pytest.mark.parametrize("log_joint_every", [1, 0])
def test_a_sweep_computes_its_features_once(monkeypatch, log_joint_every):
    """The weight draw and the log joint read the same features (zbar_d, x_d): one
    ``topic_rows`` per sweep (a second one would mean the problem is re-derived)."""
    corpus = _labelled(covariates=np.arange(8.0).reshape(4, 2))
    s = Session(DOLDA(K=3), corpus, seed=2, log_joint_every=log_joint_every)
    rows = _Counting(monkeypatch, supervised_module, "topic_rows")
    s.sweep(3)
    assert rows.calls == 3


def test_the_features_follow_the_topics_after_the_inspector_moves_them():
    """The inspector resamples tokens of the live state: the features kept from the sweep's
    end are dropped, so the log joint is the one of the new topics."""
    corpus = _labelled()
    s = Session(SupervisedLDA(K=3), corpus, seed=3)
    s.sweep(1)
    insp = TokenInspector(s, doc=2, seed=4)
    before = s.state.z.copy()
    while np.array_equal(s.state.z, before):
        insp.step()
    fresh = s.state.copy()
    fresh.supervision.features = None
    assert s.model.log_joint(s.state, s.problem) == s.model.log_joint(fresh, s.problem)


@pytest.mark.parametrize("model", [
    LDA(K=3, alpha=(0.1, 0.2, 0.3)), SupervisedLDA(K=3, intercept=True), DOLDA(K=2),
    MCMedLDA(K=2), PDPLDA(K=2), HDPLDA(K=4), DMR(K=2)], ids=lambda m: type(m).__name__)
def test_the_problem_is_what_the_model_derives_from_its_corpus(model):
    corpus = _labelled(covariates=np.arange(8.0).reshape(4, 2))
    p = model.bind(corpus)
    assert p.model is model and p.corpus is corpus and p.K == model.K
    want = tokens_of(corpus.words, corpus.doc_ptr, corpus.n_words)
    for a, b in zip(p.tokens, want):
        np.testing.assert_array_equal(a, b)
    assert p.supervised == model.supervised
    if type(model).__name__ != "HDPLDA":   # its documents' prior is part of its state
        np.testing.assert_array_equal(p.alpha, model.alpha_vector)
        assert p.symmetric == (not model.alpha_is_vector)
    if model.supervised:
        task = model.task(corpus)
        np.testing.assert_array_equal(p.targets, task.encode(corpus.labels))
        np.testing.assert_array_equal(p.covariates, model.covariate_matrix(corpus))
        assert list(p.task_names) == task.names(corpus.labels)
        assert p.task == task and p.n_tasks == task.n_tasks(corpus.labels)
        intercept = ("intercept",) * int(model.intercept)
        assert p.feature_kinds == ("topic",) * model.K + intercept + ("covariate",) * 2
        assert p.n_features == len(p.feature_kinds)
    else:
        assert p.task is None and p.targets.shape == (0, 4) and p.covariates.shape == (4, 0)
        assert p.feature_kinds == ("topic",) * model.K


def test_bind_checks_the_corpus_and_names_the_problem():
    with pytest.raises(TypeError, match="corpus must be a topicsup.Corpus"):
        LDA(K=2).bind([[0, 1]])
    unlabelled = tiny_corpus(DOCS)
    with pytest.raises(ValueError, match="SupervisedLDA needs a labelled corpus"):
        SupervisedLDA(K=2).bind(unlabelled)
    one_class = dataclasses.replace(tiny_corpus(DOCS),
                                    labels=Labels("binary", np.zeros(4, np.int32), ("a", "b")))
    with pytest.raises(ValueError, match="at least 2 classes"):
        SupervisedLDA(K=2).bind(one_class)
    # a joint test's draw of labels may hold one class: the fit's guard can be skipped
    assert SupervisedLDA(K=2).bind(one_class, check_labels=False).n_tasks == 1


def _part_models():
    """A model for every registered sampler, loss and prior (the parts whose records a
    checkpoint saves), with the settings that give each its saved arrays."""
    for name in SAMPLERS:
        cls = SAMPLERS.get(name)
        if cls.supports_supervision:
            yield SupervisedLDA(K=2, sampler=name)
        if name != "importance":
            extra = {"word_proposal": "stale"} if name == "light" else {}
            yield LDA(K=2, sampler=name, **extra)
    yield MCMedLDA.importance(K=2)
    for name in LOSSES:
        yield SupervisedLDA(K=2, loss=name)
    for name in PRIORS:
        yield SupervisedLDA(K=2, prior=name, lda_init_sweeps=1)
    yield PDPLDA(K=2, sampler="alias")
    yield HDPLDA(K=3, sampler="alias")
    yield MCMedLDA(K=2)


@pytest.mark.parametrize("model", list(_part_models()), ids=repr)
def test_each_saved_array_is_named_once_and_is_part_of_the_state(model):
    """``saved_paths`` (from the model and its parts' ``SAVED``) names arrays of the state,
    each once; ``saved_state`` and ``saved_arrays`` are read from it, so they agree."""
    labels = ([0.5, -1.0, 2.0, 0.1] if model.supervised and model.get_params().get("loss") in
              ("gaussian", "epsilon_insensitive") else ("a", "b", "a", "c"))
    corpus = _labelled(labels) if model.supervised else tiny_corpus(DOCS)
    s = Session(model, corpus, seed=5)
    paths = s.model.saved_paths()
    assert list(paths) == list(s.model.saved_state)
    arrays = s.model.saved_arrays(s.state)
    assert list(arrays) == list(paths)
    every = s.state.arrays()
    for name, path in paths.items():
        assert path in every, f"{name}: {path} is not an array of the state"
        assert arrays[name] is every[path]
    assert len(set(paths.values())) == len(paths)
    for part in s.model.parts.values():
        assert part.saved_names() == tuple(part.saved_fields())

