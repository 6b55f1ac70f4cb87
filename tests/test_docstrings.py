"""What the docstrings, comments and pages say about the parts is what the code has (issue 48):

* every module of the parts' packages named as ``kernels.X``, ``samplers.X``, ``losses.X``,
  ``priors.X`` or ``weight_samplers.X`` (``topicsup.`` before it or not, a name inside it
  after it: ``kernels.rng.seed_state``) exists, and so does the name; so does every file
  named as ``kernels/X.py`` (``topicsup/`` or ``tests/`` before it; a ``test_`` file is a
  test's);
* every ``sampler="x"`` names a topic sampler some model takes (``topicsup.samplers.REGISTRY``
  or a model's own: the PDP and HDP models'), every ``weight_sampler="x"`` a weight sampler;
* every topic sampler's module names the kernel module it runs, and imports it;
* every preset's docstring names its paper's sampler (``PUBLISHED_SAMPLER``) and says what its
  default, ``sampler="auto"``, does;
* the losses' arrays are (T, D), tasks by documents (``losses.Loss`` says so once): no loss
  function that takes the labels ``y`` documents (D, T), and every registered loss is called
  by its model with (T, D) arrays.

Read from the files: the source files' comments and string literals (never their code, where
``losses.append`` is a list's), the pages and notebooks whole. Each failure lists every
offending place as ``file:line: text``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import io
import re
import tokenize
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import numpy as np
import pytest

import topicsup.models
from topicsup.losses import REGISTRY as LOSSES, Loss
from topicsup.models import presets
from topicsup.samplers import REGISTRY as SAMPLERS
from topicsup.weight_samplers import REGISTRY as WEIGHT_SAMPLERS

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("topicsup", "widgets")
PAGES = ("docs", "README.md", "notebooks")
PACKAGES = ("kernels", "samplers", "losses", "priors", "weight_samplers")

# ``kernels.rng.seed_state``: not after a word character, a dot or a slash (``self.kernels``,
# ``from ..kernels``, ``docs/samplers.md``)
DOTTED = re.compile(r"(?<![\w./])(?:topicsup\.)?(" + "|".join(PACKAGES) + r")"
                    r"((?:\.[A-Za-z_]\w*)+)")
FILE_SUFFIXES = {"md", "py", "ipynb", "csv", "json", "html", "png", "txt"}
# kernels/gibbs.py, topicsup/samplers/light.py, tests/kernels/test_light.py
PATHS = re.compile(r"(?<![\w.])((?:topicsup|tests)/)?(" + "|".join(PACKAGES) + r")/(\w+\.py)\b")
# sampler="gibbs", sampler='light', and in a notebook's JSON sampler=\"alias\"
NAMED = re.compile(r"(?<![\w.])(weight_sampler|sampler)\s*=\s*\\?[\"']([A-Za-z_]+)\\?[\"']")


def _text_of_source(path: Path) -> Iterator[tuple[int, str]]:
    """A Python file's comments and string literals, each with its first line."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for tok in tokens:
        if tok.type in (tokenize.COMMENT, tokenize.STRING) or \
                tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            yield tok.start[0], tok.string


def _documents() -> Iterator[tuple[Path, int, str]]:
    """(file, line, text) of every comment and string of the sources and every line of the
    pages."""
    for name in SOURCES:
        for path in sorted((ROOT / name).rglob("*.py")):
            for line, text in _text_of_source(path):
                for i, part in enumerate(text.split("\n")):
                    yield path, line + i, part
    for name in PAGES:
        top = ROOT / name
        paths = [top] if top.is_file() else sorted(
            p for p in top.rglob("*") if p.suffix in (".md", ".ipynb")
            and ".ipynb_checkpoints" not in p.parts and "_build" not in p.parts)
        for path in paths:
            for i, part in enumerate(path.read_text(encoding="utf-8").splitlines()):
                yield path, i + 1, part


def _where(path: Path, line: int, text: str) -> str:
    return f"{path.relative_to(ROOT)}:{line}: {text.strip()[:110]}"


def _resolve(package: str, names: list[str]) -> bool:
    """Whether ``topicsup.<package>.<names...>`` is a module or a name in one."""
    obj: Any = importlib.import_module(f"topicsup.{package}")
    for i, name in enumerate(names):
        if isinstance(obj, ModuleType):
            try:
                obj = importlib.import_module(f"{obj.__name__}.{name}")
                continue
            except ModuleNotFoundError as e:
                if e.name != f"{obj.__name__}.{name}":
                    raise
        try:
            obj = getattr(obj, name)
        except AttributeError:
            return False
    return True


def _file(m: re.Match[str]) -> Path:
    top = m.group(1) or ("tests/" if m.group(3).startswith("test_") else "topicsup/")
    return ROOT / top / m.group(2) / m.group(3)


def test_every_part_module_name_and_file_the_text_names_exists():
    missing = []
    for path, line, text in _documents():
        for m in DOTTED.finditer(text):
            names = m.group(2).lstrip(".").split(".")
            if names[-1] in FILE_SUFFIXES:
                continue    # a file: samplers.md
            if not _resolve(m.group(1), names):
                missing.append(f"{_where(path, line, text)}  [{m.group(0)} does not exist]")
        missing += [f"{_where(path, line, text)}  [{_file(m).relative_to(ROOT)} does not "
                    f"exist]" for m in PATHS.finditer(text) if not _file(m).is_file()]
    assert missing == [], "\n".join(missing)


