"""Views are pure functions of the history; checked through chart.to_dict()."""

import re

import numpy as np
import pandas as pd
import pytest

from topicsup.views import (acceptance_chart, coefficient_heatmap, loglik_chart,
                            prior_comparison_chart, score_chart, step_time_chart, thin,
                            throughput_chart, topic_words_chart, weight_trace_chart)


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


def test_alternation_chart_draws_the_outer_loop_on_a_log_scale_with_its_tolerance():
    """Monte Carlo MedLDA's view: the objective's relative change (zero, which ends a run,
    left out of the log scale) with epsilon as a rule above the support share and training
    accuracy; a history without outer iterations is refused by name."""
    from topicsup.views import alternation_chart
    rows = [(s, m, v) for s, change, sup, acc in ((3, float("nan"), 0.5, 0.6),
                                                  (6, 0.02, 0.3, 0.8), (9, 0.0, 0.2, 0.9))
            for m, v in (("outer_iteration", s / 3), ("objective_change", change),
                         ("support", sup), ("train_accuracy", acc))]
    h = pd.DataFrame(rows, columns=["sweep", "metric", "value"])
    spec = alternation_chart(h, epsilon=1e-4).to_dict()
    top, bottom = spec["vconcat"]
    assert top["layer"][0]["encoding"]["y"]["scale"]["type"] == "log"
    data = spec["datasets"]
    drawn = [r for rows in data.values() for r in rows if r.get("metric") == "objective_change"]
    assert [r["value"] for r in drawn] == [0.02]
    assert any(r.get("epsilon") == 1e-4 for rows in data.values() for r in rows)
    with pytest.raises(ValueError, match="epsilon must be"):
        alternation_chart(h, epsilon=-1.0)
    assert "layer" not in alternation_chart(h, epsilon=0.0).to_dict()["vconcat"][0]
    with pytest.raises(ValueError, match="no outer_iteration rows"):
        alternation_chart(h[h["metric"] == "support"].assign(metric="log_joint"))


# ---------------------------------------------------------------------- the supervised views
def _values(d):
    """The rows of a chart's (single) inline dataset."""
    (values,) = d["datasets"].values()
    return values


@pytest.fixture(scope="module")
def binary():
    """A tiny LightMedLDA session on the bundled binary corpus."""
    from topicsup.datasets import load_demo_corpus
    from topicsup.models import LightMedLDA
    from topicsup.session import Session
    # the paper's sampler, so all three proposal kinds appear
    s = Session(LightMedLDA.as_published(K=6, lam=4.0, burn_in=5), load_demo_corpus().corpus,
                seed=0)
    s.run(12)
    return s


@pytest.fixture(scope="module")
def multiclass():
    """A tiny LightMedLDA session on 3 classes with one covariate."""
    from topicsup.datasets import make_synthetic
    from topicsup.models import LightMedLDA
    from topicsup.session import Session
    data = make_synthetic(n_docs=150, n_topics=4, task="multiclass", n_classes=3,
                          n_covariates=1, seed=0)
    s = Session(LightMedLDA(K=4, lam=4.0, burn_in=2), data.corpus, seed=0)
    s.run(6)
    return s


@pytest.fixture(scope="module")
def gibbs_history():
    from topicsup.datasets import load_demo_corpus
    from topicsup.models import LDA
    from topicsup.session import Session
    s = Session(LDA(K=4), load_demo_corpus().corpus, seed=0)
    s.run(3)
    return s.history


def _mh_history(n_sweeps, chains=2):
    kinds = ("doc", "word", "exp")
    sweeps = np.arange(1, n_sweeps + 1)
    return pd.DataFrame([{"sweep": s, "metric": "acceptance_rate", "value": 0.5,
                          "proposal": k, "chain": c}
                         for c in range(chains) for s in sweeps for k in kinds])


