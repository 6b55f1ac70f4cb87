"""The read-outs a Session offers by name: each a one-line method over a function of
``topicsup.summaries`` of the chain's ``Fit`` (``readout`` holds the chain still while it
runs). A new read-out is a function there and, if sessions should offer it by name, a method
here."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd

from . import summaries, terms
from .corpus import Corpus


class Readouts:
    """The named read-outs of a chain object that has ``readout(fn, *args, **kwargs)``."""

    def readout(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    # ------------------------------------------------------------------ the record
    @property
    def history(self) -> pd.DataFrame:
        """One tidy row per (sweep, metric[, proposal]): columns sweep, metric, value, proposal."""
        return self.readout(summaries.history)

    def metric(self, name: str, proposal: str | None = None) -> pd.Series:
        """One metric as a Series indexed by sweep: a plain metric, or with ``proposal`` the
        rows of one proposal kind (e.g. ``metric("acceptance_rate", proposal="doc")``)."""
        return self.readout(summaries.metric, name, proposal)

    def trace(self, name: str = "eta") -> np.ndarray:
        """The values of a traced array after every sweep, stacked: (n_sweeps, ...).

        Supervised models trace the weights ``"eta"`` (tasks x features, float32).
        """
        return self.readout(summaries.trace, name)

    @property
    def settings_changes(self) -> pd.DataFrame:
        """Every change of a live setting (``set_params``): the first ``sweep`` run with the new
        value (at least partly: a change made while a sweep was paused applies to its remaining
        blocks), the ``parameter``, and its ``old`` and ``new`` values as text. The views mark
        them on the charts (``topicsup.views.mark_settings_changes``)."""
        return self.readout(summaries.settings_changes)

    @property
    def sampler_choice(self) -> str | None:
        """What ``sampler="auto"`` chose for this chain and why (``"gibbs: expected first
        ..."``, ``samplers.auto``), or None when the model named its sampler. Kept with the
        chain (its checkpoints) as the change of ``sampler`` before sweep 1."""
        return self.readout(summaries.sampler_choice)

    @property
    def target(self) -> str:
        """What the model's tasks are: ``"class"`` (classifiers) or ``"response"``
        (regression), for the views' titles (``Task.target``); ``""`` unsupervised."""
        return self.readout(lambda fit: "" if fit.problem.task is None
                            else fit.problem.task.target)

    @property
    def views(self) -> tuple[str, ...]:
        """The views that apply to this chain's model (names in the view table): one rule,
        the model's (``LDA.views``), for the dashboard and the report."""
        return self.readout(lambda fit: fit.problem.model.views)

    # ------------------------------------------------------------------ estimates
    def topic_word(self) -> np.ndarray:
        """(K, V) point estimate of the topics."""
        return self.readout(summaries.topic_word)

    def topic_snapshot(self) -> np.ndarray:
        """The current topics as fold-in takes them (``decision_function(snapshots=...)``)."""
        return self.readout(summaries.topic_snapshot)

    def mean_weights(self) -> np.ndarray:
        """(T, M) the weights prediction uses: eta averaged over the kept samples (the current
        eta before any is kept)."""
        return self.readout(summaries.mean_weights)

    # ------------------------------------------------------------------ topics
    def topics(self, n_words: int = 10, by: str = "probability",
               lam: float = terms.RELEVANCE_LAMBDA,
               frex_weight: float = terms.FREX_WEIGHT) -> pd.DataFrame:
        """Top words of each topic the model shows (HDP-LDA: the live ones): its ``label``,
        ``share`` of tokens, ``top_words`` and ``word_1 .. word_n`` ranked ``by``
        "probability" (phi), "relevance" (pyLDAvis, with ``lam``), "frex" (stm, with
        ``frex_weight``), "lift" or "score" (``topicsup.terms``)."""
        return self.readout(summaries.topics, n_words, by, lam, frex_weight)

    def topic_terms(self, n_words: int = 10, lam: float = terms.RELEVANCE_LAMBDA,
                    frex_weight: float = terms.FREX_WEIGHT) -> pd.DataFrame:
        """Each topic's best words by every ranking in long form, with every measure, the
        word's tokens in the topic and in the corpus (``summaries.topic_terms``): pyLDAvis's
        term table with stm's measures beside it."""
        return self.readout(summaries.topic_terms, n_words, lam, frex_weight)

    def label_topics(self, n_words: int = 7, lam: float = terms.RELEVANCE_LAMBDA,
                     frex_weight: float = terms.FREX_WEIGHT) -> pd.DataFrame:
        """stm's ``labelTopics``: per topic, its best words by probability, relevance, FREX,
        lift and score side by side (``summaries.label_topics``)."""
        return self.readout(summaries.label_topics, n_words, lam, frex_weight)

    def topic_labels(self) -> list[str]:
        """One label per topic the model shows: the name given with ``set_topic_labels``,
        else its number and three most relevant words (``summaries.topic_labels``). Every
        table, chart, coefficient and ArviZ coordinate names topics by these."""
        return self.readout(summaries.topic_labels)

    def representative_docs(self, topic: int | str, n: int = 5, cls: str | None = None,
                            n_words: int = 200, min_tokens: int = summaries.MIN_TOKENS
                            ) -> pd.DataFrame:
        """The ``n`` documents that carry ``topic`` (number or label) most, by its share of
        each, among those with a token of the topic and at least ``min_tokens`` tokens
        (shorter ones fill the rows after them when too few are that long; with ``cls``,
        among that class's documents): share, tokens, classes, text and the words coloured
        by topic as HTML (``summaries.representative_docs``)."""
        return self.readout(summaries.representative_docs, topic, n, cls, n_words, min_tokens)

    def doc_topics(self, as_frame: bool = True) -> pd.DataFrame | np.ndarray:
        """Document-topic proportions (n_docs, K) from the current state: a DataFrame indexed
        by ``corpus.index`` (the documents' own pandas index, so ``df.join(doc_topics())``
        works) with a column per topic, or the array."""
        return self.readout(summaries.doc_topics, as_frame)

    def document_prior(self) -> pd.DataFrame:
        """DMR's prior on the documents' topics now: per (feature, topic) lambda and its
        shift against the classes' mean (``summaries.document_prior``; drawn by
        ``views.prior_heatmap``). A ``ValueError`` for a model without such a prior."""
        return self.readout(summaries.document_prior)

    def document_entropy(self) -> pd.Series:
        """Entropy (nats) of each training document's topic proportions, indexed like
        ``doc_topics()``: 0 for a document in one topic, log K for one spread over all."""
        return self.readout(summaries.document_entropy)

    # ------------------------------------------------------------------ weights
    def feature_names(self) -> list[str]:
        """The weights' columns: the topics by their labels (``topic_labels``), then the
        intercept and the covariates (``summaries.feature_names``)."""
        return self.readout(summaries.feature_names)

    def weights(self, scale: str = "identified") -> pd.DataFrame:
        """Tidy weight trace, one row per (sweep, task, feature): ``value`` on the ``scale`` of
        ``coefficients`` (identified by default: with an intercept the raw weights wander
        along the direction only the prior pins), ``kind`` and ``index``."""
        return self.readout(summaries.weight_trace, scale)

    def coefficients(self, interval: float = 0.9, scale: str = "identified"
                     ) -> pd.DataFrame:
        """Posterior summary of the classifier weights, one row per (task, feature): ``mean``,
        the equal-tailed ``interval`` (``lower``, ``upper``, ``width``) of the same kept
        draws, ``n_samples``, ``kind`` and ``index``. ``scale="identified"`` (default): with
        an intercept each class's topic weights centred and the intercept plus their mean,
        what the data determine; ``"raw"``: the draws as sampled (``topicsup.summaries``).
        Prediction averages the same draws (``mean_weights``)."""
        return self.readout(summaries.coefficients, interval, scale)

    def signal_topics(self, n: int = 3, n_words: int = 10, interval: float = 0.9,
                      scale: str = "identified") -> pd.DataFrame:
        """Each class's ``n`` topics with the largest positive mean weights, with their
        intervals (``sign_certain``: it excludes 0), label, share of tokens and ``n_words``
        top words (``summaries.signal_topics``; ``scale`` as ``coefficients``: identified, a
        weight says how much more the topic raises the score than the class's average)."""
        return self.readout(summaries.signal_topics, n, n_words, interval, scale)

    def coherence(self, n_words: int = 10, measure: str = "c_npmi",
                  window_size: int | None = None, reference: Corpus | None = None
                  ) -> pd.DataFrame:
        """Coherence of each topic's ``n_words`` (>= 2) top words on the training corpus or
        on ``reference`` (a Corpus of the training vocabulary, e.g. ``corpus.map(texts)``):
        one row per topic with ``coherence`` (NaN where a word occurs in no document) and
        ``top_words`` (``metrics.topic_coherence``). ``measure``: gensim's ``"c_npmi"``
        (default), ``"c_v"``, ``"c_uci"`` or ``"u_mass"``, the numbers gensim's
        CoherenceModel reports (``window_size``: the sliding window, default gensim's, 10 or
        110 tokens), or the document-level ``"doc_npmi"`` (in [-1, 1]) or ``"doc_umass"``
        (<= ~0); ``"npmi"`` and ``"umass"`` are deprecated names of the latter two."""
        return self.readout(summaries.coherence, n_words, measure, window_size, reference)

    def shrinkage(self, top: int = 3, interval: float = 0.9, scale: str = "identified"
                  ) -> pd.DataFrame:
        """How concentrated each class's topic weights are, the horseshoe's promise in numbers:
        ``top_share`` (the share of sum_k |mean eta_k| on the ``top`` largest), ``n_certain``
        (intervals excluding 0), ``n_topics``, one row per task whose weights are fitted
        (none before they are: ``summaries.shrinkage``)."""
        return self.readout(summaries.shrinkage, top, interval, scale)


__all__ = ["Readouts"]
