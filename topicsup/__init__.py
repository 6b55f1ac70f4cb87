"""topicsup: supervised topic models for Jupyter."""

from .corpus import Corpus, Labels, tokenize

__version__ = "0.1.0"
__all__ = ["Corpus", "Labels", "tokenize", "__version__"]