def test_step_time_chart_stacks_the_steps_of_each_sweep(binary):
    h = binary.history
    d = step_time_chart(h).to_dict()
    assert d["mark"]["type"] == "bar"
    enc = d["encoding"]
    assert enc["y"]["stack"] == "zero" and enc["color"]["field"] == "step"
    assert enc["color"]["sort"] == ["topics", "weights", "augmentation", "prior"]
    per_sweep = pd.DataFrame(_values(d)).groupby("sweep")["value"].sum()
    seconds = h[h["metric"] == "seconds"].set_index("sweep")["value"]
    assert np.allclose(per_sweep, seconds.loc[per_sweep.index])


def test_step_time_chart_averages_chains_and_refuses_a_history_without_steps():
    rows = [{"sweep": s, "metric": "seconds_" + step, "value": v * (1 + c), "proposal": None,
             "chain": c} for c in range(2) for s in range(1, 101)
            for step, v in (("topics", 1.0), ("weights", 0.5))]
    d = step_time_chart(pd.DataFrame(rows)).to_dict()
    assert d["mark"]["type"] == "area"                  # many sweeps: an area, not bars
    values = pd.DataFrame(_values(d))
    assert len(values) == 200
    assert np.allclose(values.groupby("step")["value"].mean().to_dict()["topics"], 1.5)
    with pytest.raises(ValueError, match="no 'seconds_'<step> rows"):
        step_time_chart(_history(3))
    with pytest.raises(ValueError, match="no 'seconds_'<step> rows with finite seconds"):
        step_time_chart(pd.DataFrame(rows).assign(value=np.nan))


def test_acceptance_chart_draws_a_line_per_proposal_kind(binary):
    d = acceptance_chart(binary.history).to_dict()
    assert d["mark"]["type"] == "line"
    enc = d["encoding"]
    assert (enc["x"]["field"], enc["y"]["field"]) == ("sweep", "value")
    assert enc["color"]["field"] == "proposal" and enc["color"]["sort"] == ["doc", "word", "exp"]
    assert enc["y"]["scale"]["domain"] == [0, 1]
    assert "strokeDash" not in enc                      # one chain: nothing to tell apart
    values = _values(d)
    assert len(values) == 3 * 12 and all(0 <= v["value"] <= 1 for v in values)


def test_acceptance_chart_dashes_chains_and_thins_long_traces():
    d = acceptance_chart(_mh_history(3000)).to_dict()
    assert d["encoding"]["strokeDash"]["field"] == "chain"
    values = _values(d)
    assert len(values) <= 5000 and max(v["sweep"] for v in values) == 3000


def test_acceptance_chart_refuses_a_sampler_without_proposals(gibbs_history):
    with pytest.raises(ValueError, match="no Metropolis-Hastings proposals"):
        acceptance_chart(gibbs_history)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['proposal'\]"):
        acceptance_chart(gibbs_history.drop(columns="proposal"))


def test_coefficient_heatmap_diverges_around_zero_strongest_first(binary):
    coef = binary.coefficients()
    d = coefficient_heatmap(coef).to_dict()
    enc = d["encoding"]
    assert d["mark"]["type"] == "rect"
    assert (enc["x"]["field"], enc["y"]["field"], enc["color"]["field"]) == \
        ("task", "feature", "mean")
    scale = enc["color"]["scale"]
    m = coef["mean"].abs().max()
    assert scale["domainMid"] == 0 and scale["domain"] == pytest.approx([-m, m])
    assert {t["field"] for t in enc["tooltip"]} >= {"mean", "lower", "upper"}
    strongest = coef.loc[coef["mean"].abs().idxmax(), "feature"]
    assert enc["y"]["sort"][0] == strongest
    by_strength = coef.assign(a=coef["mean"].abs()).sort_values("a", ascending=False)
    assert enc["y"]["sort"] == list(by_strength["feature"])   # one task: by |mean|
    assert len(_values(d)) == len(coef)


