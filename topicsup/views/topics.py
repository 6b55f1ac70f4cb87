"""Reading topics: a topic's words ranked by relevance with its lambda slider, the intertopic
distance map, the top words of every topic and the topics' sizes. Each is a function of a
table the Session returns (``topic_terms()``, ``topics()``) or of a read-out
(``summaries.topic_map``, ``summaries.topic_sizes``).
"""

from __future__ import annotations

import re
from typing import Any, Sequence, cast

import altair as alt
import numpy as np
import pandas as pd

from .. import validation as check
from ..arrays import F64, Array
from ._common import FIT_WIDTH, _check_count, _check_frame, _label_extent, _label_limit


def _relevance_layers(terms: pd.DataFrame, n_words: int, lam: alt.Parameter,
                      topic_filter: Any, width: int,
                      label_limit: int) -> alt.LayerChart | alt.FacetChart:
    """pyLDAvis's bars: for the words ranked by relevance at ``lam``, the corpus count (grey)
    and the topic's count (red) of each, the words' labels ``label_limit`` px at most."""
    base = (alt.Chart(terms)
            .transform_filter(topic_filter)
            .transform_calculate(relevance=f"{lam.name} * datum.log_probability + "
                                           f"(1 - {lam.name}) * datum.log_lift")
            .transform_window(rank="row_number()", groupby=["topic"],
                              sort=[alt.SortField("relevance", order="descending"),
                                    alt.SortField("word_id", order="ascending")])
            .transform_filter(alt.datum.rank <= n_words))
    y = alt.Y("word:N", sort=alt.EncodingSortField("rank", order="ascending"), title=None,
              axis=alt.Axis(labelLimit=label_limit))
    tooltip = ["label:N", "word:N", alt.Tooltip("topic_count:Q", title="tokens in topic"),
               alt.Tooltip("corpus_count:Q", title="tokens in corpus"),
               alt.Tooltip("probability:Q", format=".4f"), alt.Tooltip("lift:Q", format=".2f"),
               alt.Tooltip("relevance:Q", format=".2f")]
    return alt.layer(
        base.mark_bar(color="#c7c7c7").encode(
            x=alt.X("corpus_count:Q", title="tokens (grey: corpus, red: topic)"), y=y,
            tooltip=tooltip),
        base.mark_bar(color="#d62728").encode(x="topic_count:Q", y=y, tooltip=tooltip),
    ).properties(width=width, height=alt.Step(15))


def _relevance_parameter(lam: float) -> alt.Parameter:
    return alt.param(name="relevance_lambda", value=check.number("lam", lam, low=0.0, high=1.0),
                     bind=alt.binding_range(min=0.0, max=1.0, step=0.05,
                                            name="relevance lambda "))


def relevance_chart(terms: pd.DataFrame, topic: int | None = None, n_words: int = 15,
                    lam: float = 0.6, width: int = 420) -> alt.LayerChart | alt.FacetChart:
    """One topic's words ranked by relevance (Sievert & Shirley 2014) with a lambda slider:
    relevance = lambda log p(w|k) + (1 - lambda) log lift, recomputed in the browser as the
    slider moves (step 0.05: ``Session.topic_terms`` keeps every word that is among the best
    at each such lambda, so the ranking is exact). Bars as pyLDAvis: the word's tokens in the
    corpus (grey) and in the topic (red).

    ``terms``: ``Session.topic_terms(n_words)``; ``topic``: which (default the first)."""
    _check_frame(terms, "terms", ("topic", "label", "word", "word_id", "log_probability",
                                  "log_lift", "topic_count", "corpus_count"),
                 "Session.topic_terms()")
    _check_count("n_words", n_words)
    if terms.empty:
        raise ValueError("terms has no rows (Session.topic_terms)")
    topics = list(pd.unique(terms["topic"]))
    topic = topics[0] if topic is None else topic
    if topic not in topics:
        raise ValueError(f"topic {topic!r} is not in terms (topics {topics[:10]})")
    data = _finite_terms(terms[terms["topic"] == topic])
    lam_param = _relevance_parameter(lam)
    label = str(data["label"].iloc[0])
    # the words whole, in what FIT_WIDTH leaves beside the bars (their x axis overhangs)
    limit = _label_limit(data["word"], FIT_WIDTH - width - 40)
    return (_relevance_layers(data, n_words, lam_param, alt.datum.topic == int(topic), width,
                              limit)
            .add_params(lam_param).properties(title=f"Relevant words: {label}"))


