"""The measured tables of ``sampler="auto"`` (``samplers.auto``): the fitted cost
model of the unsupervised candidates and the measured best sampler of the
supervised presets, each with the ``Provenance`` of its measurements
(``samplers.measured``: commands, date, machine, versions, result files).

Written by benchmarks/bench_auto.py (``--fit-only`` refits from the committed
result files the records name, ``--check`` says whether this is their fit): do
not edit by hand, rerun the script.
"""

from typing import Any

from .measured import Measured, MeasuredAs, Provenance

# chain -> (sampler, settings)
CANDIDATES: dict[str, tuple[str, dict[str, Any]]] = {'gibbs': ('gibbs', {}), 'sparse_gibbs': ('sparse_gibbs', {}), 'light': ('light', {'mh_steps': 2}), 'pc-sparse-2': ('partially_collapsed', {'kernel': 'sparse', 'threads': 0}), 'pc-dense-2': ('partially_collapsed', {'kernel': 'dense', 'threads': 0})}
# the seconds per sweep COSTS is fitted to
COSTS_MEASURED = Provenance(
    commands=('python benchmarks/bench_auto.py --curves benchmarks/results/speed/race/curves.csv',),
    when='2026-11-27T08:01:16',
    machine='AMD EPYC, 2 cores, NUMBA_NUM_THREADS=2',
    versions={'python': '3.11.7', 'numpy': '2.4.6', 'numba': '0.68.1', 'scipy': '1.17.1', 'tomotopy': '0.14.0', 'lda': '3.0.2', 'topicsup': '0.1.0'},
    sources=('benchmarks/results/auto/measurements.csv',),
)
# the fewest and the most tokens of the corpora measured (beyond them the cost
# model extrapolates, and the reason says so)
COSTS_TOKENS: tuple[int, int] = (539963, 5440084)
# chain -> term -> seconds per unit of the term (N, NK = N K, NsqrtK = N sqrt(K),
# DK = D K, VK = V K) per sweep
COSTS: dict[str, dict[str, float]] = {
    'gibbs': {'N': 3.38245e-08, 'NK': 8.2689e-10, 'DK': 0},
    'light': {'N': 1.19701e-07, 'NsqrtK': 0, 'DK': 1.13641e-09, 'VK': 0},
    'pc-dense-2': {'N': 2.52582e-08, 'NK': 4.3734e-10, 'DK': 3.67886e-09, 'VK': 1.68948e-08},
    'pc-sparse-2': {'N': 1.81598e-09, 'NsqrtK': 7.42994e-09, 'DK': 4.09153e-09, 'VK': 2.16135e-08},
    'sparse_gibbs': {'N': 2.76592e-08, 'NsqrtK': 7.69706e-09, 'DK': 0},
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
# chain -> sweeps to a level relative to collapsed Gibbs
SWEEPS: dict[str, float] = {
    'gibbs': 1,
    'sparse_gibbs': 1,
    'light': 4.43,
    'pc-sparse-2': 2.09,
    'pc-dense-2': 2.37,
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