def test_coefficient_heatmap_orders_classes_into_a_block_diagonal():
    # f1 is class b's topic (the strongest), f2 and f0 class a's, f3 weakly b's
    means = {"a": [2.0, -1.0, 3.0, 0.1], "b": [-1.0, 5.0, 0.5, 0.2], "c": [0.0, 0.0, 0.0, 0.0]}
    coef = pd.DataFrame([{"task": t, "feature": f"f{i}", "mean": m, "lower": m - 1,
                          "upper": m + 1, "width": 2.0}
                         for t, ms in means.items() for i, m in enumerate(ms)])
    enc = coefficient_heatmap(coef).to_dict()["encoding"]
    assert enc["y"]["sort"] == ["f1", "f3", "f2", "f0"]
    assert enc["x"]["sort"] == ["b", "a", "c"]      # c owns no feature: last
    given = coefficient_heatmap(coef, sort=False).to_dict()["encoding"]
    assert given["y"]["sort"] == ["f0", "f1", "f2", "f3"] and given["x"]["sort"] == ["a", "b", "c"]


def test_coefficient_heatmap_interval_width_and_top(multiclass):
    coef = multiclass.coefficients(interval=0.8)
    assert coef["task"].nunique() == 3 and coef["feature"].iloc[-1] == "x0"   # the covariate
    d = coefficient_heatmap(coef, value="width").to_dict()
    scale = d["encoding"]["color"]["scale"]
    assert d["encoding"]["color"]["field"] == "width"
    assert "domainMid" not in scale and scale["zero"] is True
    top = coefficient_heatmap(coef, top=2).to_dict()
    assert len(_values(top)) == 2 * 3 and "strongest 2 of 5 features" in top["title"]
    strongest = coef.loc[coef["mean"].abs().idxmax(), "feature"]
    assert top["encoding"]["y"]["sort"][0] == strongest


def test_coefficient_heatmap_keeps_large_models_under_the_row_limit():
    K, tasks = 3000, ("a", "b")
    rs = np.random.default_rng(0)
    coef = pd.DataFrame({"task": np.repeat(tasks, K), "feature": np.tile(
        [f"{k}: w" for k in range(K)], 2), "mean": rs.normal(size=2 * K)})
    coef = coef.assign(lower=coef["mean"] - 1, upper=coef["mean"] + 1)
    d = coefficient_heatmap(coef).to_dict()
    assert len(_values(d)) <= 5000 and f"of {K} features" in d["title"]


def test_coefficient_heatmap_bad_input(binary):
    coef = binary.coefficients()
    with pytest.raises(TypeError, match="coefficients must be a pandas DataFrame"):
        coefficient_heatmap(coef.to_dict())
    with pytest.raises(ValueError, match="value must be one of"):
        coefficient_heatmap(coef, value="median")
    with pytest.raises(ValueError, match=r"missing column\(s\) \['upper'\]"):
        coefficient_heatmap(coef.drop(columns="upper"))
    with pytest.raises(ValueError, match=r"top must be an integer >= 1, got 0"):
        coefficient_heatmap(coef, top=0)
    with pytest.raises(ValueError, match="several rows for one"):
        coefficient_heatmap(pd.concat([coef, coef]))


def test_topic_words_chart_lists_words_by_rank(binary):
    topics = binary.topics(5)
    d = topic_words_chart(topics).to_dict()
    enc = d["encoding"]
    assert d["mark"]["type"] == "text"
    assert (enc["x"]["field"], enc["y"]["field"], enc["text"]["field"]) == \
        ("rank", "topic", "word")
    values = _values(d)
    assert len(values) == 6 * 5 and "size" not in enc
    first = next(v for v in values if v["rank"] == 1 and v["topic"] == enc["y"]["sort"][0])
    assert first["word"] == topics["word_1"].iloc[0]
    assert enc["y"]["sort"][0] == f"{topics['label'].iloc[0]} ({topics['share'].iloc[0]:.0%})"
    assert {v["rank"] for v in _values(topic_words_chart(topics, n_words=2).to_dict())} == {1, 2}


