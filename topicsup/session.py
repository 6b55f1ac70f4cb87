"""Session: a model's state on a corpus, sampled incrementally, with a tidy history.

A sweep is split into blocks of documents. Between blocks the session checks for a stop
request (``request_stop()`` from any thread), so a long sweep can be paused within a fraction
of a second. A stopped sweep is not lost or redone: the next ``sweep``/``run`` continues from
the next block with the same random stream, so interrupted and uninterrupted chains are the
same chain, bit for bit. The kernels release the GIL, so sampling in a worker thread leaves a
notebook responsive; a lock guards the state so readers see it between blocks only.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from ._version import __version__
from .corpus import Corpus
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
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._blocks = self._make_blocks()
        return self
