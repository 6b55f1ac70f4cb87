"""Every preset and sampler configuration runs the chain it ran before the frame of issue 17
(losses, priors, samplers and weight steps as parts), bit for bit, and checkpoints written
before it load and continue exactly.

The fingerprints and checkpoints in tests/fixtures were written by the code before the change
(commit 5c40d9f; tests/fixtures/make_chain_fingerprints.py says how).
"""

from __future__ import annotations

import json

import pytest

from topicsup.session import Session

from ..fixtures.make_chain_fingerprints import CHECKPOINTED, CONFIGS, HERE, fingerprint, run

EXPECTED = json.loads((HERE / "chain_fingerprints.json").read_text())


def _arrays(s: Session):
    sup = s.state.supervision
    return s.state.z, (sup.weights.eta if sup is not None else None)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_chain_is_bit_identical_to_before_the_frame(name):
    """z (and eta) after a few sweeps hash to what the code before the change drew."""
    assert fingerprint(name, _arrays(run(name))) == EXPECTED[name]


@pytest.mark.parametrize("name", CHECKPOINTED)
def test_checkpoint_written_before_the_frame_continues_exactly(name):
    """A checkpoint the old code saved half-way loads, and the remaining sweeps end at the
    uninterrupted chain's fingerprint."""
    sweeps = CONFIGS[name][3]
    s = Session.load(HERE / f"before_frame_{name}.npz")
    assert s.n_sweeps == sweeps // 2
    s.run(sweeps - s.n_sweeps)
    assert fingerprint(name, _arrays(s)) == EXPECTED[name]
