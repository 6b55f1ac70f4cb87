"""Shared fixtures: the location of the canonical 20 Newsgroups archive beside the project."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NEWS_ARCHIVE = ROOT.parent / "shared" / "data" / "20news-bydate.tar.gz"


@pytest.fixture(scope="session")
def news_archive() -> Path:
    if not NEWS_ARCHIVE.exists():
        pytest.skip(f"20 Newsgroups archive not found at {NEWS_ARCHIVE}; put "
                    f"20news-bydate.tar.gz there or set TOPICSUP_DATA to run this test")
    return NEWS_ARCHIVE


# the flags a closed network needs: no background connections, no first-run or sync traffic
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


@pytest.fixture(scope="session")
def chromium() -> str:
    """Path of a Chromium executable (Debian's, as .ci/run installs it); skip if none."""
    for candidate in (os.environ.get("TOPICSUP_CHROMIUM"), shutil.which("chromium"),
                      "/usr/bin/chromium", shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    pytest.skip("no Chromium found (install Debian's chromium, as .ci/run does, or set "
                "TOPICSUP_CHROMIUM to its path)")


# Property tests (hypothesis): deterministic by default, so CI sees the same examples every
# run; HYPOTHESIS_PROFILE=explore draws fresh random examples (with
# TOPICSUP_PROPERTY_EXAMPLES=5000, say, for many more of them: tests/test_properties.py).
try:
    from hypothesis import settings as _hyp

    _hyp.register_profile("ci", derandomize=True, deadline=None, database=None,
                          print_blob=True)
    _hyp.register_profile("explore", deadline=None, print_blob=True)
    _hyp.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
except ImportError:   # the property tests skip with the reason
    pass
