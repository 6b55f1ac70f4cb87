"""A live dashboard for several chains (``topicsup.chains.Chains``), for teaching
convergence: Run / Pause / Step drive every chain at once, the log joints are overlaid one
line per chain, and R-hat (of the log joint and, for a supervised model, the largest over
the topic-aligned weights) is drawn against the sweep with the 1.01 threshold (the views of
``topicsup.view_table.CHAIN_VIEWS``). Threading, errors and layout are the single-chain
``Dashboard``'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from topicsup import warmup
from topicsup.chains import Chains
from topicsup.view_table import CHAIN_VIEWS, Frames, View

from .dashboard import Dashboard

if TYPE_CHECKING:
    import pandas as pd


class ChainsDashboard(Dashboard):
    """Live controls and views for :class:`~topicsup.chains.Chains`.

    Parameters
    ----------
    chains : Chains
        The chains to run together (never copied).
    sweeps, sweeps_per_refresh, refresh_seconds, views
        As for ``Dashboard``; the views are named in ``topicsup.view_table.CHAIN_VIEWS``
        (the log joints, one line per chain, and R-hat).

    Examples
    --------
    >>> dash = ChainsDashboard(Chains(LDA(K=20), corpus, n_chains=4))   # doctest: +SKIP
    >>> dash                  # click Run: four chains, their log joints and R-hat
    """

    _TARGET = Chains
    _TABLE = CHAIN_VIEWS

    @property
    def chains(self) -> Chains:
        return cast(Chains, self.session)   # _TARGET: __init__ takes nothing else

    def _supported_views(self) -> tuple[str, ...]:
        return tuple(CHAIN_VIEWS)   # every view of several chains applies to any chains

    def _default_views(self, supported: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(v for v in supported if not CHAIN_VIEWS[v].on_request)

    def _read(self, view: View[Any]) -> Frames:
        # several chains are read through their sessions' own reads (``Chains``)
        return view.read(self.chains)

    def _compile_ahead(self) -> warmup.Warmup | None:
        # chains on this machine's threads share its compiled kernels; Dask workers compile
        # their own in their processes
        c = self.chains
        return c.sessions[0].compile_ahead() if c.client is None else None

    def _convergence(self) -> pd.DataFrame:
        c = self.chains
        return c.convergence(weights=c.model.supervised)

    def _status_html(self) -> str:
        c = self.chains
        parts = [f"<b>{c.n_chains} chains &middot; sweep {c.n_sweeps}</b>"]
        conv = self._convergence() if c.n_sweeps else None
        if conv is not None and len(conv):
            last = conv[conv["sweep"] == conv["sweep"].max()]
            for q, r in zip(last["quantity"], last["r_hat"]):
                label = "R-hat log joint" if q == "log_joint" else "max R-hat weights"
                if np.isfinite(r):
                    parts.append(f"{label} {r:.3f}")
            ess = last.loc[last["quantity"] == "log_joint", "ess_bulk"]
            if len(ess) and np.isfinite(ess.iloc[0]):
                parts.append(f"ESS log joint {ess.iloc[0]:.0f}")
        return " &middot; ".join(parts + self._status_tail(c.in_sweep))

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