def test_topic_words_chart_sizes_words_by_probability(binary):
    topics, phi, vocab = binary.topics(3), binary.topic_word(), binary.corpus.vocabulary
    d = topic_words_chart(topics, topic_word=phi, vocabulary=vocab).to_dict()
    assert d["encoding"]["size"]["field"] == "probability"
    top = next(v for v in _values(d) if v["rank"] == 1 and v["topic"].startswith("2:"))
    assert top["probability"] == pytest.approx(phi[2].max())


def test_topic_words_chart_bad_input(binary):
    topics = binary.topics(3)
    with pytest.raises(ValueError, match="3 word columns .* 4 needed"):
        topic_words_chart(topics, n_words=4)
    with pytest.raises(ValueError, match="together"):
        topic_words_chart(topics, topic_word=binary.topic_word())
    with pytest.raises(ValueError, match="topic_word must be a"):
        topic_words_chart(topics, topic_word=np.ones((2, 3)), vocabulary=["a", "b", "c"])
    with pytest.raises(TypeError, match="topics must be a pandas DataFrame"):
        topic_words_chart(topics.to_numpy())


def test_weight_trace_chart_shows_the_strongest_features_per_class(multiclass):
    w = multiclass.weights()
    d = weight_trace_chart(w, top=2).to_dict()
    assert d["facet"]["row"]["field"] == "task"
    enc = d["spec"]["encoding"]
    assert d["spec"]["mark"]["type"] == "line" and enc["color"]["field"] == "feature"
    means = w.groupby(["task", "feature"])["value"].mean().abs().groupby("feature").max()
    assert enc["color"]["sort"] == list(means.sort_values(ascending=False).index[:2])
    values = _values(d)
    assert len(values) == 6 * 3 * 2 and {v["task"] for v in values} == set(w["task"])


def test_weight_trace_chart_selects_features_by_index_or_label(multiclass):
    w = multiclass.weights()
    label = w.loc[w["index"] == 4, "feature"].iloc[0]          # the covariate
    d = weight_trace_chart(w, features=[4, w["feature"].iloc[0]], tasks="class_1").to_dict()
    assert {v["feature"] for v in _values(d)} == {label, w["feature"].iloc[0]}
    assert {v["task"] for v in _values(d)} == {"class_1"}
    with pytest.raises(ValueError, match=r"task \['nope'\] not found"):
        weight_trace_chart(w, tasks=["nope"])
    with pytest.raises(ValueError, match=r"feature \[99\] not found"):
        weight_trace_chart(w, features=99)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['value'\]"):
        weight_trace_chart(w.drop(columns="value"))


def test_weight_trace_chart_thins_long_traces():
    sweeps = np.arange(1, 2001)
    w = pd.DataFrame([{"sweep": s, "task": t, "feature": f, "value": 1.0}
                      for s in sweeps for t in ("a", "b") for f in ("x", "y", "z")])
    values = _values(weight_trace_chart(w, top=3).to_dict())
    assert len(values) <= 5000 and max(v["sweep"] for v in values) == 2000


def test_score_chart_against_sweeps_and_seconds(binary):
    h = binary.history
    d = score_chart(h).to_dict()
    assert d["encoding"]["x"]["field"] == "sweep" and d["encoding"]["color"]["field"] == "metric"
    assert d["encoding"]["y"]["title"] == "accuracy"
    assert {v["metric"] for v in _values(d)} == {"train_accuracy"}   # not hinge_loss
    t = score_chart(h, x="seconds").to_dict()
    assert t["encoding"]["x"]["field"] == "seconds"
    seconds = [v["seconds"] for v in sorted(_values(t), key=lambda v: v["sweep"])]
    total = h.loc[h["metric"] == "seconds", "value"].sum()
    assert np.all(np.diff(seconds) > 0) and seconds[-1] == pytest.approx(total)


def test_score_chart_overlays_heldout_evaluations(binary):
    heldout = pd.DataFrame({"sweep": [5, 10], "seconds": [0.1, 0.2],
                            "metric": "test_accuracy", "value": [0.8, 0.85]})
    d = score_chart(binary.history, heldout, x="seconds").to_dict()
    assert {v["metric"] for v in _values(d)} == {"train_accuracy", "test_accuracy"}
    with pytest.raises(ValueError, match=r"heldout is missing column\(s\) \['seconds'\]"):
        score_chart(binary.history, heldout.drop(columns="seconds"), x="seconds")


