"""Word and topic labels are drawn whole (issue 52 (b): in JupyterLab at 1280 px, Chromium
cut the words and topic labels of the charts with "…" at Vega's default labelLimit, 180 px).

Each chart whose axis lists words or topic labels is drawn by vl-convert with the axis font
Chromium uses for sans-serif on Linux (DejaVu Sans, wider than vl-convert's own default), on
labels that run past 180 px in either font: 40-letter words and topic names of 42-48
characters; every label must be in the SVG whole, none cut with "…", and the chart must still
fit ``views.FIT_WIDTH``.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest

from topicsup import Session, summaries, views
from topicsup.models import LightMedLDA
from topicsup.synthetic import make_synthetic

vl_convert = pytest.importorskip("vl_convert")

FILLER = "electroencephalographically"
# topic names ("topic k: " and these) of 42-48 characters: 214-241 px in DejaVu Sans at
# 10 px, 185-209 in Liberation Sans
NAMES = ["photosynthesis and thermodynamics", "counterrevolutionary historiography",
         "electroencephalography in research", "internationalisation of commerce, again",
         "immunohistochemistry laboratories", "telecommunications infrastructure"]


def _long(word: str) -> str:
    """A distinct 40-letter word: ``word`` padded with a long one."""
    return (f"{word}{FILLER}{FILLER}")[:40]


@pytest.fixture(scope="module")
def session():
    syn = make_synthetic(n_docs=120, n_topics=6, task="multiclass", n_classes=3, seed=11)
    s = Session(LightMedLDA(K=6), syn.corpus, seed=5)
    s.sweep(5)
    s.set_topic_labels({k: f"topic {k}: {name}" for k, name in enumerate(NAMES)})
    return s


def _svg_texts(chart) -> tuple[list[str], float]:
    """The text of every text element vl-convert draws, with Chromium's axis font, and the
    SVG's width."""
    spec = chart.to_dict()
    spec.setdefault("config", {}).setdefault("axis", {})["labelFont"] = "DejaVu Sans"
    svg = vl_convert.vegalite_to_svg(spec)
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    return texts, float(re.search(r'<svg[^>]*?\swidth="([\d.]+)"', svg).group(1))


def _words(s: Session) -> pd.DataFrame:
    terms = s.topic_terms(10)
    return terms.assign(word=terms["word"].map(_long))


def _prior(s: Session) -> pd.DataFrame:
    """A DMR prior frame (``Session.document_prior``'s columns) over ``s``'s topic labels."""
    labels = s.topic_labels()
    rows = [{"feature": f, "kind": "class", "topic": k, "label": label,
             "lam": 0.1 * k - 0.2 * i, "shift": 0.1 * k - 0.2 * i}
            for i, f in enumerate(["class_0", "class_1", "class_2"])
            for k, label in enumerate(labels)]
    return pd.DataFrame(rows)


def _effects(s: Session) -> pd.DataFrame:
    """A covariate's effects (``PrevalenceDraws.effects``'s columns) on ``s``'s topics."""
    labels = s.topic_labels()
    mean = np.linspace(-0.1, 0.1, len(labels))
    return pd.DataFrame({"term": "year", "topic": range(len(labels)), "label": labels,
                         "mean": mean, "lower": mean - 0.05, "upper": mean + 0.05})


def _picked(s: Session) -> int:
    """The topic the map picks at first: the largest."""
    return int(s.readout(summaries.topic_map)["share"].idxmax())


# chart -> (how to draw it from the session, the labels it may show, how many of them it
# shows: the relevance bars rank a topic's candidate words in the browser)
CHARTS = {
    "relevance": (lambda s: views.relevance_chart(_words(s), topic=0, n_words=10),
                  lambda s: _words(s).query("topic == 0")["word"], 10),
    "map with relevance": (lambda s: views.topic_map_chart(
        s.readout(summaries.topic_map), _words(s), n_words=10),
        lambda s: _words(s).loc[lambda t: t["topic"] == _picked(s), "word"], 10),
    "topic sizes": (lambda s: views.topic_sizes_chart(s.readout(summaries.topic_sizes)),
                    lambda s: s.topic_labels(), 6),
    "topic words": (lambda s: views.topic_words_chart(s.topics(5)),
                    lambda s: [f"{label} ({share:.0%})" for label, share in
                               zip(s.topics(5)["label"], s.topics(5)["share"])], 6),
    "coefficients": (lambda s: views.coefficient_heatmap(s.coefficients()),
                     lambda s: s.topic_labels(), 6),
    "prior": (lambda s: views.prior_heatmap(_prior(s)), lambda s: s.topic_labels(), 6),
    "effects": (lambda s: views.effect_chart(_effects(s), "year"),
                lambda s: s.topic_labels(), 6),
}


@pytest.mark.parametrize("name", list(CHARTS))
def test_word_and_topic_labels_are_drawn_whole(session, name):
    draw, labels, shown = CHARTS[name]
    texts, width = _svg_texts(draw(session))
    want = {str(x) for x in labels(session)}
    assert want and all(len(x) >= 40 for x in want)
    cut = [t for t in texts if t.endswith("…")]
    assert not cut, f"{name}: labels cut with an ellipsis: {cut[:4]}"
    whole = [t for t in texts if t in want]
    assert len(whole) == shown, f"{name}: {len(whole)} of {shown} labels drawn whole"
    assert width <= views.FIT_WIDTH, f"{name} is {width:.0f} px wide"


def test_a_label_wider_than_the_room_is_cut_within_the_chart():
    """A label longer than a chart has room for still ends in "…" (its marks' tooltip has it
    whole): the chart keeps to FIT_WIDTH."""
    sizes = pd.DataFrame({"label": ["0: " + " ".join([FILLER] * 4), "1: short"],
                          "share": [0.6, 0.4], "documents": [3, 2]})
    texts, width = _svg_texts(views.topic_sizes_chart(sizes))
    assert any(t.endswith("…") for t in texts) and width <= views.FIT_WIDTH
    assert "1: short" in texts


def test_the_limits_hold_the_fonts_own_widths():
    """The character widths the limits are estimated from are no smaller than DejaVu Sans's
    and Liberation Sans's (Chromium's sans-serif on Linux, and Arial's metrics), where the
    fonts are installed."""
    from topicsup.views._common import _ASCII_EM, LABEL_FONT_SIZE, _text_width
    ttlib = pytest.importorskip("fontTools.ttLib")
    fonts = [p for p in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                         "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf")
             if __import__("os").path.exists(p)]
    if not fonts:
        pytest.skip("neither DejaVu Sans nor Liberation Sans is installed")
    for path in fonts:
        font = ttlib.TTFont(path)
        cmap, metrics = font.getBestCmap(), font["hmtx"]
        em = font["head"].unitsPerEm
        wider = {c: metrics[cmap[ord(c)]][0] / em for c in _ASCII_EM
                 if metrics[cmap[ord(c)]][0] / em > _ASCII_EM[c]}
        assert not wider, f"{path}: wider than the table: {wider}"
    assert _text_width("mW") == LABEL_FONT_SIZE * (_ASCII_EM["m"] + _ASCII_EM["W"])
    assert np.isclose(_text_width("é"), LABEL_FONT_SIZE)   # any other character: 1 em
