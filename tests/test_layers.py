"""Dependencies point down only (issue 36): the import graph of ``topicsup`` and ``widgets``
(shipped as ``topicsup.widgets``) read with ``ast``, every module placed in a layer of
``LAYERS``. A module imports from its own layer and below; the module-level imports have no
circle; the function-level imports of project modules are the seams of ``SEAMS``, each with
its reason (a function-level import of a third-party package, such as ``import arviz``, is an
optional or heavy dependency and is not counted). ``import topicsup`` imports none of the
front-end or cluster libraries.

``python -m tests.test_layers`` prints the graph layer by layer.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FACADE = "topicsup"   # topicsup/__init__.py: the package facade, imported by no module

# bottom to top; a module is in the layer of its longest matching prefix
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("numba kernels, plain checks, array type names",
     ("topicsup.kernels", "topicsup._version", "topicsup.validation", "topicsup.stopwords",
      "topicsup.arrays", "topicsup.warmup")),
    ("data and the frame: corpora, texts, labels, tasks, metrics, the record (history), the "
     "parts frame, the bound problem and the Fit every reader takes, backends",
     ("topicsup.corpus", "topicsup.labels", "topicsup.text", "topicsup.streaming",
      "topicsup.originals", "topicsup.npy_dir", "topicsup.bow",
      "topicsup.tasks",
      "topicsup.metrics", "topicsup.diagnostics", "topicsup.synthetic", "topicsup.newsgroups",
      "topicsup.datasets", "topicsup.svm", "topicsup.history", "topicsup.parts",
      "topicsup.problem", "topicsup.backends", "topicsup.terms")),
    ("charts: pure functions of frames, one module per family", ("topicsup.views",)),
    ("the parts, found by name in registries (the samplers with the teaching replay)",
     ("topicsup.losses", "topicsup.priors", "topicsup.samplers", "topicsup.weight_samplers")),
    ("models: parameters in, parts out", ("topicsup.models",)),
    ("a fit's pieces: read-outs, held-out scoring, prevalence, the file, the token inspector",
     ("topicsup.checkpoint", "topicsup.summaries", "topicsup.heldout", "topicsup.inspector",
      "topicsup.interrupts", "topicsup.readouts", "topicsup.prevalence")),
    ("the session: the chain, its blocks, stop requests and backend", ("topicsup.session",)),
    ("on top of sessions: several chains, the estimators, the view table, the report",
     ("topicsup.chains", "topicsup.estimators", "topicsup.view_table", "topicsup.report",
      "topicsup.demo", "topicsup.search", "topicsup.precompile")),
    ("front ends (ipywidgets), the test harnesses and the course's checks",
     ("topicsup.widgets", "topicsup.testing", "topicsup.course")),
)
# the pages that show the table, between these markers (``python -m tests.test_layers
# --write-docs`` writes it)
LAYER_PAGES = (ROOT / "docs" / "architecture.md", ROOT / "docs" / "how-it-is-built.md")
BEGIN, END = "<!-- layers: begin (python -m tests.test_layers --write-docs) -->", \
    "<!-- layers: end -->"

# the function-level imports of project modules that remain: (importer, imported) -> why
SEAMS: dict[tuple[str, str], str] = {
    ("topicsup.backends", "topicsup.backends.dask"):
        "backend='dask' only: importing the Dask backend imports distributed, which "
        "import topicsup must not",
}


def module_files() -> dict[str, Path]:
    """Every module of the project by its dotted name (a package by its ``__init__``)."""
    out = {}
    for package, folder in (("topicsup", ROOT / "topicsup"),
                            ("topicsup.widgets", ROOT / "widgets")):
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out


def layer_of(module: str) -> int:
    """The layer (1 = bottom) of ``module``; the facade is above every layer."""
    if module == FACADE:
        return len(LAYERS) + 1
    best, level = "", 0
    for i, (_, prefixes) in enumerate(LAYERS, 1):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > len(best):
                best, level = p, i
    if not level:
        raise KeyError(f"{module} is in no layer of tests/test_layers.py's LAYERS")
    return level


@dataclass(frozen=True)
class Import:
    importer: str
    target: str
    line: int
    function: bool   # inside a function (runs when called, not when the module is imported)
    implicit: bool   # a package's __init__ run because a module inside it was imported


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _project_target(name: str, modules: set[str]) -> str | None:
    """The project module that importing ``name`` loads (its longest module prefix)."""
    if name != FACADE and not name.startswith(FACADE + "."):
        return None
    while name not in modules:
        name = name.rpartition(".")[0]
    return name


class _Visitor(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, modules: set[str]) -> None:
        self.module, self.modules, self.depth = module, modules, 0
        self.package = module if is_package else module.rpartition(".")[0]
        self.found: list[tuple[str, int, bool]] = []

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _add(self, name: str, node: ast.AST) -> None:
        target = _project_target(name, self.modules)
        found = (target, node.lineno, self.depth > 0)
        if target is not None and found not in self.found:   # once per statement
            self.found.append(found)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[:len(base) - (node.level - 1)]
            base = ".".join(base + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            self._add(sub if sub in self.modules else base, node)


def imports() -> list[Import]:
    """Every import of a project module by a project module, with the package ``__init__``
    modules it runs on the way (not the importer's own packages, already imported, nor the
    facade, whose own imports are not part of the graph)."""
    files = module_files()
    modules = set(files)
    out = []
    for module, path in files.items():
        if module == FACADE:
            continue
        v = _Visitor(module, path.name == "__init__.py", modules)
        v.visit(ast.parse(path.read_text(), str(path)))
        own = set(_ancestors(module)) | {module}
        for target, line, function in v.found:
            if target != module:
                out.append(Import(module, target, line, function, False))
            for a in _ancestors(target):
                if a != FACADE and a not in own:
                    out.append(Import(module, a, line, function, True))
    return out


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    graph: dict[str, list[str]] = {}
    for a, b in sorted(edges):
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in graph:
        if v not in index:
            visit(v)
    return out


def upward(found: list[Import]) -> list[Import]:
    return [i for i in found if layer_of(i.target) > layer_of(i.importer)]


def seams(found: list[Import]) -> dict[tuple[str, str], list[int]]:
    """The function-level imports of project modules: (importer, imported) -> lines."""
    out: dict[tuple[str, str], list[int]] = {}
    for i in found:
        if i.function and not i.implicit:
            out.setdefault((i.importer, i.target), []).append(i.line)
    return out


def _where(i: Import) -> str:
    return f"{i.importer}:{i.line} -> {i.target}{' (its package)' if i.implicit else ''}"


# ---------------------------------------------------------------------- tests
def test_every_module_has_a_layer():
    for module in module_files():
        layer_of(module)


def test_the_circle_finder_finds_circles():
    assert cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "d")}) == [["a", "b", "c"]]
    assert cycles({("a", "b"), ("a", "c"), ("b", "c")}) == []


def test_no_import_circle():
    edges = {(i.importer, i.target) for i in imports() if not i.function}
    assert cycles(edges) == []


def test_no_import_runs_up_a_layer():
    assert [_where(i) for i in upward(imports())] == []


def test_function_level_imports_are_the_listed_seams():
    """A new function-level import of a project module is either moved to the top of its
    module (it points down, so it can) or listed in ``SEAMS`` with its reason."""
    assert sorted(seams(imports())) == sorted(SEAMS)


def test_import_topicsup_leaves_the_front_ends_and_the_cluster_out():
    """``import topicsup`` imports neither the front ends' libraries (Altair, ipywidgets),
    scikit-learn (the estimators) nor Dask; its import time is printed, not asserted."""
    code = textwrap.dedent("""
        import sys, time
        t0 = time.perf_counter()
        import topicsup
        dt = time.perf_counter() - t0
        heavy = ("altair", "ipywidgets", "sklearn", "dask", "distributed")
        print(dt)
        print(" ".join(m for m in heavy if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.splitlines()
    print(f"import topicsup: {float(out[0]):.2f} s")
    assert out[1:] == [""], f"import topicsup imported {out[1]}"


# ---------------------------------------------------------------------- the docs' table
def layer_table() -> str:
    """The layer table as the docs show it, top layer first: its number, its modules (a
    package as ``name.*``; ``topicsup.`` left out) and its job (``LAYERS``' titles)."""
    files = module_files()
    rows = ["| layer | modules | job |", "|---:|---|---|"]
    for i, (title, prefixes) in reversed(list(enumerate(LAYERS, 1))):
        names = []
        for p in prefixes:
            package = any(m.startswith(p + ".") for m in files)
            short = p.removeprefix(FACADE + ".")
            names.append(f"`{short}.*`" if package else f"`{short}`")
        rows.append(f"| {i} | {', '.join(names)} | {title} |")
    return "\n".join(rows)


def _with_table(text: str, page: Path) -> str:
    if BEGIN not in text or END not in text:
        raise ValueError(f"{page.name} has no {BEGIN} ... {END} block for the layer table")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{layer_table()}\n{END}{tail}"


def write_docs() -> None:
    """Write the layer table into the pages of ``LAYER_PAGES``."""
    for page in LAYER_PAGES:
        page.write_text(_with_table(page.read_text(encoding="utf-8"), page), encoding="utf-8")


def test_the_docs_show_the_layer_table_of_this_module():
    """The pages' layer tables are ``LAYERS`` (a module added, moved or renamed changes them):
    ``python -m tests.test_layers --write-docs`` rewrites them."""
    for page in LAYER_PAGES:
        text = page.read_text(encoding="utf-8")
        assert _with_table(text, page) == text, \
            f"{page.name}'s layer table is not LAYERS': run python -m tests.test_layers " \
            f"--write-docs"


def test_every_layer_prefix_names_a_module():
    """A prefix of ``LAYERS`` that names no module (one moved or removed) is stale."""
    files = module_files()
    stale = [p for _, prefixes in LAYERS for p in prefixes
             if not any(m == p or m.startswith(p + ".") for m in files)]
    assert stale == []


# ---------------------------------------------------------------------- summary
def summary() -> str:
    found = imports()
    modules = module_files()
    by_layer: dict[int, list[str]] = {}
    for m in modules:
        if m != FACADE:
            by_layer.setdefault(layer_of(m), []).append(m)
    lines = []
    for i, (title, prefixes) in enumerate(LAYERS, 1):
        ms = by_layer.get(i, [])
        lines.append(f"layer {i} ({title}): {len(ms)} modules")
        lines.append(textwrap.indent(textwrap.fill(", ".join(ms), 96), "    "))
    top = {(i.importer, i.target) for i in found if not i.function}
    lines.append(f"modules: {len(modules) - 1} (and the facade topicsup/__init__.py)")
    lines.append(f"edges: {len(top)} module-level, "
                 f"{len({(i.importer, i.target) for i in found if i.function})} function-level")
    cyc = cycles(top)
    lines.append(f"cycles: {len(cyc)}")
    lines.extend(f"    {', '.join(c)}" for c in cyc)
    seamed = [c for c in cycles({(i.importer, i.target) for i in found}) if c not in cyc]
    lines.append(f"cycles closed only by a function-level import: {len(seamed)}")
    lines.extend(f"    {', '.join(c)}" for c in seamed)
    up = upward(found)
    lines.append(f"upward: {len(up)}")
    lines.extend(f"    {_where(i)}" for i in up)
    s = seams(found)
    lines.append(f"function-level project imports: {sum(len(v) for v in s.values())}")
    for (a, b), where in sorted(s.items()):
        lines.append(f"    {a}:{','.join(map(str, where))} -> {b}: "
                     f"{SEAMS.get((a, b), 'NOT LISTED')}")
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-docs"]:
        write_docs()
        print(f"wrote the layer table into {', '.join(p.name for p in LAYER_PAGES)}")
    else:
        print(summary())
