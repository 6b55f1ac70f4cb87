"""The synthetic generator: shapes, determinism, label kinds, and that LDA recovers its topics."""

import numpy as np
import pytest

from topicsup.datasets import load_demo_corpus, make_synthetic
from topicsup.models import LDA
from topicsup.session import Session


@pytest.mark.parametrize("task, kind", [("binary", "binary"), ("multiclass", "multiclass"),
                                        ("multilabel", "multilabel"), ("real", "real")])
def test_tasks_shapes_and_truth(task, kind):
    s = make_synthetic(n_docs=50, n_topics=4, doc_length=20, task=task, n_classes=3,
                       n_covariates=2, seed=1)
    c = s.corpus
    assert c.labels.kind == kind and c.n_docs == 50
    assert c.covariates.shape == (50, 2)
    assert s.topic_word.shape == (4, c.n_words) and np.allclose(s.topic_word.sum(1), 1)
    assert s.z.shape == (c.n_tokens,) and s.z.max() < 4
    T = 3 if task in ("multiclass", "multilabel") else 1
    assert s.eta.shape == (T, 6) and s.scores.shape == (50, T)
    zbar = np.stack([np.bincount(s.z[c.doc_ptr[d]:c.doc_ptr[d + 1]], minlength=4)
                     / c.doc_lengths[d] for d in range(50)])
    xt = np.hstack([zbar, c.covariates])
    assert np.allclose(xt @ s.eta.T + s.intercept, s.scores)


def test_deterministic_by_seed():
    a, b = make_synthetic(seed=4), make_synthetic(seed=4)
    assert np.array_equal(a.corpus.words, b.corpus.words) and np.array_equal(a.z, b.z)
    assert not np.array_equal(make_synthetic(seed=5).corpus.words, a.corpus.words)


def test_labels_follow_the_scores():
    """Binary labels are drawn with P(y=1) = sigmoid(s): the mean score of positives is higher."""
    s = make_synthetic(n_docs=400, seed=0)
    y = s.corpus.labels.values
    assert s.scores[y == 1, 0].mean() > s.scores[y == 0, 0].mean() + 1.0


def test_lda_recovers_the_demo_topics():
    """After 150 Gibbs sweeps each true topic has a learned topic sharing >= 7 of its top 10
    words (the themes are disjoint, so this fails if the sampler does not learn)."""
    data = load_demo_corpus()
    s = Session(LDA(K=6, alpha=0.3, beta=0.05), data.corpus, seed=0)
    s.run(150)
    vocab = np.asarray(data.corpus.vocabulary)
    true_top = [set(vocab[np.argsort(-p)[:10]]) for p in data.topic_word]
    learned = [set(t.split()) for t in s.topics(10)["top_words"]]
    for k, t in enumerate(true_top):
        assert max(len(t & l) for l in learned) >= 7, data.topic_names[k]


@pytest.mark.parametrize("kw, err, msg", [
    ({"n_topics": 13}, ValueError, "n_topics"),
    ({"n_docs": 1}, ValueError, "n_docs"),
    ({"task": "ranking"}, ValueError, "task"),
    ({"topic_purity": 1.0}, ValueError, "topic_purity"),
    ({"doc_length": 2.5}, TypeError, "doc_length"),
])
def test_bad_generator_input(kw, err, msg):
    with pytest.raises(err, match=msg):
        make_synthetic(**kw)