def _topic_samplers() -> set[str]:
    names = set(SAMPLERS.names())
    for name in topicsup.models.__all__:
        cls = getattr(topicsup.models, name)
        if isinstance(cls, type) and "sampler" in getattr(cls, "ROLES", {}):
            names |= set(cls.ROLES["sampler"].names())
    return names


def test_every_sampler_the_text_names_is_registered():
    known = {"sampler": _topic_samplers(), "weight_sampler": set(WEIGHT_SAMPLERS.names())}
    wrong = [f"{_where(path, line, text)}  [{m.group(1)}={m.group(2)!r}: known "
             f"{sorted(known[m.group(1)])}]"
             for path, line, text in _documents() for m in NAMED.finditer(text)
             if m.group(2) not in known[m.group(1)]]
    assert wrong == [], "\n".join(wrong)


def test_every_topic_sampler_names_the_kernel_it_imports():
    """A sampler module's docstring names its kernel module (``kernels.X``), and it imports
    it; ``samplers`` says which are not under the sampler's name."""
    wrong = []
    for name in SAMPLERS.names():
        cls = SAMPLERS.get(name)
        if cls.chooses:
            continue    # auto runs the sampler it chooses
        module = importlib.import_module(cls.__module__)
        named = set(re.findall(r"\bkernels\.(\w+)", module.__doc__ or ""))
        imported = {v.__name__.rsplit(".", 1)[1] for v in vars(module).values()
                    if isinstance(v, ModuleType) and v.__name__.startswith("topicsup.kernels.")}
        if not named & imported:
            wrong.append(f"{cls.__module__} (sampler {name!r}): its docstring names "
                         f"{sorted(named) or 'no kernel'}, it imports {sorted(imported)}")
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize("name", presets.__all__)
def test_each_preset_names_its_papers_sampler_and_what_auto_does(name):
    """A preset's default is ``sampler="auto"``, which need not run the paper's sampler
    (issue 48: LightMedLDA promised Metropolis-Hastings proposals where auto takes the
    partially collapsed sampler at K = 20): its docstring names both."""
    cls = getattr(presets, name)
    doc = inspect.getdoc(cls) or ""
    where = f"{Path(inspect.getfile(cls)).relative_to(ROOT)}:{inspect.getsourcelines(cls)[1]}"
    assert f'``"{cls.PUBLISHED_SAMPLER}"``' in doc, \
        f"{where}: {name}'s docstring does not name its paper's sampler " \
        f"``\"{cls.PUBLISHED_SAMPLER}\"``"
    assert 'sampler="auto"' in doc, f"{where}: {name}'s docstring does not say what " \
        f'sampler="auto" does'


# the names a loss's arrays go by in its functions' signatures
LOSS_ARRAYS = {"y", "scores", "b", "w"}


def test_no_loss_function_documents_its_arrays_as_documents_by_tasks():
    """``Loss`` says once that the losses' arrays are (T, D); a function of a loss (its
    module's functions and its methods, those that take the labels ``y``) that writes (D, T)
    contradicts it."""
    files = sorted((ROOT / "topicsup" / "losses").glob("*.py"))
    files += [Path(importlib.import_module(cls.__module__).__file__ or "")
              for cls in LOSSES.classes()]
    wrong = []
    for path in sorted(set(files)):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            args = {a.arg for a in node.args.args + node.args.kwonlyargs}
            doc = ast.get_docstring(node) or ""
            if "y" in args and "(D, T)" in doc:
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.name} takes "
                             f"({', '.join(sorted(args & LOSS_ARRAYS))}), documented (D, T)")
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize("loss", LOSSES.names())
def test_the_models_call_every_loss_with_tasks_by_documents(loss, monkeypatch):
    """Every array a loss's methods receive from its model is (T, D), on a corpus where T and
    D differ (several classes, or one response, and 40 documents)."""
    from topicsup.datasets import make_synthetic
    from topicsup.models import SupervisedLDA
    from topicsup.session import Session

    cls = LOSSES.get(loss)
    task = "multiclass" if cls.targets == "signs" else "real"
    corpus = make_synthetic(n_docs=40, n_topics=3, doc_length=12, task=task, seed=0).corpus
    seen: list[tuple[str, str, tuple[int, ...]]] = []

    def watch(method: str) -> None:
        original = getattr(cls, method)

        def wrapper(self: Loss, y: Any, scores: Any, *args: Any, **kwargs: Any) -> Any:
            seen.extend([(method, "y", np.shape(y)), (method, "scores", np.shape(scores))])
            own = args[-1] if args else None
            seen.extend((method, f, np.shape(getattr(own, f))) for f in ("b", "w")
                        if hasattr(own, f))
            return original(self, y, scores, *args, **kwargs)

        monkeypatch.setattr(cls, method, wrapper)

    for method in ("augment", "log_psi", "mean_loss"):
        watch(method)
    s = Session(SupervisedLDA(K=3, loss=loss, sampler="gibbs"), corpus, seed=0)
    s.run(2)      # the log joint every sweep: log_psi
    T, D = s.problem.targets.shape
    assert D == corpus.n_docs != T
    assert {m for m, _, _ in seen} == {"augment", "log_psi", "mean_loss"}
    wrong = [(m, a, shape) for m, a, shape in seen if shape != (T, D)]
    assert wrong == [], f"{loss}: arrays not (T, D) = {(T, D)}: {wrong}"
