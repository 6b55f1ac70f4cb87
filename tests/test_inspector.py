"""The token inspector against the kernels and against the exact conditional.

Proven here:

* stepping a whole document through the inspector is the kernel's sweep over that document,
  bit for bit, for every supported sampler (LDA light: cycle, mixture, stale word tables,
  asymmetric alpha; LDA Gibbs; LightMedLDA, with stale tables, and a multi-task light model
  with covariates; MedLDA binary and multi-task): same assignments, counts, word tables,
  random stream left in the same state, and the same info record (proposals, acceptances and
  summed acceptance probabilities per kind), on documents longer than the kernel's draw-ahead
  pipeline. So the acceptance probabilities the inspector shows are the kernel's own. Two
  more sweeps of both sessions then leave identical states: sampling continues from the
  inspected state exactly as from the kernel's;
* every MH step's ratio equals p(t) q(s | t) / (p(s) q(t | s)) to rounding (1e-9), with p the
  exact conditional recomputed from the log joint of the whole state (``topicsup.testing.
  exact``, independent of the kernels and of the inspector's own formula) and q each proposal
  written out from the assignments (the stale table: its recorded values); the decision is
  u < min(1, ratio); the inspector's ``exact`` and the Gibbs kernel's conditional equal p;
* one inspector step, repeated 20,000 times from a fixed state with the token's topic drawn
  from its exact conditional, leaves the token in that conditional (docs/math.md sec. 7): a
  chi-square test, valid at its level (1e-3) for any number of draws because the draws are
  independent, for the doc, word and exp proposals alone, their compositions and Gibbs, with
  and without the supervised term;
* teeth: a mutant acceptance ratio (the doc proposal's ratio without its (n_k + V beta)
  factors, patched into the inspector's stepping) fails all three: its acceptance
  probabilities leave the kernel's (the info records differ), the ratio check misses by more
  than 1%, and the chi-square rejects it (chi2 = 397 on 2 df, p ~ 1e-87; total variation 0.05
  where an exact sampler's is about 0.003 at 20,000 draws);
* after inspecting, the session's state is what the model rebuilds from z (``check_state``),
  which also detects a broken count; AliasLDA and bad arguments are refused with clear
  errors; the tables, records and chart have the documented shape.
"""

from __future__ import annotations


import numpy as np
import pytest

from topicsup.datasets import make_synthetic
from topicsup.inspector import TokenInspector
from topicsup.kernels import light
from topicsup.kernels.rng import seed_state
from topicsup.samplers import REGISTRY as SAMPLERS
from topicsup.models import LDA, LightMedLDA, MedLDA, SupervisedLDA
from topicsup.session import Session
from topicsup.testing.exact import (goodness_of_fit, lda_log_joint_states,
                                    loss_log_factor_states, normalize_log,
                                    supervised_log_factor_states, tiny_corpus)
from topicsup.views import conditional_chart

# the state a sweep leaves behind; the rest of a state is per-call scratch
# the arrays a sweep changes, by State.arrays() name (those a state has)
CHAIN_ARRAYS = ("counts.z", "counts.n_wk", "counts.n_k", "counts.n_dk", "sampler.ndk",
                "sampler.tables.samples", "sampler.tables.q", "sampler.tables.mass",
                "sampler.tables.used")

ASYM = (0.1, 0.3, 0.05, 0.2, 0.6, 0.15)
MODELS = {
    "lda-light-cycle": ("binary", LDA(K=6, alpha=ASYM, beta=0.05, sampler="light")),
    "lda-light-mixture": ("binary", LDA(K=6, beta=0.05, sampler="light", composition="mixture",
                                        mh_steps=3, p_doc=0.3)),
    "lda-light-stale": ("binary", LDA(K=6, beta=0.05, sampler="light", word_proposal="stale",
                                      composition="mixture", mh_steps=4)),
    "lda-gibbs": ("binary", LDA(K=6, alpha=ASYM, beta=0.05)),
    "lightmedlda": ("binary", LightMedLDA(K=6, lam=4.0, nu=2.0)),
    "lightmedlda-published": ("binary", LightMedLDA.as_published(K=6, lam=4.0, nu=2.0)),
    "light-multitask-cycle": ("multiclass", SupervisedLDA(K=6, lam=4.0, sampler="light",
                                                          composition="cycle", mh_steps=3)),
    "lightmedlda-stale": ("binary", LightMedLDA(K=6, lam=4.0, word_proposal="stale",
                                                proposal_weights=(1, 2, 1))),
    "medlda": ("binary", MedLDA(K=6, lam=4.0)),
    "medlda-multitask": ("multiclass", MedLDA(K=6, lam=4.0)),
    "lightmedlda-marginal": ("multiclass", LightMedLDA(K=6, lam=4.0, supervised_factor="marginal",
                                                       composition="cycle",
                                                       proposal_weights=(1, 1, 1))),
    "lightmedlda-marginal-mixture": ("binary", LightMedLDA(K=6, lam=4.0,
                                                           supervised_factor="marginal",
                                                           composition="mixture")),
    "medlda-marginal": ("multiclass", MedLDA(K=6, lam=4.0, supervised_factor="marginal")),
    # DOLDA's probit, w shared per task: the label term through the K x K matrix (no
    # intercept: the exact-conditional harness scores topics and covariates only)
    "do-probit-gibbs": ("multiclass", SupervisedLDA(K=6, loss="do_probit", sampler="gibbs")),
}


