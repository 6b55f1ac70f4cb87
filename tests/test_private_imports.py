"""No module reaches into the private names of a module of another package (issue 48): what
``corpus`` offers ``estimators`` or the loaders is public, named without a leading underscore
and documented (``labels``, ``text``, ``corpus``, ...), so a reader sees the interface between
the rooms and a change inside one cannot break another silently. Within a package its modules
may share private helpers (``views._common``, ``models.lda._under``, the kernels' inlined
steps): that is the package's own business. Read with ``ast`` from the sources, as
``tests/test_layers.py`` reads the import graph."""

from __future__ import annotations

import ast

from tests.test_layers import module_files


def _private_imports() -> list[str]:
    files = module_files()
    out = []
    for module, path in files.items():
        tree = ast.parse(path.read_text(), str(path))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("topicsup"):
                continue
            for alias in node.names:
                name = alias.name
                # the same module, or a module of the same subpackage (its siblings, its
                # package's __init__, a package and its own modules); the modules of the
                # top-level package are the rooms themselves, not one package's helpers
                own = target == module or (package != "topicsup" and (
                    target.rpartition(".")[0] in (package, module) or target == package))
                if name.startswith("_") and not name.startswith("__") and not own:
                    out.append(f"{module}:{node.lineno} imports {target}.{name}")
    return sorted(out)


def test_no_module_imports_another_modules_private_names():
    assert _private_imports() == []


def test_the_check_finds_a_private_import(tmp_path, monkeypatch):
    """Teeth: a module that imports another's private helper is reported."""
    import tests.test_layers as layers
    bad = tmp_path / "topicsup" / "bad.py"
    bad.parent.mkdir()
    bad.write_text("from .corpus import _index_array\n")
    files = {**layers.module_files(), "topicsup.bad": bad}
    monkeypatch.setattr("tests.test_private_imports.module_files", lambda: files)
    assert _private_imports() == ["topicsup.bad:1 imports topicsup.corpus._index_array"]
