"""The parts a model is made of, and the registries that find them by name (docs/math.md sec. 1).

A model is loss x prior x topic sampler x weight sampler, on a label task. Each part is a
small frozen dataclass whose fields are its parameters (validated in ``__post_init__``), in a
module named for what it is:

* ``topicsup.samplers``: topic samplers;
* ``topicsup.losses``: losses and their augmentations;
* ``topicsup.priors``: priors on the weights;
* ``topicsup.weight_samplers``: weight steps;
* ``topicsup.tasks``: label tasks, one per kind of labels (``tasks.TASKS``).

Each package's ``REGISTRY`` imports every module of the package the first time it is asked,
so a new part is a new file: the model accepts its name and its parameters, checkpoints
restore it, the tests parametrized over the registry run it, and the dashboard shows its live
settings, with no other file changed. ``REGISTRY.names()`` lists a role's parts; the
docstrings do not, so they cannot fall behind.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, ClassVar, Generic, Iterator, Mapping, Protocol, TypeVar

from . import validation as check
from .arrays import Array


class Parameters(Protocol):
    """What a part reads of its model (``models.base.Model``): whether it is supervised, its
    parts by role and its parameters by name (``K``, ``alpha``, ``discount``, ...)."""

    supervised: bool

    @property
    def parts(self) -> dict[str, "Part"]: ...

    def get_params(self, deep: bool = True) -> dict[str, Any]: ...

    def __getattr__(self, name: str) -> Any: ...


@dataclass(frozen=True)
class LiveSetting:
    """A parameter a Session may change between sweeps without changing the posterior, with
    what a control needs: ``kind`` ``"int"`` (``low``..``high``), ``"choice"`` (``options``),
    ``"flag"``, ``"fraction"`` (an open interval (0, 1)), ``"mix"`` (one weight per proposal
    kind of ``options``, a positive sum: shown as the probabilities they give) or
    ``"toggles"`` (the same weights where only on/off matters: a cycle runs every kind with a
    positive weight). ``help`` is the control's one-sentence tooltip; a setting that has no
    effect under the part's other settings (a mixture's probability in a cycle) is
    ``active=False`` and says why in its help."""

    name: str
    label: str
    kind: str
    options: tuple[str, ...] = ()
    low: float = 0.0
    high: float = 1.0
    help: str = ""
    active: bool = True


MH_HELP = ("Metropolis-Hastings steps per token and sweep: more steps bring each token closer "
           "to its exact conditional, at the cost of slower sweeps")


@dataclass(frozen=True)
class Part:
    """Base of every part: the dataclass fields are its parameters."""

    role: ClassVar[str] = ""
    name: ClassVar[str] = ""
    # the arrays of its own record (``allocate``) that are part of the chain's state: checkpoint
    # name -> field of the record (dotted for a nested record); the rest is rebuilt on load.
    # The one place a part's checkpointed arrays are named.
    SAVED: ClassVar[Mapping[str, str]] = {}
    # a stand-in for a part of its role chosen when the model meets its corpus
    # (``samplers.auto``): the settings of the role's other parts given with it are kept for
    # the chosen one, not refused as ignored
    chooses: ClassVar[bool] = False

    @classmethod
    def param_defaults(cls) -> dict[str, Any]:
        """The part's parameters and their defaults, in declaration order."""
        return {f.name: f.default for f in dataclasses.fields(cls) if f.init}

    def params(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.param_defaults()}

    def _bounded(self, name: str, bounds: tuple[float, float], why: str = "") -> None:
        """Check the number parameter ``name`` against ``bounds`` (a part's __post_init__)
        and keep it as a float."""
        lo, hi = bounds
        object.__setattr__(self, name, check.number(name, getattr(self, name), low=lo, high=hi,
                                                    why=why))

    def saved_fields(self) -> Mapping[str, str]:
        """``SAVED``, or the part of it this configuration keeps (the light sampler's word
        tables exist only with its stale word proposal)."""
        return self.SAVED

    def saved_names(self) -> tuple[str, ...]:
        """The checkpoint names of its saved arrays."""
        return tuple(self.saved_fields())

    def saved(self, own: Any) -> dict[str, Array]:
        """Its saved arrays from its record ``own``, by checkpoint name (views, not copies)."""
        return {name: attrgetter(path)(own) for name, path in self.saved_fields().items()}

    def live_settings(self, model: Parameters) -> tuple[LiveSetting, ...]:
        """Settings of this part a Session may change between sweeps (none by default)."""
        return ()

    def ignored(self, model: Parameters) -> tuple[str, ...]:
        """Parameters of this part the model's other parts make meaningless (none by
        default): a value other than the default for one is refused, not silently unused."""
        return ()


P = TypeVar("P", bound=Part)


class Registry(Generic[P]):
    """Parts of one role (``P``, the role's base class) by name; the modules of ``package``
    are imported on first use."""

    def __init__(self, role: str, package: str) -> None:
        self.role = role
        self._package = package
        self._parts: dict[str, type[P]] = {}
        self._loaded = False

    def register(self, cls: type[P]) -> type[P]:
        """Class decorator: make ``cls`` available as ``cls.name``."""
        if not cls.name:
            raise TypeError(f"{cls.__name__} has no name")
        known = self._parts.get(cls.name)
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise ValueError(f"two {self.role}s are named {cls.name!r}: {known.__qualname__} and "
                             f"{cls.__qualname__}")
        cls.role = self.role
        self._parts[cls.name] = cls
        return cls

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        package = importlib.import_module(self._package)
        for module in pkgutil.iter_modules(package.__path__):
            if not module.name.startswith("_"):
                importlib.import_module(f"{self._package}.{module.name}")

    def names(self) -> list[str]:
        self._load()
        return sorted(self._parts)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._parts

    def get(self, name: Any) -> type[P]:
        """The part class named ``name``; ``TypeError``/``ValueError`` naming the role."""
        self._load()
        check.choice(self.role, name, sorted(self._parts))
        return self._parts[name]

    def classes(self) -> list[type[P]]:
        return [self._parts[n] for n in self.names()]


class OwnParts(Registry[P]):
    """A registry of the given parts only, for a model whose parts go with each other and
    with nothing else (Monte Carlo MedLDA's loss and weight step, the table-indicator
    samplers of the PDP and HDP topic models), so they are not offered to other models."""

    def __init__(self, role: str, *parts: type[P]) -> None:
        super().__init__(role, __name__)
        self._loaded = True
        for part in parts:
            self.register(part)