@pytest.fixture(scope="module")
def corpora():
    return {"binary": make_synthetic(n_docs=40, n_topics=6, doc_length=30, seed=3).corpus,
            "multiclass": make_synthetic(n_docs=40, n_topics=6, doc_length=30, seed=4,
                                         task="multiclass", n_covariates=2).corpus}


def _session(corpora, name, seed=1, sweeps=3):
    task, model = MODELS[name]
    s = Session(model, corpora[task], seed=seed)
    s.run(sweeps)   # weights away from zero, word tables in use
    return s


@pytest.mark.parametrize("name", list(MODELS))
def test_a_document_through_the_inspector_is_the_kernels_sweep_bit_for_bit(corpora, name):
    """Two equal sessions; on three documents (of more than light.LEAD tokens each) one gets
    model.sweep_block, the other the inspector's run_document, from the same generator state:
    every chain array, the generator's final state and the info record are identical after
    each document. Then both sessions run two more sweeps and their whole states (weights,
    augmentation, scores included) are still identical: sampling continues from the
    inspected state exactly as from the kernel's."""
    by_kernel, inspected = _session(corpora, name), _session(corpora, name)
    for d in (0, 7, 23):
        assert by_kernel.corpus.doc_lengths[d] > light.LEAD
        rng = seed_state(17, stream=d)
        info = np.zeros(by_kernel.model.info_size)
        kernel_rng = rng.copy()
        by_kernel.model.sweep_block(by_kernel.state, by_kernel.problem, kernel_rng, d, d + 1,
                                    info)
        insp = TokenInspector(inspected, d)
        insp.rng[:] = rng
        records = insp.run_document()
        assert len(records) == inspected.corpus.doc_lengths[d]
        mine, theirs = inspected.state.arrays(), by_kernel.state.arrays()
        for k in CHAIN_ARRAYS:
            if k in mine:
                np.testing.assert_array_equal(mine[k], theirs[k], err_msg=k)
        np.testing.assert_array_equal(insp.rng, kernel_rng)
        np.testing.assert_array_equal(insp.info, info)
    insp.check_state()
    by_kernel.run(2)
    inspected.run(2)
    insp.check_state()
    theirs = by_kernel.state.arrays()
    for k, v in inspected.state.arrays().items():
        if not k.startswith("supervision.scratch"):   # work arrays within a block
            np.testing.assert_array_equal(v, theirs[k], err_msg=k)
    np.testing.assert_array_equal(inspected.metric("log_joint"), by_kernel.metric("log_joint"))


def _conditional_from_joint(s, i):
    """p(z_i = k | rest) from the log joint of the whole state with z_i = k."""
    st, m, corpus = s.state, s.model, s.corpus
    Z = np.repeat(st.z[None, :], m.K, axis=0)
    Z[:, i] = np.arange(m.K)
    logp = lda_log_joint_states(corpus, m.K, m.alpha_vector, m.beta, Z)
    sup = st.supervision
    if sup is not None and m.supervised_factor == "marginal":
        logp = logp + loss_log_factor_states(corpus, m.K, sup.weights.eta, sup.y,
                                             m.loss_function, Z)
    elif sup is not None:
        logp = logp + supervised_log_factor_states(corpus, m.K, sup.weights.eta, sup.loss.b,
                                                   sup.loss.w, Z)
    return normalize_log(logp)


