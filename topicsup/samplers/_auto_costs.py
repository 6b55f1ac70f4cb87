"""The fitted cost model of ``sampler="auto"`` (``samplers.auto``), written by
benchmarks/bench_auto.py from benchmarks/results/auto/measurements.csv and
['benchmarks/results/speed/race/curves.csv', 'benchmarks/results/parallel/curves.csv']: do not edit by hand, rerun the script.

Measured: `python benchmarks/bench_auto.py --curves benchmarks/results/speed/race/curves.csv`, 2026-11-27T08:01:16, AMD EPYC, 2 cores, NUMBA_NUM_THREADS=2, {'python': '3.11.7', 'numpy': '2.4.6', 'numba': '0.68.1', 'scipy': '1.17.1', 'tomotopy': '0.14.0', 'lda': '3.0.2', 'topicsup': '0.1.0'}
"""

from typing import Any

# chain -> (sampler, settings)
CANDIDATES: dict[str, tuple[str, dict[str, Any]]] = {'gibbs': ('gibbs', {}), 'sparse_gibbs': ('sparse_gibbs', {}), 'light': ('light', {'mh_steps': 2}), 'pc-sparse-2': ('partially_collapsed', {'kernel': 'sparse', 'threads': 0}), 'pc-dense-2': ('partially_collapsed', {'kernel': 'dense', 'threads': 0})}
# chain -> term -> seconds per unit of the term (N, NK = N K, NsqrtK = N sqrt(K),
# DK = D K, VK = V K) per sweep
COSTS: dict[str, dict[str, float]] = {
    'gibbs': {'N': 3.38245e-08, 'NK': 8.2689e-10, 'DK': 0},
    'light': {'N': 1.19701e-07, 'NsqrtK': 0, 'DK': 1.13641e-09, 'VK': 0},
    'pc-dense-2': {'N': 2.52582e-08, 'NK': 4.3734e-10, 'DK': 3.67886e-09, 'VK': 1.68948e-08},
    'pc-sparse-2': {'N': 1.81598e-09, 'NsqrtK': 7.42994e-09, 'DK': 4.09153e-09, 'VK': 2.16135e-08},
    'sparse_gibbs': {'N': 2.76592e-08, 'NsqrtK': 7.69706e-09, 'DK': 0},
}
# chain -> sweeps to a level relative to collapsed Gibbs
SWEEPS: dict[str, float] = {
    'gibbs': 1,
    'sparse_gibbs': 1,
    'light': 4.43,
    'pc-sparse-2': 2.09,
    'pc-dense-2': 2.37,
}
# the race's traces the sweeps factors were fitted on (--check refits from them)
CURVES = ['benchmarks/results/speed/race/curves.csv', 'benchmarks/results/parallel/curves.csv']
# supervised presets: class -> K measured -> (sampler, settings, why), from the
# runs (one per seed) of
SUPERVISED_SOURCES = ['benchmarks/results/speed/supervised/curves.csv', 'benchmarks/results/speed/supervised_seed1/curves.csv']
SUPERVISED: dict[str, dict[int, tuple[str, dict[str, Any], str]]] = {
    'DOLDA': {
        20: ('gibbs', {}, "gibbs 0.574 test accuracy after 20 s (mean of 2 seeds), the paper's pc-sparse-2 0.523 (mean of 2 seeds)"),
        50: ('partially_collapsed', {'kernel': 'sparse', 'threads': 0}, 'pc-sparse-2 0.627 test accuracy after 20 s (mean of 2 seeds)'),
        100: ('partially_collapsed', {'kernel': 'sparse', 'threads': 0}, 'pc-sparse-2 0.649 test accuracy after 20 s'),
    },
    'GSLDA': {
        20: ('partially_collapsed', {'kernel': 'sparse', 'threads': 0}, "pc-sparse-2 0.565 test accuracy after 20 s (mean of 2 seeds), the paper's gibbs 0.550 (mean of 2 seeds)"),
        50: ('partially_collapsed', {'kernel': 'sparse', 'threads': 0}, "pc-sparse-2 0.667 test accuracy after 20 s (mean of 2 seeds), the paper's gibbs 0.627 (mean of 2 seeds)"),
        100: ('partially_collapsed', {'kernel': 'sparse', 'threads': 0}, "pc-sparse-2 0.667 test accuracy after 20 s, the paper's gibbs 0.565"),
    },
    'LightMedLDA': {
        20: ('partially_collapsed', {'kernel': 'dense', 'threads': 0}, "pc-dense-2 0.686 test accuracy after 20 s (mean of 2 seeds), the paper's light 0.579 (mean of 2 seeds)"),
        50: ('light', {}, 'light 0.771 test accuracy after 20 s'),
        100: ('light', {}, 'light 0.775 test accuracy after 21 s'),
    },
    'MedLDA': {
        20: ('gibbs', {}, 'gibbs 0.721 test accuracy after 20 s (mean of 2 seeds)'),
        50: ('gibbs', {}, 'gibbs 0.766 test accuracy after 20 s'),
        100: ('gibbs', {}, 'gibbs 0.770 test accuracy after 20 s'),
    },
}
