"""Checkpoint files (``topicsup.checkpoint``): atomic writes, old formats, and fuzzing.

Proven: an interrupted save leaves the previous file intact and no temporary file behind,
and a new file gets the mode open() would give it; checkpoints written by the first format's
code still load and continue their chain exactly; and no mutation of a checkpoint, random bytes flipped or any array or metadata
field replaced by an odd value (with the checksum recomputed, as a forger would), crashes the
process or loads a chain that then misbehaves: the file is refused with a ``ValueError``
naming it, or it loads and samples with finite numbers.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from topicsup.checkpoint import checksum
from topicsup.datasets import make_synthetic
from topicsup.models import LDA
from topicsup.session import Session, is_timing


FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="module")
def corpus():
    return make_synthetic(n_docs=60, n_topics=3, doc_length=20, seed=1).corpus


def test_an_interrupted_save_keeps_the_previous_file(corpus, tmp_path, monkeypatch):
    s = Session(LDA(K=3), corpus, seed=0)
    s.run(1)
    path = s.save(tmp_path / "ck.npz")
    before = path.read_bytes()
    s.run(1)

    def broken(f, members):
        f.write(b"half a checkpoint")
        raise KeyboardInterrupt
    monkeypatch.setattr("topicsup.checkpoint.write_members", broken)
    with pytest.raises(KeyboardInterrupt):
        s.save(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.npz"]
    monkeypatch.undo()
    assert Session.load(path).n_sweeps == 1
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(s.save(tmp_path / "new.npz").stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize("name", ["format1_lightmedlda.npz", "format1_alias.npz"])
def test_first_format_checkpoints_still_load(name, tmp_path):
    """Files written by the first format's code (no checksum, no settings changes, the
    history as JSON; tests/fixtures/make_format1_checkpoints.py) load, fully checked, keep
    their history, continue their chain exactly as a fresh session's, and save as format 2."""
    from .fixtures.make_format1_checkpoints import FIXTURES
    model, settings, sweeps = FIXTURES[name]
    old = Session.load(FIXTURES_DIR / name)
    assert old.n_sweeps == sweeps and old.settings_changes.empty
    assert sorted(set(old.history["sweep"])) == list(range(1, sweeps + 1))
    fresh = Session(model, make_synthetic(**settings).corpus, seed=5, block_tokens=100)
    fresh.run(sweeps + 2)
    old.run(2)
    assert np.array_equal(old.state.z, fresh.state.z) and np.array_equal(old.rng, fresh.rng)
    h_old, h_new = (x.history[~is_timing(x.history["metric"])]
                    .reset_index(drop=True) for x in (old, fresh))
    pd.testing.assert_frame_equal(h_old, h_new)
    again = Session.load(old.save(tmp_path / "new.npz"))
    assert again.n_sweeps == sweeps + 2 and np.array_equal(again.rng, old.rng)


def test_the_checksum_covers_names_dtypes_shapes_and_bytes():
    a = {"x": np.arange(4, dtype=np.int32)}
    assert checksum(a) != checksum({"y": a["x"]})
    assert checksum(a) != checksum({"x": a["x"].astype(np.int64)})
    assert checksum(a) != checksum({"x": a["x"].reshape(2, 2)})
    assert checksum(a) != checksum({"x": a["x"] + 1})
    assert checksum(a) == checksum({"x": np.arange(4, dtype=np.int32)})


