"""The frame's parts and the model parameters built from them (topicsup.parts,
topicsup.models.base): every registered part runs in a chain, every preset round-trips through
scikit-learn's get_params / set_params / clone, and settings no chosen part reads are refused."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone

from topicsup.datasets import make_synthetic
from topicsup.losses import REGISTRY as LOSSES
from topicsup.models import (GSLDA, LDA, SLDA, LightMedLDA, LightSLDA, MedLDA,
                             MedLDARegression, SupervisedLDA, model_from_params)
from topicsup.priors import REGISTRY as PRIORS
from topicsup.samplers import REGISTRY as SAMPLERS
from topicsup.session import Session
from topicsup.weight_samplers import REGISTRY as WEIGHT_SAMPLERS

PRESETS = {
    "LDA": lambda: LDA(K=4),
    "LDA-light": lambda: LDA(K=4, sampler="light", composition="mixture", p_doc=0.3),
    "LDA-alias": lambda: LDA(K=4, sampler="alias", mh_steps=3),
    "MedLDA": lambda: MedLDA(K=4, lam=2.0),
    "LightMedLDA": lambda: LightMedLDA(K=4, lam=4.0, nu=2.0),
    "LightMedLDA.as_published": lambda: LightMedLDA.as_published(K=4, weight_shift=True),
    "GSLDA": lambda: GSLDA(K=4),
    "GSLDA.plus": lambda: GSLDA.plus(K=4),
    "LightSLDA": lambda: LightSLDA(K=4, c=4.0),
    "SLDA": lambda: SLDA(K=4, sigma2=0.5),
    "MedLDARegression": lambda: MedLDARegression(K=4, lam=2.0, eps=0.05),
}


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=30, n_topics=4, doc_length=15, seed=2,
                          task="multiclass").corpus


@pytest.mark.parametrize("name", PRESETS)
def test_get_params_set_params_and_clone_round_trip(name):
    """clone gives an equal, separate model; set_params changes in place and returns the
    model; a pickle and a checkpoint's (name, params) rebuild it."""
    m = PRESETS[name]()
    c = clone(m)
    assert c == m and c is not m and c.get_params() == m.get_params()
    assert m.set_params(beta=0.05) is m and m.beta == 0.05 and c.beta != 0.05
    assert m.set_params(**c.get_params()) == c
    assert pickle.loads(pickle.dumps(m)) == m
    assert model_from_params(type(m).__name__, m.get_params()) == m
    with pytest.raises(AttributeError, match="set_params"):
        m.K = 7


def test_set_params_is_all_or_nothing_and_a_new_part_drops_the_old_parts_settings():
    m = LightMedLDA(K=4)
    before = m.get_params()
    with pytest.raises(ValueError, match="lam must be"):
        m.set_params(beta=0.5, lam=-1.0)
    assert m.get_params() == before
    m.set_params(sampler="gibbs")   # the light sampler's settings go with it
    assert m.sampler == "gibbs" and "mh_steps" not in m.get_params()


@pytest.mark.parametrize("sampler", SAMPLERS.names())
def test_every_sampler_runs_lda_and_the_supervised_model_if_it_can(corpus, sampler):
    s = Session(LDA(K=4, sampler=sampler), corpus, seed=0)
    s.run(2)
    assert np.isfinite(s.metric("log_joint")).all()
    if SAMPLERS.get(sampler).supports_supervision:
        s = Session(SupervisedLDA(K=4, sampler=sampler), corpus, seed=0)
        s.run(2)
        assert np.isfinite(s.metric("log_joint")).all()
    else:
        with pytest.raises(ValueError, match=f"got {sampler!r}"):
            SupervisedLDA(K=4, sampler=sampler)


@pytest.mark.parametrize("weight_sampler", WEIGHT_SAMPLERS.names())
@pytest.mark.parametrize("prior", PRIORS.names())
@pytest.mark.parametrize("loss", [n for n in LOSSES.names()
                                  if LOSSES.get(n).targets == "signs"])