def _proposal_from(kind, x, s, z, i, d, step):
    """q(. | x): the proposal of ``kind`` from state x (token i at x), written out here from
    the assignments ``z`` (the stale table is state, not counts: its recorded values)."""
    m, corpus, st = s.model, s.corpus, s.state
    p0, p1 = corpus.doc_ptr[d], corpus.doc_ptr[d + 1]
    others = np.delete(np.arange(corpus.n_tokens), i)
    if kind == "doc":
        in_doc = others[(others >= p0) & (others < p1)]
        q = np.bincount(z[in_doc], minlength=m.K) + m.alpha_vector
    elif kind == "word" and m.word_proposal == "exact":
        same = others[corpus.words[others] == corpus.words[i]]
        q = np.bincount(z[same], minlength=m.K) + m.beta
    elif kind == "word":
        return step.proposal
    else:
        N = p1 - p0
        sup = st.supervision
        eta_kt, b, w = sup.weights.eta_kt, sup.loss.b[:, d], sup.loss.w[:, d]
        if m.supervised_factor == "marginal":   # the hinge's slope 2 lam y at a zero score
            return normalize_log((eta_kt * 2 * m.lam * sup.y[:, d] / N).sum(1))
        A = (eta_kt * b / N).sum(1) - (w * eta_kt ** 2).sum(1) / (2 * N ** 2)
        return normalize_log(A)
    q = q.astype(float)
    q[x] += 1
    return q / q.sum()


def _ratio_errors(s, d):
    """Step every token of document d once; return (kind, relative error) of every MH step's
    ratio (t != s) against p(t) q(s|t) / (p(s) q(t|s)) from the joint and the written-out
    proposals; check decisions and the exact conditional on the way."""
    insp = TokenInspector(s, d, seed=d)
    errors = []
    while not insp.done:
        i = s.corpus.doc_ptr[d] + insp.position
        z = s.state.z.copy()
        p = _conditional_from_joint(s, i)
        rec = insp.step()
        np.testing.assert_allclose(rec.exact, p, rtol=1e-9, atol=1e-300)
        for st in rec.steps:
            assert st.accepted == (st.ratio >= 1.0 or st.u < st.ratio)
            assert st.acceptance == min(st.ratio, 1.0)
            if st.kind == "conditional":
                np.testing.assert_allclose(st.proposal, p, rtol=1e-10, atol=1e-300)
                continue
            if st.proposed == st.current:
                assert st.ratio == 1.0 and st.accepted
                continue
            q_from_s = _proposal_from(st.kind, st.current, s, z, i, d, st)
            q_from_t = _proposal_from(st.kind, st.proposed, s, z, i, d, st)
            np.testing.assert_allclose(st.proposal, q_from_s, rtol=1e-12)
            expected = (p[st.proposed] * q_from_t[st.current]) / \
                (p[st.current] * q_from_s[st.proposed])
            errors.append((st.kind, abs(st.ratio / expected - 1.0)))
        moved = [st.proposed for st in rec.steps if st.moved]
        assert rec.new_topic == (moved[-1] if moved else rec.old_topic)
    return errors


@pytest.fixture(scope="module")
def small():
    return {"binary": make_synthetic(n_docs=10, n_topics=4, doc_length=20, seed=8).corpus,
            "multiclass": make_synthetic(n_docs=10, n_topics=4, doc_length=20, seed=9,
                                         task="multiclass", n_covariates=1).corpus}


def _small_session(small, name):
    """The model of MODELS[name] with K = 4 on a 10-document corpus, after 3 sweeps."""
    task, model = MODELS[name]
    alpha = model.alpha[:4] if isinstance(model.alpha, tuple) else model.alpha
    s = Session(model.replace(K=4, alpha=alpha), small[task], seed=2)
    s.run(3)
    return s


@pytest.mark.parametrize("name", list(MODELS))
def test_every_ratio_is_the_mh_ratio_of_the_exact_conditional(small, name):
    """On 3 documents of about 20 tokens per model, every proposal kind seen: ratios agree
    with p(t) q(s|t) / (p(s) q(t|s)) to 1e-9 (rounding), decisions are u < min(1, ratio),
    exact = the joint's conditional (Gibbs: the kernel's conditional too)."""
    s = _small_session(small, name)
    checked = [e for d in (1, 4, 7) for e in _ratio_errors(s, d)]
    if s.model.sampler == "light":
        order = s.model.topic_sampler.cycle_order(s.model.supervised)   # positive weight
        used = {light.SUPERVISED_KINDS[k] for k in order}
        assert {kind for kind, _ in checked} == used
        errors = np.array([e for _, e in checked])
        assert len(errors) >= 15 and errors.max() < 1e-9, (len(errors), errors.max())


