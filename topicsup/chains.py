"""Several independent chains of one model on one corpus: run side by side, their histories
together, convergence diagnostics (R-hat, effective sample sizes; ``topicsup.diagnostics``)
and an ArviZ export.

Chains run in parallel on this process's threads (the kernels release the GIL), or each on a
worker of a Dask cluster (``backend="dask"`` or a ``distributed.Client``: a chain's Session is
sent to a worker, runs there, and comes back with its new state after each call of ``run``).
Chain c has seed ``seed + c``; each is the chain ``Session(model, corpus, seed + c)`` gives
alone, bit for bit, wherever it runs.

Topics are identified only up to their order: topic 3 of one chain may be topic 7 of another.
R-hat of the log joint needs no matching, but R-hat of a topic's weight compares the same
topic across chains, so the weights are first aligned to chain 0's topics
(``topic_alignment``: the assignment of topics that minimises the summed Hellinger distance
between the chains' topic-word distributions, on their current states). Intercept and
covariate weights need no alignment.
"""

from __future__ import annotations

import concurrent.futures
import threading
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pandas as pd

from . import diagnostics
from . import validation as check
from .arrays import F64, I64
from .corpus import Corpus
from .history import kept_draws, to_inference_data
from .kernels.threads import concurrent_kernels_safe
from .models import LDA
from .models.base import Model
from .interrupts import one_run
from .session import Session
from .summaries import identified, weight_scale, weight_scale_attrs

if TYPE_CHECKING:
    from types import ModuleType

MAX_CHAINS = 64


def _advance(session: Session, n: int) -> Session:
    """Run ``n`` sweeps of a chain on a Dask worker and send it back."""
    session.run(n)
    return session


