"""Autosave (issue 49): ``Session(..., autosave=path, autosave_every=minutes)`` writes the
chain's checkpoint after a sweep, every interval, in a thread of its own; a process killed
mid-run loses at most one interval, and the file it leaves continues the same chain, bit for
bit (a child process killed with SIGKILL, not a simulated crash)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from topicsup import LDA, LightMedLDA, Session
from topicsup.checkpoint import CheckpointReader
from topicsup.datasets import load_demo_corpus

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def corpus():
    return load_demo_corpus().corpus


def _same_chain(a: Session, b: Session) -> None:
    assert a.n_sweeps == b.n_sweeps
    np.testing.assert_array_equal(a.rng, b.rng)
    for k, v in a.state.arrays().items():
        np.testing.assert_array_equal(v, b.state.arrays()[k], err_msg=k)


def test_every_sweep_writes_a_checkpoint_that_continues_the_chain(corpus, tmp_path):
    path = tmp_path / "auto.npz"
    model = LightMedLDA(K=4, lam=4.0, sampler="light")
    s = Session(model, corpus, seed=2, autosave=path, autosave_every=0)
    s.run(4)
    s.close()   # waits for the write under way
    saved = s._autosave
    assert saved is not None and saved.n_written >= 1 and 1 <= saved.sweep <= 4
    resumed = Session.load(path)
    assert resumed.n_sweeps == saved.sweep
    resumed.run(6 - resumed.n_sweeps)
    reference = Session(model, corpus, seed=2)
    reference.run(6)
    _same_chain(resumed, reference)


def test_no_write_before_its_interval(corpus, tmp_path):
    path = tmp_path / "auto.npz"
    s = Session(LDA(K=3), corpus, seed=0, autosave=path, autosave_every=60)
    s.run(3)
    s.close()
    assert not path.exists() and s._autosave is not None and s._autosave.n_written == 0


@pytest.mark.parametrize("kw, error, match", [
    ({"autosave_every": -1.0}, ValueError, "autosave_every must be"),
    ({"autosave_every": "often"}, TypeError, "autosave_every must be"),
    ({"autosave": 3}, TypeError, "autosave must be"),
])
def test_bad_autosave_settings_are_refused_by_name(corpus, tmp_path, kw, error, match):
    kw = {"autosave": tmp_path / "a.npz", **kw}
    with pytest.raises(error, match=match):
        Session(LDA(K=3), corpus, seed=0, **kw)


def test_a_directory_is_no_autosave_file(corpus, tmp_path):
    with pytest.raises(ValueError, match="autosave must be the path of a file"):
        Session(LDA(K=3), corpus, seed=0, autosave=tmp_path)


def test_a_failed_write_is_reported_and_the_next_one_tried(corpus, tmp_path, monkeypatch):
    import topicsup.checkpoint as ck
    path = tmp_path / "auto.npz"
    s = Session(LDA(K=3), corpus, seed=0, autosave=path, autosave_every=0)
    real = ck.write

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(ck, "write", full_disk)
    s.run(1)
    s._autosave.wait()
    monkeypatch.setattr(ck, "write", real)
    with pytest.warns(RuntimeWarning, match="No space left on device"):
        s.run(1)
    s.close()
    assert Session.load(path).n_sweeps == 2


CHILD = textwrap.dedent("""
    import sys
    from topicsup import LDA, Session
    from topicsup.datasets import load_demo_corpus
    s = Session(LDA(K=4, sampler="light"), load_demo_corpus().corpus, seed=3,
                autosave=sys.argv[1], autosave_every=0)
    s.run(10**9)
""")


def _saved_sweeps(path) -> int:
    with CheckpointReader(path) as f:
        return int(f.meta()["n_sweeps"])


def test_a_process_killed_mid_run_resumes_from_its_autosave(corpus, tmp_path):
    """A child process samples with an autosave after every sweep and is killed (SIGKILL:
    nothing runs on the way out) once its file holds 5 sweeps; the file it leaves is a whole
    checkpoint, and continuing it gives the chain that was never killed."""
    path = tmp_path / "auto.npz"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], cwd=ROOT)
    try:
        while not (path.exists() and _saved_sweeps(path) >= 5):
            assert child.poll() is None, "the sampling process ended before it was killed"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    resumed = Session.load(path)   # the last whole file: checked as untrusted input
    assert resumed.n_sweeps >= 5
    total = resumed.n_sweeps + 3
    resumed.run(3)
    reference = Session(LDA(K=4, sampler="light"), corpus, seed=3)
    reference.run(total)
    _same_chain(resumed, reference)
