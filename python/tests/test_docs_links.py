"""The documentation's links resolve, and the README stays a front page.

Every relative link ``[text](target)`` in README.md, docs/*.md and the
other READMEs must name a file or folder of the repository, and a
``#fragment`` must name a heading of the page it points to (GitHub's
anchors: the heading's text in lower case, punctuation dropped, spaces as
hyphens). Links inside fenced code blocks are not links. Issue 40: the
README is at most 15 KB and starts with the two commands a newcomer runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

README_LIMIT = 15 * 1024
FIRST_COMMANDS = (
    "cargo run --release -- run examples/rnn.sexp --gen --dim T=500",
    "./run-tests",
)

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def pages() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "benches" / "RESULTS.md"]
    found += sorted((ROOT / "docs").glob("*.md"))
    found += [ROOT / "rules" / "README.md", ROOT / "tests" / "cases" / "README.md"]
    return [p for p in found if p.is_file()]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, with their line numbers."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, line))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose_lines(page.read_text(encoding="utf-8")):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(page: Path) -> list[tuple[int, str]]:
    out = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        # Inline code is not a link either.
        line = re.sub(r"`[^`]*`", "", line)
        out += [(number, m.group(1)) for m in LINK.finditer(line)]
    return out


def test_the_pages_exist():
    names = {p.relative_to(ROOT).as_posix() for p in pages()}
    assert "README.md" in names and "benches/RESULTS.md" in names
    assert any(n.startswith("docs/") for n in names)


def test_slug_follows_github():
    assert slug("Generated inputs (`--gen`)") == "generated-inputs---gen"
    assert slug("How `from_pytensor` converts Scan") == "how-from_pytensor-converts-scan"
    assert slug("Trust: what an optimized program computes") == (
        "trust-what-an-optimized-program-computes"
    )


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page: Path):
    broken = []
    for number, target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        where = f"{page.relative_to(ROOT)}:{number}: {target}"
        if not dest.exists():
            broken.append(f"{where}: no such file")
        elif not dest.is_relative_to(ROOT):
            broken.append(f"{where}: outside the repository")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            broken.append(f"{where}: no heading #{fragment} in {dest.relative_to(ROOT)}")
    assert not broken, "\n".join(broken)


def test_links_found_where_written():
    # The checker sees the README's links to docs (a regex that matched
    # nothing would pass every page).
    targets = [t for _, t in links(ROOT / "README.md")]
    assert "docs/language.md" in targets and "benches/RESULTS.md" in targets


def test_readme_is_a_front_page():
    readme = ROOT / "README.md"
    size = readme.stat().st_size
    assert size <= README_LIMIT, f"README.md is {size} bytes, more than {README_LIMIT}"
    text = readme.read_text(encoding="utf-8")
    first_block = text.split("```sh", 1)[1].split("```", 1)[0]
    for command in FIRST_COMMANDS:
        assert command in first_block, f"README's first commands lack {command!r}"
