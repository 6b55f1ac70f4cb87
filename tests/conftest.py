"""Shared fixtures: the location of the canonical 20 Newsgroups archive beside the project."""

from __future__ import annotations

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