def _without_nk(nwk_t, nwk_s, n_t, n_s, beta, V_beta):
    """Mutant doc-step ratio: the (n_k + V beta) factors forgotten."""
    return (nwk_t + beta) / (nwk_s + beta)


def test_a_wrong_ratio_fails_the_kernel_agreement_and_the_ratio_check(corpora, small,
                                                                      monkeypatch):
    """Teeth: with the mutant ratio patched in, the inspector's acceptance probabilities leave
    the kernel's (summed per kind in the info record) and the ratio check misses by more than
    1%."""
    monkeypatch.setattr(light, "doc_step_ratio", _without_nk)
    s = _session(corpora, "lda-light-cycle")
    before = s.state.copy()
    rng = seed_state(17)
    info = np.zeros(s.model.info_size)
    s.model.sweep_block(before, s.problem, rng.copy(), 0, 1, info)   # compiled: not patched
    insp = TokenInspector(s, 0)
    insp.rng[:] = rng
    insp.run_document()
    assert not np.array_equal(insp.info, info)   # the acceptance probabilities it showed
    s = _small_session(small, "lda-light-cycle")
    errors = [e for d in (1, 4, 7) for kind, e in _ratio_errors(s, d) if kind == "doc"]
    assert max(errors) > 0.01, max(errors)


# ---------------------------------------------------------------------- invariance, chi-square
N_REPS = 20_000
TINY = [[0, 1, 2, 1, 0], [2, 0, 1], [1, 2, 0, 0], [3, 3, 1]]
ETA, B, W = np.array([[1.6, -1.2, 0.5]]), np.array([[1.2, -0.9, 0.7, -1.1]]), \
    np.array([[0.8, 1.3, 0.5, 0.9]])
INVARIANCE = {
    "doc-alone": LDA(K=3, alpha=(0.2, 0.5, 1.0), beta=0.3, sampler="light", mh_steps=1),
    "word-alone": LDA(K=3, alpha=(0.2, 0.5, 1.0), beta=0.3, sampler="light", mh_steps=1,
                      composition="mixture", p_doc=1e-12),
    "mixture": LDA(K=3, alpha=(0.2, 0.5, 1.0), beta=0.3, sampler="light", mh_steps=2,
                   composition="mixture"),
    "gibbs": LDA(K=3, alpha=(0.2, 0.5, 1.0), beta=0.3),
    "exp-alone": SupervisedLDA(K=3, alpha=0.4, beta=0.3, sampler="light", mh_steps=1,
                               composition="mixture", proposal_weights=(0, 0, 1)),
    "supervised-cycle": SupervisedLDA(K=3, alpha=0.4, beta=0.3, sampler="light", mh_steps=3),
    "supervised-gibbs": SupervisedLDA(K=3, alpha=0.4, beta=0.3),
    "marginal-cycle": SupervisedLDA(K=3, alpha=0.4, beta=0.3, sampler="light", mh_steps=3,
                                    supervised_factor="marginal"),
    "marginal-gibbs": SupervisedLDA(K=3, alpha=0.4, beta=0.3, supervised_factor="marginal"),
}


def _token_after_one_step(model, seed, n_reps=N_REPS):
    """Fix the tiny corpus's assignments (topic 0 crowded, so n_k differ); draw token 0's
    topic from its exact conditional p n_reps times, step it once with the inspector each
    time; return p and the topics it lands on."""
    labels = ["a", "b", "a", "b"] if isinstance(model, SupervisedLDA) else None
    s = Session(model, tiny_corpus(TINY, labels=labels), seed=0)
    st = s.state
    st.z[:] = [0, 0, 0, 1, 0, 2, 0, 0, 0, 1, 0, 0, 2, 0, 0]
    if labels:
        sup = st.supervision
        sup.weights.eta[...], sup.loss.b[...], sup.loss.w[...] = ETA, B, W
    s.model.refresh_state(st, s.problem)
    p = _conditional_from_joint(s, 0)
    starts = np.random.default_rng(seed).choice(model.K, size=n_reps, p=p)
    insp = TokenInspector(s, 0, seed=seed)
    out = np.empty(n_reps, np.int64)
    for r, k in enumerate(starts):
        old = st.z[0]
        c = st.counts
        for arr in (c.n_wk[0], c.n_k) + ((c.n_dk[0],) if c.n_dk.shape[0] else ()):
            arr[old] -= 1
            arr[k] += 1
        st.z[0] = k
        insp.restart()
        out[r] = insp.step().new_topic
    return p, out


