"""The estimators' parameters, each declared once, in scikit-learn's declarative style
(``_parameter_constraints``): for every parameter of an estimator, which model parameter it
sets (or none: the estimator's own) and how the estimator checks it.

From that one table follow the checks of the estimator's own parameters (``check_own``; those
read when predicting, ``Param.predict``, again at prediction), the settings a preset is built
with (``model_settings``: every parameter that ``sets`` a model parameter), the parameters a
given ``model=`` makes meaningless (``model_params``), and which of them belong to a loss
(``loss_params``: the ones a registered loss reads, ``topicsup.losses``), refused with a loss
that does not read them. The model checks the values it is given with its own messages. A new
loss, or a new parameter of a loss, edits nothing here; a new parameter of an estimator is an
``__init__`` argument, its docstring entry and one line of its table.

The parameters renamed to scikit-learn's names (``RENAMED``, old -> new) work under their old
names until the next release, with a ``FutureWarning``; as in scikit-learn both are
parameters, the old one defaulting to ``DEPRECATED``, so ``get_params``, ``clone`` and
``check_estimator`` hold either way (``renamed``).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import validation as check
from ..models import LOSSES, MAX_FOLD_IN_SWEEPS, MAX_TOPICS
from ..text import check_vocabulary

RENAMED = {"n_topics": "n_components", "n_iter": "max_iter", "alpha": "doc_topic_prior",
           "beta": "topic_word_prior"}
DEPRECATED = "deprecated"

Check = Callable[[str, Any], object]   # checks the value of the parameter it names


@dataclass(frozen=True)
class Param:
    """One parameter of an estimator: the model parameter it ``sets`` (None: the
    estimator's own), the estimator's own ``check`` of its value (None: the model checks it,
    or nothing to check), and whether prediction reads it (``predict``: checked again then,
    since ``set_params`` may change it after ``fit``)."""

    sets: str | None = None
    check: Check | None = None
    predict: bool = False


# ---------------------------------------------------------------------- checks
def integer(low: int | None = None, high: int | None = None) -> Check:
    return lambda name, value: check.integer(name, value, low=low, high=high)


def optional(inner: Check) -> Check:
    """``inner``, or None (the model's or the preset's default)."""
    return lambda name, value: None if value is None else inner(name, value)


def options(*choices: str) -> Check:
    return lambda name, value: check.choice(name, value, choices)


def loss_options(targets: str) -> Check:
    """A registered loss that models ``targets`` ("signs": classes, "values": responses)."""
    return lambda name, value: check.choice(name, value, losses(targets))


def losses(targets: str) -> list[str]:
    """The registered losses that model ``targets``."""
    return [n for n in LOSSES.names() if LOSSES.get(n).targets == targets]


def threads(name: str, value: Any) -> None:
    if value is not None:
        n = check.integer(name, value)
        if n == 0:
            raise ValueError(f"{name} must be a positive number of threads, -1 (every core) "
                             f"or None (one), got 0")


def random_state(name: str, value: Any) -> None:
    if value is not None and not isinstance(value, (np.random.RandomState,
                                                    np.random.Generator)):
        check.integer(name, value, low=0, high=2**63 - 1)


def vocabulary(name: str, value: Any) -> None:
    if value is not None:
        check_vocabulary(value)


# the parameters every estimator has, in the same sense
TOPICS = Param("K", integer(1, MAX_TOPICS))          # n_components
SWEEPS = Param(None, integer(1, check.INT32_MAX))    # max_iter
FOLD_IN_BURN_IN = Param(None, integer(0, MAX_FOLD_IN_SWEEPS), predict=True)
FOLD_IN_SAMPLES = Param(None, integer(1, MAX_FOLD_IN_SWEEPS), predict=True)
VOCABULARY = Param(None, vocabulary)
RANDOM_STATE = Param(None, random_state)


# ---------------------------------------------------------------------- reading the table
def table(est: Any) -> Mapping[str, Param]:
    """The estimator's ``_parameter_constraints`` (each estimator class declares its own)."""
    out: Mapping[str, Param] = est._parameter_constraints
    return out


def renamed(est: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """The renamed parameters' values by their new names, and the name each was given by:
    an old name (``RENAMED``) that was set gives its value, with a ``FutureWarning`` naming
    the new one (a ``ValueError`` if the new one was set too). The new names' values are
    checked under the name they were given by."""
    defaults = {k: p.default
                for k, p in inspect.signature(type(est).__init__).parameters.items()}
    values: dict[str, Any] = {}
    names: dict[str, str] = {}
    for old, new in RENAMED.items():
        value = getattr(est, old)
        if isinstance(value, str) and value == DEPRECATED:
            values[new], names[new] = getattr(est, new), new
            continue
        if not _is_default(getattr(est, new), defaults[new]):
            raise ValueError(f"{type(est).__name__} got {old}={value!r} and "
                             f"{new}={getattr(est, new)!r}; {old} is the old name of "
                             f"{new}: pass {new} only")
        warnings.warn(f"{type(est).__name__}: {old} was renamed {new} (scikit-learn's "
                      f"name) and will be removed in the next release; pass "
                      f"{new}={value!r}", FutureWarning, stacklevel=4)
        values[new], names[new] = value, old
    for new in ("n_components", "max_iter"):   # the range is the estimator's
        checker = table(est)[new].check
        assert checker is not None   # TOPICS and SWEEPS check
        checker(names[new], values[new])
    return values, names


def check_own(est: Any, predict: bool = False) -> None:
    """Check every parameter the estimator checks itself (``predict``: only those prediction
    reads), in the table's order; the renamed ones are ``renamed``'s."""
    for name, param in table(est).items():
        if param.check is not None and name not in RENAMED.values() \
                and (param.predict or not predict):
            param.check(name, getattr(est, name))


def model_settings(est: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    """The model parameters the estimator's parameters set (``Param.sets``), by model
    parameter name, those that are None left to the model's or the preset's default;
    ``values``: the renamed parameters' values (``renamed``)."""
    out = {}
    for name, param in table(est).items():
        if param.sets is not None:
            value = values[name] if name in values else getattr(est, name)
            if value is not None:
                out[param.sets] = value
    return out


def model_params(est: Any) -> list[str]:
    """The parameters that set a model parameter, with their old names: those ``model=``
    replaces."""
    params = [name for name, p in table(est).items() if p.sets is not None]
    return params + [old for old, new in RENAMED.items() if new in params]


def loss_params(est: Any) -> list[str]:
    """The parameters that set a parameter some registered loss reads (``topicsup.losses``)."""
    read = {p for n in LOSSES.names() for p in LOSSES.get(n).param_defaults()}
    return [name for name, p in table(est).items() if p.sets in read]


def _is_default(value: Any, default: Any) -> bool:
    return value is default or (type(value) is type(default) and value == default)


def given(est: Any) -> list[str]:
    """The estimator's parameters set to other values than their defaults."""
    defaults = {k: p.default
                for k, p in inspect.signature(type(est).__init__).parameters.items()}
    return [k for k in defaults if k != "self" and not _is_default(getattr(est, k),
                                                                     defaults[k])]


__all__ = ["DEPRECATED", "FOLD_IN_BURN_IN", "FOLD_IN_SAMPLES", "Param", "RANDOM_STATE", "RENAMED",
           "SWEEPS", "TOPICS", "VOCABULARY", "check_own", "given", "integer", "loss_options",
           "loss_params", "losses", "model_params", "model_settings", "optional", "options",
           "random_state", "renamed", "threads", "vocabulary"]