def test_score_chart_names_multilabel_f1_and_tells_chains_apart():
    h = pd.DataFrame({"sweep": [1, 2, 1, 2], "metric": "train_f1", "value": [0.5, 0.6, 0.4, 0.7],
                      "chain": [0, 0, 1, 1]})
    d = score_chart(h).to_dict()
    assert d["encoding"]["y"]["title"] == "f1" and d["encoding"]["strokeDash"]["field"] == "chain"


def _chain_legend_symbols(chart) -> list[str]:
    """The rendered SVG's legend symbols that are drawn with a dash pattern."""
    vl_convert = pytest.importorskip("vl_convert")
    svg = vl_convert.vegalite_to_svg(chart.to_dict())
    symbols = re.findall(r'role-legend-symbol"[^>]*>(<path[^>]*>)', svg)
    return [s for s in symbols if "stroke-dasharray" in s]


def _scores(n_sweeps, chains=2):
    return pd.DataFrame([{"sweep": s, "metric": "train_accuracy", "value": 0.5 + 0.01 * s + c,
                          "chain": f"chain {c}"} for c in range(chains)
                         for s in range(1, n_sweeps + 1)])


@pytest.mark.parametrize("n_sweeps", [5, 100], ids=["with points", "lines only"])
def test_chain_legends_draw_each_chain_as_a_stroke_in_its_dash(n_sweeps):
    """Lines of few sweeps get points, and a legend of dots cannot show a dash: the chains'
    legend is strokes in each chain's dash (score, acceptance, the outer loop's panels)."""
    from topicsup.views import ALTERNATION, alternation_chart
    outer = pd.concat([_scores(n_sweeps).assign(metric=m) for m in ALTERNATION])
    charts = {"score": score_chart(_scores(n_sweeps)),
              "score, legend below": score_chart(_scores(n_sweeps), legend="bottom"),
              "acceptance": acceptance_chart(_mh_history(n_sweeps)),
              "alternation": alternation_chart(outer.assign(value=0.5))}
    for name, chart in charts.items():
        d = chart.to_dict()
        panels = d.get("vconcat", [d])
        for panel in panels:
            enc = (panel["layer"][0] if "layer" in panel else panel)["encoding"]
            legend = enc["strokeDash"]["legend"]
            assert legend["symbolType"] == "stroke" and legend["symbolStrokeColor"], name
        symbols = _chain_legend_symbols(chart)
        assert len(symbols) == 2, name                  # one a chain, each a visible stroke
        assert all(re.search(r'd="M-?[\d.]+,0L[\d.]+,0"', s) for s in symbols), name
        assert all(' stroke="' in s and 'stroke="transparent"' not in s for s in symbols), name
        dashes = {re.search(r'stroke-dasharray="([^"]*)"', s).group(1) for s in symbols}
        assert len(dashes) == 2, name                   # told apart


def test_score_chart_bad_input(binary, gibbs_history):
    with pytest.raises(ValueError, match="x must be one of"):
        score_chart(binary.history, x="time")
    with pytest.raises(ValueError, match="no training score rows"):
        score_chart(gibbs_history)
    with pytest.raises(ValueError, match="no 'seconds' rows"):
        score_chart(binary.history[binary.history["metric"] != "seconds"], x="seconds")
    with pytest.raises(TypeError, match="heldout must be a pandas DataFrame"):
        score_chart(binary.history, heldout=[0.9])


