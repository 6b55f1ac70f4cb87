"""Parameters of a model: its own, the name of the part it uses in each role, and the parts'
parameters, one flat set in scikit-learn's idiom (``get_params``, ``set_params``,
``sklearn.base.clone``).

A model class declares its own parameters (``OWN``: name -> default), its roles (``ROLES``:
parameter name -> registry of parts, ``topicsup.parts``) and, for a preset, the defaults it
changes (``DEFAULTS``). A model accepts the parameters of every registered part of its roles;
those of the parts it uses are checked by the parts themselves, and a value given for a part
it does not use (or one its other parts make meaningless) is refused, not silently ignored.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar, Self

from ..parts import Part, Registry

_REGISTRY: dict[str, type["Model"]] = {}


def register(cls: type["Model"]) -> type["Model"]:
    """Make a model class restorable by name from a checkpoint."""
    _REGISTRY[cls.__name__] = cls
    return cls


def model_class(name: str) -> type["Model"]:
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(f"unknown model {name!r}; known models: {sorted(_REGISTRY)}")
    return _REGISTRY[name]


class Model:
    """Base of the model specifications: parameters in, parts out (``parts``)."""

    OWN: ClassVar[dict[str, Any]] = {}
    ROLES: ClassVar[dict[str, Registry[Any]]] = {}
    DEFAULTS: ClassVar[dict[str, Any]] = {}
    # parameters of a parent class this model does not have (HDP-LDA has no alpha)
    REMOVED: ClassVar[tuple[str, ...]] = ()
    # set once by _set through object.__setattr__ (assignment is refused)
    _parts: dict[str, Part]
    _params: dict[str, Any]

    def __init__(self, **params: Any) -> None:
        self._set(params)

    # ------------------------------------------------------------------ resolution
    @classmethod
    def _class_defaults(cls) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            out.update(klass.__dict__.get("OWN", {}))
            out.update(klass.__dict__.get("DEFAULTS", {}))
        for name in cls.REMOVED:
            out.pop(name, None)
        return out

    @classmethod
    def _part_params(cls) -> dict[str, tuple[str, dict[str, Any]]]:
        """Every parameter of a registered part: name -> (role, {part name: default})."""
        out: dict[str, tuple[str, dict[str, Any]]] = {}
        for role, registry in cls.ROLES.items():
            for part in registry.classes():
                for p, default in part.param_defaults().items():
                    out.setdefault(p, (role, {}))[1][part.name] = default
        return out

    def _set(self, given: dict[str, Any]) -> None:
        cls = type(self)
        defaults = cls._class_defaults()
        part_params = cls._part_params()
        for name in given:
            if name not in defaults and name not in part_params:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {name!r}")
        merged = {**defaults, **given}
        own_names = [k for klass in reversed(cls.__mro__) for k in klass.__dict__.get("OWN", {})
                     if k not in cls.REMOVED]
        own = self._check_own({k: merged[k] for k in dict.fromkeys(own_names)})
        parts: dict[str, Part] = {}
        for role, registry in cls.ROLES.items():
            part_cls = registry.get(merged[role])
            kwargs = {p: merged[p] for p in part_cls.param_defaults() if p in merged}
            parts[role] = part_cls(**kwargs)
        object.__setattr__(self, "_parts", parts)
        object.__setattr__(self, "_params", {})
        values = {**own, **{role: part.name for role, part in parts.items()}}
        for role, part in parts.items():
            values.update(part.params())
            if part.chooses:   # kept for the part chosen later (each checked by its owner):
                # the settings given and the class's defaults for its role's parts
                values.update({k: v for k, v in merged.items()
                               if k in part_params and part_params[k][0] == role
                               and (k in given or k in defaults)})
        # keep the caller's own object where it is already the checked value, so that
        # sklearn.base.clone finds the very objects it passed in
        for k, v in values.items():
            if k in given and type(given[k]) is type(v) and _same(given[k], v):
                values[k] = given[k]
        object.__setattr__(self, "_params", values)
        self._refuse_ignored(given, defaults, part_params)
        self._check_parts()
        for role, part in parts.items():
            if part.chooses:
                self._check_deferred(role)

    def _check_deferred(self, role: str) -> None:
        """Refuse settings given for a part chosen later that no part of ``role`` would use
        (with the reason one that reads them gives)."""
        given = self.deferred_settings(role)
        if not given:
            return
        why = ""
        for name in type(self).ROLES[role].names():
            part_cls = type(self).ROLES[role].get(name)
            if part_cls.chooses or not set(given) <= set(part_cls.param_defaults()):
                continue
            try:   # built afresh: a copy of this model would check its settings again
                type(self)(**{**self._params, role: name})
            except ValueError as e:
                why = why or str(e)
                continue
            return
        what = ", ".join(f"{k}={v!r}" for k, v in sorted(given.items()))
        raise ValueError(f"{role}={self._parts[role].name!r} has no candidate that uses "
                         f"{what}: {why or 'no ' + role + ' reads them all'}")

    def _check_own(self, own: dict[str, Any]) -> dict[str, Any]:
        """Check and normalise the model's own parameters."""
        return own

    def _check_parts(self) -> None:
        """Check that the chosen parts go together."""

    def _ignored_settings(self, given: dict[str, Any], defaults: dict[str, Any],
                          part_params: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, str]:
        """Given parameters that the chosen parts never read, each with the part that
        ignores it."""
        out: dict[str, str] = {}
        for name, value in given.items():
            if name not in part_params:
                continue
            role, by_part = part_params[name]
            chosen = self._parts[role]
            default = defaults.get(name, next(iter(by_part.values())))
            if name in chosen.param_defaults():
                if name in chosen.ignored(self) and not _same(value, default):
                    out[name] = f"{role}={chosen.name!r} on {type(self).__name__}"
            else:
                # checked by a part that reads it, so a bad value is named as such
                owner = type(self).ROLES[role].get(next(iter(by_part)))
                owner(**{name: value})
                if not _same(value, default) and not chosen.chooses:
                    out[name] = f"{role}={chosen.name!r}"
        return out

    def _refuse_ignored(self, given: dict[str, Any], defaults: dict[str, Any],
                        part_params: dict[str, tuple[str, dict[str, Any]]]) -> None:
        ignored = self._ignored_settings(given, defaults, part_params)
        if ignored:
            what = "; ".join(f"{name}={given[name]!r} ({part} does not use it)"
                             for name, part in sorted(ignored.items()))
            raise ValueError(f"{what}: would be ignored; leave such settings at their defaults "
                             f"or choose parts that use them")

    def deferred_settings(self, role: str) -> dict[str, Any]:
        """The settings given for the part chosen later in ``role`` (a part that
        ``chooses``, e.g. ``sampler="auto"``): parameters of the role's other parts."""
        part_params = type(self)._part_params()
        own = self._parts[role].param_defaults()
        defaults = type(self)._class_defaults()
        return {k: v for k, v in self._params.items()
                if k in part_params and part_params[k][0] == role and k not in own
                and not (k in defaults and _same(v, defaults[k]))}

    # ------------------------------------------------------------------ the idiom
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The parameters: the model's own, the name of each part, and the parts' own."""
        return dict(self._params)

    def set_params(self, **params: Any) -> Self:
        """Change parameters in place (checked as by the constructor); returns the model. A
        part replaced by another takes its parameters along, except those the new part
        declares too (``lam`` from the hinge to the epsilon-insensitive loss), which keep
        their values."""
        current = dict(self._params)
        for role, registry in type(self).ROLES.items():
            if role in params and params[role] != current[role]:
                kept = registry.get(params[role]).param_defaults()
                current = {k: v for k, v in current.items()
                           if k not in self._parts[role].param_defaults() or k in kept}
        before = self._params, self._parts
        try:
            self._set({**current, **params})
        except BaseException:
            object.__setattr__(self, "_params", before[0])
            object.__setattr__(self, "_parts", before[1])
            raise
        return self

    def replace(self, **params: Any) -> Self:
        """A new model with ``params`` changed as ``set_params`` changes them (this one
        unchanged)."""
        return self.copy().set_params(**params)

    def copy(self) -> Self:
        return type(self)(**self._params)

    def __getattr__(self, name: str) -> Any:
        params = self.__dict__.get("_params")
        if params is not None and name in params:
            return params[name]
        found = inspect.getattr_static(type(self), name, None)
        if hasattr(found, "__get__"):
            # a property whose own code raised AttributeError lands here: run it again
            # directly, so its real error surfaces instead of "no attribute <name>"
            return found.__get__(self, type(self))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} parameters are changed with set_params "
                             f"(or replace), not by assignment to {name!r}")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            _same(v, other._params.get(k)) for k, v in self._params.items())

    __hash__ = None   # type: ignore[assignment]   # parameters change with set_params

    def __repr__(self) -> str:
        defaults = type(self)._class_defaults()
        for part in self._parts.values():
            for k, v in part.param_defaults().items():
                defaults.setdefault(k, v)
        shown = {k: v for k, v in self._params.items()
                 if k == "K" or k not in defaults or not _same(v, defaults[k])}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    def __getstate__(self) -> dict[str, Any]:
        return {"params": self._params}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._set(dict(state["params"]))

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self.copy()

    @property
    def parts(self) -> dict[str, Part]:
        """The part used in each role."""
        return dict(self._parts)


def _same(a: Any, b: Any) -> bool:
    """Equality that treats lists and tuples of the same values alike and never raises."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b)
    except Exception:
        return False
