"""The measured tables of ``sampler="auto"`` (``samplers.auto``): the fitted cost
model of the unsupervised candidates and the measured best sampler of the
supervised presets, each with the ``Provenance`` of its measurements
(``samplers.measured``: commands, date, machine, versions, result files).

Written by benchmarks/bench_auto.py (``--fit-only`` refits from the committed
result files the records name, ``--check`` says whether this is their fit): do
not edit by hand, rerun the script.
"""

from typing import Any

from .measured import Measured, MeasuredAs, Provenance, SweepsFactor

# chain -> (sampler, settings)
CANDIDATES: dict[str, tuple[str, dict[str, Any]]] = {'gibbs': ('gibbs', {}), 'sparse_gibbs': ('sparse_gibbs', {}), 'light': ('light', {'mh_steps': 2}), 'pc-sparse-2': ('partially_collapsed', {'kernel': 'sparse', 'threads': 0}), 'pc-dense-2': ('partially_collapsed', {'kernel': 'dense', 'threads': 0})}
# the seconds per sweep COSTS is fitted to
COSTS_MEASURED = Provenance(
    commands=('python benchmarks/bench_auto.py --curves benchmarks/results/speed/race/curves.csv', 'python benchmarks/bench_auto.py --synthetic'),
    when='2026-11-30T00:15:00',
    machine='AMD EPYC, 2 cores, NUMBA_NUM_THREADS=2',
    versions={'python': '3.11.7', 'numpy': '2.4.6', 'numba': '0.68.1', 'scipy': '1.17.1', 'tomotopy': '0.14.0', 'lda': '3.0.2', 'topicsup': '0.1.0'},
    sources=('benchmarks/results/auto/measurements.csv',),
)
# the fewest and the most tokens of the corpora measured (beyond them the cost
# model extrapolates, and the reason says so)
COSTS_TOKENS: tuple[int, int] = (539963, 100000000)
# the fewest and the most topics measured (below half the fewest, as below half
# the fewest tokens, auto picks among the collapsed samplers)
COSTS_KS: tuple[int, int] = (20, 1000)
# N, D, V of the smallest corpus measured: a corpus below the sizes measured is
# costed as this one (at K raised to the fewest measured)
COSTS_SMALLEST: tuple[int, int, int] = (539963, 5645, 20363)
# chain -> term -> seconds per unit of the term (N, NK = N K, NsqrtK = N sqrt(K),
# NKfill = N K (1 - exp(-N / VK)), DK = D K, VK = V K) per sweep
COSTS: dict[str, dict[str, float]] = {
    'gibbs': {'N': 3.36798e-08, 'NK': 8.30642e-10, 'DK': 0},
    'light': {'N': 1.14e-07, 'NsqrtK': 0, 'DK': 7.75733e-10, 'VK': 2.18679e-10},
    'pc-dense-2': {'N': 2.57345e-08, 'NK': 4.81512e-10, 'DK': 1.16435e-09, 'VK': 1.56416e-08},
    'pc-sparse-2': {'N': 4.08311e-10, 'NsqrtK': 7.7202e-09, 'DK': 4.08148e-09, 'VK': 2.12663e-08},
    'sparse_gibbs': {'N': 1.34933e-08, 'NsqrtK': 5.98589e-09, 'NKfill': 9.42714e-10, 'DK': 4.18322e-10},
}
# the races' log-joint traces SWEEPS is fitted on, each chain from the first that
# ran it (--check refits from them)
SWEEPS_MEASURED: tuple[Provenance, ...] = (
    Provenance(
        commands=('python benchmarks/bench_parallel.py --parts lda --ks 20,100,500,1000 --samplers gibbs,sparse_gibbs,pc-sparse-2,part-sparse-2,part-dense-2,tomotopy-1 --out benchmarks/results/speed/race',),
        when='2026-11-27T07:30:36',
        machine='AMD EPYC, NUMBA_NUM_THREADS=2',
        versions={'python': '3.11.7', 'numpy': '2.4.6', 'numba': '0.68.1', 'scipy': '1.17.1', 'tomotopy': '0.14.0', 'lda': '3.0.2', 'topicsup': '0.1.0'},
        sources=('benchmarks/results/speed/race/curves.csv',),
    ),
    Provenance(
        commands=('python benchmarks/bench_parallel.py',),
        when='2026-11-24T03:34:10',
        machine='AMD EPYC, NUMBA_NUM_THREADS=2',
        versions={'python': '3.11.7', 'numpy': '2.4.6', 'numba': '0.68.1', 'scipy': '1.17.1', 'tomotopy': '0.14.0', 'lda': 'not installed', 'topicsup': '0.1.0'},
        sources=('benchmarks/results/parallel/curves.csv',),
    ),
)
# bench_mixing.py's sweeps to a late level on corpora drawn from LDA, N / VK up
# to 100: the partially collapsed chains' factor as the table fills
MIXING_MEASURED: tuple[Provenance, ...] = (
    Provenance(
        commands=('python benchmarks/bench_mixing.py', 'python benchmarks/bench_mixing.py --corpora 1e7:12000:100 --append', 'python benchmarks/bench_mixing.py --corpora 1e7:4000:100 --seed 1 --append'),
        when='2026-11-30T00:31:55',
        machine='AMD EPYC, 2 cores, NUMBA_NUM_THREADS=2',
        versions={'python': '3.11.7', 'numpy': '2.4.6', 'numba': '0.68.1', 'scipy': '1.17.1', 'tomotopy': '0.14.0', 'lda': '3.0.2', 'topicsup': '0.1.0'},
        sources=('benchmarks/results/mixing/factors.csv',),
    ),
)
# chain -> sweeps to a level relative to collapsed Gibbs, by N / VK (inf: constant)
SWEEPS: dict[str, SweepsFactor] = {
    'gibbs': SweepsFactor(1.0, 1.0, float('inf')),
    'sparse_gibbs': SweepsFactor(1.0, 1.0, float('inf')),
    'light': SweepsFactor(4.4264, 4.4264, float('inf')),
    'pc-sparse-2': SweepsFactor(small=2.2396, large=1.2878, halves_at=9.4099),
    'pc-dense-2': SweepsFactor(small=2.2396, large=1.2878, halves_at=9.4099),
}
# the runs of benchmarks/bench_supervised_time.py (one per seed) SUPERVISED is
# chosen from
SUPERVISED_MEASURED: tuple[Provenance, ...] = (
    Provenance(
        commands=('python benchmarks/bench_supervised_time.py --out benchmarks/results/speed/supervised --budget 20.0',),
        when='2026-11-27T07:56:15',
        machine='AMD EPYC, 2 cores',
        versions={'python': '3.11.7', 'numpy': '2.4.6', 'numba': '0.68.1', 'scipy': '1.17.1', 'tomotopy': '0.14.0', 'lda': '3.0.2', 'topicsup': '0.1.0'},
        sources=('benchmarks/results/speed/supervised/curves.csv',),
    ),
    Provenance(
        commands=('python benchmarks/bench_supervised_time.py --seed 1 --models dolda,gslda --ks 20,50 --samplers gibbs,pc-sparse-2 --out benchmarks/results/speed/supervised_seed1', 'python benchmarks/bench_supervised_time.py --seed 1 --models medlda,lightmedlda --ks 20 --samplers gibbs,light,pc-dense-2 --resume --out benchmarks/results/speed/supervised_seed1'),
        when='2026-11-27T10:40:08',
        machine='AMD EPYC, 2 cores',
        versions={'python': '3.11.7', 'numpy': '2.4.6', 'numba': '0.68.1', 'scipy': '1.17.1', 'tomotopy': '0.14.0', 'lda': '3.0.2', 'topicsup': '0.1.0'},
        sources=('benchmarks/results/speed/supervised_seed1/curves.csv',),
    ),
)
# model key (the MEASURED_AS of the model class that owns it, models.presets) ->
# K measured -> the sampler with the best test accuracy at equal wall-clock time
SUPERVISED: dict[MeasuredAs, dict[int, Measured]] = {
    MeasuredAs('dolda'): {
        20: Measured(sampler='gibbs', settings={}, why="gibbs 0.574 test accuracy after 20 s (mean of 2 seeds), the paper's pc-sparse-2 0.523 (mean of 2 seeds)"),
        50: Measured(sampler='partially_collapsed', settings={'kernel': 'sparse', 'threads': 0}, why='pc-sparse-2 0.627 test accuracy after 20 s (mean of 2 seeds)'),
        100: Measured(sampler='partially_collapsed', settings={'kernel': 'sparse', 'threads': 0}, why='pc-sparse-2 0.649 test accuracy after 20 s'),
    },
    MeasuredAs('gslda'): {
        20: Measured(sampler='partially_collapsed', settings={'kernel': 'sparse', 'threads': 0}, why="pc-sparse-2 0.565 test accuracy after 20 s (mean of 2 seeds), the paper's gibbs 0.550 (mean of 2 seeds)"),
        50: Measured(sampler='partially_collapsed', settings={'kernel': 'sparse', 'threads': 0}, why="pc-sparse-2 0.667 test accuracy after 20 s (mean of 2 seeds), the paper's gibbs 0.627 (mean of 2 seeds)"),
        100: Measured(sampler='partially_collapsed', settings={'kernel': 'sparse', 'threads': 0}, why="pc-sparse-2 0.667 test accuracy after 20 s, the paper's gibbs 0.565"),
    },
    MeasuredAs('lightmedlda'): {
        20: Measured(sampler='partially_collapsed', settings={'kernel': 'dense', 'threads': 0}, why="pc-dense-2 0.686 test accuracy after 20 s (mean of 2 seeds), the paper's light 0.579 (mean of 2 seeds)"),
        50: Measured(sampler='light', settings={}, why='light 0.771 test accuracy after 20 s'),
        100: Measured(sampler='light', settings={}, why='light 0.775 test accuracy after 21 s'),
    },
    MeasuredAs('medlda'): {
        20: Measured(sampler='gibbs', settings={}, why='gibbs 0.721 test accuracy after 20 s (mean of 2 seeds)'),
        50: Measured(sampler='gibbs', settings={}, why='gibbs 0.766 test accuracy after 20 s'),
        100: Measured(sampler='gibbs', settings={}, why='gibbs 0.770 test accuracy after 20 s'),
    },
}
