"""Views are pure functions of the history; checked through chart.to_dict()."""

import numpy as np
import pandas as pd
import pytest

from topicsup.views import loglik_chart, thin, throughput_chart


def _history(n_sweeps, chains=1):
    rows = []
    for c in range(chains):
        for s in range(1, n_sweeps + 1):
            for m, v in (("log_joint_per_token", -8 + 1 / s), ("tokens_per_second", 1e6),
                         ("log_joint", -8000.0)):
                rows.append({"sweep": s, "metric": m, "value": v, "proposal": None, "chain": c})
    return pd.DataFrame(rows)


def test_loglik_chart_spec():
    d = loglik_chart(_history(10).drop(columns="chain")).to_dict()
    assert d["mark"]["type"] == "line"
    assert d["encoding"]["x"]["field"] == "sweep" and d["encoding"]["y"]["field"] == "value"
    values = next(iter(d["datasets"].values()))
    assert len(values) == 10 and values[-1]["value"] == pytest.approx(-8 + 1 / 10)
    assert "per token" in d["title"]


def test_loglik_chart_overlays_chains_and_thins_long_traces():
    h = _history(3000, chains=3)
    d = loglik_chart(h).to_dict()
    assert d["encoding"]["color"]["field"] == "chain"
    values = next(iter(d["datasets"].values()))
    assert len(values) <= 5000
    assert max(v["sweep"] for v in values) == 3000    # the last sweep is always kept
    total = loglik_chart(h, per_token=False).to_dict()
    assert "log joint" in total["title"]


def test_throughput_chart_in_millions():
    d = throughput_chart(_history(5)).to_dict()
    assert next(iter(d["datasets"].values()))[0]["mtok"] == 1.0


def test_thin_keeps_all_short_traces():
    df = pd.DataFrame({"sweep": np.arange(10), "value": np.arange(10.0)})
    assert thin(df) is df


def test_bad_history():
    with pytest.raises(TypeError, match="history must be a pandas DataFrame"):
        loglik_chart([1, 2])
    with pytest.raises(ValueError, match="missing column"):
        loglik_chart(pd.DataFrame({"sweep": [1]}))
