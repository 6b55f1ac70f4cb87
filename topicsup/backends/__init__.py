"""Where the documents' step of the partially collapsed sampler runs: a backend.

A partially collapsed sweep draws Phi | Z once, then Z | Phi for every document, and the
documents are independent given Phi (and the weights and augmentation of a supervised model):
the step that costs O(tokens) can run anywhere, as long as each document draws from its own
stream (keyed by the sweep and its index in the corpus; ``kernels.partially_collapsed``). A
backend runs that step (and may draw Phi's rows where the documents are, from the same
streams); everything else (the weights, the augmentation, the prior, the log joint,
checkpoints, the history) stays in the Session's process and its code, so the chain is the
same bit for bit whatever the backend:

* ``Threads()`` (the default): numba threads in this process;
* ``DaskBackend(client)`` (``topicsup.backends.dask``, ``pip install topicsup[dask]``): the
  documents and their topics resident on the workers of a Dask cluster, Phi drawn there in
  ranges of words that the workers pass each other, the changed topics gathered back.

``Session(model, corpus, seed, backend=...)`` takes ``None`` or ``"threads"``, ``"dask"``
(a ``DaskBackend`` on the current Dask client) or a backend object.
"""

from __future__ import annotations

from typing import Any

from .base import CHUNK_TOKENS, THREADS, Backend, DocumentStep, Threads


def resolve(backend: Any) -> Backend:
    """A backend from ``Session``'s ``backend`` argument: ``None`` or ``"threads"``,
    ``"dask"`` (a ``DaskBackend`` on the current Dask client), or a ``Backend``."""
    if backend is None or (isinstance(backend, str) and backend == "threads"):
        return Threads()
    if isinstance(backend, str) and backend == "dask":
        from .dask import DaskBackend
        return DaskBackend()
    if isinstance(backend, Backend):
        return backend
    raise TypeError(f"backend must be None, 'threads', 'dask' or a topicsup backend such as "
                    f"topicsup.backends.dask.DaskBackend(client), got {backend!r:.80}")


__all__ = ["Backend", "CHUNK_TOKENS", "DocumentStep", "THREADS", "Threads", "resolve"]
