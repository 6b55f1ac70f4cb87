"""The analyst's workbench on 20 Newsgroups in real JupyterLab (issue 37): the notebook
interpreting_topics.ipynb runs in Chromium, and its section 0 draws the intertopic map with
its relevance bars, the forest plot of a class's weights, the coloured representative posts
and the prevalence per newsgroup with intervals, all within the output area at 1280 px.
Screenshots go to $TOPICSUP_SCREENSHOTS (else the test's tmp folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..conftest import NEWS_ARCHIVE
from .test_browser import browser_page, lab, open_and_run  # noqa: F401

# the charts of section 0, by a text each draws
CHARTS = {"map": "Intertopic distance map", "forest": "Topic weights per class",
          "prevalence": "Topic prevalence per class"}

CHART_OF = """title => { const svg = [...document.querySelectorAll('.jp-OutputArea-output svg')]
  .find(s => [...s.querySelectorAll('text')].some(t => t.textContent.startsWith(title)));
  if (!svg) return null;
  const out = svg.closest('.jp-OutputArea-output');
  return {symbols: svg.querySelectorAll('.mark-symbol path').length,
          rects: svg.querySelectorAll('.mark-rect path, .mark-rule line').length,
          right: svg.getBoundingClientRect().right, edge: out.getBoundingClientRect().right,
          scroll: out.scrollWidth - out.clientWidth}; }"""


@pytest.fixture()
def news_data(monkeypatch):
    """$TOPICSUP_DATA for the lab's kernels (before the lab fixture starts JupyterLab)."""
    if not NEWS_ARCHIVE.exists():
        pytest.skip(f"20 Newsgroups archive not found at {NEWS_ARCHIVE}")
    monkeypatch.setenv("TOPICSUP_DATA", str(NEWS_ARCHIVE))


def test_the_workbench_renders_on_20_newsgroups_in_jupyterlab(news_data, lab,  # noqa: F811
                                                               chromium, tmp_path):
    shots = Path(os.environ.get("TOPICSUP_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    with browser_page(chromium, 900) as page:
        open_and_run(page, lab, "interpreting_topics.ipynb")
        skipped = page.locator(".jp-OutputArea-output:has-text('no 20 Newsgroups archive')")
        assert skipped.count() == 0, "the notebook did not find the archive"
        for name, title in CHARTS.items():
            page.wait_for_function(f"() => ({CHART_OF})({title!r}) !== null")
            got = page.evaluate(CHART_OF, title)
            page.evaluate(f"() => [...document.querySelectorAll('svg text')].find(t => "
                          f"t.textContent.startsWith({title!r})).scrollIntoView()")
            page.screenshot(path=str(shots / f"workbench-{name}.png"))
            assert got["symbols"] + got["rects"] > 0, f"{name} drew nothing"
            assert got["right"] <= got["edge"] + 1 and got["scroll"] <= 1, \
                f"the {name} chart runs past the output area: {got}"
        got = page.evaluate(CHART_OF, CHARTS["map"])
        assert got["symbols"] >= 20   # a circle per topic (K = 20) and the legends'
        # the posts as written (the loader keeps them), their tokens marked in place
        posts = page.locator(".topicsup-text .topicsup-token")
        assert posts.count() > 50
        posts.first.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "workbench-posts.png"))
