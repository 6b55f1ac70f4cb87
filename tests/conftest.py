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