def _finite_terms(terms: pd.DataFrame) -> pd.DataFrame:
    """The rows a chart can draw: a word that never occurs has log lift -inf (no JSON for
    it, and no reader wants it)."""
    keep = np.isfinite(terms[["log_probability", "log_lift"]].to_numpy(dtype=float)).all(axis=1)
    return terms[keep][["topic", "label", "word", "word_id", "log_probability", "log_lift",
                        "probability", "lift", "topic_count", "corpus_count"]]


# the width of the relevance bars beside the map, their words' labels included
MAP_BARS = 380


def _legend_shares(top: float) -> list[float]:
    """The map's legend sizes: the largest of 1, 2, 5 x 10^k that is at most ``top`` (the
    largest share) and the two below it."""
    nice = [m * 10.0 ** e for e in range(-4, 1) for m in (1, 2, 5)]
    return [v for v in nice if v <= top][-3:] or nice[:1]


def topic_map_chart(topic_map: pd.DataFrame, terms: pd.DataFrame | None = None,
                    n_words: int = 15, lam: float = 0.6, width: int = 300,
                    height: int = 300
                    ) -> alt.HConcatChart | alt.LayerChart | alt.FacetChart:
    """The intertopic distance map (pyLDAvis, BERTopic): each topic a circle at its place in
    the classical scaling of the topics' Jensen-Shannon distances, its area the topic's share
    of the tokens; for a supervised model coloured by the class it drives most, with that
    weight's mean, interval and whether it excludes 0 in the tooltip (a supervised map: which
    region of topic space each class draws on). The circles are see-through and outlined,
    the larger drawn first, and every topic's number lies above all of them on a white halo,
    readable where circles overlap. With ``terms`` (``Session.topic_terms``), beside it the
    relevance bars with a lambda slider, linked: click a circle to read its topic.

    ``topic_map``: ``summaries.topic_map`` (``Session.readout(summaries.topic_map)``)."""
    _check_frame(topic_map, "topic_map", ("label", "share", "x", "y"), "summaries.topic_map")
    if topic_map.empty:
        raise ValueError("topic_map has no rows (summaries.topic_map)")
    df = topic_map.reset_index()
    if not np.isfinite(df[["x", "y", "share"]].to_numpy(dtype=float)).all():
        raise ValueError("topic_map has non-finite coordinates or shares")
    supervised = "task" in df.columns
    pick = alt.selection_point(name="picked_topic", fields=["topic"], on="click",
                               value=[{"topic": int(df["topic"].iloc[
                                   int(df["share"].to_numpy().argmax())])}])
    tooltip: list[Any] = ["topic:Q", "label:N", alt.Tooltip("share:Q", format=".1%")]
    enc: dict[str, Any]   # channel -> what it encodes, for encode(**enc)
    enc = {"x": alt.X("x:Q", title="scaled distance 1", axis=alt.Axis(grid=False)),
           "y": alt.Y("y:Q", title="scaled distance 2", axis=alt.Axis(grid=False)),
           # three sizes in the legend: at every nice step (ten or more when the topics are
           # few and large; five at tickCount 4, the map 460 px wide) its row of circles ran
           # the map and its bars past FIT_WIDTH
           "size": alt.Size("share:Q", title="share of tokens",
                            legend=alt.Legend(format=".2~%", orient="bottom",
                                              direction="horizontal",
                                              values=_legend_shares(
                                                  float(df["share"].max()))),
                            scale=alt.Scale(range=[40, 1600]))}
    if supervised:
        tooltip += [alt.Tooltip("task:N", title="drives most"),
                    *[alt.Tooltip(f"{c}:Q", format=".2f", title=f"weight {c}")
                      for c in ("mean", "lower", "upper")],
                    alt.Tooltip("sign_certain:N", title="interval excludes 0")]
        enc["color"] = alt.Color("task:N", title="class it drives most",
                                 legend=alt.Legend(orient="bottom", columns=2, symbolLimit=40,
                                                   labelLimit=160))
    enc["tooltip"] = tooltip
    keep = ["topic", "label", "share", "x", "y",
            *(["task", "mean", "lower", "upper", "sign_certain"] if supervised else [])]
    # circles overlap: each is see-through with an outline (the picked one's thicker), the
    # larger drawn first so a small topic lies on a large one, not under it
    circles = (alt.Chart(df[keep]).mark_circle(stroke="#333")
               .encode(**enc, order=alt.Order("share:Q", sort="descending"),
                       fillOpacity=alt.condition(pick, alt.value(0.7), alt.value(0.3)),
                       strokeWidth=alt.condition(pick, alt.value(2), alt.value(0.75)))
               .add_params(pick))
    # every topic's number in layers above all the circles, on a white halo (a wider white
    # stroke of the same text beneath it): it reads inside another topic's circle too. The
    # numbers carry the circles' tooltip, as they lie over their circles' centres
    number = alt.Chart(df[keep]).encode(x="x:Q", y="y:Q", text="topic:Q", tooltip=tooltip)
    halo = number.mark_text(fontSize=10, fontWeight="bold", color="white", stroke="white",
                            strokeWidth=3, strokeJoin="round")
    text = number.mark_text(fontSize=10, fontWeight="bold", color="#111")
    title = alt.TitleParams("Intertopic distance map", subtitle=(
        "colour: the class a topic drives most; area: its share" if supervised
        else "area: a topic's share of the tokens"))
    chart = alt.layer(circles, halo, text).properties(width=width, height=height, title=title)
    if terms is None:
        return chart
    _check_frame(terms, "terms", ("topic", "label", "word", "word_id", "log_probability",
                                  "log_lift", "topic_count", "corpus_count"),
                 "Session.topic_terms()")
    _check_count("n_words", n_words)
    lam_param = _relevance_parameter(lam)
    terms = _finite_terms(terms)
    # beside the map, the bars and their words share the 380 px they always had (200 of
    # bars, Vega's 180 of labels): long words take up to 260 of it, whole
    limit = _label_limit(terms["word"], MAP_BARS - 120)
    bars = (_relevance_layers(terms, n_words, lam_param, pick, MAP_BARS - limit, limit)
            .add_params(lam_param)
            .properties(title=alt.TitleParams("Relevant words", subtitle="of the picked topic "
                                              "(click a circle)")))
    return alt.hconcat(chart, bars).resolve_scale(color="independent", size="independent")


