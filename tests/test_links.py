"""Every relative link of the front door and the docs resolves (issue 39).

Each Markdown link or image ``[text](target)`` / ``![alt](target)`` in README.md,
CHANGELOG.md and docs/*.md whose target is relative (not ``http(s):``, ``mailto:`` or a bare
``#anchor``) must name a file or folder that exists, relative to the page. An anchor after
``#`` into a Markdown page must be one of that page's headings, as GitHub spells it (lower
case, punctuation other than ``-`` and ``_`` dropped, spaces as ``-``); a bare ``#anchor``
is checked against the page itself. Links inside code blocks and inline code are not links.
Plain file reading: instant.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


def _prose(text: str) -> str:
    """The text without code blocks and inline code (kept line for line)."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return INLINE_CODE.sub(lambda m: " " * len(m.group(0)), text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]{1,2}(?=\S)|(?<=\S)[`*_]{1,2}", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The page's headings' anchors, as GitHub spells them: a heading's inline code is part
    of it (``## The chain: `session``` is ``#the-chain-session``); code blocks are not."""
    out: set[str] = set()
    seen: dict[str, int] = {}
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), page.read_text(encoding="utf-8"))
    for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M):
        s = slug(m.group(1))
        n = seen.get(s, 0)
        out.add(s if n == 0 else f"{s}-{n}")
        seen[s] = n + 1
    return out


def broken_links(page: Path) -> list[str]:
    """Each broken relative link of ``page`` as ``file:line: target (why)``."""
    text = _prose(page.read_text(encoding="utf-8"))
    where = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    out = []
    for m in LINK.finditer(text):
        target = m.group(1)
        if EXTERNAL.match(target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        line = text.count("\n", 0, m.start()) + 1
        if not dest.exists():
            out.append(f"{where}:{line}: {target} (no such file)")
        elif anchor and dest.suffix == ".md" and dest.is_file() and anchor not in anchors(dest):
            out.append(f"{where}:{line}: {target} (no heading #{anchor} in {dest.name})")
    return out


def test_every_relative_link_and_image_resolves():
    broken = [b for page in pages() if page.exists() for b in broken_links(page)]
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_front_door_pages_exist_and_link_somewhere():
    assert (ROOT / "CHANGELOG.md").exists()
    readme = _prose((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(LINK.findall(readme)) >= 10


def test_a_planted_broken_link_is_caught(tmp_path):
    (tmp_path / "there.md").write_text("# A heading, with: punctuation\n\ntext\n")
    (tmp_path / "img.png").write_bytes(b"")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n"
        "[ok](there.md) [ok anchor](there.md#a-heading-with-punctuation) ![ok](img.png)\n"
        "[self](#page) [web](https://example.org/missing.md) `[code](missing.md)`\n"
        "```\n[fenced](missing.md)\n```\n"
        "[gone](missing.md) ![gone](images/missing.png) [bad anchor](there.md#nope)\n"
        "[bad self](#nowhere)\n")
    broken = broken_links(page)
    assert [b.split(": ", 1)[1] for b in broken] == [
        "missing.md (no such file)", "images/missing.png (no such file)",
        "there.md#nope (no heading #nope in there.md)", "#nowhere (no heading #nowhere in page.md)"]
    assert broken[0].startswith(f"{page}:8: ") and broken[-1].startswith(f"{page}:9: ")
