"""A live sampling dashboard: Run / Pause / Step controls, the sampler settings that may change
between sweeps, a status line and the Altair views, updated while a worker thread samples.

Threading model. The cell that shows a Dashboard returns at once: sampling runs in a worker
thread, and the kernels release the GIL, so the notebook stays responsive. The worker never
prints or displays anything (ipykernel 7.0 changed where output from threads lands; widget
state updates are comm messages and reach the front end the same way under ipykernel 6 and 7):
it only sets widget values and chart specs, at most every ``refresh_seconds``. Pause asks the
session to stop after its current block of documents (a fraction of a second); nothing is
lost, and the next Run continues the same chain. The session's lock guards its state, so the
notebook may read ``session.history`` or ``session.topics()`` while the dashboard runs.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import altair as alt
import ipywidgets as w
import numpy as np

from topicsup import views
from topicsup.session import Session

# the status line and progress bar update at most this often (seconds)
STATUS_SECONDS = 0.1


def _offline_chart(chart: alt.TopLevelMixin) -> alt.JupyterChart:
    """A JupyterChart with the Vega libraries inlined: charts render without internet."""
    alt.JupyterChart.enable_offline()    # a no-op after the first call
    return alt.JupyterChart(chart)


def _latest(history) -> dict[tuple[str, Any], float]:
    """The newest value of every (metric, proposal) pair, proposal None for plain metrics (a
    metric such as the log joint may be skipped on some sweeps)."""
    h = history.drop_duplicates(["metric", "proposal"], keep="last")
    return {(m, p if isinstance(p, str) else None): v
            for m, p, v in zip(h["metric"], h["proposal"], h["value"])}


class Dashboard:
    """Live controls and views for a :class:`~topicsup.session.Session`.

    Parameters
    ----------
    session : Session
        The chain to run; the dashboard never copies it.
    sweeps : int
        Sweeps one click of Run performs (editable in the dashboard; Pause stops earlier).
    sweeps_per_refresh : int
        Sweeps between two updates of the status line and charts (a run is split into chunks
        of this size; the chain is the same whatever the size).
    refresh_seconds : float
        Minimum time between two chart updates, so long runs of fast sweeps do not flood the
        front end.
    views : sequence of str, optional
        Which charts to show, from ``"loglik"``, ``"acceptance"``, ``"score"``,
        ``"coefficients"``, ``"throughput"``; by default those the model supports.

    Examples
    --------
    >>> dash = Dashboard(Session(LightMedLDA(K=20), corpus, seed=0))   # doctest: +SKIP
    >>> dash                                 # the cell returns; click Run, Pause, Step
    >>> dash.run(200); dash.wait()           # or drive it from code
    """

    def __init__(self, session: Session, sweeps: int = 100, sweeps_per_refresh: int = 1,
                 refresh_seconds: float = 0.5, views: tuple[str, ...] | None = None) -> None:
        if not isinstance(session, Session):
            raise TypeError(f"session must be a topicsup Session, got {type(session).__name__}")
        for name, v in (("sweeps", sweeps), ("sweeps_per_refresh", sweeps_per_refresh)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if isinstance(refresh_seconds, bool) or not isinstance(refresh_seconds, (int, float)) \
                or refresh_seconds < 0:
            raise ValueError(f"refresh_seconds must be a non-negative number, got "
                             f"{refresh_seconds!r}")
        self.session = session
        self.refresh_seconds = float(refresh_seconds)
        supported = self._supported_views()
        if views is None:
            views = tuple(v for v in supported if v != "throughput")
        unknown = [v for v in views if v not in supported]
        if unknown:
            raise ValueError(f"views {unknown} are not available for "
                             f"{type(session.model).__name__}; choose from {list(supported)}")
        self.views = tuple(views)
        self.error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._pause = threading.Event()
        self._active = threading.Event()
        self._last_chart = self._last_status = 0.0
        self._build_widgets(int(sweeps), int(sweeps_per_refresh))
        self.refresh(charts=True)

    # ------------------------------------------------------------------ layout
    def _supported_views(self) -> tuple[str, ...]:
        model = self.session.model
        out = ["loglik"]
        if getattr(model, "sampler", "gibbs") != "gibbs":
            out.append("acceptance")
        if hasattr(model, "task_names"):
            out += ["score", "coefficients"]
        return tuple(out + ["throughput"])

    def _build_widgets(self, sweeps: int, per_refresh: int) -> None:
        self.run_button = w.Button(description="Run", icon="play", button_style="success",
                                   tooltip="Run the number of sweeps set on the right")
        self.pause_button = w.Button(description="Pause", icon="pause", disabled=True,
                                     tooltip="Stop after the current block of documents")
        self.step_button = w.Button(description="Step", icon="step-forward",
                                    tooltip="Run one sweep")
        self.sweeps_box = w.BoundedIntText(value=sweeps, min=1, max=10**7, description="sweeps",
                                           layout=w.Layout(width="160px"))
        self.per_refresh_box = w.BoundedIntText(value=per_refresh, min=1, max=10**6,
                                                description="per refresh",
                                                layout=w.Layout(width="170px"))
        self.progress = w.IntProgress(value=0, min=0, max=1, layout=w.Layout(width="160px"))
        self.status = w.HTML()
        self.run_button.on_click(lambda _: self.run(self.sweeps_box.value))
        self.pause_button.on_click(lambda _: self.pause())
        self.step_button.on_click(lambda _: self.step())
        self.settings = self._settings_widgets()
        self.chart = _offline_chart(self._chart()) if self.views else None
        controls = w.HBox([self.run_button, self.pause_button, self.step_button,
                           self.sweeps_box, self.per_refresh_box, self.progress])
        parts = [controls]
        if self.settings:
            parts.append(w.HBox(list(self.settings.values())))
        parts.append(self.status)
        if self.chart is not None:
            parts.append(self.chart)
        self.widget = w.VBox(parts)
        # stable hooks for styling and for the browser test
        self.widget.add_class("topicsup-dashboard")
        self.status.add_class("topicsup-status")

    def _settings_widgets(self) -> dict[str, w.Widget]:
        """Controls for the model's ``live_params``: sampler settings that keep the posterior."""
        model = self.session.model
        if getattr(model, "sampler", "gibbs") != "light":
            return {}
        out: dict[str, w.Widget] = {
            "mh_steps": w.BoundedIntText(value=model.mh_steps, min=1, max=64,
                                         description="MH steps",
                                         layout=w.Layout(width="150px")),
            "composition": w.Dropdown(options=["cycle", "mixture"], value=model.composition,
                                      description="composition",
                                      layout=w.Layout(width="200px"))}
        if "proposal_weights" in model.live_params:
            pw = model.proposal_weights or (1.0, 1.0, 1.0)
            for kind, v in zip(("doc", "word", "exp"), pw):
                out[f"mix_{kind}"] = w.FloatSlider(value=v / sum(pw), min=0.0, max=1.0,
                                                   step=0.01, description=f"mix {kind}",
                                                   readout_format=".2f",
                                                   layout=w.Layout(width="230px"))
        else:
            out["p_doc"] = w.FloatSlider(value=model.p_doc, min=0.05, max=0.95, step=0.01,
                                         description="mix doc", readout_format=".2f",
                                         layout=w.Layout(width="230px"))
        if "supervised_factor" in model.live_params:   # the hinge itself or given xi
            out["supervised_factor"] = w.Dropdown(options=["marginal", "augmented"],
                                                  value=model.supervised_factor,
                                                  description="label term",
                                                  layout=w.Layout(width="220px"))
        for widget in out.values():
            widget.observe(self._on_setting, names="value")
        return out

    def _on_setting(self, change: dict) -> None:
        s = self.settings
        params: dict[str, Any] = {"mh_steps": int(s["mh_steps"].value),
                                  "composition": s["composition"].value}
        if "p_doc" in s:
            params["p_doc"] = float(s["p_doc"].value)
        else:
            mix = tuple(float(s[f"mix_{k}"].value) for k in ("doc", "word", "exp"))
            if sum(mix) <= 0:
                self._set_status("the proposal mix needs at least one positive weight")
                return
            params["proposal_weights"] = mix
        if "supervised_factor" in s:
            params["supervised_factor"] = s["supervised_factor"].value
        try:
            self.session.set_params(**params)
        except ValueError as e:
            self._set_status(f"not applied: {e}")
            return
        self.refresh(charts=False)

    # ------------------------------------------------------------------ charts and status
    def _chart(self) -> alt.TopLevelMixin:
        s = self.session
        h = s.history
        built = []
        for name in self.views:
            try:
                built.append(self._view(name, h))
            except ValueError:
                # nothing to show yet (no sweep run, no acceptance rows): an empty placeholder
                built.append(alt.Chart(title=f"{name}: waiting for a sweep")
                             .mark_text().properties(width=300, height=60))
        rows = [alt.hconcat(*built[i:i + 2]) for i in range(0, len(built), 2)]
        return alt.vconcat(*rows) if len(rows) > 1 else rows[0]

    def _view(self, name: str, history) -> alt.TopLevelMixin:
        w_, h_ = 380, 200
        if name == "loglik":
            if not (history["metric"] == "log_joint_per_token").any():
                raise ValueError("no log joint yet")
            return views.loglik_chart(history, width=w_, height=h_)
        if name == "acceptance":
            return views.acceptance_chart(history, width=w_, height=h_)
        if name == "score":
            return views.score_chart(history, width=w_, height=h_)
        if name == "coefficients":
            return views.coefficient_heatmap(self.session.coefficients(), top=12)
        return views.throughput_chart(history, width=w_, height=h_)

    def _status_html(self) -> str:
        s = self.session
        latest = _latest(s.history)
        parts = [f"<b>sweep {s.n_sweeps}</b>"]
        lj = latest.get(("log_joint_per_token", None))
        if lj is not None:
            parts.append(f"log joint / token {lj:.4f}")
        tps = latest.get(("tokens_per_second", None))
        if tps is not None and np.isfinite(tps):
            parts.append(f"{tps / 1e6:.2f} M tokens/s")
        acc = {p: v for (m, p), v in latest.items() if m == "acceptance_rate" and p}
        if acc:
            parts.append("acceptance " + ", ".join(f"{k} {v:.2f}" for k, v in acc.items()))
        for (m, _), v in latest.items():
            if m.startswith("train_"):
                parts.append(f"{m.replace('_', ' ')} {v:.3f}")
        state = "running" if self.running else ("paused mid-sweep" if s.in_sweep else "idle")
        parts.append(f"<i>{state}</i>")
        if self.error is not None:
            parts.append(f"<span style='color:#b00'>error: {type(self.error).__name__}: "
                         f"{self.error}</span>")
        return " &middot; ".join(parts)

    def _set_status(self, message: str) -> None:
        self.status.value = self._status_html() + f" &middot; {message}"

    def refresh(self, charts: bool = True) -> None:
        """Update the status line and (when ``charts``) the views from the session."""
        self.status.value = self._status_html()
        self._last_status = time.monotonic()
        if charts and self.chart is not None:
            self.chart.chart = self._chart()
            self._last_chart = time.monotonic()

    # ------------------------------------------------------------------ running
    @property
    def running(self) -> bool:
        """True while the worker samples (its final refresh excluded)."""
        return self._active.is_set()

    def run(self, n: int | None = None) -> None:
        """Start sampling ``n`` sweeps (default: the sweeps box) in a worker thread; returns
        at once. Ignored while a run is in progress."""
        n = self.sweeps_box.value if n is None else n
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive number of sweeps, got {n!r}")
        if not self._idle():
            return
        self._start(int(n))

    def step(self) -> None:
        """Run exactly one sweep (finishing a paused one first) in the worker."""
        if self._idle():
            self._start(1)

    def _idle(self) -> bool:
        return self._thread is None or not self._thread.is_alive()

    def pause(self) -> None:
        """Stop the run after the current block of documents; the next Run continues it."""
        self._pause.set()
        self.session.request_stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current run ends; True if it has (for scripts and tests)."""
        t = self._thread
        if t is not None:
            t.join(timeout)
        return t is None or not t.is_alive()

    def _start(self, n: int) -> None:
        self._pause.clear()
        self._active.set()
        self.error = None
        self.progress.max, self.progress.value = n, 0
        self._set_buttons(running=True)
        self._thread = threading.Thread(target=self._work, args=(n,), daemon=True,
                                        name="topicsup-dashboard")
        self._thread.start()

    def _set_buttons(self, running: bool) -> None:
        self.run_button.disabled = running
        self.step_button.disabled = running
        self.pause_button.disabled = not running

    def _work(self, n: int) -> None:
        """Worker: sample in chunks; between chunks update widgets (never print)."""
        done = 0
        try:
            while done < n and not self._pause.is_set():
                chunk = min(int(self.per_refresh_box.value), n - done)
                got = self.session.run(chunk)
                done += got
                if got < chunk:      # paused part-way through a sweep
                    break
                now = time.monotonic()
                if now - self._last_status >= STATUS_SECONDS:   # fast sweeps: no flood
                    self.progress.value = done
                    self.refresh(charts=now - self._last_chart >= self.refresh_seconds)
        except Exception as e:       # shown in the status line: the worker has no output
            self.error = e
        finally:
            self.progress.value = done
            self._active.clear()
            self._set_buttons(running=False)
            try:
                self.refresh(charts=True)   # the final state, whatever the throttle skipped
            except Exception as e:
                self.error = e
                self.status.value = self._status_html()

    # ------------------------------------------------------------------ display
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
