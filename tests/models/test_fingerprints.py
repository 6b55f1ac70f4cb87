"""Every preset and sampler draws the chain recorded in tests/fixtures/chain_fingerprints.json,
bit for bit, on this machine and under other CPU targets; checkpoints written by the code
before the frame of issue 17 load and continue.

The recorded fingerprints change only through tests/fixtures/make_chain_fingerprints.py, which
prints what changed and records why (tests/fixtures/fingerprints.py has the configurations).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from topicsup.session import Session

from ..fixtures.fingerprints import (CHECKPOINTED, CONFIGS, HERE, arithmetic, fingerprint,
                                     recorded, run)

ROOT = Path(__file__).resolve().parents[2]
RECORDED = recorded()


def test_every_configuration_is_recorded():
    assert sorted(RECORDED["chains"]) == sorted(CONFIGS)
    assert sorted(RECORDED["continued"]) == sorted(CHECKPOINTED)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_chain_is_the_recorded_one(name):
    """z (and eta) after a few sweeps hash to what was recorded."""
    assert fingerprint(run(name)) == RECORDED["chains"][name]


def test_exp_log_and_draws_are_the_recorded_ones():
    """``kernels.fmath`` and every draw of ``kernels.draws`` over thousands of inputs: a
    change of their arithmetic (or a compiler that changes it) shows here first."""
    assert arithmetic() == RECORDED["arithmetic"]


@pytest.mark.parametrize("name", CHECKPOINTED)
def test_checkpoint_written_before_the_frame_continues(name):
    """A checkpoint the code before the frame saved half-way loads (the old format) at its
    sweep and continues to the recorded chain: the uninterrupted chain's where the first half
    drew nothing through the arithmetic changed since (tests/fixtures/chain_fingerprints.json,
    "written")."""
    sweeps = CONFIGS[name][3]
    s = Session.load(HERE / f"before_frame_{name}.npz")
    assert s.n_sweeps == sweeps // 2
    s.run(sweeps - s.n_sweeps)
    assert fingerprint(s) == RECORDED["continued"][name]


# ---------------------------------------------------------------------------------------------
# The same chain under other CPU targets. Each target is a fresh process whose environment
# makes every library that picks code by the CPU pick other code: numba compiles for another
# CPU (NUMBA_CPU_NAME), OpenBLAS loads another kernel set (OPENBLAS_CORETYPE), numpy turns off
# its SIMD loops above a level (NPY_DISABLE_CPU_FEATURES), glibc's libm takes its variants
# without FMA and AVX2 (GLIBC_TUNABLES), and numba runs on another number of threads. With the
# tests above (this CPU's own target, all its features) that makes three numba targets and
# three OpenBLAS kernel sets. Only what this CPU can execute is asked for (an AVX-512 build on
# a CPU without it stops with an illegal instruction).


def _cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


# the names numpy gives the AVX2 level and below (numpy >= 2.4 groups them as X86_V3)
_AVX2_LEVEL = {"X86_V2", "X86_V3", "SSE", "SSE2", "SSE3", "SSSE3", "SSE41", "POPCNT", "SSE42",
               "AVX", "F16C", "FMA3", "AVX2"}


def _numpy_dispatch(keep_avx2: bool) -> str:
    """numpy's dispatched CPU features present here, less the AVX2 level if ``keep_avx2``."""
    try:
        from numpy._core import _multiarray_umath as mu
    except ImportError:                                # numpy < 2
        from numpy.core import _multiarray_umath as mu
    found = [f for f in mu.__cpu_dispatch__ if mu.__cpu_features__.get(f)]
    return " ".join(f for f in found if not (keep_avx2 and f in _AVX2_LEVEL))


def targets() -> dict[str, dict[str, str]]:
    flags = _cpu_flags()
    out = {"generic x86-64, 1 thread, no numpy SIMD, OpenBLAS Prescott, libm without FMA": {
        "NUMBA_CPU_NAME": "generic", "NUMBA_NUM_THREADS": "1",
        "OPENBLAS_CORETYPE": "Prescott", "NPY_DISABLE_CPU_FEATURES": _numpy_dispatch(False),
        "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX512F,-AVX2,-FMA,-FMA4"}}
    if {"avx2", "fma", "bmi2"} <= flags:
        # where this CPU has AVX-512, OpenBLAS's AVX-512 kernels beside an AVX2 numba build
        avx512 = {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= flags
        blas = "SkylakeX" if avx512 else "Haswell"
        out[f"AVX2 (haswell), 2 threads, numpy without AVX-512, OpenBLAS {blas}"] = {
            "NUMBA_CPU_NAME": "haswell", "NUMBA_NUM_THREADS": "2", "OPENBLAS_CORETYPE": blas,
            "NPY_DISABLE_CPU_FEATURES": _numpy_dispatch(True)}
    return out


def fingerprints_under(env: dict[str, str]) -> dict:
    """Every configuration's fingerprint computed in a fresh process with ``env`` on top."""
    full = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tests.fixtures.fingerprints"], cwd=ROOT,
                          env=full, capture_output=True, text=True)
    assert done.returncode == 0, f"the child failed under {env}:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def differences(got: dict, want: dict) -> list[str]:
    return [f"{kind} {name}: {got[kind].get(name)} != recorded {want[kind][name]}"
            for kind in ("chains", "continued", "arithmetic") for name in sorted(want[kind])
            if got[kind].get(name) != want[kind][name]]


@pytest.mark.parametrize("target", sorted(targets()))
def test_same_chain_under_another_cpu_target(target):
    """Every configuration's chain under ``target`` is the recorded one, bit for bit."""
    env = targets()[target]
    wrong = differences(fingerprints_under(env), RECORDED)
    assert not wrong, f"under {target} ({env}):\n" + "\n".join(wrong)