def test_every_classifying_loss_prior_and_weight_step_combine(corpus, loss, prior,
                                                              weight_sampler):
    """Each combination of the registered parts samples a classifier with finite histories,
    and its checkpoint continues exactly."""
    m = SupervisedLDA(K=4, loss=loss, prior=prior, weight_sampler=weight_sampler)
    a = Session(m, corpus, seed=1)
    a.run(2)
    h = a.history
    assert np.isfinite(h[h["metric"].isin(["log_joint", f"{loss}_loss"])]["value"]).all()
    assert set(m.views) == {"loglik", "score", "coefficients", "throughput", "time"}


def test_a_setting_no_chosen_part_reads_is_refused_and_a_bad_one_is_named():
    with pytest.raises(ValueError, match=r"mh_steps=5 \(sampler='gibbs' does not use it\)"):
        MedLDA(K=3, sampler="gibbs", mh_steps=5)
    with pytest.raises(ValueError, match="S_gibbs must be"):
        MedLDA(K=3, S_gibbs=0)
    with pytest.raises(ValueError, match=r"p_doc=0.3 \(sampler='light' on LightMedLDA"):
        LightMedLDA(K=3, sampler="light", p_doc=0.3)
    # sampler="auto" keeps a sampler's setting for the samplers that read it, and refuses one
    # that none of them would use, naming why
    assert MedLDA(K=3, mh_steps=5).deferred_settings("sampler") == {"mh_steps": 5}
    with pytest.raises(ValueError, match=r"sampler='auto' has no candidate that uses "
                       r"p_doc=0.3: .*\(sampler='light' on LightMedLDA"):
        LightMedLDA(K=3, p_doc=0.3)
    with pytest.raises(ValueError, match=r"proposal_weights=.*sampler='light' on LDA"):
        LDA(K=3, sampler="light", proposal_weights=(1, 1, 0))
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        LDA(K=3, colour="red")


def test_live_settings_and_views_come_from_the_parts():
    assert LDA(K=3).live_params == () and LDA(K=3).views == ("loglik", "throughput")
    assert LDA(K=3, sampler="light").live_params == ("mh_steps", "composition", "p_doc")
    assert LDA(K=3, sampler="auto").live_params == ()   # chosen with the corpus
    assert LightMedLDA(K=3, sampler="light").live_params == (
        "mh_steps", "composition", "proposal_weights", "S_gibbs", "weight_shift",
        "supervised_factor")
    assert MedLDA(K=3).live_params == ("supervised_factor",)
    assert LightMedLDA(K=3, sampler="light").views == ("loglik", "acceptance", "score", "coefficients",
                                      "throughput", "time")


def test_a_property_that_fails_inside_names_its_own_missing_attribute():
    """A model property whose code reads a missing attribute reports that attribute, not the
    property's name (Python routes a property's AttributeError to __getattr__)."""
    class Broken(LDA):
        @property
        def saved_state(self):
            return self.not_a_parameter

    with pytest.raises(AttributeError, match="not_a_parameter"):
        Broken(K=3).saved_state
    with pytest.raises(AttributeError, match="has no attribute 'missing'"):
        LDA(K=3).missing


def test_switching_a_part_keeps_the_settings_the_new_part_declares_too():
    """set_params and replace agree: a part replaced by another drops its own settings but
    keeps those the new part reads as well (the hinge's lam for the epsilon-insensitive
    loss); choices given as numpy strings are stored as str."""
    m = MedLDA(K=3, lam=3.0).set_params(loss="epsilon_insensitive")
    assert m.lam == 3.0 and m.eps == 0.1
    g = GSLDA(K=3, c=4.0)
    assert g.replace(loss="hinge") == GSLDA(K=3, c=4.0).set_params(loss="hinge")
    assert "c" not in g.replace(loss="hinge").get_params()
    p = GSLDA(K=3, pg_method=np.str_("gamma"))
    assert type(p.pg_method) is str and type(p.loss) is str