def test_topic_words_of_a_subset_of_topics_read_their_own_rows_of_phi(binary):
    """A subset of Session.topics (index = topic ids) with the full (K, V) topic_word: each
    word's probability comes from its topic's row, not from the subset's position."""
    vocab = ["a", "b", "c"]
    phi = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.2, 0.5, 0.3]])
    topics = pd.DataFrame({"share": [0.5, 0.2], "top_words": ["c b", "b c"],
                           "word_1": ["c", "b"], "word_2": ["b", "c"]},
                          index=pd.Index([1, 2], name="topic"))
    d = topic_words_chart(topics, topic_word=phi, vocabulary=vocab).to_dict()
    values = next(iter(d["datasets"].values()))
    got = {(v["topic"][0], v["word"]): v["probability"] for v in values}
    assert got == {("1", "c"): 0.6, ("1", "b"): 0.3, ("2", "b"): 0.5, ("2", "c"): 0.3}
    width = coefficient_heatmap(binary.coefficients(), value="width").to_dict()
    assert width["title"].startswith("Credible-interval width")


def test_a_regression_session_is_drawn_as_one():
    """A regression's weights are titled and labelled as a response, not a class, in the
    heatmap, the weight traces and the report (the model's task says which: Task.target)."""
    from topicsup.datasets import make_synthetic
    from topicsup.models import SLDA
    from topicsup.report import session_views
    from topicsup.session import Session
    s = Session(SLDA(K=3), make_synthetic(n_docs=60, n_topics=3, doc_length=15, task="real",
                                          seed=2).corpus, seed=0)
    s.run(3)
    assert s.target == "response"
    d = coefficient_heatmap(s.coefficients(), target=s.target).to_dict()
    assert d["title"].startswith("Regression weights per response")
    assert d["encoding"]["x"]["title"] == "response"
    assert weight_trace_chart(s.weights(), target=s.target).to_dict()["facet"]["row"][
        "title"] == "response"
    specs = str([c.to_dict() for _, c in session_views(s)])
    assert "Classifier weights" not in specs and "Regression weights per response" in specs


def _fit(means, kinds=None):
    kinds = kinds or ["topic"] * len(next(iter(means.values())))
    return pd.DataFrame([{"task": t, "feature": f"f{i}", "kind": kinds[i], "mean": m,
                          "lower": m - 1, "upper": m + 1, "width": 2.0}
                         for t, ms in means.items() for i, m in enumerate(ms)])


def test_prior_comparison_chart_puts_fits_side_by_side_with_their_sparsity():
    """One panel per fit, topics only (the intercept left out of the colour scale), each
    titled with the mean top-1 share of the classes' weight mass, own colour scales."""
    sparse = _fit({"a": [3.0, 0.0, 0.0, 9.0], "b": [0.0, -2.0, 0.0, 0.0]},
                  kinds=["topic"] * 3 + ["intercept"])
    smeared = _fit({"a": [1.0, 1.0, 1.0, 1.0], "b": [1.0, 1.0, 2.0, 1.0]})
    both = pd.concat({"horseshoe": sparse, "normal": smeared}, names=["prior"]).reset_index(0)
    d = prior_comparison_chart(both, top=1).to_dict()
    assert [p["title"]["text"] for p in d["hconcat"]] == ["horseshoe", "normal"]
    assert d["hconcat"][0]["title"]["subtitle"].endswith("1.00")
    assert d["hconcat"][1]["title"]["subtitle"].endswith(f"{(0.25 + 0.4) / 2:.2f}")
    assert d["resolve"]["scale"]["color"] == "independent"
    rows = d["datasets"][d["hconcat"][0]["data"]["name"]]
    assert {r["feature"] for r in rows} == {"f0", "f1", "f2"}


def test_prior_comparison_chart_wraps_three_fits_into_rows_of_two():
    """Three panels in a row would be wider than a notebook: they wrap, two a row, each
    panel as wide as one of two fits side by side."""
    fit = _fit({f"class {c}": [3.0 - c, 0.0, 1.0] for c in range(10)})
    three = pd.concat({"horseshoe": fit, "normal": fit, "Laplace": fit},
                      names=["prior"]).reset_index(0)
    d = prior_comparison_chart(three).to_dict()
    assert "hconcat" not in d and d["columns"] == 2
    assert [p["title"]["text"] for p in d["concat"]] == ["horseshoe", "normal", "Laplace"]
    assert d["resolve"]["scale"]["color"] == "independent"
    pair = prior_comparison_chart(three[three["prior"] != "Laplace"]).to_dict()
    step = pair["hconcat"][0]["width"]["step"]
    assert {p["width"]["step"] for p in d["concat"]} == {step} and step > 10


