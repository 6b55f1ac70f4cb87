"""Shared fixtures: the canonical 20 Newsgroups archive, found as the loaders find it."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import warnings
from pathlib import Path

import pytest

# The suite runs on two pytest-xdist workers, one per core (pyproject's addopts). Numba's
# OpenMP threads spin between parallel loops, so two workers each running its parallel kernels
# on two threads fight for the cores (tests of many small parallel sweeps ran 5x slower).
# Each worker's kernels therefore run on one thread: chains do not depend on the thread count
# (by design), and the tests of exactly that run fresh processes with NUMBA_NUM_THREADS set
# (tests/kernels/test_partially_collapsed.py, tests/test_session.py). Set before any test
# module imports numba, which reads it once.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["NUMBA_NUM_THREADS"] = "1"

ROOT = Path(__file__).resolve().parents[1]


def _find_news_archive() -> tuple[Path, str]:
    """The 20 Newsgroups archive found as every loader finds it (topicsup.newsgroups.
    find_archive: $TOPICSUP_DATA, ../shared/data beside the repository, the cache; never a
    download) and "", or, when it is nowhere, the place beside the repository (which then
    does not exist, so ``NEWS_ARCHIVE.exists()`` tells whether the archive is there) and the
    search's message: every place looked, with its path, and how to provide it."""
    from topicsup.newsgroups import ARCHIVE_NAME, find_archive
    try:
        return find_archive(download=False), ""
    except FileNotFoundError as exc:
        return ROOT.parent / "shared" / "data" / ARCHIVE_NAME, str(exc)


NEWS_ARCHIVE, NEWS_ARCHIVE_MISSING = _find_news_archive()


@pytest.fixture(scope="session")
def news_archive() -> Path:
    if NEWS_ARCHIVE_MISSING or not NEWS_ARCHIVE.exists():
        pytest.skip(NEWS_ARCHIVE_MISSING or f"20 Newsgroups archive not found at {NEWS_ARCHIVE}")
    return NEWS_ARCHIVE


# the flags a closed network needs: no background connections, no first-run or sync traffic
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


# nbclient's waits (tests/test_notebooks.py, tests/widgets/test_kernels.py): no limit on a
# cell, which runs our code (slow is not wrong; a hang has its stacks dumped by pytest's
# faulthandler_timeout); the kernel's start and a cell's last outputs, outside our control,
# get minutes instead of nbclient's 60 s and 4 s (each wait ends as soon as it is over), and a
# wait that does run out is an error rather than an output silently missing
NOTEBOOK_WAITS = {"timeout": None, "startup_timeout": 900, "iopub_timeout": 900,
                  "raise_on_iopub_timeout": True}


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


# The browser tests and the documentation site's test share one xdist scope, so one worker
# runs them in collection order: tests/widgets/test_browser.py, test_notebooks_browser.py
# (which save the executed notebooks, reports/artifacts/executed/) and then test_site.py
# (which renders those copies, outputs as saved, without running them). With pyproject's
# `--dist loadscope` a scope is a module (or class), and the site's module would otherwise
# go to either worker, maybe before the notebooks have run. xdist (3.8, LoadScopeScheduling.
# schedule) makes one work unit per scope, its tests in collection order, and sends the
# unit's tests to one worker in that order. Only for --dist loadscope; without xdist (-n 0,
# -p no:xdist, not installed) the tests run in collection order anyway, and the hook is
# optional so that pytest does not reject a hook nobody defines.
_ONE_WORKER_IN_ORDER = ("tests/widgets/test_browser.py", "tests/widgets/test_notebooks_browser.py",
                        "tests/widgets/test_site.py")

try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:   # no xdist: nothing to schedule
    LoadScopeScheduling = None

if LoadScopeScheduling is not None:
    class _BrowserThenSiteScheduling(LoadScopeScheduling):
        """--dist loadscope, with the browser tests and the site's test in one scope."""

        def _split_scope(self, nodeid: str) -> str:
            if nodeid.split("::", 1)[0] in _ONE_WORKER_IN_ORDER:
                return "browser-and-site"
            return super()._split_scope(nodeid)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(config, log):
        if config.getvalue("dist") == "loadscope":
            return _BrowserThenSiteScheduling(config, log)
        return None   # xdist's own scheduler for every other --dist


@pytest.fixture(autouse=True)
def python_sigint(request):
    """Each test starts with Python's own SIGINT handler. A library a test drives in the
    worker (a kernel, a server) can leave SIGINT ignored, and a child process inherits an
    ignored SIGINT: the Ctrl-C tests' children would then never see theirs and run on (and
    the tests have no timeout to end them). Restored before and after each test; a warning
    names the test after which it was changed, so the culprit can be found."""
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if main and signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        warnings.warn(f"SIGINT was {signal.getsignal(signal.SIGINT)!r} after "
                      f"{request.node.nodeid}; restored")
        signal.signal(signal.SIGINT, signal.default_int_handler)