FUZZ = r"""
import json, sys, warnings
from pathlib import Path
import numpy as np
from hypothesis import given, settings, strategies as st
from topicsup.checkpoint import checksum
from topicsup.datasets import make_synthetic
from topicsup.models import LDA, LightMedLDA
from topicsup.session import Session

warnings.simplefilter("ignore")
tmp = Path(sys.argv[1]); n = int(sys.argv[2])
corpus = make_synthetic(n_docs=40, n_topics=3, doc_length=15, seed=1).corpus
good = {}
# "lda": sampler="auto", whose choice the file carries as the change before sweep 1
for name, model in {"lda": LDA(K=3), "alias": LDA(K=3, sampler="alias"),
                    "stale": LDA(K=3, sampler="light", word_proposal="stale"),
                    "light": LightMedLDA(K=3, lam=4.0, sampler="light")}.items():
    s = Session(model, corpus, seed=0, block_tokens=100)
    s.run(2)
    if s.model.sampler != "gibbs":   # a settings change for the file to carry
        s.set_params(mh_steps=3)
    s.run(1)
    good[name] = s.save(tmp / f"{name}.npz")
contents = {k: dict(np.load(p, allow_pickle=False)) for k, p in good.items()}
ODD = [0, -1, 1, 2, 3, 7, 2**31, -2**31, 2**62, 1e308, -1e308, 1e-320, float("nan"),
       float("inf"), 0.5]
JSON_ODD = [None, -1, 0, 1, 2, 10**20, 1.5, float("nan"), "x", "", [], {}, True,
            [{"sweep": 1}], {"K": 2}]
counts = {"refused": 0, "loaded": 0}

@settings(max_examples=n, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(sorted(good)), st.data())
def fuzz(kind, data):
    arrays = {k: v.copy() for k, v in contents[kind].items()}
    meta = json.loads(arrays.pop("meta").tobytes())
    path = tmp / "fuzzed.npz"
    how = data.draw(st.sampled_from(["bytes", "value", "dtype", "shape", "drop", "meta"]))
    if how == "bytes":
        raw = bytearray(good[kind].read_bytes())
        for _ in range(data.draw(st.integers(1, 20))):
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
        path.write_bytes(bytes(raw))
    else:
        key = data.draw(st.sampled_from(sorted(arrays)))
        a = arrays[key]
        if how == "value" and a.size and a.dtype.kind in "biuf":
            v = data.draw(st.sampled_from(ODD))
            flat = a.reshape(-1).copy()
            i = data.draw(st.integers(0, flat.size - 1))
            try:
                flat[i] = np.array(v).astype(a.dtype)
            except (OverflowError, ValueError):
                pass
            arrays[key] = flat.reshape(a.shape)
        elif how == "dtype":
            try:
                arrays[key] = a.astype(data.draw(st.sampled_from(
                    [np.int8, np.int32, np.int64, np.uint64, np.float32, np.float64, "<U3"])))
            except ValueError:   # words as numbers: the mutation does not apply
                pass
        elif how == "shape":
            arrays[key] = a.reshape(-1)[:data.draw(st.integers(0, max(a.size, 1)))] \
                if data.draw(st.booleans()) else a.reshape(1, -1)
        elif how == "drop":
            del arrays[key]
        elif how == "meta":
            field = data.draw(st.sampled_from(sorted(meta)))
            inner = meta[field]
            if isinstance(inner, dict) and inner and data.draw(st.booleans()):
                inner[data.draw(st.sampled_from(sorted(inner)))] = data.draw(
                    st.sampled_from(JSON_ODD))                      # a nested value
            elif isinstance(inner, list) and inner and data.draw(st.booleans()):
                item = inner[data.draw(st.integers(0, len(inner) - 1))]
                if isinstance(item, dict):
                    item[data.draw(st.sampled_from(sorted(item)))] = data.draw(
                        st.sampled_from(JSON_ODD))
            else:
                meta[field] = data.draw(st.sampled_from(JSON_ODD))
        if data.draw(st.booleans()):      # a forger recomputes the checksum
            meta["checksum"] = {"algorithm": "sha256", "digest": checksum(arrays)}
        np.savez(path, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
    try:
        s = Session.load(path)
    except ValueError as e:
        assert str(path) in str(e), e
        counts["refused"] += 1
        return
    counts["loaded"] += 1
    s.run(2)
    h = s.history
    assert np.isfinite(h[h["metric"] == "log_joint"]["value"]).all()
    assert (s.state.z >= 0).all() and (s.state.z < s.model.K).all()

fuzz()
print(json.dumps(counts))
"""


