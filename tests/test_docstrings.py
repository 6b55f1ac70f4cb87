"""What the docstrings and the docs say of the code is what the code is (issue 48: docstrings
had drifted: a preset promised a sampler that ``sampler="auto"`` does not choose, a package
said its kernels shared their samplers' names, two losses disagreed on their arrays' order).
The cheap checks: every module or name of the frame's packages written as code in a docstring,
a comment or a docs page exists; every ``sampler="..."`` names a registered sampler; each
preset names its paper's sampler; each sampler module names the kernel it runs; the losses'
arrays are (T, D) where the models call them. Plain file reading and imports: instant."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from topicsup.models import presets
from topicsup.samplers import REGISTRY as SAMPLERS

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("kernels", "samplers", "losses", "priors", "weight_samplers", "models")
# ``kernels.light`` / ``topicsup.kernels.light.draw_doc_proposal`` in a docstring (double
# backticks) or a docs page (single ones)
REF = re.compile(r"``(?:topicsup\.)?((?:{0})(?:\.\w+)+)``|(?<!`)`(?:topicsup\.)?((?:{0})"
                 r"(?:\.\w+)+)`(?!`)".format("|".join(PACKAGES)))
SAMPLER = re.compile(r"""(?<!\w)sampler=["']([a-z_]+)["']""")


def _texts() -> list[Path]:
    return [*sorted((ROOT / "topicsup").rglob("*.py")), *sorted((ROOT / "widgets").rglob("*.py")),
            *sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` (under ``topicsup.``) is a module, or a name of one."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module("topicsup." + ".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def test_every_module_named_in_the_docs_exists():
    found, bad = 0, []
    for path in _texts():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in REF.finditer(line):
                found += 1
                dotted = m.group(1) or m.group(2)
                if not resolves(dotted):
                    bad.append(f"{path.relative_to(ROOT)}:{n}: {dotted}")
    assert found > 100   # the pattern reads what is written
    assert bad == [], "names no module or name of topicsup:\n" + "\n".join(bad)


def test_every_sampler_named_in_the_docs_is_registered():
    """LDA's and the supervised models' samplers, and the table models' own (the PDP and HDP
    topic models' ``gibbs`` and ``alias``, ``models.pdp`` and ``models.hdp``)."""
    from topicsup.models import HDPLDA, PDPLDA
    known = set(SAMPLERS.names()) | {n for m in (HDPLDA, PDPLDA)
                                     for n in m.ROLES["sampler"].names()}
    bad = [f"{path.relative_to(ROOT)}:{n}: sampler={name!r}"
           for path in _texts()
           for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
           for name in SAMPLER.findall(line) if name not in known]
    assert bad == [], "no such sampler:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", presets.__all__)
def test_each_preset_names_its_papers_sampler_and_auto(name):
    cls = getattr(presets, name)
    doc = inspect.getdoc(cls) or ""
    assert f'``"{cls.PUBLISHED_SAMPLER}"``' in doc, \
        f"{name}'s docstring does not name its paper's sampler {cls.PUBLISHED_SAMPLER!r}"
    assert 'sampler="auto"' in doc, f"{name}'s docstring does not say what auto does"


@pytest.mark.parametrize("name", [n for n in SAMPLERS.names() if n != "auto"])
def test_each_sampler_module_names_the_kernel_it_runs(name):
    """The module docstring names a ``kernels.X`` module that the module imports."""
    module = importlib.import_module(SAMPLERS.get(name).__module__)
    doc = module.__doc__ or ""
    named = set(re.findall(r"``kernels\.(\w+)``", doc))
    assert named, f"{module.__name__} names no kernel in its docstring"
    source = inspect.getsource(module)
    imported = set(re.findall(r"from \.\.kernels(?:\.(\w+))? import ([\w, ]+)", source))
    modules = {m for m, _ in imported if m} | {n.split(" as ")[0].strip()
                                                for m, names in imported if not m
                                                for n in names.split(",")}
    assert named & modules, f"{module.__name__} names {named}, imports {modules}"


def test_the_losses_arrays_are_tasks_by_documents():
    """Every loss allocates (T, D) arrays, as the models call it (``Loss``'s docstring)."""
    from topicsup.losses import REGISTRY as LOSSES
    for name in LOSSES.names():
        own = LOSSES.get(name)().allocate(3, 7)
        assert own.b.shape == own.w.shape == (3, 7), name