@pytest.mark.parametrize("variant", list(INVARIANCE))
def test_one_step_leaves_the_exact_conditional_invariant(variant):
    """20,000 single-token steps started from the exact conditional end in it (p > 1e-3),
    and the target is far from uniform (the test is informative)."""
    p, out = _token_after_one_step(INVARIANCE[variant], seed=5)
    gof = goodness_of_fit(out, p)
    assert gof.pvalue > 1e-3, gof
    assert np.abs(p - 1 / 3).max() > 0.1


def test_chi_square_rejects_a_wrong_ratio(monkeypatch):
    """Teeth: the same test with the mutant doc ratio rejects at p < 1e-6."""
    monkeypatch.setattr(light, "doc_step_ratio", _without_nk)
    p, out = _token_after_one_step(INVARIANCE["doc-alone"], seed=5)
    gof = goodness_of_fit(out, p)
    assert gof.pvalue < 1e-6, gof


# ---------------------------------------------------------------------- API
def test_frames_positions_and_passes(corpora):
    """doc_tokens marks the next token; conditional_table has the sampler's proposals; a
    pass ends after N_d steps and the next step starts a new one; a session run between
    steps is noticed and the document reloaded."""
    s = _session(corpora, "lightmedlda")
    insp = TokenInspector(s, 2)
    N = insp.n_tokens
    tokens = insp.doc_tokens()
    assert list(tokens.columns) == ["position", "token", "word", "topic", "next"]
    assert len(tokens) == N and tokens["next"].tolist() == [True] + [False] * (N - 1)
    assert list(s.corpus.document(2)) == tokens["word"].tolist()
    table = insp.conditional_table()
    assert list(table.columns) == ["topic", "exact", "proposal_doc", "proposal_word",
                                   "proposal_exp"]
    np.testing.assert_allclose(table.drop(columns="topic").sum(), 1.0)
    rec = insp.step()
    assert rec.position == 0 and insp.position == 1 and insp.doc_tokens()["next"][1]
    assert rec.conditional_table()["exact"].equals(table["exact"])
    assert len(rec.steps) == s.model.mh_steps and len(rec.steps_frame()) == s.model.mh_steps
    assert "token 0 of document 2" in rec.describe()
    s.run(1)
    assert insp.step().reloaded
    insp.run_document()
    assert insp.done and insp.position == N
    assert insp.step().position == 0 and not insp.done
    frame = insp.steps_frame()
    assert len(frame) == s.model.mh_steps * len(insp.records)
    assert set(frame["kind"]) <= {"doc", "word", "exp"}
    tidy = rec.conditional_table(tidy=True)
    assert list(tidy.columns) == ["topic", "distribution", "probability"]
    chart = conditional_chart(rec.conditional_table(), max_topics=3).to_dict()
    assert len(chart["datasets"][next(iter(chart["datasets"]))]) == 3 * 4
    insp.check_state()


def test_gibbs_records_one_exact_draw(corpora):
    s = _session(corpora, "medlda")
    rec = TokenInspector(s, 1).step()
    assert [st.kind for st in rec.steps] == ["conditional"]
    assert rec.steps[0].acceptance == 1.0 and rec.new_topic == rec.steps[0].proposed
    assert list(rec.conditional_table().columns) == ["topic", "exact", "proposal_conditional"]
    assert "exact conditional" in rec.describe()


def test_check_state_detects_inconsistent_counts(corpora):
    s = _session(corpora, "lda-light-cycle")
    insp = TokenInspector(s, 0)
    insp.check_state()
    s.state.counts.n_k[0] += 1
    with pytest.raises(RuntimeError, match="n_k"):
        insp.check_state()


# "auto" stands for the sampler chosen with the corpus, which is one of the others
@pytest.mark.parametrize("sampler", [n for n in SAMPLERS.names()
                                     if not SAMPLERS.get(n).chooses])
