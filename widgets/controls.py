"""The controls of a model's live settings (``topicsup.parts.LiveSetting``), as a dashboard
shows them: each with its part's one-sentence help as tooltip, its range the part's own (so
showing a model never changes it), and showing what the kernel uses: a mixture's proposal
probabilities (linked sliders summing to 1), a cycle's proposals on or off, a setting without
effect under the others greyed out with the reason. The row rebuilds itself when a change
alters what the settings mean (the composition switched between cycle and mixture)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as w

if TYPE_CHECKING:
    from topicsup.models import Model
    from topicsup.parts import LiveSetting

LABEL = {"description_width": "initial"}
# controls keep their size and wrap onto further rows instead of shrinking to nothing
WRAP = w.Layout(display="flex", flex_flow="row wrap", align_items="center", width="100%")


def control_layout(width: str) -> w.Layout:
    return w.Layout(width=width, min_width=width, flex="0 0 auto", margin="2px 12px 2px 0")


def _signature(settings: tuple[LiveSetting, ...]) -> tuple[tuple[str, str, bool], ...]:
    return tuple((s.name, s.kind, s.active) for s in settings)


class SettingsRow:
    """The row of controls of ``model``'s live settings; ``apply(params)`` is called with the
    one setting a user changed and returns None, or the message of a refusal."""

    def __init__(self, model: Model, apply: Callable[[dict[str, Any]], str | None]) -> None:
        self._apply = apply
        self._syncing = False   # values set back by the row itself: not a user's change
        self.controls: dict[str, w.Widget] = {}
        self.widget = w.HBox([], layout=WRAP)
        self.widget.add_class("topicsup-settings")
        self._shown: tuple[tuple[str, str, bool], ...] | None = None
        self.rebuild(model)

    def rebuild(self, model: Model) -> None:
        """Controls for ``model``'s settings at its values (rebuilt only when their kinds
        changed; otherwise the values are set back, e.g. a refused change undone)."""
        settings = model.live_settings()
        if _signature(settings) == self._shown:
            self._sync(model)
            return
        self._shown = _signature(settings)
        self.controls = {}
        for setting in settings:
            for key, widget in control(setting, getattr(model, setting.name)).items():
                widget.observe(lambda change, s=setting, k=key: self._changed(s, k, change),
                               names="value")
                self.controls[key] = widget
        self.widget.children = list(self.controls.values())

    def _sync(self, model: Model) -> None:
        self._syncing = True
        try:
            for setting in model.live_settings():
                for key, value in _values(setting, getattr(model, setting.name)).items():
                    c = self.controls[key]
                    if c.value != value:
                        c.value = value
        finally:
            self._syncing = False

    def _changed(self, setting: LiveSetting, key: str, change: dict[str, Any]) -> str | None:
        if self._syncing:
            return None
        if setting.kind in ("mix", "toggles"):
            value: Any = self._weights(setting, key, change)
        elif setting.kind == "fraction":
            value = float(change["new"])
        else:
            value = change["new"]
        return self._apply({setting.name: value})

    def _weights(self, setting: LiveSetting, key: str,
                 change: dict[str, Any]) -> tuple[float, ...]:
        """The mix's new weights: toggles give 1 or 0 (a cycle runs the kinds switched on);
        linked sliders keep summing to 1, the others rescaled to share what is left."""
        keys = [f"{setting.name}/{k}" for k in setting.options]
        if setting.kind == "toggles":
            return tuple(1.0 if self.controls[k].value else 0.0 for k in keys)
        new = min(max(float(change["new"]), 0.0), 1.0)
        others = [k for k in keys if k != key]
        rest = sum(float(self.controls[k].value) for k in others)
        # the others' probabilities before this change, rescaled to 1 - new (equal if none)
        share = {k: (float(self.controls[k].value) / rest if rest > 0 else 1.0 / len(others))
                 for k in others}
        probs = {key: new, **{k: (1.0 - new) * share[k] for k in others}}
        self._syncing = True
        try:
            for k in others:
                self.controls[k].value = round(probs[k], 4)
        finally:
            self._syncing = False
        return tuple(probs[k] for k in keys)


def _values(setting: LiveSetting, value: Any) -> dict[str, Any]:
    """What each control of ``setting`` shows for the model's ``value``."""
    if setting.kind in ("mix", "toggles"):
        weights = value if value is not None else (1.0,) * len(setting.options)
        total = sum(weights)
        return {f"{setting.name}/{k}": (x > 0 if setting.kind == "toggles"
                                        else round(x / total, 4))
                for k, x in zip(setting.options, weights)}
    return {setting.name: value}


def control(setting: LiveSetting, value: Any) -> dict[str, w.Widget]:
    """The widget(s) for one ``LiveSetting`` at its current ``value``, keyed by name (a mix:
    one per proposal kind, ``name/kind``), each with the setting's help as tooltip."""
    label, kind, tip = setting.label, setting.kind, setting.help
    common: dict[str, Any] = dict(tooltip=tip, disabled=not setting.active)
    if kind == "int":
        return {setting.name: w.BoundedIntText(value=value, min=int(setting.low),
                                               max=int(setting.high), description=label,
                                               style=LABEL, layout=control_layout("150px"),
                                               **common)}
    if kind == "choice":
        return {setting.name: w.Dropdown(options=list(setting.options), value=value,
                                         description=label, style=LABEL,
                                         layout=control_layout("220px"), **common)}
    if kind == "flag":
        return {setting.name: w.Checkbox(value=bool(value), description=label, indent=False,
                                         layout=control_layout("140px"), **common)}
    if kind == "fraction":   # an open interval: the slider's ends are the nearest steps inside
        return {setting.name: w.FloatSlider(value=value, min=min(0.01, value),
                                            max=max(0.99, value), step=0.01,
                                            description=label, readout_format=".2f",
                                            style=LABEL, layout=control_layout("260px"),
                                            **common)}
    shown = _values(setting, value)
    if kind == "toggles":
        return {key: w.Checkbox(value=bool(on), description=f"{label} {k}", indent=False,
                                layout=control_layout("110px"), **common)
                for (key, on), k in zip(shown.items(), setting.options)}
    if kind == "mix":
        return {key: w.FloatSlider(value=p, min=0.0, max=1.0, step=0.01,
                                   description=f"{label} {k}", readout_format=".2f",
                                   style=LABEL, layout=control_layout("260px"), **common)
                for (key, p), k in zip(shown.items(), setting.options)}
    raise ValueError(f"no control for a live setting of kind {kind!r}")
