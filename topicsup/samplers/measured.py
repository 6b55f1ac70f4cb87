"""The records of ``sampler="auto"``'s measured tables (``samplers._auto_costs``, written by
benchmarks/bench_auto.py, read by ``samplers.auto``): the key a model's measurements are filed
under (``MeasuredAs``), what was measured best for it at one K (``Measured``) and where a table
came from (``Provenance``).

They live apart from ``samplers.auto`` so that the generated table can import them without
importing the module that reads it.
"""

from __future__ import annotations

from typing import Any, NamedTuple, NewType, Sequence

# The key of a model's measurements in the supervised table. The model class that owns them
# declares it (``MEASURED_AS``, beside ``PUBLISHED_SAMPLER``: models.presets), its subclasses
# inherit it, and it is the model name benchmarks/bench_supervised_time.py runs the class as
# shipped under (its curves.csv's ``model`` column), so the table never depends on a class's
# name and the samplers' layer names no model. A NewType, so that a plain string (a class's
# ``__name__``) is no key to the type checker.
MeasuredAs = NewType("MeasuredAs", str)


def measured_as(model_class: type) -> MeasuredAs | None:
    """The key ``model_class`` declares or inherits (``MEASURED_AS``), None for a model
    nothing was measured for (only the presets that were measured declare one)."""
    key: MeasuredAs | None = getattr(model_class, "MEASURED_AS", None)
    return key


class Measured(NamedTuple):
    """What was measured best for a model at one K: the topic ``sampler`` and its ``settings``
    (as the model takes them) and ``why``, the measurement in a sentence."""

    sampler: str
    settings: dict[str, Any]
    why: str


class Provenance(NamedTuple):
    """Where a measured table came from: the ``commands`` that measured it (run from the
    repository's root), ``when`` the last of them ran (ISO 8601), the ``machine`` (CPU, cores,
    numba threads as the run recorded them), the package ``versions`` and the committed result
    files the table was fitted from (``sources``, relative to the repository's root)."""

    commands: tuple[str, ...]
    when: str
    machine: str
    versions: dict[str, str]
    sources: tuple[str, ...]


def cite(runs: Sequence[Provenance]) -> str:
    """The runs as a reason quotes them: machine, date and the folders of their result files
    (``"AMD EPYC, 2 cores, 2026-11-27: benchmarks/results/speed/supervised"``)."""
    machines = dict.fromkeys(r.machine for r in runs)
    dates = dict.fromkeys(r.when[:10] for r in runs)
    folders = dict.fromkeys(s.rsplit("/", 1)[0] for r in runs for s in r.sources)
    return f"{'; '.join(machines)}, {', '.join(dates)}: {', '.join(folders)}"


class SweepsFactor(NamedTuple):
    """The sweeps a chain needs to reach a level of the log joint, relative to collapsed
    Gibbs, as a function of the corpus's tokens per entry of its V x K topic-word table,
    x = N / (V K): ``large + (small - large) / (1 + x / halves_at)``. ``small`` is the factor
    on corpora whose table is thinly filled (x -> 0), ``large`` its limit as the table fills,
    ``halves_at`` the x at which it is half way (inf: a constant, ``small``, measured not to
    change or not measured to). The partially collapsed chain's extra sweeps come from its
    draw of Phi | Z, whose spread shrinks as the counts per entry grow
    (benchmarks/bench_mixing.py)."""

    small: float
    large: float
    halves_at: float

    def at(self, tokens_per_entry: float) -> float:
        """The factor at x = ``tokens_per_entry``."""
        return self.large + (self.small - self.large) / (1.0 + tokens_per_entry
                                                          / self.halves_at)