def test_every_registered_sampler_is_replayed_or_declares_it_has_no_stepping(corpora, sampler):
    """Over the sampler registry: a sampler with token stepping (``stepping``) is replayed by
    the inspector bit for bit (one document against ``sweep_block``); one without is refused
    with a message naming it."""
    s = Session(LDA(K=4, sampler=sampler), corpora["binary"], seed=0)
    s.run(1)
    if not SAMPLERS.get(sampler).stepping:
        with pytest.raises(ValueError, match=f"sampler {sampler!r}, which has no token "
                                             f"stepping"):
            TokenInspector(s, 0)
        return
    ref = Session(LDA(K=4, sampler=sampler), corpora["binary"], seed=0)
    ref.run(1)
    rng = seed_state(5)
    info = np.zeros(ref.model.info_size)
    kernel_rng = rng.copy()
    ref.model.sweep_block(ref.state, ref.problem, kernel_rng, 2, 3, info)
    insp = TokenInspector(s, 2)
    insp.rng[:] = rng
    insp.run_document()
    theirs = ref.state.arrays()   # the chain: counts and the sampler's saved arrays
    chain = [k for k in theirs if k.startswith("counts.")]
    for k in chain:
        np.testing.assert_array_equal(s.state.arrays()[k], theirs[k], err_msg=k)
    for k, v in s.model.saved_arrays(s.state).items():
        np.testing.assert_array_equal(v, ref.model.saved_arrays(ref.state)[k], err_msg=k)
    np.testing.assert_array_equal(insp.rng, kernel_rng)
    np.testing.assert_array_equal(insp.info, info)


def test_refuses_bad_arguments(corpora):
    s = Session(LDA(K=4), corpora["binary"], seed=0)
    for bad in (-1, 40):
        with pytest.raises(ValueError, match=r"doc must be an integer in \[0, 39\]"):
            TokenInspector(s, bad)
    for bad in (1.5, True):
        with pytest.raises(TypeError, match="doc must be an integer"):
            TokenInspector(s, bad)
    with pytest.raises(TypeError, match="Session"):
        TokenInspector(object(), 0)


def test_refuses_to_step_inside_the_lda_initialisation(corpora):
    """The initialisation sweeps run plain LDA, which the inspector does not replay: it says
    so by name, and steps once the supervised sweeps have begun."""
    s = Session(LightMedLDA(K=4, lam=2.0, lda_init_sweeps=2), corpora["binary"], seed=0)
    insp = TokenInspector(s, 0)
    with pytest.raises(ValueError, match="LDA initialisation .2 of lda_init_sweeps = 2"):
        insp.step()
    s.run(2)
    assert {m.kind for m in TokenInspector(s, 0).step().steps} <= {"doc", "word", "exp"}


def test_the_session_and_the_samplers_do_not_import_the_inspector():
    """The replay is wired from the bottom: the samplers implement ``samplers.stepping``'s
    protocol over a typed ``StepContext`` (no session, no inspector), the inspector builds
    the context from a session, and the Session compiles the replay ahead through the
    samplers' ``stepping.warm_up``, importing no inspector (issue 48)."""
    from tests.test_layers import imports
    found = {(i.importer, i.target) for i in imports()}
    assert not {(a, b) for a, b in found if b == "topicsup.inspector"
                and (a == "topicsup.session" or a.startswith("topicsup.samplers"))}
    assert ("topicsup.session", "topicsup.samplers.stepping") in found


# ---------------------------------------------------------------------- names and checks
def test_every_model_and_sampler_the_inspector_steps_is_named_by_model_and_sampler():
    """``sampler_title`` names the model class and how its sampler resamples a token, for
    every registered model with every sampler that has token stepping; the others are those
    the inspector refuses."""
    from topicsup.inspector import SAMPLER_NAMES, sampler_title
    from topicsup.models.base import _REGISTRY
    named = set()
    for cls in _REGISTRY.values():
        for sampler in SAMPLER_NAMES:
            try:
                model = cls(K=4, sampler=sampler)
            except (ValueError, TypeError):
                continue   # the model has no such sampler (PDP-LDA, HDP-LDA)
            if not model.topic_sampler.stepping:
                continue
            title = sampler_title(model)
            head, _, how = title.partition(" · ")
            assert head == cls.__name__, title
            if sampler == "gibbs":
                assert how == "collapsed Gibbs sampler (each token drawn from its exact " \
                              "conditional)"
            else:
                kinds = "doc, word, label" if model.supervised else "doc, word"
                if cls.__name__ == "LightMedLDA":   # its default cycle leaves the exp one out
                    kinds = "doc, word"
                assert how.startswith(f"light sampler ({kinds} proposals, cycled"), title
                assert f"; {model.mh_steps} Metropolis-Hastings steps per token)" in how
            assert "LightLDA" not in title and "exp" not in title
            named.add((cls.__name__, sampler))
    assert {("LDA", "gibbs"), ("LDA", "light"), ("LightMedLDA", "light"), ("MedLDA", "gibbs"),
            ("LightSLDA", "light"), ("GSLDA", "gibbs")} <= named


