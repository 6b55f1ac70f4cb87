"""The package type-checks (issue 36): ``mypy`` in strict mode over ``topicsup`` and its
widgets, with the configuration of pyproject.toml, whose few exceptions are listed and
explained in docs/architecture.md ("Types")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_strict_passes_on_the_package(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"),
                           "--no-error-summary"], cwd=ROOT, capture_output=True, text=True)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert done.returncode == 0 and not errors, (
        f"mypy found {len(errors)} errors:\n" + "\n".join(errors[:40]) + done.stderr[-2000:])


def test_the_strict_configuration_is_the_one_documented():
    """strict on, and every override of it named in the docs' list of exceptions."""
    import tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True and set(config["files"]) == {"topicsup", "widgets"}
    doc = (ROOT / "docs" / "architecture.md").read_text()
    for override in config.get("overrides", []):
        for key in override:
            if key != "module":
                assert f"`{key}" in doc, f"the override {key} is not explained in the docs"
    for key in ("warn_return_any",):
        if key in config:
            assert f"`{key}" in doc


def test_the_presets_module_exports_every_preset():
    """``presets.__all__`` is written out (type checkers read it): it lists every preset."""
    from topicsup.models import SupervisedLDA, presets
    found = sorted(name for name, obj in vars(presets).items()
                   if isinstance(obj, type) and issubclass(obj, SupervisedLDA)
                   and obj is not SupervisedLDA and obj.__module__ == presets.__name__)
    assert sorted(presets.__all__) == found
