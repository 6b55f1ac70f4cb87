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

Errors. An exception in the worker (or in a button's or a setting's callback, which
ipywidgets would otherwise swallow) is shown in the status line, the buttons come back, and
the next Run retries: the session is left between blocks, consistent, by construction
(``Session.run``). Settings changed while sampling are marked on the charts against sweeps
(``views.mark_settings_changes``).

Layout. Controls wrap onto further rows rather than shrink, so at the default notebook width
every control keeps its label and every slider its track.
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

import altair as alt
import ipywidgets as w
import numpy as np

from topicsup import validation as check
from topicsup import views
from topicsup.session import Session

if TYPE_CHECKING:
    import pandas as pd

    from topicsup.models import Model
    from topicsup.parts import LiveSetting
    from topicsup.views import AnyChart

# the status line and progress bar update at most this often (seconds)
STATUS_SECONDS = 0.1
MAX_SWEEPS = 10**9
# controls keep their size and wrap onto further rows instead of shrinking to nothing
_WRAP = w.Layout(display="flex", flex_flow="row wrap", align_items="center", width="100%")
_LABEL = {"description_width": "initial"}


def _on_request(name: str) -> bool:
    """Timing views are shown only when asked for (``topicsup.views.VIEWS``); views the
    table does not know (a ChainsDashboard's) by default."""
    view = views.VIEWS.get(name)
    return view is not None and view.on_request


def _control_layout(width: str) -> w.Layout:
    return w.Layout(width=width, min_width=width, flex="0 0 auto", margin="2px 12px 2px 0")


def _offline_chart(chart: AnyChart) -> alt.JupyterChart:
    """A JupyterChart with the Vega libraries inlined: charts render without internet."""
    alt.JupyterChart.enable_offline()    # a no-op after the first call
    return alt.JupyterChart(chart)


def _latest(history: pd.DataFrame) -> dict[tuple[str, str | None], float]:
    """The newest value of every (metric, proposal) pair, proposal None for plain metrics (a
    metric such as the log joint may be skipped on some sweeps)."""
    h = history.drop_duplicates(["metric", "proposal"], keep="last")
    return {(m, p if isinstance(p, str) else None): v
            for m, p, v in zip(h["metric"], h["proposal"], h["value"])}


