"""The fitted cost model of ``sampler="auto"`` (``samplers.auto``), written by
benchmarks/bench_auto.py from benchmarks/results/auto/measurements.csv and
benchmarks/results/parallel/curves.csv: do not edit by hand, rerun the script.

Measured: `python benchmarks/bench_auto.py`, 2026-11-27T06:43:26, AMD EPYC, 2 cores, NUMBA_NUM_THREADS=2, {'python': '3.11.7', 'numpy': '2.4.6', 'numba': '0.68.1', 'scipy': '1.17.1', 'tomotopy': '0.14.0', 'lda': '3.0.2', 'topicsup': '0.1.0'}
"""

from typing import Any

# chain -> (sampler, settings)
CANDIDATES: dict[str, tuple[str, dict[str, Any]]] = {'gibbs': ('gibbs', {}), 'sparse_gibbs': ('sparse_gibbs', {}), 'light': ('light', {'mh_steps': 2}), 'pc-sparse-2': ('partially_collapsed', {'kernel': 'sparse', 'threads': 0}), 'pc-dense-2': ('partially_collapsed', {'kernel': 'dense', 'threads': 0})}
# chain -> term -> seconds per unit of the term (N, NK = N K, NsqrtK = N sqrt(K),
# DK = D K, VK = V K) per sweep
COSTS: dict[str, dict[str, float]] = {
    'gibbs': {'N': 3.24902e-08, 'NK': 8.48099e-10, 'DK': 7.85302e-10},
    'light': {'N': 1.15765e-07, 'NsqrtK': 0, 'DK': 1.53497e-09, 'VK': 0},
    'pc-dense-2': {'N': 1.43044e-08, 'NK': 0, 'DK': 0, 'VK': 6.22844e-08},
    'pc-sparse-2': {'N': 3.04222e-08, 'NsqrtK': 0, 'DK': 0, 'VK': 5.13908e-08},
    'sparse_gibbs': {'N': 2.38944e-08, 'NsqrtK': 8.12896e-09, 'DK': 0},
}
# chain -> sweeps to a level relative to collapsed Gibbs
SWEEPS: dict[str, float] = {
    'gibbs': 1,
    'sparse_gibbs': 1,
    'light': 4.43,
    'pc-sparse-2': 2.06,
    'pc-dense-2': 2.37,
}
# the race's traces the sweeps factors were fitted on (--check refits from them)
CURVES = 'benchmarks/results/parallel/curves.csv'