def test_prior_comparison_chart_bad_input():
    one = _fit({"a": [1.0, 2.0]}).assign(prior="normal")
    with pytest.raises(ValueError, match="holds one fit"):
        prior_comparison_chart(one)
    with pytest.raises(ValueError, match="lacks|missing|column"):
        prior_comparison_chart(one.drop(columns="kind"))
    with pytest.raises(TypeError, match="by must be a column name"):
        prior_comparison_chart(one, by=1)
    two = pd.concat([one, _fit({"a": [1.0, 2.0]}, kinds=["covariate"] * 2).assign(prior="x")])
    with pytest.raises(ValueError, match="no topic weights for prior = 'x'"):
        prior_comparison_chart(two)


def test_coefficient_heatmap_leaves_the_intercept_out_unless_asked():
    coef = _fit({"a": [1.0, -2.0, 9.0]}, kinds=["topic", "topic", "intercept"])
    rows = lambda d: {r["feature"] for r in _values(d)}   # noqa: E731
    assert rows(coefficient_heatmap(coef).to_dict()) == {"f0", "f1"}
    assert rows(coefficient_heatmap(coef, intercept=True).to_dict()) == {"f0", "f1", "f2"}
    with pytest.raises(TypeError, match="intercept must be a bool"):
        coefficient_heatmap(coef, intercept="yes")


def test_rhat_chart_spreads_the_last_approach_to_one_on_a_log_axis_of_r_hat_minus_one():
    """R-hat is drawn as R-hat - 1 on a log axis labelled in R-hat (a tick at 0.01 reads
    1.01): 10, 1.05 and 1.01 are each a decade or so apart, where a log axis of R-hat itself
    put 1.00-1.05 in the bottom 2% of the plot. Values at or below 1.0001 (1 or below
    included) are drawn at that floor; the tooltip keeps R-hat as it is; the threshold is
    at 1.01."""
    from topicsup.views import rhat_chart
    from topicsup.views.convergence import RHAT_FLOOR
    frame = pd.DataFrame({"sweep": np.arange(7, 12), "quantity": "log_joint",
                          "r_hat": [10.0, 1.05, 1.01, 1.0, 0.98]})
    d = rhat_chart(frame).to_dict()
    line, rule, _ = d["layer"]
    y = line["encoding"]["y"]
    assert y["field"] == "above_one" and y["scale"]["type"] == "log"
    assert "datum.value + 1" in y["axis"]["labelExpr"]
    # ticks at 1-2-5 steps of R-hat - 1 over the range drawn: 1.0001 .. 10, 1.01 among them
    assert y["axis"]["values"][0] == pytest.approx(RHAT_FLOOR)
    assert 0.01 in y["axis"]["values"] and y["axis"]["values"][-1] == 5.0
    lo, hi = y["scale"]["domain"]
    assert lo < RHAT_FLOOR and hi > 9.0
    values = {v["sweep"]: v for v in d["datasets"][line["data"]["name"]]}
    assert [values[s]["above_one"] for s in range(7, 12)] == pytest.approx(
        [9.0, 0.05, 0.01, RHAT_FLOOR, RHAT_FLOOR])
    assert values[11]["r_hat"] == 0.98
    assert line["encoding"]["tooltip"][2]["field"] == "r_hat"
    threshold = d["datasets"][rule["data"]["name"]][0]["above_one"]
    assert threshold == pytest.approx(0.01)
    # on the old axis (log R-hat) 1.05 and 1.01 were 0.7% of the axis's range apart
    assert (np.log(1.05) - np.log(1.01)) / (np.log(10) - np.log(1)) < 0.02
    assert (np.log(0.05) - np.log(0.01)) / (np.log(9) - np.log(RHAT_FLOOR)) > 0.14
