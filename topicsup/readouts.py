"""The read-outs a Session offers by name: each a one-line method over a function of
``topicsup.summaries`` (``readout`` holds the chain still while it runs). A new read-out is a
function there and, if sessions should offer it by name, a method here."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd

from . import summaries, terms


class Readouts:
    """The named read-outs of a chain object that has ``readout(fn, *args, **kwargs)``."""

    def readout(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

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
                            n_words: int = 200) -> pd.DataFrame:
        """The ``n`` documents that carry ``topic`` (number or label) most, by its share of
        each (with ``cls``, among that class's documents): share, tokens, classes, text and
        the words coloured by topic as HTML (``summaries.representative_docs``)."""
        return self.readout(summaries.representative_docs, topic, n, cls, n_words)

    def doc_topics(self, as_frame: bool = True) -> pd.DataFrame | np.ndarray:
        """Document-topic proportions (n_docs, K) from the current state: a DataFrame indexed
        by ``corpus.index`` (the documents' own pandas index, so ``df.join(doc_topics())``
        works) with a column per topic, or the array."""
        return self.readout(summaries.doc_topics, as_frame)

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

    def shrinkage(self, top: int = 3, interval: float = 0.9, scale: str = "identified"
                  ) -> pd.DataFrame:
        """How concentrated each class's topic weights are, the horseshoe's promise in numbers:
        ``top_share`` (the share of sum_k |mean eta_k| on the ``top`` largest), ``n_certain``
        (intervals excluding 0), ``n_topics``, one row per task (``summaries.shrinkage``)."""
        return self.readout(summaries.shrinkage, top, interval, scale)


__all__ = ["Readouts"]