class Chains:
    """Independent chains of ``model`` on ``corpus`` (module docstring).

    Parameters
    ----------
    model : topicsup model
    corpus : Corpus
    n_chains : int
        Number of chains (at least 2 for R-hat).
    seed : int
        Chain c has seed ``seed + c``.
    backend : "threads", "dask" or distributed.Client
        Where the chains run: in parallel on threads here, or on the workers of a Dask
        cluster (``"dask"``: the current client).
    **session_options
        Passed to each ``Session`` (``block_tokens``, ``log_joint_every``).

    Examples
    --------
    >>> chains = Chains(LDA(K=20, sampler="partially_collapsed"), corpus, n_chains=4)  # doctest: +SKIP
    >>> chains.run(200)                                                                # doctest: +SKIP
    >>> chains.diagnostics().head()                                                    # doctest: +SKIP
    >>> idata = chains.to_arviz(burn=100)                                              # doctest: +SKIP
    """

    def __init__(self, model: Model, corpus: Corpus, n_chains: int = 4, seed: int = 0, *,
                 backend: Any = "threads", **session_options: Any) -> None:
        n_chains = check.integer("n_chains", n_chains, low=1, high=MAX_CHAINS)
        if "autosave" in session_options:
            raise ValueError("autosave is a Session's (one file per chain): save the chains "
                             "with each session's save(path), or autosave Sessions of "
                             "their own")
        seed = check.integer("seed", seed, low=0, high=2**64 - 1 - n_chains)
        self.client = self._client(backend)
        self.sessions = [Session(model, corpus, seed + c, **session_options)
                         for c in range(n_chains)]
        self.seed = int(seed)
        self._owner_lock = threading.RLock()
        self._owner: threading.Thread | None = None   # the thread whose run is in progress
        # a stop asked of the run as a whole: its sessions' runs are started afresh for each
        # chunk between callbacks, and a session drops a stop that comes between its runs
        self._stop = threading.Event()

    @staticmethod
    def _client(backend: Any) -> Any:
        if isinstance(backend, str) and backend == "threads":
            return None
        distributed: ModuleType | None   # None without the dask extra
        try:
            import distributed
        except ImportError:
            distributed = None
        if isinstance(backend, str) and backend == "dask":
            if distributed is None:
                raise ImportError("backend='dask' needs dask.distributed: pip install "
                                  "'topicsup[dask]'")
            try:
                return distributed.get_client()
            except ValueError:
                raise ValueError("backend='dask' needs a running Dask client: create a "
                                 "distributed.Client first, or pass it as backend") from None
        if distributed is not None and isinstance(backend, distributed.Client):
            return backend
        raise TypeError(f"backend must be 'threads', 'dask' or a distributed.Client, got "
                        f"{backend!r:.80}")

    # ------------------------------------------------------------------ running
    @property
    def n_chains(self) -> int:
        return len(self.sessions)

    @property
    def n_sweeps(self) -> int:
        """Sweeps completed by every chain."""
        return min(s.n_sweeps for s in self.sessions)

    @property
    def model(self) -> LDA:
        return self.sessions[0].model

    def run(self, n: int, callback: Callable[["Chains"], Any] | None = None,
            every: int = 1) -> int:
        """Run every chain ``n`` more sweeps in parallel, calling ``callback(chains)`` every
        ``every`` sweeps (all chains level; returning ``False`` stops). Returns the sweeps
        every chain completed. Ctrl-C (or ``request_stop``) stops each chain after its
        current block; the next ``run`` brings them level again."""
        n = check.integer("n", n, low=0)
        every = check.integer("every", every, low=1)
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be callable, got {type(callback).__name__}")
        # one run at a time: a second would interleave the chains' blocks (or, on Dask,
        # replace the sessions with its own copies), silently
        with one_run(self, "these Chains are", ""):
            return self._run(n, callback, every)

    def _run(self, n: int, callback: Callable[["Chains"], Any] | None, every: int) -> int:
        start = self.n_sweeps
        while self.n_sweeps < start + n:
            step = min(every if callback is not None else n, start + n - self.n_sweeps)
            target = self.n_sweeps + step
            self._run_to(target)
            if self.n_sweeps < target or self._stop.is_set():   # stopped
                break
            if callback is not None and callback(self) is False:
                break
        return self.n_sweeps - start

    def _run_to(self, target: int) -> None:
        todo = [max(0, target - s.n_sweeps) for s in self.sessions]
        if self.client is not None:
            futures = [self.client.submit(_advance, s, k, pure=False)
                       for s, k in zip(self.sessions, todo)]
            self.sessions = self.client.gather(futures)
            return
        # numba's workqueue layer aborts on parallel kernels launched from two threads
        workers = self.n_chains if concurrent_kernels_safe() else 1
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers,
                                                   thread_name_prefix="topicsup-chain") as ex:
            futures = [ex.submit(s.run, k) for s, k in zip(self.sessions, todo)]
            try:
                concurrent.futures.wait(futures)
            except KeyboardInterrupt:
                self.request_stop()
                concurrent.futures.wait(futures)
                raise
            for f in futures:
                f.result()

    def set_params(self, **params: Any) -> None:
        """Change live sampler settings of every chain (``Session.set_params``)."""
        for s in self.sessions:
            s.set_params(**params)

    @property
    def settings_changes(self) -> pd.DataFrame:
        """The settings changes (``Session.settings_changes``; the same for every chain)."""
        return self.sessions[0].settings_changes

    @property
    def in_sweep(self) -> bool:
        """True when a chain was stopped part-way through a sweep."""
        return any(s.in_sweep for s in self.sessions)

    def request_stop(self) -> None:
        """Ask every chain running on threads to stop after its current block (chains on a
        Dask cluster finish their current call)."""
        self._stop.set()
        for s in self.sessions:
            s.request_stop()

    # ------------------------------------------------------------------ results
    @property
    def history(self) -> pd.DataFrame:
        """The chains' histories stacked, with a ``chain`` column first."""
        frames = [s.history.assign(chain=c) for c, s in enumerate(self.sessions)]
        h = pd.concat(frames, ignore_index=True)
        return h[["chain"] + [col for col in h.columns if col != "chain"]]

    def log_joint(self) -> F64:
        """(chain, sweep) log joints of sweeps 1 .. n_sweeps (NaN where not evaluated)."""
        out = np.full((self.n_chains, self.n_sweeps), np.nan)
        for c, s in enumerate(self.sessions):
            h = s.history
            rows = h[(h["metric"] == "log_joint") & (h["sweep"] <= self.n_sweeps)]
            out[c, rows["sweep"].to_numpy() - 1] = rows["value"].to_numpy()
        return out

    def topic_alignment(self) -> pd.DataFrame:
        """Each chain's topics matched to chain 0's: one row per (chain, topic of chain 0)
        with the matching ``chain_topic`` and the ``hellinger`` distance of the pair."""
        ref = np.sqrt(self.sessions[0].topic_word())
        rows = []
        from scipy.optimize import linear_sum_assignment
        for c, s in enumerate(self.sessions):
            other = np.sqrt(s.topic_word())
            cost = np.sqrt(np.clip(1.0 - ref @ other.T, 0.0, None))
            r, perm = linear_sum_assignment(cost)
            rows += [{"chain": c, "topic": int(k), "chain_topic": int(j),
                      "hellinger": float(cost[k, j])} for k, j in zip(r, perm)]
        return pd.DataFrame(rows, columns=["chain", "topic", "chain_topic", "hellinger"])

    def _permutations(self) -> I64:
        a = self.topic_alignment()
        return a.pivot(index="chain", columns="topic", values="chain_topic").to_numpy()

    def weight_draws(self, burn: int = 0, align: bool = True,
                     scale: str = "identified") -> F64:
        """(chain, draw, task, feature) weights of sweeps ``burn + 1 .. n_sweeps``, topic
        columns aligned to chain 0's (``topic_alignment``) unless ``align`` is False, on the
        ``scale`` of ``Session.coefficients`` (``"identified"``, the default: with an
        intercept each class's topic weights centred and their mean in the intercept;
        ``"raw"``: as sampled; ``topicsup.summaries``)."""
        self._check_supervised()
        burn = self._burn(burn)
        align = check.flag("align", align)
        scale = weight_scale(scale)
        K = self.model.K
        perms = self._permutations() if align else None
        out = []
        for c, s in enumerate(self.sessions):
            eta = kept_draws(s.trace("eta"), s.n_sweeps, burn, self.n_sweeps, f"chain {c}")
            if perms is not None:
                eta = np.concatenate([eta[:, :, perms[c]], eta[:, :, K:]], axis=2)
            out.append(eta)
        draws = np.stack(out)
        kinds = self.sessions[0].problem.feature_kinds
        return identified(draws, kinds) if scale == "identified" else draws

    def _check_supervised(self) -> None:
        if not self.model.supervised:
            raise ValueError(f"{type(self.model).__name__} is unsupervised: it has no weights")

    def _burn(self, burn: int | None) -> int:
        if burn is None:
            return self.n_sweeps // 2
        return check.integer("burn", burn, low=0, high=max(self.n_sweeps - 1, 0))

    def feature_names(self) -> list[str]:
        """Chain 0's feature names (topics by their top words, then the covariates)."""
        return self.sessions[0].feature_names()

    def diagnostics(self, burn: int | None = None, engine: str = "auto",
                    scale: str = "identified") -> pd.DataFrame:
        """R-hat and effective sample sizes (``topicsup.diagnostics``, ArviZ's definitions)
        over sweeps ``burn + 1 .. n_sweeps`` (default: the second half): one row for the log
        joint and, for a supervised model, one per weight (topics aligned, on ``scale``, as
        ``weight_draws``). Columns ``quantity``, ``task``, ``feature``, ``mean``, ``sd``,
        ``r_hat``, ``ess_bulk``, ``ess_tail``."""
        burn = self._burn(burn)
        scale = weight_scale(scale)
        rows = [{"quantity": "log_joint", "task": None, "feature": None,
                 **diagnostics.summary(self.log_joint()[:, burn:], engine)}]
        if self.model.supervised:
            eta = self.weight_draws(burn, scale=scale)
            tasks = self.sessions[0].problem.task_names
            names = self.feature_names()
            for t, task in enumerate(tasks):
                for m, feature in enumerate(names):
                    rows.append({"quantity": "eta", "task": task, "feature": feature,
                                 **diagnostics.summary(eta[:, :, t, m], engine)})
        return pd.DataFrame(rows, columns=["quantity", "task", "feature", "mean", "sd",
                                           "r_hat", "ess_bulk", "ess_tail"])

    def convergence(self, every: int = 1, weights: bool = False,
                    scale: str = "identified") -> pd.DataFrame:
        """R-hat as the chains run: at every ``every``-th sweep s, over the second half of
        the draws so far (sweeps s//2 + 1 .. s), the R-hat and bulk ESS of the log joint and,
        with ``weights``, the largest R-hat over the (aligned) weights on ``scale`` (as
        ``weight_draws``). A tidy frame:
        ``sweep``, ``quantity`` (``log_joint``, ``max_weight``), ``r_hat``, ``ess_bulk``.
        Computed by the port in ``topicsup.diagnostics`` (fast; equal to ArviZ's)."""
        every = check.integer("every", every, low=1)
        weights = check.flag("weights", weights)
        scale = weight_scale(scale)
        lj = self.log_joint()
        eta = self.weight_draws(0, scale=scale) if weights and self.model.supervised \
            else None
        rows = []
        for s in range(every, self.n_sweeps + 1, every):
            half = lj[:, s // 2:s]
            rows.append({"sweep": s, "quantity": "log_joint",
                         "r_hat": diagnostics.rhat(half, "topicsup"),
                         "ess_bulk": diagnostics.ess_bulk(half, "topicsup")})
            if eta is not None:
                draws = eta[:, s // 2:s].reshape(self.n_chains, -1, eta.shape[2] * eta.shape[3])
                r = diagnostics.rhat_many(draws)
                rows.append({"sweep": s, "quantity": "max_weight",
                             "r_hat": float(np.nanmax(r)) if np.isfinite(r).any()
                             else float("nan"), "ess_bulk": float("nan")})
        return pd.DataFrame(rows, columns=["sweep", "quantity", "r_hat", "ess_bulk"])

    def to_arviz(self, burn: int = 0, align: bool = True, scale: str = "identified") -> Any:
        """The chains for ArviZ, sweeps ``burn + 1 .. n_sweeps``: an ``InferenceData`` with
        ArviZ 0.x, an xarray ``DataTree`` with ArviZ 1.x (Python >= 3.12), of the same
        groups, variables, dims, coords and attrs. ``posterior`` with the weights ``eta``
        (dims ``chain``, ``draw``, ``task``, ``feature``; topics aligned to chain 0's unless
        ``align`` is False) and ``sample_stats`` with ``lp`` (the log joint),
        ``acceptance_rate`` (samplers that make Metropolis-Hastings proposals: the
        share of proposals accepted in the sweep) and ``topic_change_rate``. The draw
        coordinate is the sweep number. The weights are on ``scale`` (as ``weight_draws``:
        the scale of ``coefficients`` and the forest plot), named in the attributes
        (``weight_scale``)."""
        burn = self._burn(burn)
        align = check.flag("align", align)
        scale = weight_scale(scale)
        s0 = self.sessions[0]
        eta = self.weight_draws(burn, align, scale) if self.model.supervised else None
        return to_inference_data(
            [s.history for s in self.sessions], burn, self.n_sweeps,
            bool(self.model.proposal_kinds), eta,
            s0.problem.task_names if eta is not None else (),
            self.feature_names() if eta is not None else (),
            {"model": repr(self.model), "seeds": [s.seed for s in self.sessions],
             "topics_aligned": align, **weight_scale_attrs(scale, eta is not None)})

    def __repr__(self) -> str:
        where = "threads" if self.client is None else "dask"
        return (f"Chains({type(self.model).__name__}, n_chains={self.n_chains}, "
                f"seed={self.seed}, sweeps={self.n_sweeps}, backend={where!r})")


def run_chains(model: Model, corpus: Corpus, n_chains: int = 4, sweeps: int = 100,
               seed: int = 0, *, backend: Any = "threads", **session_options: Any) -> Chains:
    """``Chains(model, corpus, n_chains, seed, backend=...)`` run ``sweeps`` sweeps."""
    chains = Chains(model, corpus, n_chains, seed, backend=backend, **session_options)
    chains.run(sweeps)
    return chains


__all__ = ["Chains", "run_chains"]