class Runnable(Protocol):
    """What a dashboard drives: a ``Session`` (the views a ``Dashboard`` draws are a
    Session's), or several chains (``topicsup.chains.Chains``) for a ``ChainsDashboard``."""

    @property
    def model(self) -> Model: ...

    @property
    def history(self) -> pd.DataFrame: ...

    @property
    def settings_changes(self) -> pd.DataFrame: ...

    @property
    def n_sweeps(self) -> int: ...

    @property
    def in_sweep(self) -> bool: ...

    def set_params(self, **params: Any) -> None: ...

    def request_stop(self) -> None: ...

    def run(self, n: int, callback: Callable[[Any], Any] | None = None) -> int: ...


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
        Which charts to show: names in ``topicsup.views.VIEWS`` (each entry says what it
        draws and for which sessions); by default those that apply (``views.applicable``)
        except the timing views (``View.on_request``).

    Examples
    --------
    >>> dash = Dashboard(Session(LightMedLDA(K=20), corpus, seed=0))   # doctest: +SKIP
    >>> dash                                 # the cell returns; click Run, Pause, Step
    >>> dash.run(200); dash.wait()           # or drive it from code
    """

    _TARGET: type[Runnable] = Session   # what it runs (ChainsDashboard: several chains)

    def __init__(self, session: Runnable, sweeps: int = 100, sweeps_per_refresh: int = 1,
                 refresh_seconds: float = 0.5, views: tuple[str, ...] | None = None) -> None:
        if not isinstance(session, self._TARGET):
            raise TypeError(f"session must be a topicsup {self._TARGET.__name__}, got "
                            f"{type(session).__name__}")
        sweeps = check.integer("sweeps", sweeps, low=1, high=MAX_SWEEPS)
        sweeps_per_refresh = check.integer("sweeps_per_refresh", sweeps_per_refresh, low=1,
                                           high=MAX_SWEEPS)
        self.session = session
        self.refresh_seconds = check.number("refresh_seconds", refresh_seconds, low=0.0,
                                            high=3600.0)
        supported = self._supported_views()
        if views is None:
            views = tuple(v for v in supported if not _on_request(v))
        if isinstance(views, str) or not isinstance(views, (list, tuple)):
            raise TypeError(f"views must be a list or tuple of view names from "
                            f"{list(supported)}, got {views!r}")
        unknown = [v for v in views if v not in supported]
        if unknown:
            raise ValueError(f"views {unknown} are not available for "
                             f"{type(session.model).__name__}; choose from {list(supported)}")
        if len(set(views)) != len(views):
            raise ValueError(f"views lists a view twice: {list(views)}")
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
        # the view table's rule, as the report's (a Dashboard's _TARGET is a Session)
        return views.applicable(cast(Session, self.session))

    def _build_widgets(self, sweeps: int, per_refresh: int) -> None:
        self.run_button = w.Button(description="Run", icon="play", button_style="success",
                                   tooltip="Run the number of sweeps set on the right",
                                   layout=w.Layout(width="90px"))
        self.pause_button = w.Button(description="Pause", icon="pause", disabled=True,
                                     tooltip="Stop after the current block of documents",
                                     layout=w.Layout(width="90px"))
        self.step_button = w.Button(description="Step", icon="step-forward",
                                    tooltip="Run one sweep", layout=w.Layout(width="90px"))
        self.sweeps_box = w.BoundedIntText(value=sweeps, min=1, max=MAX_SWEEPS,
                                           description="sweeps", style=_LABEL,
                                           layout=_control_layout("170px"))
        self.per_refresh_box = w.BoundedIntText(value=per_refresh, min=1, max=MAX_SWEEPS,
                                                description="per refresh", style=_LABEL,
                                                layout=_control_layout("170px"))
        self.progress = w.IntProgress(value=0, min=0, max=1, layout=_control_layout("160px"))
        self.status = w.HTML()
        self.run_button.on_click(lambda _: self._guarded(self.run, self.sweeps_box.value))
        self.pause_button.on_click(lambda _: self._guarded(self.pause))
        self.step_button.on_click(lambda _: self._guarded(self.step))
        self.settings = self._settings_widgets()
        self.chart = _offline_chart(self._chart()) if self.views else None
        controls = w.HBox([self.run_button, self.pause_button, self.step_button,
                           self.sweeps_box, self.per_refresh_box, self.progress], layout=_WRAP)
        parts = [controls]
        if self.settings:
            row = w.HBox(list(self.settings.values()), layout=_WRAP)
            row.add_class("topicsup-settings")
            parts.append(row)
        parts.append(self.status)
        if self.chart is not None:
            parts.append(self.chart)
        self.widget = w.VBox(parts, layout=w.Layout(width="100%"))
        # stable hooks for styling and for the browser test
        self.widget.add_class("topicsup-dashboard")
        self.status.add_class("topicsup-status")

    def _guarded(self, action: Callable[..., object], *args: Any) -> None:
        """A button's action: ipywidgets would swallow an exception raised in a callback,
        so it goes to the status line and the dashboard stays usable."""
        try:
            action(*args)
        except Exception as e:
            self.error = e
            self._set_status(f"<span style='color:#b00'>{type(e).__name__}: "
                             f"{html.escape(str(e))}</span>")

    def _settings_widgets(self) -> dict[str, w.Widget]:
        """A control for each of the model's live settings (``LiveSetting``: the parts say
        which settings keep the posterior and what their controls need). Their ranges are the
        parts' own, so showing a model never changes it."""
        model = self.session.model
        out: dict[str, w.Widget] = {}
        for setting in model.live_settings():
            out.update(_control(setting, getattr(model, setting.name)))
        for name, widget in out.items():
            widget.observe(lambda change, name=name: self._on_setting(name), names="value")
        return out

    def _on_setting(self, name: str) -> None:
        """Apply the one setting that changed (the others are left as the model has them)."""
        s = self.settings
        setting = {st.name: st for st in self.session.model.live_settings()}
        if "/" in name:   # one weight of a mix
            base = name.split("/")[0]
            mix = tuple(float(s[f"{base}/{k}"].value) for k in setting[base].options)
            if sum(mix) <= 0:
                self._set_status("not applied: the proposal mix needs at least one positive "
                                 "weight")
                return
            params: dict[str, Any] = {base: mix}
        else:
            value = s[name].value
            params = {name: float(value) if setting[name].kind == "fraction" else value}
        try:
            self.session.set_params(**params)
        except (ValueError, TypeError) as e:
            self._set_status(f"not applied: {html.escape(str(e))}")
            return
        self.refresh(charts=not self.running)

    # ------------------------------------------------------------------ charts and status
    def _chart(self) -> alt.HConcatChart | alt.VConcatChart:
        s = self.session
        h = s.history
        built: list[AnyChart] = []
        for name in self.views:
            try:
                built.append(self._view(name, h))
            except ValueError:
                # nothing to show yet (no sweep run, no acceptance rows): an empty placeholder
                built.append(alt.Chart(title=f"{name}: waiting for a sweep")
                             .mark_text().properties(width=300, height=60))
        rows = [alt.hconcat(*built[i:i + 2]) for i in range(0, len(built), 2)]
        chart = alt.vconcat(*rows) if len(rows) > 1 else rows[0]
        # legends below their own plot: two views side by side fit a notebook's output width
        return chart.resolve_scale(color="independent").configure_legend(orient="bottom")

    def _view(self, name: str, history: pd.DataFrame) -> AnyChart:
        """The view's panel from the table (``topicsup.views.VIEWS``); a ``ValueError`` while
        the history does not hold what it draws."""
        view = views.VIEWS[name]
        if not view.ready(history):
            raise ValueError(f"no {view.title} yet")
        chart = view.panel(cast(Session, self.session), history, 300, 180)   # see _TARGET
        return views.mark_settings_changes(chart, self.session.settings_changes) \
            if view.sweep_axis else chart

    def _status_html(self) -> str:
        s = cast(Session, self.session)   # a Dashboard's _TARGET (ChainsDashboard has its own)
        latest = _latest(s.history)
        parts = [f"<b>sweep {s.n_sweeps}</b>"]
        lj = latest.get(("log_joint_per_token", None))
        if lj is not None:
            parts.append(f"log joint / token {lj:.4f}")
        tps = latest.get(("tokens_per_second", None))
        if tps is not None and np.isfinite(tps):
            parts.append(f"{tps / 1e6:.2f} M tokens/s")
        acc = {p: v for (m, p), v in latest.items() if m == "acceptance_rate" and p}
        if acc:   # a proposal switched off made no proposals: "off", not nan
            parts.append("acceptance " + ", ".join(
                f"{k} {v:.2f}" if np.isfinite(v) else f"{k} off" for k, v in acc.items()))
        for (m, _), v in latest.items():
            if m.startswith("train_"):
                parts.append(f"{m.replace('_', ' ')} {v:.3f}")
        live = latest.get(("live_topics", None))
        if live is not None:   # the table-indicator models (PDP, HDP)
            parts.append(f"{live:.0f} live topics, {latest[('tables', None)]:.0f} tables")
        outer = latest.get(("outer_iteration", None))
        if outer is not None:   # Monte Carlo MedLDA's alternation
            parts.append(f"outer iteration {outer:.0f}, support "
                         f"{latest[('support', None)]:.3f}"
                         + (" (converged)" if s.model.finished(s.state) else ""))
        return " &middot; ".join(parts + self._status_tail(s.in_sweep))

    def _status_tail(self, in_sweep: bool) -> list[str]:
        """The status line's end: running, paused or idle, and the last error."""
        state = "running" if self.running else ("paused mid-sweep" if in_sweep else "idle")
        parts = [f"<i>{state}</i>"]
        if self.error is not None:
            parts.append(f"<span style='color:#b00'>error: {type(self.error).__name__}: "
                         f"{html.escape(str(self.error))} (Run retries)</span>")
        return parts

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
        n = check.integer("n", self.sweeps_box.value if n is None else n, low=1,
                          high=MAX_SWEEPS)
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
                # the callback ends the chunk at the next sweep's end if Pause came between
                # the check above and the run's start (a stop then is not lost)
                got = self.session.run(chunk, callback=lambda _: not self._pause.is_set())
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


