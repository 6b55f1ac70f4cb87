"""Session: a model's state on a corpus, sampled incrementally, with a tidy history.

A sweep is split into blocks of documents. Between blocks the session checks for a stop
request (``request_stop()`` from any thread), so a long sweep can be paused within a fraction
of a second. A stopped sweep is not lost or redone: the next ``sweep``/``run`` continues from
the next block with the same random stream, so interrupted and uninterrupted chains are the
same chain, bit for bit. The kernels release the GIL, so sampling in a worker thread leaves a
notebook responsive; a lock guards the state so readers see it between blocks only.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from ._version import __version__
from .corpus import Corpus
from .inspector import TokenInspector
from .kernels import info as info_layout
from .kernels.rng import seed_state
from .models import model_from_params

FORMAT = "topicsup-session"
FORMAT_VERSION = 1

HISTORY_COLUMNS = ["sweep", "metric", "value", "proposal"]


class Session:
    """Run a model's sampler on a corpus, a few sweeps at a time.

    Parameters
    ----------
    model : topicsup model (e.g. ``topicsup.models.LDA``)
    corpus : Corpus
    seed : int
        Seed of the chain; the same seed gives the same chain bit for bit.
    block_tokens : int
        Approximate number of tokens between two checks for a stop request.
    log_joint_every : int
        Evaluate the log joint every this many sweeps (0 never).

    Examples
    --------
    >>> s = Session(LDA(K=10), corpus, seed=1)       # doctest: +SKIP
    >>> s.run(100, progress=True)                    # doctest: +SKIP
    >>> s.topics(8)                                  # doctest: +SKIP
    """

    def __init__(self, model: Any, corpus: Corpus, seed: int = 0, *,
                 block_tokens: int = 65536, log_joint_every: int = 1) -> None:
        if not hasattr(model, "sweep_block"):
            raise TypeError(f"model must be a topicsup model such as topicsup.models.LDA, got "
                            f"{type(model).__name__}")
        model.check_corpus(corpus)
        for name, v in (("block_tokens", block_tokens), ("log_joint_every", log_joint_every)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {v!r}")
        if block_tokens < 1:
            raise ValueError(f"block_tokens must be at least 1, got {block_tokens}")
        self.model = model
        self.corpus = corpus
        self.rng = seed_state(seed)  # validates seed
        self.seed = int(seed)
        self.block_tokens = int(block_tokens)
        self.log_joint_every = int(log_joint_every)
        self.state = model.init_state(corpus, self.rng)
        self.n_sweeps = 0          # completed sweeps
        self._block = 0            # next block of the current sweep
        self._info = np.zeros(model.info_size, dtype=np.float64)
        self._seconds = 0.0        # kernel time spent in the current sweep so far
        self._records: list[dict[str, Any]] = []
        self._traces: dict[str, list[np.ndarray]] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._blocks = self._make_blocks()

    # ------------------------------------------------------------------ blocks and stopping
    def _make_blocks(self) -> np.ndarray:
        """Document boundaries so each block holds about ``block_tokens`` tokens."""
        ptr = self.corpus.doc_ptr
        cuts = np.searchsorted(ptr, np.arange(self.block_tokens, ptr[-1], self.block_tokens))
        bounds = np.unique(np.concatenate([[0], cuts, [self.corpus.n_docs]]))
        return bounds.astype(np.int64)

    @property
    def n_blocks(self) -> int:
        return len(self._blocks) - 1

    @property
    def in_sweep(self) -> bool:
        """True when a sweep was stopped part-way; the next call finishes it first."""
        return self._block > 0

    def request_stop(self) -> None:
        """Ask a running ``sweep``/``run`` (in any thread) to return after the current block."""
        self._stop.set()

    pause = request_stop

    def set_params(self, **params: Any) -> None:
        """Change sampler settings between sweeps (e.g. ``mh_steps``, ``composition``,
        ``proposal_weights``), only those in ``model.live_params``: they change how the chain
        moves, not its stationary distribution. Takes effect at the next block; waits for a
        running block to end. The checkpoint records the current settings."""
        allowed = type(self.model).live_params
        bad = sorted(set(params) - set(allowed))
        if bad:
            raise ValueError(f"cannot change {bad} during a chain; {type(self.model).__name__} "
                             f"allows {list(allowed)} (the rest change the posterior or the "
                             f"state's shape: start a new Session)")
        new = dataclasses.replace(self.model, **params)   # validates the values
        with self._lock:
            self.model = new

    # ------------------------------------------------------------------ sampling
    def _run_block(self) -> None:
        d0, d1 = self._blocks[self._block], self._blocks[self._block + 1]
        t0 = time.perf_counter()
        self.model.sweep_block(self.state, self.corpus, self.rng, d0, d1, self._info)
        self._seconds += time.perf_counter() - t0
        self._block += 1

    def _finish_sweep(self) -> None:
        self.n_sweeps += 1
        tokens = int(self._info[info_layout.TOKENS])
        sweep = self.n_sweeps
        t0 = time.perf_counter()
        end_rows = self.model.end_sweep(self.state, self.corpus, self.rng, sweep)
        self._seconds += time.perf_counter() - t0
        rows = [{"metric": "seconds", "value": self._seconds, "proposal": None},
                {"metric": "tokens_per_second",
                 "value": tokens / self._seconds if self._seconds > 0 else float("nan"),
                 "proposal": None}]
        rows += self.model.sweep_metrics(self._info) + end_rows
        if self.log_joint_every and sweep % self.log_joint_every == 0:
            lj = self.model.log_joint(self.state, self.corpus)
            rows += [{"metric": "log_joint", "value": lj, "proposal": None},
                     {"metric": "log_joint_per_token", "value": lj / self.corpus.n_tokens,
                      "proposal": None}]
        for r in rows:
            r["sweep"] = sweep
        self._records.extend(rows)
        for name, a in self.model.trace_arrays(self.state).items():
            self._traces.setdefault(name, []).append(a)
        self._block = 0
        self._info[:] = 0
        self._seconds = 0.0

    def sweep(self, n: int = 1) -> int:
        """Run ``n`` sweeps (finishing a stopped one first); return how many completed.

        Fewer than ``n`` complete only if ``request_stop`` was called meanwhile.
        """
        return self.run(n)

    def run(self, n: int, callback: Callable[["Session"], Any] | None = None, every: int = 1,
            progress: bool = False) -> int:
        """Run ``n`` sweeps, calling ``callback(session)`` every ``every`` sweeps.

        Parameters
        ----------
        n : int
            Number of sweeps.
        callback : callable, optional
            Called with the session after every ``every``-th completed sweep, outside the lock's
            hot path; returning ``False`` stops the run.
        every : int
            Sweeps between callbacks.
        progress : bool
            Show a tqdm progress bar.

        Returns
        -------
        int
            Number of sweeps completed by this call.
        """
        for name, v in (("n", n), ("every", every)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"{name} must be an integer, got {v!r}")
        if n < 0:
            raise ValueError(f"n must be non-negative, got {n}")
        if every < 1:
            raise ValueError(f"every must be at least 1, got {every}")
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be callable, got {type(callback).__name__}")
        self._stop.clear()
        bar = None
        if progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=n, unit="sweep", desc=type(self.model).__name__)
        done = 0
        try:
            while done < n:
                with self._lock:
                    while self._block < self.n_blocks and not self._stop.is_set():
                        self._run_block()
                    if self._block < self.n_blocks:
                        break  # stop requested part-way: keep the position, lose nothing
                    self._finish_sweep()
                done += 1
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(self._postfix(), refresh=False)
                if callback is not None and done % every == 0:
                    if callback(self) is False:
                        break
                if self._stop.is_set():
                    break
        finally:
            if bar is not None:
                bar.close()
            self._stop.clear()
        return done

    def _postfix(self) -> dict[str, str]:
        last = {r["metric"]: r["value"] for r in self._records[-8:] if r["sweep"] == self.n_sweeps}
        out = {}
        if "log_joint_per_token" in last:
            out["ll/token"] = f"{last['log_joint_per_token']:.4f}"
        if "tokens_per_second" in last:
            out["Mtok/s"] = f"{last['tokens_per_second'] / 1e6:.2f}"
        return out

    # ------------------------------------------------------------------ results
    @property
    def history(self) -> pd.DataFrame:
        """One tidy row per (sweep, metric[, proposal]): columns sweep, metric, value, proposal."""
        with self._lock:
            rows = list(self._records)
        df = pd.DataFrame(rows, columns=HISTORY_COLUMNS)
        df["sweep"] = df["sweep"].astype(np.int64)
        df["value"] = df["value"].astype(np.float64)
        return df

    def metric(self, name: str) -> pd.Series:
        """One metric as a Series indexed by sweep (``proposal`` rows are kept separate)."""
        h = self.history
        h = h[(h["metric"] == name) & h["proposal"].isna()]
        return h.set_index("sweep")["value"].rename(name)

    def trace(self, name: str = "eta") -> np.ndarray:
        """The values of a traced array after every sweep, stacked: (n_sweeps, ...).

        Supervised models trace the weights ``"eta"`` (tasks x features, float32).
        """
        with self._lock:
            if not self._traces.get(name):
                known = sorted(self._traces) or "none"
                raise ValueError(f"no trace named {name!r} in this session (traced: {known}; "
                                 f"run a sweep first)")
            return np.stack(self._traces[name])

    def _feature_names(self) -> list[str]:
        """Topics labelled by their 3 top words, then the covariates."""
        words = self.topics(3)["top_words"]
        return ([f"{k}: {w}" for k, w in zip(words.index, words)]
                + list(self.corpus.covariate_names))

    def _check_supervised(self) -> None:
        if not hasattr(self.model, "task_names"):
            raise ValueError(f"{type(self.model).__name__} has no classifier weights; use a "
                             f"supervised model such as LightMedLDA")

    def weights(self) -> pd.DataFrame:
        """Tidy weight trace: one row per (sweep, task, feature) with the sampled eta.

        Columns ``sweep``, ``task`` (class name), ``feature`` (topic with its top words, or
        covariate), ``index`` (column of eta) and ``value``.
        """
        self._check_supervised()
        with self._lock:
            samples = list(self._traces.get("eta", []))
            T, M = self.state["eta"].shape
        S = len(samples)
        eta = np.stack(samples) if S else np.zeros((0, T, M), np.float32)
        tasks = self.model.task_names(self.corpus)
        return pd.DataFrame({
            "sweep": np.repeat(np.arange(self.n_sweeps - S + 1, self.n_sweeps + 1), T * M),
            "task": np.tile(np.repeat(tasks, M), S),
            "feature": np.tile(self._feature_names(), S * T),
            "index": np.tile(np.arange(M), S * T),
            "value": eta.reshape(-1).astype(np.float64)})

    def coefficients(self, interval: float = 0.9) -> pd.DataFrame:
        """Posterior summary of the classifier weights: one row per (task, feature).

        Parameters
        ----------
        interval : float
            Probability of the equal-tailed credible interval.

        Returns
        -------
        DataFrame
            ``task`` (class name), ``feature`` (topic with its top words, or covariate),
            ``index`` (column of eta), ``mean`` (the model's averaged eta, the one prediction
            uses), ``lower`` / ``upper`` (quantiles of the samples kept after burn-in, or of
            all samples while none is kept), ``width`` and ``n_samples``.
        """
        self._check_supervised()
        if isinstance(interval, bool) or not isinstance(interval, (float, int)) \
                or not 0 < interval < 1:
            raise ValueError(f"interval must be a probability in (0, 1), got {interval!r}")
        with self._lock:
            mean = self.model.coefficients(self.state)
            samples = list(self._traces.get("eta", []))
        first = self.n_sweeps - len(samples) + 1   # the sweep samples[0] was drawn in
        kept = samples[max(self.model.burn_in + 1 - first, 0):] or samples
        T, M = mean.shape
        if kept:
            q = (1 - interval) / 2
            lower, upper = np.quantile(np.stack(kept).astype(np.float64), [q, 1 - q], axis=0)
        else:
            lower = upper = mean
        return pd.DataFrame({
            "task": np.repeat(self.model.task_names(self.corpus), M),
            "feature": np.tile(self._feature_names(), T), "index": np.tile(np.arange(M), T),
            "mean": mean.reshape(-1), "lower": lower.reshape(-1), "upper": upper.reshape(-1),
            "width": (upper - lower).reshape(-1), "n_samples": len(kept)})

    def inspector(self, doc: int = 0, seed: int = 0) -> TokenInspector:
        """A ``topicsup.inspector.TokenInspector`` on document ``doc``: resample its tokens one
        at a time, as the sampler would, with every proposal, acceptance probability and
        decision recorded (teaching mode)."""
        return TokenInspector(self, doc, seed=seed)

    def decision_function(self, docs: Any, n_burn: int = 10, n_keep: int = 10,
                          seed: int = 0) -> np.ndarray:
        """Scores (n_docs, T) of held-out documents: fold-in with the current topics, then
        the weights averaged over the kept samples (MATH.md sec. 5).

        Parameters
        ----------
        docs : Corpus, texts, token lists or a count matrix on this corpus's vocabulary
        n_burn, n_keep : int
            Fold-in sweeps discarded, then averaged.
        seed : int
            Seed of the fold-in's own random stream (the chain's is not touched).
        """
        self._check_supervised()
        corpus = self.corpus.heldout(docs)
        rng = seed_state(seed, stream=7)
        with self._lock:
            X = self.model.fold_in(self.state, corpus, rng, n_burn, n_keep)
            return self.model.decision_scores(self.state, X)

    def predict(self, docs: Any, **fold_in: Any) -> np.ndarray:
        """Class names of held-out documents (sign rule for binary labels, argmax for
        multi-class), or a (n_docs, C) 0/1 matrix for multi-label; ``fold_in`` as in
        ``decision_function``."""
        lab = self.corpus.labels
        return self.model.predict_labels(self.decision_function(docs, **fold_in), lab.kind,
                                         lab.classes)

    def score(self, corpus: Corpus, **fold_in: Any) -> float:
        """Accuracy (micro F1 for multi-label) on a labelled held-out ``corpus``."""
        if not isinstance(corpus, Corpus) or corpus.labels is None:
            raise ValueError("score needs a labelled held-out Corpus (labels=...)")
        held = self.corpus.heldout(corpus)
        T = self.state["eta"].shape[0]
        y = self.model.task_signs(corpus) if corpus.labels.kind == self.corpus.labels.kind \
            else None
        if y is None or y.shape[0] != T:
            raise ValueError(f"the held-out labels are {corpus.labels.kind} with "
                             f"{corpus.labels.n_classes} classes; the model was trained on "
                             f"{self.corpus.labels.kind} labels with {T} task(s)")
        scores = self.decision_function(held, **fold_in)
        return self.model.score_labels(y, scores.T, corpus.labels.kind)

    def topic_word(self) -> np.ndarray:
        """(K, V) point estimate of the topics."""
        with self._lock:
            return self.model.topic_word(self.state)

    def doc_topics(self, as_frame: bool = True) -> pd.DataFrame | np.ndarray:
        """Document-topic proportions theta (n_docs x K) from the current state."""
        with self._lock:
            theta = self.model.doc_topic(self.state, self.corpus)
        if not as_frame:
            return theta
        return pd.DataFrame(theta, index=pd.Index(self.corpus.doc_index, name="document"),
                            columns=pd.Index(range(theta.shape[1]), name="topic"))

    def topics(self, n_words: int = 10) -> pd.DataFrame:
        """Top words of each topic: one row per topic with its share of tokens and words.

        Columns: ``share`` (fraction of corpus tokens in the topic), ``top_words`` (a readable
        string), and ``word_1 .. word_n`` with the words in order of phi.
        """
        if isinstance(n_words, bool) or not isinstance(n_words, (int, np.integer)) or n_words < 1:
            raise ValueError(f"n_words must be a positive integer, got {n_words!r}")
        phi = self.topic_word()
        n_words = min(int(n_words), phi.shape[1])
        top = np.argsort(-phi, axis=1, kind="stable")[:, :n_words]
        vocab = np.asarray(self.corpus.vocabulary, dtype=object)
        with self._lock:
            n_k = self.state["n_k"].astype(np.float64)
        words = vocab[top]
        df = pd.DataFrame(words, columns=[f"word_{i + 1}" for i in range(n_words)])
        df.insert(0, "top_words", [" ".join(r) for r in words])
        df.insert(0, "share", n_k / max(n_k.sum(), 1.0))
        df.index.name = "topic"
        return df

    def summary(self) -> pd.Series:
        """Model, corpus, progress and the latest metrics in one Series."""
        h = self.history
        last = h[h["sweep"] == self.n_sweeps] if len(h) else h
        lastv = {m: v for m, v, p in zip(last["metric"], last["value"], last["proposal"])
                 if p is None or p != p}
        total_s = h.loc[h["metric"] == "seconds", "value"].sum() if len(h) else 0.0
        info = {
            "model": type(self.model).__name__,
            **{f"param.{k}": v for k, v in self.model.get_params().items()},
            "n_docs": self.corpus.n_docs, "n_words": self.corpus.n_words,
            "n_tokens": self.corpus.n_tokens, "seed": self.seed, "sweeps": self.n_sweeps,
            "in_sweep": self.in_sweep, "sampling_seconds": total_s,
            "log_joint": lastv.get("log_joint", np.nan),
            "log_joint_per_token": lastv.get("log_joint_per_token", np.nan),
            "tokens_per_second": lastv.get("tokens_per_second", np.nan),
        }
        return pd.Series(info, name="session", dtype=object)

    def __repr__(self) -> str:
        return (f"Session({type(self.model).__name__}{self.model.get_params()}, "
                f"{self.corpus!r}, seed={self.seed}, sweeps={self.n_sweeps})")

    # ------------------------------------------------------------------ checkpoints
    def save(self, path: str | Path) -> Path:
        """Write a checkpoint (``.npz``, no pickled objects) that ``Session.load`` resumes.

        It holds the model's parameters, the corpus, the chain state (assignments and the
        random stream), the position inside a stopped sweep and the history.
        """
        path = Path(path)
        with self._lock:
            meta = {
                "format": FORMAT, "format_version": FORMAT_VERSION,
                "topicsup_version": __version__,
                "model": type(self.model).__name__, "params": self.model.get_params(),
                "seed": self.seed, "n_sweeps": self.n_sweeps, "block": self._block,
                "block_tokens": self.block_tokens, "log_joint_every": self.log_joint_every,
                "seconds": self._seconds,
                "n_unknown_tokens": self.corpus.n_unknown_tokens,
                "preprocessing": self.corpus.preprocessing,
                "history": [{**r, "value": float(r["value"])} for r in self._records],
            }
            arrays = {f"state/{k}": self.state[k] for k in self.model.saved_state}
            arrays.update(self.corpus.to_arrays())
            arrays.update({f"trace/{k}": np.stack(v) for k, v in self._traces.items() if v})
            arrays["rng"] = self.rng.copy()
            arrays["info"] = self._info.copy()
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        with open(path, "wb") as f:
            np.savez_compressed(f, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> "Session":
        """Restore a session saved by ``save``; continuing it equals never having stopped."""
        path = Path(path)
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        if "meta" not in arrays:
            raise ValueError(f"{path} is not a topicsup session checkpoint (no metadata)")
        meta = json.loads(arrays["meta"].tobytes().decode())
        if meta.get("format") != FORMAT:
            raise ValueError(f"{path} is not a topicsup session checkpoint")
        if meta["format_version"] > FORMAT_VERSION:
            raise ValueError(f"{path} has checkpoint format {meta['format_version']}; this "
                             f"topicsup ({__version__}) reads up to {FORMAT_VERSION}")
        model = model_from_params(meta["model"], meta["params"])
        corpus = Corpus.from_arrays(arrays, meta)
        self = cls.__new__(cls)
        self.model, self.corpus, self.seed = model, corpus, meta["seed"]
        self.block_tokens = int(meta["block_tokens"])
        self.log_joint_every = int(meta["log_joint_every"])
        self.rng = np.array(arrays["rng"], dtype=np.uint64)
        self.state = model.allocate_state(corpus)
        for k in model.saved_state:
            saved = arrays.get(f"state/{k}")
            if saved is None or saved.shape != self.state[k].shape:
                raise ValueError(f"{path}: saved state {k!r} is missing or has shape "
                                 f"{getattr(saved, 'shape', None)}, expected "
                                 f"{self.state[k].shape}")
            self.state[k][...] = saved
        model.validate_state(self.state, corpus)
        model.refresh_state(self.state, corpus)
        self.n_sweeps = int(meta["n_sweeps"])
        self._block = int(meta["block"])
        self._info = np.array(arrays["info"], dtype=np.float64)
        self._seconds = float(meta["seconds"])
        self._records = [dict(r) for r in meta["history"]]
        self._traces = {k[len("trace/"):]: list(v) for k, v in arrays.items()
                        if k.startswith("trace/")}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._blocks = self._make_blocks()
        return self
