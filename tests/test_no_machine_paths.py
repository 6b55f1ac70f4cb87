"""No absolute path of a particular machine in the repository (issue 38).

A path into a workspace, a home directory or a mount point names a place that exists on one
machine: a notebook, test or benchmark that reads from it works there and nowhere else, and a
record that holds it (a results file, a notebook, a docs page) shows where somebody's files
were. The data is found by ``topicsup.newsgroups.find_archive`` instead (the argument,
``$TOPICSUP_DATA``, ``../shared/data`` beside the repository, the cache), and docs write paths
relative to the repository, under ``~``, or as a placeholder (``/path/to/...``).

What is refused: an absolute path whose first directory is one of ``work``, ``root``,
``home``, ``Users`` (macOS homes), ``mnt``, ``media``, ``var/folders`` or
``private/var/folders`` (macOS's per-user temporary folders), and a Windows path (an upper-case
drive letter, a colon and a slash or backslash). The pattern lists these machine-specific roots
rather than refusing every absolute path, so the operating system's standard locations stay
allowed: they are the same on every machine of a kind and code legitimately names them, e.g.
``/usr/bin/chromium`` (Debian's Chromium, tests/conftest.py), ``/dev/null``, ``/proc``,
``/etc``, ``/opt`` and ``/tmp`` (a scratch directory in a documented command such as ``git
worktree add /tmp/topicsup-before``: any machine has one, and nothing is read from it).

What is not an absolute path of a machine, and is not matched: a relative path
(``../shared/data``, ``src/home/x``), a path under ``~`` or a variable (``$HOME/...``,
``${X}/...``), and the path part of a URL (``https://host/home/x``). The root must start the
path: it may not follow a letter, digit, ``_``, ``.``, ``-``, ``/``, ``~``, ``$``, ``}`` or
``)``.

Only files git tracks are read (``git ls-files``), binary ones (a NUL byte in the first 8 KiB)
skipped; a failure names each file, line and path found.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_ROOTS = r"(?:work|root|home|Users|mnt|media|(?:private/)?var/folders)"
MACHINE_PATH = re.compile(
    r"(?<![\w.~/$})-])/" + _ROOTS + r"(?=[/\s\"'`),;:.\]\\]|$)[^\s\"'`),;\]\\]*"
    r"|(?<![\w])[A-Z]:[\\/][^\s\"'`),;\]]*",
    re.MULTILINE)


def machine_paths(text: str) -> list[tuple[int, str]]:
    """Each absolute path of a machine in ``text``: (line number from 1, the path)."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        found.extend((number, m.group(0)) for m in MACHINE_PATH.finditer(line))
    return found


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:8192]


def scan(root: Path, files: list[str]) -> list[str]:
    """``file:line: path`` for every machine path in the text files among ``files``."""
    report = []
    for name in files:
        path = root / name
        if not path.is_file():          # deleted in the work tree, or a submodule
            continue
        data = path.read_bytes()
        if is_binary(data):
            continue
        text = data.decode("utf-8", errors="replace")
        report.extend(f"{name}:{line}: {found}" for line, found in machine_paths(text))
    return report


def tracked_files(root: Path) -> list[str]:
    git = shutil.which("git")
    if git is None or not (root / ".git").exists():
        pytest.skip("not a git checkout (or no git): the tracked files are unknown")
    out = subprocess.run([git, "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    return [name for name in out.stdout.decode("utf-8", errors="replace").split("\0") if name]


def test_no_machine_paths_in_tracked_files():
    report = scan(ROOT, tracked_files(ROOT))
    assert not report, (
        f"{len(report)} absolute path(s) of a machine in tracked files (find the data with "
        f"topicsup.newsgroups.find_archive / newsgroups_archive; write paths relative to the "
        f"repository, under ~, or as /path/to/...):\n" + "\n".join(report))


# the checker itself, on planted paths (written in pieces so this file holds none)
W, H, U, R = "/" + "work", "/" + "home", "/" + "Users", "/" + "root"
PLANTED = [
    f'candidates = ["{W}/shared/data", "../shared/data"]',
    f"    \"archive = '{W}/shared/data/20news-bydate.tar.gz'\\n\",",   # a notebook's JSON
    f"- Command: `python x.py` (interpreter {W}/main/.venv/bin/python)",
    f"python benchmarks/bench.py --out {W}/main/benchmarks/results/x",
    f"cd {H}/alice/topicsup && pytest",
    f"HOME={R}",
    f"open('{R}/.cache/topicsup/x')",
    f"see {U}/bob/Downloads/20news-bydate.tar.gz.",
    "data at /" + "mnt/data/20news or /" + "media/usb",
    "tmp = '/" + "private/var/folders/xy/T/abc'",
    'path = "' + "C:" + '\\\\Users\\\\carol\\\\data"',
    "path = " + "D:" + "/data/20news-bydate.tar.gz",
]
ALLOWED = [
    "for candidate in (shutil.which('chromium'), '/usr/bin/chromium'):",
    "    print(x, file=open('/dev/null', 'w'))",
    "    git worktree add /tmp/topicsup-before <commit>",
    "put 20news-bydate.tar.gz in ../shared/data or ~/.cache/topicsup",
    "pass path='/path/to/20news-bydate.tar.gz'",
    "see https://example.org/home/page and http://qwone.com/~jason/20Newsgroups/",
    "root = Path(__file__).parent; ROOT.parent / 'shared' / 'data'",
    "cp x $HOME/work/y; ls ${DATA}/home/z; ls $(pwd)/work",
    "src/home/x, docs/work/y, ~/work, a-/work, homework/x",
    "/homework/x and /rooted and /workspace-free",
    "a = {'key:\\n': 1}; http://x; A:b",
    "the root of the tree, home of the data, work to do",
]


@pytest.mark.parametrize("line", PLANTED)
def test_checker_finds_a_planted_path(line):
    found = machine_paths("first line\n" + line + "\nlast line")
    assert [n for n, _ in found] and all(n == 2 for n, _ in found), found


@pytest.mark.parametrize("line", ALLOWED)
def test_checker_allows_system_relative_and_url_paths(line):
    assert machine_paths(line) == []


def test_scan_names_file_line_and_path(tmp_path):
    (tmp_path / "notes.md").write_text(f"ok\n\nThe data is in {W}/shared/data.\n")
    (tmp_path / "clean.py").write_text("ARCHIVE = '../shared/data'\n")
    (tmp_path / "blob.bin").write_bytes(b"\0\1" + f"{W}/shared/data".encode())
    report = scan(tmp_path, ["notes.md", "clean.py", "blob.bin", "deleted.txt"])
    assert report == [f"notes.md:3: {W}/shared/data."]


def test_the_path_is_reported_without_its_quoting():
    line = '    "    candidates = [os.environ.get(\\"TOPICSUP_DATA\\"), \\"' + W + '/shared/data\\",\\n",'
    assert machine_paths(line) == [(1, W + "/shared/data")]
    assert machine_paths("x = r'" + "C:" + "\\Users\\carol', y") == [(1, "C:" + "\\Users\\carol")]
