"""What a refresh costs does not grow with the corpus: the dashboard (every view its model
has, the timing views too), the Explorer and the read-outs behind them, measured with
``tracemalloc`` (which sees numpy's buffers) on two corpora of the same documents, one
holding the other's fifty times over (so the documents shown are alike in length). A
refresh that copied the assignments (4 bytes a token), theta (8 K bytes a document) or a
per-document list would show it in the difference; the read-outs take theta in chunks (``summaries.CHUNK_VALUES``, made small here
so that the larger corpus spans many chunks).

LightMedLDA with the light sampler is the worst case: it keeps no n_dk, so a read-out of
theta counts it from z."""

from __future__ import annotations

import dataclasses
import gc
import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest

from topicsup import summaries
from topicsup.models import LightMedLDA
from topicsup.session import Session
from topicsup.synthetic import make_synthetic
from topicsup.widgets import Explorer
from topicsup.widgets.dashboard import Dashboard

SMALL, COPIES = 400, 50   # documents, and how often the larger corpus holds them
LARGE = SMALL * COPIES
DOC_LENGTH = 40
NEVER = 3600.0   # an Explorer whose thread must not act during the count
# What the larger corpus may add to a refresh's peak. Two chains do not show the same words
# (labels, text), which moves the peak by up to ~4 KB whatever the corpus's size (measured:
# the same at 5 copies as at 1, at 40 as at 20); a copy of the narrowest per-document array,
# a boolean mask, adds LARGE - SMALL = 19,600 bytes, theta's column 156,800, z 3 MB.
ALLOWED = 10_000


def _session(copies: int) -> Session:
    drawn = make_synthetic(n_docs=2 * SMALL, n_topics=8, doc_length=DOC_LENGTH + 10,
                           task="multiclass", n_classes=3, seed=1).corpus
    # SMALL documents cut to DOC_LENGTH tokens each: whichever documents a read-out shows,
    # their text is as long
    long = np.flatnonzero(drawn.doc_lengths >= DOC_LENGTH)[:SMALL]
    assert long.size == SMALL
    cut = drawn.take(long)
    corpus = dataclasses.replace(
        cut, words=cut.words[(cut.doc_ptr[:-1, None] + np.arange(DOC_LENGTH)).ravel()],
        doc_ptr=np.arange(SMALL + 1, dtype=np.int64) * DOC_LENGTH)
    corpus = corpus.take(np.tile(np.arange(SMALL), copies))
    s = Session(LightMedLDA(K=8, sampler="light"), corpus, seed=0)
    s.run(3)
    return s


def _peak(fn: Callable[[], object]) -> int:
    """The peak of memory allocated while ``fn`` runs, above what was held before."""
    fn()    # once before: caches, compiled kernels, the widgets' first state
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def sessions(monkeypatch_module):
    monkeypatch_module.setattr(summaries, "CHUNK_VALUES", 512)   # 64 documents a chunk
    return _session(1), _session(COPIES)


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _all_views(s: Session) -> tuple[str, ...]:
    from topicsup.view_table import applicable
    return tuple(s.readout(applicable))


@pytest.mark.parametrize("what", ["dashboard", "explorer", "representative_docs",
                                  "representative_docs_of_a_class", "topic_sizes"])
def test_a_refresh_allocates_nothing_the_size_of_the_corpus(sessions, what):
    small, large = sessions
    assert large.corpus.n_tokens == COPIES * small.corpus.n_tokens

    def refresh(s: Session) -> Callable[[], object]:
        if what == "dashboard":
            dash = Dashboard(s, refresh_seconds=0.0, views=_all_views(s))
            return lambda: dash.refresh(charts=True)
        if what == "explorer":
            ex = Explorer(s, refresh_seconds=NEVER)
            ex.close()
            return ex.refresh
        if what == "representative_docs":
            return lambda: s.representative_docs(0, n=5)
        if what == "representative_docs_of_a_class":
            return lambda: s.representative_docs(0, n=5, cls=s.corpus.labels.classes[1])
        return lambda: s.readout(summaries.topic_sizes)

    grown = _peak(refresh(large)) - _peak(refresh(small))
    assert grown < ALLOWED, (
        f"{what}: a refresh on {LARGE} documents allocated {grown:,} bytes more than on "
        f"{SMALL} (allowed {ALLOWED:,}; z is "
        f"{4 * (large.corpus.n_tokens - small.corpus.n_tokens):,} bytes more)")


def test_the_chunked_read_outs_are_the_whole_ones(sessions):
    """The chunks change no number: theta's rows, the ranking (ties by document order), the
    sizes and the entropies are those of the (D, K) matrix at once."""
    _, s = sessions
    fit_theta = s.readout(lambda fit: fit.problem.model.doc_topic(fit.state, fit.problem))
    chunks = s.readout(lambda fit: list(summaries.doc_topic_chunks(fit)))
    assert len(chunks) > 10
    assert [lo for lo, _, _ in chunks] == sorted({lo for lo, _, _ in chunks})
    np.testing.assert_array_equal(np.concatenate([t for _, _, t in chunks]), fit_theta)
    for k in range(3):
        docs = s.representative_docs(k, n=7)
        col = fit_theta[:, k]
        ranked = np.lexsort((np.arange(col.size), -col))[:7]
        np.testing.assert_array_equal(docs["doc"].to_numpy(), ranked)
        np.testing.assert_array_equal(docs["share"].to_numpy(), col[ranked])
    lead = np.bincount(fit_theta.argmax(axis=1), minlength=8)
    sizes = s.readout(summaries.topic_sizes)
    np.testing.assert_array_equal(sizes["documents"].to_numpy(), lead[sizes.index.to_numpy()])
    p = fit_theta
    np.testing.assert_allclose(s.document_entropy().to_numpy(),
                               -(p * np.log(p)).sum(axis=1), rtol=1e-12)
