"""The HTML report (``topicsup.report``) with hostile words in the corpus.

Proven: a vocabulary word that is HTML ("</script>", "<!--") cannot end or confuse the
script that carries a chart's spec (every "<" in the spec is a JSON escape), and a word with
a lone surrogate does not stop the report being written.
"""

from __future__ import annotations

import json
import re

from topicsup import Corpus
from topicsup.models import LDA
from topicsup.report import write_report
from topicsup.session import Session


def test_hostile_words_stay_inside_the_chart_spec(tmp_path):
    docs = [["</script>", "<!--", "alpha", "beta\u202e"], ["alpha", "<!--", "gamma"]] * 5
    s = Session(LDA(K=2), Corpus.from_tokens(docs), seed=0)
    s.run(2)
    html = write_report(s, tmp_path / "r.html").read_text(encoding="utf-8")
    scripts = re.findall(r'vegaEmbed\("#[^"]+", (.*?)\)\.catch', html, flags=re.S)
    assert scripts and all("<" not in spec for spec in scripts)
    carried = json.dumps([json.loads(spec) for spec in scripts], ensure_ascii=False)
    assert "</script>" in carried and "<!--" in carried      # the words, intact, as data
    outside = re.sub(r"<script>.*?</script>", "", html, flags=re.S)
    assert "<!--" not in outside and "&lt;/script&gt;" in outside   # the table escapes them
