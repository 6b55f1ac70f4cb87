"""The bad-input battery (``tests/bad_inputs.py``): every case must raise the stated error, of
the stated type, with a message that names the bad input.

Proven: across the corpus, the models, the session, checkpoint files (damaged, altered and
forged ones, with the checksum recomputed), the estimator, the loaders, the widgets and the
views, no case crashes the interpreter, hangs, returns silently or raises an unclear error.
The cases run in a child process that is restarted after a case that kills it, so a crash
fails its case rather than the test run.
"""

from __future__ import annotations

import collections

import pytest

from .bad_inputs import all_cases, run_isolated

CASES = all_cases()


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return run_isolated([c.id for c in CASES], tmp_path_factory.mktemp("bad-inputs"))


def test_the_guarantees_page_counts_the_battery():
    """docs/guarantees.md says how many cases the battery has: the number of them."""
    import re
    from pathlib import Path
    page = (Path(__file__).resolve().parents[1] / "docs" / "guarantees.md").read_text(
        encoding="utf-8")
    said = re.search(r"a battery of (\d+) bad inputs", page)
    assert said and int(said.group(1)) == len(CASES), (said, len(CASES))


def test_the_battery_covers_every_boundary():
    """At least 60 cases, in every category the API has, each id unique."""
    counts = collections.Counter(c.category for c in CASES)
    assert len(CASES) >= 60 and len({c.id for c in CASES}) == len(CASES)
    assert set(counts) == {"corpus", "models", "session", "checkpoint", "estimators",
                           "loaders", "widgets", "views"}, counts


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_by_name(results, case):
    got = results[case.id]
    assert got["ok"], got["detail"]


def test_the_runner_reports_a_crash_and_carries_on(tmp_path):
    """A case that kills its process (a segmentation fault) fails with the exit code, and
    the cases after it still run, in a fresh process; a case that raises nothing fails."""
    got = run_isolated(["harness-segfault", "harness-silent", "models-beta-overflowing"],
                       tmp_path)
    assert not got["harness-segfault"]["ok"]
    assert "died inside the case (exit code -11)" in got["harness-segfault"]["detail"]
    assert not got["harness-silent"]["ok"]
    assert got["harness-silent"]["detail"] == "no exception was raised"
    assert got["models-beta-overflowing"]["ok"]