def test_no_mutation_of_a_checkpoint_crashes_or_loads_a_broken_chain(tmp_path):
    """Hypothesis mutates good checkpoints of four samplers (Gibbs, AliasLDA, light with
    stale tables, LightMedLDA) in 400 ways, in a fresh process so a crash fails the test:
    every file is refused with a ValueError naming it, or loads and samples soundly."""
    pytest.importorskip("hypothesis", reason="hypothesis is not installed")
    out = subprocess.run([sys.executable, "-c", FUZZ, str(tmp_path), "400"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    assert counts["refused"] > 100 and counts["loaded"] > 10, counts


# ---------------------------------------------------------------- the corpus's pandas index
def _rewritten(path, out, *, drop=(), meta=None, **arrays):
    """The checkpoint at ``path`` with members dropped or replaced and metadata changed, its
    checksum recomputed (a forger's)."""
    with np.load(path) as z:
        members = {k: z[k] for k in z.files}
    m = {**json.loads(members.pop("meta").tobytes()), **(meta or {})}
    for k in drop:
        del members[k]
    members.update(arrays)
    m["checksum"] = {"algorithm": "sha256", "digest": checksum(members)}
    np.savez(out, meta=np.frombuffer(json.dumps(m).encode(), np.uint8), **members)
    return out


@pytest.mark.parametrize("index", [
    pd.Index([f"doc{i}" for i in np.random.default_rng(0).permutation(60)], name="id"),
    pd.Index(np.random.default_rng(1).permutation(60) * 5 - 7)])
def test_the_corpus_index_survives_a_checkpoint(corpus, tmp_path, index):
    """A corpus's index of str (with its name) or shuffled ints is saved (format 3) and
    comes back exactly, so the loaded session's doc_topics still joins onto the frame."""
    import dataclasses
    s = Session(LDA(K=3), dataclasses.replace(corpus, index=index), seed=0)
    s.run(1)
    path = s.save(tmp_path / "indexed.npz")
    with np.load(path) as z:
        assert json.loads(z["meta"].tobytes())["format_version"] == 3
    back = Session.load(path)
    pd.testing.assert_index_equal(back.corpus.index, index, exact=True)
    pd.testing.assert_frame_equal(back.doc_topics(), s.doc_topics())
    back.run(1)


def test_old_files_get_the_default_index_and_forged_ones_are_refused(corpus, tmp_path):
    """A format-2 file (no index) loads with the default index; a format-3 file whose index
    is missing, one entry short, of floats or with a malformed name is refused, naming the
    field; an index a checkpoint cannot hold (dates) is refused before anything is written."""
    import dataclasses
    index = pd.Index([f"d{i}" for i in range(60)], name="id")
    s = Session(LDA(K=3), dataclasses.replace(corpus, index=index), seed=0)
    s.run(1)
    good = s.save(tmp_path / "good.npz")
    old = _rewritten(good, tmp_path / "v2.npz", drop=("corpus/index", "corpus/index_name"),
                     meta={"format_version": 2})
    pd.testing.assert_index_equal(Session.load(old).corpus.index,
                                  pd.RangeIndex(60, name="document"), exact=True)
    refused = {
        "missing": ({"drop": ("corpus/index",)}, r"field 'corpus/index': is missing"),
        "short": ({"corpus/index": np.asarray(index[:-1], dtype=str)},
                  (r"field 'corpus': index \(the documents' pandas index\) has 59 entries "
                   r"but the corpus has 60 documents")),
        "floats": ({"corpus/index": np.arange(60.0)},
                   r"field 'corpus/index': has dtype float64, expected one of the kinds 'iuU'"),
        "name": ({"corpus/index_name": np.array(["a", "b"])},
                 r"field 'corpus/index_name': has 1 dimensions, expected 0"),
        "future-member-in-v2": ({"meta": {"format_version": 2}},
                                r"field 'corpus/index': is not a member"),
    }
    for name, (change, message) in refused.items():
        forged = _rewritten(good, tmp_path / f"{name}.npz", **change)
        with pytest.raises(ValueError, match=message):
            Session.load(forged)
    dated = Session(LDA(K=3), dataclasses.replace(
        corpus, index=pd.date_range("2024-01-01", periods=60)), seed=0)
    with pytest.raises(ValueError, match=r"the corpus's index has dtype datetime64"):
        dated.save(tmp_path / "dated.npz")
    assert not (tmp_path / "dated.npz").exists()


def test_the_file_is_an_npz_whose_members_compress_when_it_pays(corpus, tmp_path):
    """The writer streams ``.npy`` members into a zip (``numpy.load`` reads it as an
    ``.npz``): those that compress are deflated at the fastest level, those that do not (a
    sample of their bytes stays above ``STORE_ABOVE``) are stored as they are."""
    import zipfile

    from topicsup import checkpoint
    rng = np.random.default_rng(0)
    members = {"noise": rng.random(300_000), "zeros": np.zeros(300_000, np.int32),
               "small": np.arange(3)}
    path = tmp_path / "m.npz"
    with open(path, "wb") as f:
        checkpoint.write_members(f, members)
    with zipfile.ZipFile(path) as zf:
        kinds = {i.filename: i.compress_type for i in zf.infolist()}
    assert kinds == {"noise.npy": zipfile.ZIP_STORED, "zeros.npy": zipfile.ZIP_DEFLATED,
                     "small.npy": zipfile.ZIP_DEFLATED}
    with np.load(path) as z:
        for k, v in members.items():
            np.testing.assert_array_equal(z[k], v)