def test_sampler_title_follows_the_settings():
    from topicsup.inspector import sampler_title
    assert sampler_title(LightMedLDA(K=4, sampler="light")) == (
        "LightMedLDA · light sampler (doc, word proposals, cycled; label proposal off; 6 "
        "Metropolis-Hastings steps per token)")
    assert sampler_title(LightMedLDA.as_published(K=4, mh_steps=1)) == (
        "LightMedLDA · light sampler (doc, word, label proposals, mixed at random; 1 "
        "Metropolis-Hastings step per token)")
    assert sampler_title(LDA(K=4, sampler="light", composition="mixture", p_doc=0.3,
                             word_proposal="stale")) == (
        "LDA · light sampler (mixed at random: doc 0.3, word 0.7; stale word tables; 2 "
        "Metropolis-Hastings steps per token)")


def test_check_document_names_the_document_and_the_range(corpora):
    corpus = corpora["binary"]
    check = TokenInspector.check_document
    assert check(corpus, np.int64(39)) == 39
    with pytest.raises(ValueError, match=r"^document 100000 is out of range: this corpus has "
                                         r"40 documents, 0 to 39 \(doc must be an integer in "
                                         r"\[0, 39\]\)$"):
        check(corpus, 100000)
    with pytest.raises(ValueError, match=r"^document -1 is out of range: this corpus has 40 "
                                         r"documents, 0 to 39$"):
        check(corpus, -1, argument=None)
    with pytest.raises(TypeError, match="document must be a whole number, got 1.5"):
        check(corpus, 1.5, argument=None)
    from topicsup import Corpus
    with_empty = Corpus.from_tokens([["orbit", "rocket"], []], empty="keep")
    with pytest.raises(ValueError, match=r"document 1 has no tokens to inspect: choose another "
                                         r"one \(0 to 1\)"):
        check(with_empty, 1)


def test_conditional_chart_names_the_distributions_and_sends_finite_numbers_only():
    """The legend names the distributions in plain words; a NaN or an infinity is left out
    (the title counts them), never sent; the chart with its legend fits in 860 px."""
    import json
    import pandas as pd
    table = pd.DataFrame({"topic": range(4), "exact": [0.1, np.nan, 0.5, 0.4],
                          "proposal_doc": [0.25, 0.25, np.inf, 0.5],
                          "proposal_word": [0.25] * 4, "proposal_exp": [0.4, 0.3, 0.2, 0.1]})
    spec = conditional_chart(table, title="t").to_dict()
    json.dumps(spec, allow_nan=False)    # raises on a NaN or an infinity anywhere
    rows = spec["datasets"][next(iter(spec["datasets"]))]
    assert len(rows) == 4 * 4 - 2 and spec["title"] == "t (2 non-finite values left out)"
    assert {r["name"] for r in rows} == {"exact conditional", "doc proposal", "word proposal",
                                         "label proposal"}
    assert spec["encoding"]["color"]["legend"]["orient"] == "bottom"   # not beside: narrow
    assert spec["width"] + 60 <= 860


def test_document_html_keeps_each_token_whole_in_its_colour_and_tooltip():
    """The explorer's coloured posts wrap between tokens, never inside a word: every token is
    an unbreakable inline block, with its topic's colour, its subscript and its tooltip."""
    import re
    from topicsup.inspector import document_html, topic_colours
    words = ["spacecraft", "<orbit>", "hockey"]
    out = document_html(words, [0, 2, 1], K=3, highlight=2, labels=["space", "sport", "x & y"])
    spans = re.findall(r'<span class="topicsup-token" data-topic="(\d)" title="([^"]*)" '
                       r'style="([^"]*)">([^<]*)<sub>(\d)</sub></span>', out)
    assert [(int(k), word, int(sub)) for k, _, _, word, sub in spans] == \
        [(0, "spacecraft", 0), (2, "&lt;orbit&gt;", 2), (1, "hockey", 1)]
    colours = topic_colours(3)
    for (k, title, style, _, _), name in zip(spans, ["space", "x &amp; y", "sport"]):
        assert "display:inline-block" in style and "white-space:nowrap" in style
        assert f"background:{colours[int(k)]}" in style and title == name
    assert "font-weight:bold" in spans[1][2] and "opacity:0.45" in spans[0][2]