def _control(setting: LiveSetting, value: Any) -> dict[str, w.Widget]:
    """The widget(s) for one ``LiveSetting`` at its current ``value``, keyed by name (a mix:
    one slider per kind, ``name/kind``)."""
    label, kind = setting.label, setting.kind
    if kind == "int":
        return {setting.name: w.BoundedIntText(value=value, min=int(setting.low),
                                               max=int(setting.high), description=label,
                                               style=_LABEL, layout=_control_layout("150px"))}
    if kind == "choice":
        return {setting.name: w.Dropdown(options=list(setting.options), value=value,
                                         description=label, style=_LABEL,
                                         layout=_control_layout("220px"))}
    if kind == "flag":
        return {setting.name: w.Checkbox(value=bool(value), description=label, indent=False,
                                         layout=_control_layout("140px"))}
    if kind == "fraction":   # an open interval: the slider's ends are the nearest steps inside
        return {setting.name: w.FloatSlider(value=value, min=min(0.01, value),
                                            max=max(0.99, value), step=0.01,
                                            description=label, readout_format=".2f",
                                            style=_LABEL, layout=_control_layout("260px"))}
    if kind == "mix":
        weights = value if value is not None else (1.0,) * len(setting.options)
        total = sum(weights)
        return {f"{setting.name}/{k}": w.FloatSlider(
            value=x / total, min=0.0, max=1.0, step=0.01, description=f"{label} {k}",
            readout_format=".2f", style=_LABEL, layout=_control_layout("260px"))
            for k, x in zip(setting.options, weights)}
    raise ValueError(f"no control for a live setting of kind {kind!r}")
