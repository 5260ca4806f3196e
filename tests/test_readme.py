"""The README is what a newcomer reads in five minutes (issue 36 item 7): at most 150
lines, the two set-up commands, and a map of the docs in which every link leads somewhere.
The docs' own relative links resolve too, so nothing moved out of the README is lost."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def relative_links(path: Path) -> list[str]:
    return [t for t in LINK.findall(path.read_text(encoding="utf-8")) if not re.match(r"[a-z]+:", t)]


def test_the_readme_is_short_and_gives_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert "```sh\nmake run\n```" in text and "```sh\nmake test\n```" in text
    assert "## Deal one round" in text  # how to deal a round, not only how to install


def test_every_link_of_the_readme_and_the_docs_leads_to_a_file():
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in relative_links(page):
            if not (page.parent / target).resolve().exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_the_readme_maps_every_doc():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {Path(t).name for t in relative_links(ROOT / "README.md")}
    assert {p.name for p in (ROOT / "docs").glob("*.md")} <= linked
