"""One supervised run on 20 Newsgroups (20 classes) with any model parameters, watched closely.

For questions the grid of ``bench_supervised.py`` does not answer: how fast does a given
configuration learn per sweep, how often is each proposal accepted, and how peaked is the
supervised factor exp(g_d(k)) that the topic sampler has to follow. Run from the repository
root, one core::

    taskset -c 1 python benchmarks/explore_supervised.py --K 200 --sampler light \\
        --params '{"composition": "cycle", "mh_steps": 24, "weight_sampler": "cholesky"}' \\
        --sweeps 20 --spread

Every ``--every`` sweeps (from ``--first-eval``) it prints the sampling seconds so far, the
training accuracy of the current sample, the test accuracy of a fold-in on the current topics
(``--fold-in`` sweeps, as in the grid), the acceptance rate per proposal over the last sweep
and, with ``--spread``, quantiles over documents of the supervised factor's range
max_k g_d(k) - min_k g_d(k) (nats) and of its effective number of topics exp(entropy) of
softmax(g_d). The model is the grid's (lambda 102.4, nu 4096, beta 0.01, ``--alpha``, weights
averaged from sweep ``--sweeps`` // 2 on, so a test accuracy depends on ``--sweeps`` too) with
``--params`` on top; nothing is written.
"""

from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lda import archive_or_skip  # noqa: E402
from bench_supervised import BETA, LAM, NU  # noqa: E402

from topicsup.inspector import marginal_g, supervised_g  # noqa: E402
from topicsup.kernels.rng import seed_state  # noqa: E402
from topicsup.models import LightMedLDA, MedLDA  # noqa: E402
from topicsup.newsgroups import load_20newsgroups  # noqa: E402
from topicsup.session import Session  # noqa: E402
from topicsup.synthetic import make_synthetic  # noqa: E402


def supervised_factor_spread(model, state, corpus) -> tuple[np.ndarray, np.ndarray]:
    """Per document with tokens: the range over k of the model's g_d(k) (every token counted,
    docs/math.md sec. 1; ``inspector.supervised_g``, or ``inspector.marginal_g`` for the marginal
    factor) and the effective number of topics exp(H) of softmax(g_d)."""
    sup = state.supervision
    eta_kt, b, w, r, z, y = (sup.weights.eta_kt, sup.loss.b, sup.loss.w, sup.weights.r, state.z,
                             sup.y)
    marginal = model.supervised_factor == "marginal"
    ptr = corpus.doc_ptr
    spread, effective = [], []
    for d in range(corpus.n_docs):
        if ptr[d + 1] == ptr[d]:
            continue
        n_kd = np.bincount(z[ptr[d]:ptr[d + 1]], minlength=eta_kt.shape[0])
        N_d = int(ptr[d + 1] - ptr[d])
        g = marginal_g(model.loss_function, eta_kt, y[:, d], r[:, d], n_kd, N_d) if marginal \
            else supervised_g(eta_kt, b[:, d], w[:, d], r[:, d], n_kd, N_d)
        p = np.exp(g - g.max())
        p /= p.sum()
        spread.append(g.max() - g.min())
        effective.append(np.exp(-(p[p > 0] * np.log(p[p > 0])).sum()))
    return np.array(spread), np.array(effective)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--K", type=int, default=200)
    p.add_argument("--sampler", choices=("light", "gibbs"), default="light",
                   help="LightMedLDA or Gibbs MedLDA defaults under --params")
    p.add_argument("--params", default="{}", help="model parameters as a JSON object")
    p.add_argument("--sweeps", type=int, default=30)
    p.add_argument("--every", type=int, default=5)
    p.add_argument("--first-eval", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--alpha", type=float, default=0.5)
    p.add_argument("--fold-in", type=int, nargs=2, default=[30, 30], metavar=("BURN", "KEEP"))
    p.add_argument("--spread", action="store_true",
                   help="also print quantiles of the supervised factor's spread")
    p.add_argument("--data", help="20news-bydate.tar.gz or its folder")
    args = p.parse_args(argv)
    path = archive_or_skip(args.data)
    if path is None:
        return 0
    try:
        params = json.loads(args.params)
    except json.JSONDecodeError as err:
        p.error(f"--params is not a JSON object: {err}")
    if not isinstance(params, dict):
        p.error(f"--params must be a JSON object, got {args.params!r}")
    Model = LightMedLDA if args.sampler == "light" else MedLDA
    settings = dict(K=args.K, lam=LAM["multiclass"], nu=NU, alpha=args.alpha, beta=BETA,
                    burn_in=args.sweeps // 2)
    model = Model(**{**settings, **params})
    # compile (or load from numba's cache) off the clock, as bench_supervised.py does
    Session(model, make_synthetic(n_docs=20, n_topics=3, doc_length=10, task="multiclass",
                                  seed=0).corpus, seed=0, log_joint_every=0).run(1)
    train = load_20newsgroups("train", path=path)
    test = load_20newsgroups("test", path=path)
    session = Session(model, train, seed=args.seed * 1000, log_joint_every=0)
    print(model)
    done = 0
    while done < args.sweeps:
        step = args.every if done >= args.first_eval else args.first_eval
        session.run(min(step, args.sweeps - done))
        done = session.n_sweeps
        if done < args.first_eval or model.initialising(session.state):
            continue
        h = session.history
        seconds = h.query("metric == 'seconds'")["value"].sum()
        train_acc = h.query("metric == 'train_accuracy'")["value"].iloc[-1]
        scores = model.ensemble_scores(session.state, session.problem, test,
                                       seed_state(args.seed, stream=99),
                                       [model.topic_snapshot(session.state, session.problem)],
                                       *args.fold_in)
        test_acc = float(np.mean(scores.argmax(axis=1) == test.labels.values))
        rates = h[(h.metric == "acceptance_rate") & (h.sweep == h.sweep.max())]
        line = (f"sweep {done:3d}  {seconds:7.1f} s  train {train_acc:.3f}  test {test_acc:.3f}  "
                + "  ".join(f"{r.proposal} {r.value:.2f}" for r in rates.itertuples()))
        if args.spread:
            spread, effective = supervised_factor_spread(model, session.state, train)
            line += ("  range g 10/50/90%: " + "/".join(f"{q:.1f}" for q in
                                                       np.percentile(spread, [10, 50, 90]))
                     + "  topics 10/50/90%: " + "/".join(f"{q:.1f}" for q in
                                                         np.percentile(effective, [10, 50, 90])))
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