# ---------------------------------------------------------------------- the replay's types
def test_the_stepping_signatures_are_typed_without_any():
    """Every sampler with token stepping implements ``samplers.stepping.Stepping`` over the
    typed ``StepContext`` and ``StepPass``: no parameter or return of its replay methods is
    ``Any`` (issue 48: they took ``insp: Any, p: Any`` and read the session through them)."""
    import importlib
    import typing
    from typing import Any

    from topicsup.samplers import stepping
    names = [n for n in typing.get_type_hints(stepping.Stepping.__dict__["begin_pass"])]
    assert names == ["ctx", "p", "return"]
    stepped = [SAMPLERS.get(n) for n in SAMPLERS.names() if SAMPLERS.get(n).stepping]
    assert len(stepped) >= 2
    for cls in stepped:
        for method in ("begin_pass", "first_draws", "load_document", "proposals",
                       "step_token"):
            module = importlib.import_module(cls.__module__)
            hints = typing.get_type_hints(getattr(cls, method), vars(module))
            assert hints["ctx"] is stepping.StepContext and hints["p"] is stepping.StepPass, \
                (cls.__name__, method)
            # an array's shape is tuple[Any, ...] (numpy's own alias): Any as a parameter or
            # return type, or one member of a union, is what the issue is about
            bad = {k: v for k, v in hints.items() if v is Any or (
                Any in typing.get_args(v) and typing.get_origin(v) is not np.ndarray)}
            assert not bad, f"{cls.__name__}.{method} has Any in {bad}"


@pytest.mark.parametrize("model", [LDA(K=3, sampler="light"), LDA(K=3, sampler="gibbs"),
                                   LightMedLDA(K=3, sampler="light"), MedLDA(K=3, sampler="gibbs")],
                         ids=["light", "gibbs", "LightMedLDA", "MedLDA"])
def test_the_warm_up_replays_a_token_on_a_copy_and_leaves_the_chain(model):
    """``stepping.warm_up`` (what ``Session.compile_ahead`` runs for the replay) steps a
    token on a copy of the state with a stream of its own: the chain's state, stream and
    next sweeps are those of a chain never warmed up."""
    from topicsup.samplers import stepping
    data = make_synthetic(n_docs=30, n_topics=3, doc_length=15, task="multiclass",
                          n_classes=3, seed=4)
    a, b = (Session(model, data.corpus, seed=2) for _ in range(2))
    a.run(2), b.run(2)
    before = {k: v.copy() for k, v in a.state.arrays().items()}
    rng = a.rng.copy()
    stepping.warm_up(a.problem, a.state)
    assert np.array_equal(a.rng, rng)
    for k, v in a.state.arrays().items():
        assert np.array_equal(v, before[k]), k
    a.run(2), b.run(2)
    for k, v in a.state.arrays().items():
        assert np.array_equal(v, b.state.arrays()[k]), k


def test_the_replay_draws_the_kinds_of_the_label_term_the_sweep_has(corpora):
    """Monte Carlo MedLDA's label term is off until the SVM step finds support documents:
    its light sweeps then draw from the unsupervised proposal kinds (no exp proposal), and
    so does the replay (it once drew them by the model being supervised): a document through
    the inspector is the kernel's sweep, bit for bit."""
    from topicsup.models import MCMedLDA
    from topicsup.samplers import stepping
    a, b = (Session(MCMedLDA(K=6, sampler="light", mh_steps=3), corpora["multiclass"], seed=1)
            for _ in range(2))
    a.run(2), b.run(2)
    term, active = a.model.term(a.state, a.problem)
    assert not active and a.model.supervised   # the case: supervised, its term off
    assert "exp" in a.model.proposal_kinds
    d = 7
    rng = seed_state(17, stream=d)
    info = np.zeros(a.model.info_size)
    kernel_rng = rng.copy()
    a.model.sweep_block(a.state, a.problem, kernel_rng, d, d + 1, info)
    insp = TokenInspector(b, d)
    insp.rng[:] = rng
    records = insp.run_document()
    assert all(st.kind in ("doc", "word") for rec in records for st in rec.steps)
    for k, v in b.state.arrays().items():
        np.testing.assert_array_equal(v, a.state.arrays()[k], err_msg=k)
    np.testing.assert_array_equal(insp.rng, kernel_rng)
    assert isinstance(insp._pass, stepping.StepPass) and not insp._pass.active
