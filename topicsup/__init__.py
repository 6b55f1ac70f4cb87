"""topicsup: supervised topic models for Jupyter.

``Corpus`` holds validated documents, ``topicsup.models`` the model specifications,
``Session`` runs a model's sampler incrementally, ``topicsup.views`` draws its history.
"""

from ._version import __version__
from .corpus import Corpus, Labels, tokenize
from .models import LDA, LightMedLDA, MedLDA, SupervisedLDA
from .session import Session

__all__ = ["Corpus", "LDA", "Labels", "LightMedLDA", "MedLDA", "Session", "SupervisedLDA",
           "tokenize", "__version__"]
