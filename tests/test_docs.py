"""The project's mathematics is in the repository, and every citation of it resolves.

* ``docs/math.md`` exists, its sections are numbered 1, 2, 3, ... in order, and its
  subsections N.1, N.2, ... under their section;
* no source or documentation file cites the shared MATH.md that lives outside the repository
  (and is not in an installed copy): they cite ``docs/math.md sec. N``;
* every ``docs/math.md sec. N`` (``sec. N.M``, ``sec. N-M``, ``sec. N and M``, ``secs. N, M``)
  names a section or subsection that exists.

Each failure lists every offending place as ``file:line: text``. Plain file reading: nothing
is imported, so the test is instant.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MATH = ROOT / "docs" / "math.md"
# spelt in two parts so that this file does not itself cite the shared file
SHARED = "MATH" + ".md"
SCANNED = ("topicsup", "widgets", "tests", "benchmarks", "notebooks", "docs", "README.md")
SUFFIXES = {".py", ".md", ".ipynb", ".txt", ".toml", ".cfg", ".rst"}
MAX_BYTES = 2_000_000   # result files and data are not documentation
SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}

# "docs/math.md sec. 4", across a line break or a comment's "#", with the numbers that follow
CITATION = re.compile(r"docs/math\.md[\s#*]*secs?\.\s*"
                      r"(\d+(?:\.\d+)?(?:\s*(?:-|–|,|and|&)\s*\d+(?:\.\d+)?)*)")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
# a math.md that is not docs/math.md: the shared file, by any spelling or path
STRAY = re.compile(r"(?<!docs/)\bmath\.md\b", re.IGNORECASE)


def _files() -> list[Path]:
    out = []
    for name in SCANNED:
        top = ROOT / name
        paths = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        for p in paths:
            if (p.is_file() and p.suffix in SUFFIXES and p.resolve() != Path(__file__).resolve()
                    and not SKIP_DIRS & set(p.relative_to(ROOT).parts)
                    and p.stat().st_size <= MAX_BYTES):
                out.append(p)
    return out


def _read(p: Path) -> str:
    return p.read_text(encoding="utf-8", errors="replace")


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _where(p: Path, text: str, pos: int) -> str:
    line = _line_of(text, pos)
    shown = text.splitlines()[line - 1].strip()
    return f"{p.relative_to(ROOT)}:{line}: {shown[:120]}"


def sections() -> set[str]:
    """The section numbers of docs/math.md: "N" for "## N. ..." and "N.M" for "### N.M ..."."""
    text = _read(MATH)
    top = re.findall(r"^## (\d+)\. ", text, re.M)
    sub = re.findall(r"^### (\d+\.\d+) ", text, re.M)
    return set(top) | set(sub)


def cited(numbers: str) -> list[str]:
    """The sections a citation's numbers name: each number, and every section inside a range
    of whole sections ("9-13")."""
    out = []
    for part in re.split(r"\s*(?:,|and|&)\s*", numbers):
        ends = NUMBER.findall(part)
        if len(ends) == 2 and "." not in ends[0] + ends[1]:
            out += [str(n) for n in range(int(ends[0]), int(ends[1]) + 1)]
        else:
            out += ends
    return out


def test_the_mathematics_is_in_the_repository_with_numbered_sections():
    assert MATH.is_file(), f"{MATH.relative_to(ROOT)} is missing: it holds the mathematics " \
                           f"the docstrings cite"
    text = _read(MATH)
    top = [int(n) for n in re.findall(r"^## (\d+)\. ", text, re.M)]
    assert top == list(range(1, len(top) + 1)), f"sections numbered {top}, not 1, 2, 3, ..."
    assert len(top) >= 8, "sections 1-8 (the frame to the notes per model) are missing"
    current, bad = 0, []
    for line in text.splitlines():
        m = re.match(r"^## (\d+)\. ", line)
        if m:
            current, expect = int(m.group(1)), 1
            continue
        m = re.match(r"^### (\d+)\.(\d+) ", line)
        if m:
            if (int(m.group(1)), int(m.group(2))) != (current, expect):
                bad.append(line)
            expect += 1
    assert not bad, "subsections out of place or out of order:\n" + "\n".join(bad)


def test_no_file_cites_the_shared_math_file():
    """Every citation says docs/math.md: the shared file is outside the repository."""
    bad = []
    for p in _files():
        text = _read(p)
        for m in STRAY.finditer(text):   # the shared file by any spelling or path
            bad.append(_where(p, text, m.start()))
    assert not bad, (f"{len(bad)} citation(s) of the shared {SHARED} (write "
                     f"docs/math.md sec. N):\n" + "\n".join(bad))


def test_every_citation_names_a_section_that_exists():
    known = sections()
    bad, n = [], 0
    for p in _files():
        text = _read(p)
        for m in CITATION.finditer(text):
            n += 1
            missing = [s for s in cited(m.group(1)) if s not in known]
            if missing:
                bad.append(f"{_where(p, text, m.start())}  (no section {', '.join(missing)})")
    assert n > 0, "found no docs/math.md citation at all: the pattern is broken"
    assert not bad, (f"{len(bad)} citation(s) of docs/math.md name sections it does not have "
                     f"(it has {sorted(known, key=lambda s: [int(x) for x in s.split('.')])}):\n"
                     + "\n".join(bad))


def test_the_citation_pattern_reads_every_form():
    """The parser itself: single sections, subsections, ranges, lists, line breaks."""
    forms = {"docs/math.md sec. 4": ["4"], "docs/math.md sec. 1.2 has": ["1.2"],
             "docs/math.md sec. 1-2)": ["1", "2"], "docs/math.md sec. 4 and 8": ["4", "8"],
             "docs/math.md sec. 4, 8)": ["4", "8"], "docs/math.md\n    sec. 11).": ["11"],
             "docs/math.md secs. 9-11": ["9", "10", "11"],
             'docs/math.md sec. 8, "the shape"': ["8"],
             "docs/math.md\n    # sec. 2": ["2"]}
    for text, want in forms.items():
        m = CITATION.search(text)
        assert m and cited(m.group(1)) == want, (text, m and m.group(1))
    assert STRAY.search("see ../shared/" + SHARED) and STRAY.search("(" + SHARED + " sec. 1)")
    assert not STRAY.search("(docs/math.md sec. 1)")
