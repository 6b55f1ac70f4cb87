"""topicsup: supervised topic models for Jupyter.

``Corpus`` holds validated documents, ``topicsup.models`` the model specifications,
``Session`` runs a model's sampler incrementally, ``topicsup.views`` draws its history.
"""

from ._version import __version__
from .corpus import Corpus
from .labels import Labels
from .text import tokenize
from .models import (DMR, HDPLDA, LDA, LogisticNormal, MCMedLDA, PDPLDA, SupervisedLDA,
                     presets)
from .models.presets import *  # noqa: F403  (every preset: MedLDA, LightMedLDA, ...)
from .search import search_k, search_k_chart
from .session import Session

__all__ = ["Corpus", "DMR", "HDPLDA", "LDA", "Labels", "LogisticNormal", "MCMedLDA", "PDPLDA", "Session", "SupervisedLDA",
           "search_k", "search_k_chart", "tokenize", "__version__", *presets.__all__]