def _word_columns(topics: pd.DataFrame) -> list[str]:
    cols = [c for c in topics.columns if re.fullmatch(r"word_\d+", str(c))]
    return sorted(cols, key=lambda c: int(c[len("word_"):]))


def _word_probabilities(words: pd.DataFrame, topic_word: Array,
                        vocabulary: Sequence[str]) -> F64:
    """phi of each (topic, word) row of ``words``: ``row`` is the topic's row of phi."""
    phi = np.asarray(topic_word, dtype=np.float64)
    n_rows = int(words["row"].max()) + 1
    if phi.ndim != 2 or phi.shape[0] < n_rows or phi.shape[1] != len(vocabulary):
        raise ValueError(f"topic_word must be a (K, V) array with a row for every topic shown "
                         f"(at least {n_rows}) and V = {len(vocabulary)} columns, got shape "
                         f"{phi.shape}")
    column = {w: j for j, w in enumerate(vocabulary)}
    unknown = sorted(set(words["word"]) - set(column))
    if unknown:
        raise ValueError(f"words {unknown[:5]} of topics are not in vocabulary")
    return phi[words["row"], words["word"].map(column)]


def topic_words_chart(topics: pd.DataFrame, n_words: int | None = None,
                      topic_word: Array | None = None, vocabulary: Sequence[str] | None = None,
                      width: int | alt.Step | None = None,
                      height: int | alt.Step = alt.Step(18)) -> alt.Chart:
    """The top words of each topic: a row per topic (labelled with its share of tokens), the
    words in rank order along it. A word longer than its column is cut short with an ellipsis
    (the tooltip has it whole).

    Parameters
    ----------
    topics : DataFrame
        ``Session.topics(n_words)``: index ``topic``, columns ``share``, ``word_1`` ..
        ``word_n`` and, if present, ``label`` (the rows' names).
    n_words : int, optional
        Show the first ``n_words`` words. By default all, or at the default width as many as
        fit ``FIT_WIDTH`` in columns of at least 56 px (10; the title says how many of how
        many are shown).
    topic_word, vocabulary : (K, V) array and sequence of V str, optional
        ``Session.topic_word()`` and ``corpus.vocabulary``: when given, a word's font size
        and tooltip show its probability in the topic.
    width, height : int or alt.Step
        Size of the plot, or of one cell as ``alt.Step``. By default each word's column gets
        what the topics' labels leave of ``FIT_WIDTH`` (between 50 and 90 px), so that the
        chart fits a notebook whatever the number of words; the size legend is below.

    Returns
    -------
    alt.Chart
    """
    _check_frame(topics, "topics", ("share",), "Session.topics(n_words)")
    _check_count("n_words", n_words)
    if topics.empty:
        raise ValueError("topics has no rows (topics)")
    if not pd.api.types.is_numeric_dtype(topics["share"]):
        raise TypeError(f"topics' share column must hold numbers, got {topics['share'].dtype}")
    if (topic_word is None) != (vocabulary is None):
        raise ValueError("pass topic_word and vocabulary together (Session.topic_word(), "
                         "corpus.vocabulary), or neither")
    cols = _word_columns(topics)
    if not cols or len(cols) < (n_words or 1):
        raise ValueError(f"topics has {len(cols)} word columns (word_1 .. word_n), "
                         f"{n_words or 1} needed: call Session.topics with more words")
    # by the topics' labels where the frame has them (Session.topics: distinct names)
    names = topics["label"] if "label" in topics.columns else topics.index
    labels = [f"{k} ({s:.0%})" for k, s in zip(names, topics["share"])]
    # a column per word: the labels (whole, from 200 px up to 320) and the axis title take
    # the rest
    label = _label_limit(labels, 320, least=200)
    given = len(cols)
    if n_words is None and width is None:
        n_words = min(given, (FIT_WIDTH - label - 30) // 56)
    cols = cols[:n_words or given]
    if width is None:
        width = alt.Step(int(np.clip((FIT_WIDTH - label - 30) // len(cols), 50, 90)))
    step = float(width.step) if isinstance(width, alt.Step) else float(width) / len(cols)
    # a subset of Session.topics keeps the topic ids as index: they are the rows of phi
    ids = topics.index.to_numpy()
    rows = ids if np.issubdtype(ids.dtype, np.integer) and (ids >= 0).all() \
        else np.arange(len(labels))
    words = (topics[cols].set_axis(labels).rename_axis("topic").assign(row=rows)
             .reset_index().melt(id_vars=["topic", "row"], var_name="rank", value_name="word"))
    words["rank"] = words["rank"].str[len("word_"):].astype(int)
    enc: dict[str, Any]   # channel -> what it encodes, for encode(**enc)
    enc = {"x": alt.X("rank:O", title="rank", axis=alt.Axis(orient="top", labelAngle=0)),
           "y": alt.Y("topic:N", sort=labels, title="topic (share of tokens)",
                      axis=alt.Axis(labelLimit=label, maxExtent=_label_extent(label))),
           "text": alt.Text("word:N"), "tooltip": ["topic:N", "rank:O", "word:N"]}
    if topic_word is not None:   # with its vocabulary (checked above)
        words["probability"] = _word_probabilities(words, topic_word,
                                                   cast("Sequence[str]", vocabulary))
        # the likeliest words' font as large as their columns allow (18 px at 90 px)
        enc["size"] = alt.Size("probability:Q", title="probability",
                               scale=alt.Scale(range=[9, int(np.clip(step / 5, 12, 18))]),
                               legend=alt.Legend(orient="bottom", direction="horizontal"))
        enc["tooltip"].append(alt.Tooltip("probability:Q", format=".3f"))
    title = "Top words per topic" if len(cols) == given \
        else f"Top words per topic (the first {len(cols)} of {given})"
    return (alt.Chart(words.drop(columns="row"), title=title)
            .mark_text(limit=max(step - 4, 10)).encode(**enc)
            .properties(width=width, height=height))


def topic_sizes_chart(sizes: pd.DataFrame, top: int = 30, width: int = 420,
                      height: int | alt.Step = alt.Step(14)) -> alt.Chart:
    """Each topic's share of the tokens as a bar, largest first, labelled by its label;
    the tooltip adds the documents it leads (``summaries.topic_sizes``). At most ``top``
    topics (the largest)."""
    _check_frame(sizes, "sizes", ("label", "share", "documents"), "summaries.topic_sizes")
    _check_count("top", top)
    if sizes.empty:
        raise ValueError("sizes has no rows (summaries.topic_sizes)")
    df = sizes.sort_values("share", ascending=False, kind="stable").head(top)
    df = df.assign(topic=df["label"].astype(str))   # distinct: topic_labels
    return (alt.Chart(df[["topic", "share", "documents"]], title="Topic sizes").mark_bar()
            .encode(x=alt.X("share:Q", title="share of tokens", axis=alt.Axis(format="%")),
                    # the labels whole, in what FIT_WIDTH leaves beside the bars
                    y=alt.Y("topic:N", sort=list(df["topic"]), title=None,
                            axis=alt.Axis(labelLimit=_label_limit(df["topic"],
                                                                  FIT_WIDTH - width - 40))),
                    tooltip=["topic:N", alt.Tooltip("share:Q", format=".1%"),
                             alt.Tooltip("documents:Q", title="documents it leads")])
            .properties(width=width, height=height))
