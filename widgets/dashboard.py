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
(``topicsup.views.mark_settings_changes``).

Layout. Controls wrap onto further rows rather than shrink, so at the default notebook width
every control keeps its label and every slider its track; every control has a one-sentence
tooltip (the live settings' come from their parts, ``widgets.controls``).

Teaching. The first Run in a fresh environment waits for numba to compile the kernels: the
dashboard starts compiling when it is shown (``Session.compile_ahead``) and says so in the
status line while it lasts. ``pace`` caps the sweeps per second so a class can watch the
chain move; "slow motion" runs one sweep per refresh at one sweep per second; the status
line says how many tokens changed topic in the last sweep; ``show`` zooms every chart against sweeps
on the last N sweeps (a log joint flat after the burn-in still moves in its tail).
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast

import altair as alt
import ipywidgets as w
import numpy as np

from topicsup import validation as check
from topicsup import warmup
from topicsup.session import Session
from topicsup.view_table import VIEWS, Frames, View, applicable, shown
from topicsup.views import mark_settings_changes

from .charts import FiniteChart
from .controls import LABEL as _LABEL, WRAP as _WRAP, SettingsRow, control_layout

if TYPE_CHECKING:
    import pandas as pd

    from topicsup.models import Model
    from topicsup.views import AnyChart

# the status line and progress bar update at most this often (seconds)
STATUS_SECONDS = 0.1
MAX_SWEEPS = 10**9
# the pace menu: sweeps per second at most (0: as fast as the sampler goes)
PACES = (("full speed", 0.0), ("10 sweeps/s", 10.0), ("5 sweeps/s", 5.0), ("2 sweeps/s", 2.0),
         ("1 sweep/s", 1.0), ("1 sweep every 2 s", 0.5))
# the zoom menu: the last N sweeps of every chart against sweeps (0: all)
TAILS = (("all sweeps", 0), ("last 20 sweeps", 20), ("last 50 sweeps", 50),
         ("last 200 sweeps", 200))
SLOW_PACE = 1.0   # slow motion: one sweep per refresh, one sweep per second
# a view's panel (width, height of its plot in pixels): two side by side, their legends below,
# fit a notebook (tests/test_view_widths.py measures every view of the table at it)
PANEL = (300, 180)


def _menu(options: tuple[tuple[str, Any], ...], value: Any,
          label: str) -> tuple[tuple[str, Any], ...]:
    """A menu's options, with ``value`` added under ``label`` when it is not one of them (a
    value given to the constructor is shown as given, never rounded to a neighbour)."""
    return options if value in dict(options).values() else options + ((label, value),)


def sampler_html(s: Session) -> str:
    """The status line's sampler: its name, "(auto)" when ``sampler="auto"`` chose it (the
    reason is the line under the status line, ``reason_html``: a browser's tooltip cuts a
    long one with "…"), and "approximate" when its sweeps do not leave the exact posterior
    invariant (``TopicSampler.exact``)."""
    ts, choice = s.model.topic_sampler, s.sampler_choice
    label = f"sampler {html.escape(ts.name)}" + (" (auto)" if choice else "")
    tip = ("chosen by sampler=\"auto\" (why: the line below)" if choice
           else f"sampler={ts.name!r}, named by the model")
    if not ts.exact:
        label += " <b style='color:#b45309'>approximate</b>"
        tip += ("; approximate: its sweeps leave the exact posterior only approximately "
                "invariant (docs/samplers.md)")
    return f"<span title='{html.escape(tip, quote=True)}'>{label}</span>"


# the reason's line: its words wrap at the dashboard's edge, and so do the result folders it
# cites (one unbroken token wider than a narrow output area would widen the widget); the line
# height is the text's own, not the 28 px of a widget's row
REASON_STYLE = "white-space:normal;overflow-wrap:anywhere;line-height:1.4;color:#555"


def reason_html(choice: str | None) -> str:
    """Why ``sampler="auto"`` chose the sampler (``Session.sampler_choice``, ``"light: ..."``),
    whole, as lines that wrap; "" when the model named its sampler."""
    if not choice:
        return ""
    sampler, _, why = choice.partition(": ")
    return (f"<div style='{REASON_STYLE}'>sampler=\"auto\" chose "
            f"<b>{html.escape(sampler)}</b>: {html.escape(why)}</div>")


def _tail(frame: pd.DataFrame, last: int, n_sweeps: int) -> pd.DataFrame:
    """The rows of the last ``last`` sweeps (all when 0)."""
    return frame if not last or frame.empty else frame[frame["sweep"] > n_sweeps - last]


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
    pace : float
        At most this many sweeps per second (0: full speed), for a class to watch; editable.
    tail : int
        Draw only the last ``tail`` sweeps on the charts against sweeps (0: all); editable.
    views : sequence of str, optional
        Which charts to show: names in ``topicsup.view_table.VIEWS`` (each entry says what it
        draws and for which sessions); by default those that apply
        (``view_table.applicable``) except those drawn on request: the timing views
        (``View.on_request``) and the sampler's flat statistics (``view_table.shown``).

    Examples
    --------
    >>> dash = Dashboard(Session(LightMedLDA(K=20), corpus, seed=0))   # doctest: +SKIP
    >>> dash                                 # the cell returns; click Run, Pause, Step
    >>> dash.run(200); dash.wait()           # or drive it from code
    """

    _TARGET: type[Runnable] = Session   # what it runs (ChainsDashboard: several chains)
    _TABLE: Mapping[str, View[Any]] = VIEWS   # the view table of what it runs

    def __init__(self, session: Runnable, sweeps: int = 100, sweeps_per_refresh: int = 1,
                 refresh_seconds: float = 0.5, views: tuple[str, ...] | None = None,
                 pace: float = 0.0, tail: int = 0) -> None:
        if not isinstance(session, self._TARGET):
            raise TypeError(f"session must be a topicsup {self._TARGET.__name__}, got "
                            f"{type(session).__name__}")
        sweeps = check.integer("sweeps", sweeps, low=1, high=MAX_SWEEPS)
        sweeps_per_refresh = check.integer("sweeps_per_refresh", sweeps_per_refresh, low=1,
                                           high=MAX_SWEEPS)
        self.session = session
        self.refresh_seconds = check.number("refresh_seconds", refresh_seconds, low=0.0,
                                            high=3600.0)
        pace = check.number("pace", pace, low=0.0, high=1e6)
        tail = check.integer("tail", tail, low=0, high=MAX_SWEEPS)
        supported = self._supported_views()
        if views is None:
            views = self._default_views(supported)
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
        # a run is over once its worker has drawn its last refresh (``_finished``); Run or
        # Step asked for while a paused run winds down is kept (``_queued``) and started by
        # the worker when it is done, never dropped
        self._turn = threading.Lock()
        self._finished = True
        self._winding = False
        self._queued: int | None = None
        self._last_chart = self._last_status = 0.0
        self._warmup = self._compile_ahead()
        self._build_widgets(int(sweeps), int(sweeps_per_refresh), float(pace), int(tail))
        self.refresh(charts=True)

    # ------------------------------------------------------------------ layout
    def _supported_views(self) -> tuple[str, ...]:
        # the view table's rule, as the report's (a Dashboard's _TARGET is a Session)
        return cast(tuple[str, ...], cast(Session, self.session).readout(applicable))

    def _default_views(self, supported: tuple[str, ...]) -> tuple[str, ...]:
        # the view table's rule (``view_table.shown``): the model's sampler says which of
        # its statistics are drawn only when named
        return cast(tuple[str, ...], cast(Session, self.session).readout(shown))

    def _compile_ahead(self) -> warmup.Warmup | None:
        """Start compiling the kernels the first Run needs (``Session.compile_ahead``)."""
        return cast(Session, self.session).compile_ahead()

    def _build_widgets(self, sweeps: int, per_refresh: int, pace: float, tail: int) -> None:
        self.run_button = w.Button(description="Run", icon="play", button_style="success",
                                   tooltip="Run the number of sweeps in the sweeps box",
                                   layout=w.Layout(width="90px"))
        self.pause_button = w.Button(description="Pause", icon="pause", disabled=True,
                                     tooltip="Stop after the current block of documents; Run "
                                             "continues the same chain",
                                     layout=w.Layout(width="90px"))
        self.step_button = w.Button(description="Step", icon="step-forward",
                                    tooltip="Run exactly one sweep",
                                    layout=w.Layout(width="90px"))
        self.sweeps_box = w.BoundedIntText(value=sweeps, min=1, max=MAX_SWEEPS,
                                           description="sweeps", style=_LABEL,
                                           tooltip="How many sweeps one click of Run performs",
                                           layout=control_layout("170px"))
        self.per_refresh_box = w.BoundedIntText(
            value=per_refresh, min=1, max=MAX_SWEEPS, description="per refresh", style=_LABEL,
            tooltip="Sweeps between two updates of the status line and the charts",
            layout=control_layout("170px"))
        self.pace_box = w.Dropdown(options=_menu(PACES, pace, f"{pace:g} sweeps/s"), value=pace,
                                   description="pace", style=_LABEL,
                                   tooltip="At most this many sweeps per second, so a class "
                                           "can watch the chain move",
                                   layout=control_layout("210px"))
        self.slow_box = w.Checkbox(value=False, description="slow motion", indent=False,
                                   tooltip="One sweep per refresh at one sweep per second: "
                                           "watch the tokens that change topic",
                                   layout=control_layout("130px"))
        self.tail_box = w.Dropdown(options=_menu(TAILS, tail, f"last {tail} sweeps"), value=tail,
                                   description="show", style=_LABEL,
                                   tooltip="Draw every sweep, or zoom the charts on the "
                                           "latest ones (the log joint's tail)",
                                   layout=control_layout("210px"))
        self.progress = w.IntProgress(value=0, min=0, max=1, description="",
                                      tooltip="Sweeps done of this run",
                                      layout=control_layout("160px"))
        self.status = w.HTML()
        # the sampler's reason whole (a tooltip would cut it): no width of its own, the
        # dashboard's column stretches it to its width (100% and a widget's 2 px margins ran
        # 4 px past the output area) and its lines wrap there
        self.reason = w.HTML()
        self.run_button.on_click(lambda _: self._guarded(self.run, self.sweeps_box.value))
        self.pause_button.on_click(lambda _: self._guarded(self.pause))
        self.step_button.on_click(lambda _: self._guarded(self.step))
        self.slow_box.observe(lambda _: self._guarded(self._slow_motion), names="value")
        self.tail_box.observe(lambda _: self._guarded(self.refresh, not self.running),
                              names="value")
        self.settings_row = SettingsRow(self.session.model, self._apply_setting)
        self.chart = FiniteChart(self._chart()) if self.views else None
        controls = w.HBox([self.run_button, self.pause_button, self.step_button,
                           self.sweeps_box, self.per_refresh_box, self.progress], layout=_WRAP)
        teaching = w.HBox([self.pace_box, self.slow_box, self.tail_box], layout=_WRAP)
        parts = [controls, teaching]
        if self.settings:
            parts.append(self.settings_row.widget)
        parts.append(self.status)
        parts.append(self.reason)
        if self.chart is not None:
            parts.append(self.chart)
        self.widget = w.VBox(parts, layout=w.Layout(width="100%"))
        # stable hooks for styling and for the browser test
        self.widget.add_class("topicsup-dashboard")
        self.status.add_class("topicsup-status")
        self.reason.add_class("topicsup-reason")

    def _guarded(self, action: Callable[..., object], *args: Any) -> None:
        """A button's action: ipywidgets would swallow an exception raised in a callback,
        so it goes to the status line and the dashboard stays usable."""
        try:
            action(*args)
        except Exception as e:
            self.error = e
            self._set_status(f"<span style='color:#b00'>{type(e).__name__}: "
                             f"{html.escape(str(e))}</span>")

    @property
    def settings(self) -> dict[str, w.Widget]:
        """The live settings' controls by name (a mix's: ``name/kind``), as shown now."""
        return self.settings_row.controls

    def _apply_setting(self, params: dict[str, Any]) -> str | None:
        """Apply the one setting a user changed (the others stay as the model has them); a
        refusal is told in the status line and the controls show the model's values again."""
        try:
            self.session.set_params(**params)
        except (ValueError, TypeError) as e:
            message = f"not applied: {e}"
            self.settings_row.rebuild(self.session.model)
            self._set_status(html.escape(message))
            return message
        self.settings_row.rebuild(self.session.model)   # a composition changes the controls
        self.refresh(charts=not self.running)
        return None

    def _slow_motion(self) -> None:
        """Slow motion on: one sweep per refresh at one sweep per second (the previous pace
        and refresh come back when it is switched off)."""
        if self.slow_box.value:
            self._before_slow = (self.per_refresh_box.value, self.pace_box.value)
            self.per_refresh_box.value, self.pace_box.value = 1, SLOW_PACE
        else:
            self.per_refresh_box.value, self.pace_box.value = getattr(
                self, "_before_slow", (self.per_refresh_box.value, 0.0))

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
                # (the note a subtitle: one line of title and note runs past a panel)
                built.append(alt.Chart(title=alt.TitleParams(
                    self._TABLE[name].title, subtitle=self._placeholder(name)))
                    .mark_text().properties(width=300, height=60))
        # each row resolves its own colours: two panels' legends are never merged
        rows = [alt.hconcat(*built[i:i + 2]).resolve_scale(color="independent",
                                                           strokeDash="independent")
                for i in range(0, len(built), 2)]
        chart = alt.vconcat(*rows) if len(rows) > 1 else rows[0]
        # legends below their own plot: two views side by side fit a notebook's output width
        return chart.resolve_scale(color="independent").configure_legend(orient="bottom")

    def _placeholder(self, name: str) -> str:
        """What a panel without data says under its title, in plain words."""
        warm = self._warmup
        if warm is not None and not warm.done:
            return "compiling kernels (first run only)"
        return "appears after the first sweep"

    @property
    def tail(self) -> int:
        """The last sweeps the charts against sweeps show (0: all)."""
        return int(self.tail_box.value)

    def _view(self, name: str, history: pd.DataFrame) -> AnyChart:
        """The view's panel from the table (``_TABLE``: ``topicsup.view_table.VIEWS``), zoomed
        on the last ``tail`` sweeps; a ``ValueError`` while the history does not hold what it
        draws."""
        view = self._TABLE[name]
        if not view.ready(history):
            raise ValueError(f"no {view.title} yet")
        n, changes = self.session.n_sweeps, self.session.settings_changes
        if view.sweep_axis:
            history, changes = _tail(history, self.tail, n), _tail(changes, self.tail, n)
        chart = view.panel(self._read(view), history, *PANEL)   # the _TABLE of its _TARGET
        return mark_settings_changes(chart, changes) if view.sweep_axis else chart

    def _read(self, view: View[Any]) -> Frames:
        """What ``view`` draws, read of the session's ``Fit`` with the chain held still (the
        chart is drawn after, while the chain samples on)."""
        return cast(Frames, cast(Session, self.session).readout(view.read))

    def _status_html(self) -> str:
        s = cast(Session, self.session)   # a Dashboard's _TARGET (ChainsDashboard has its own)
        history = s.history
        latest = _latest(history)
        parts = [f"<b>sweep {s.n_sweeps}</b>", sampler_html(s)]
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
        moves = history[history["metric"] == "topic_change_rate"].tail(1)
        if len(moves) and np.isfinite(rate := float(moves["value"].iloc[0])):
            # the sweep's own count (the kernels count the tokens whose topic changed): a
            # refresh copies no assignment array, whatever the corpus's size
            total = s.corpus.n_tokens
            parts.append(f"{round(rate * total):,} of {total:,} tokens ({rate:.1%}) changed "
                         f"topic in sweep {int(moves['sweep'].iloc[0])}")
        return " &middot; ".join(parts + self._status_tail(s.in_sweep))

    def _status_tail(self, in_sweep: bool) -> list[str]:
        """The status line's end: running, paused or idle (or compiling), the last error."""
        warm = self._warmup
        if self.running and warm is not None and not warm.done:
            state = warmup.message(warm)
        else:
            state = "running" if self.running else ("paused mid-sweep" if in_sweep else
                                                    "idle")
        parts = [f"<i>{state}</i>"]
        if self.error is not None:
            parts.append(f"<span style='color:#b00'>error: {type(self.error).__name__}: "
                         f"{html.escape(str(self.error))} (Run retries)</span>")
        return parts

    def _show_reason(self) -> None:
        """The reason's line, hidden when there is none (a named sampler; several chains)."""
        text = reason_html(getattr(self.session, "sampler_choice", None))
        self.reason.value = text   # unchanged: no message reaches the front end
        self.reason.layout.display = None if text else "none"

    def _set_status(self, message: str) -> None:
        self.status.value = self._status_html() + f" &middot; {message}"

    def refresh(self, charts: bool = True) -> None:
        """Update the status line, the settings' controls (a setting changed from code,
        ``session.set_params``, shows at the next refresh) and (when ``charts``) the views
        from the session."""
        self.settings_row.rebuild(self.session.model)
        self.status.value = self._status_html()
        self._show_reason()
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
        self._begin(int(n))

    def step(self) -> None:
        """Run exactly one sweep (finishing a paused one first) in the worker. Asked for
        while a paused run is still ending, it starts when that run is done."""
        self._begin(1)

    def _begin(self, n: int) -> None:
        """Start ``n`` sweeps now if no run is going; after the current one if it is ending
        (paused, or drawing its last charts); ignored while a run goes on."""
        with self._turn:
            if self._idle():
                self._start(n)
            elif self._pause.is_set() or self._winding:
                self._queued = n
                self._set_status(f"{n} sweep{'s' if n > 1 else ''} to run when the pause "
                                 f"is done")

    def _idle(self) -> bool:
        return self._finished

    def pause(self) -> None:
        """Stop the run after the current block of documents; the next Run continues it."""
        self._pause.set()
        self.session.request_stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current run ends, and a run it started when done (a Step asked
        for during its pause); True if they have (for scripts and tests)."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            t = self._thread
            if t is None:
                return True
            t.join(None if end is None else max(0.0, end - time.monotonic()))
            if t.is_alive():
                return False
            if self._thread is t:
                return True

    def _start(self, n: int) -> None:
        self._finished = False
        self._pause.clear()
        self._active.set()
        self.error = None
        self.progress.max, self.progress.value = n, 0
        self._set_buttons(running=True)
        self.status.value = self._status_html()   # "compiling kernels" at once if it is
        self._thread = threading.Thread(target=self._work, args=(n,), daemon=True,
                                        name="topicsup-dashboard")
        self._thread.start()

    def _set_buttons(self, running: bool) -> None:
        self.run_button.disabled = running
        self.step_button.disabled = running
        self.pause_button.disabled = not running

    def _await_kernels(self) -> None:
        """Before the first sweep: wait for the kernels to compile, saying so (the status
        line shows the message and the time so far; Pause ends the wait)."""
        warm = self._warmup
        while warm is not None and not warm.wait(0.25) and not self._pause.is_set():
            self.status.value = self._status_html()
        if warm is not None:
            self.refresh(charts=True)   # placeholders lose their "compiling" note

    def _work(self, n: int) -> None:
        """Worker: sample in chunks; between chunks update widgets (never print)."""
        done = 0
        try:
            self._await_kernels()
            while done < n and not self._pause.is_set():
                chunk = min(int(self.per_refresh_box.value), n - done)
                began = time.monotonic()
                # the callback ends the chunk at the next sweep's end if Pause came between
                # the check above and the run's start (a stop then is not lost)
                got = self.session.run(chunk, callback=lambda _: not self._pause.is_set())
                done += got
                if got < chunk:      # paused part-way through a sweep
                    break
                pace = float(self.pace_box.value)
                if pace > 0:   # a class watching: wait out the chunk's share (Pause ends it)
                    self._pause.wait(max(0.0, began + got / pace - time.monotonic()))
                now = time.monotonic()
                if pace > 0 or now - self._last_status >= STATUS_SECONDS:   # no flood
                    self.progress.value = done
                    self.refresh(charts=pace > 0
                                 or now - self._last_chart >= self.refresh_seconds)
        except Exception as e:       # shown in the status line: the worker has no output
            self.error = e
        finally:
            self.progress.value = done
            self._winding = True   # a Step or Run asked for from now on is kept for after
            try:   # the final charts, whatever the throttle skipped
                self.settings_row.rebuild(self.session.model)
                if self.chart is not None:
                    self.chart.chart = self._chart()
                    self._last_chart = time.monotonic()
            except Exception as e:
                self.error = e
            with self._turn:   # the buttons come back only now, or the queued run starts
                queued, self._queued = self._queued, None
                self._active.clear()
                self._winding = False
                if queued is not None and self.error is None:
                    self._start(queued)
                else:
                    self._finished = True
                    self._set_buttons(running=False)
                    # the last write: the status says stopped once the buttons are back
                    self.status.value = self._status_html()
                    self._last_status = time.monotonic()

    # ------------------------------------------------------------------ display
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

