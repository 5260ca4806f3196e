"""The repository's docs stand on their own (issue 20, item 6): a clone has no sibling
folder of specifications, so no tracked file may point at one, every relative link in the
Markdown docs names a file the repository tracks, and the rules and the command language
the code cites are in docs/ itself."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Spelled in pieces, so that this file does not match itself.
OUTSIDE = [".." + "/shared", "shared" + "/spec", "shared" + "/reference", "/work" + "/shared"]
LINK = re.compile(r"\]\(([^)\s]+)\)|href=\"([^\"]+)\"")


def tracked() -> list[str]:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not files:
        pytest.skip("not a git checkout (an exported tree): nothing to list")
    return files


def text_of(name: str) -> str | None:
    try:
        return (ROOT / name).read_text(encoding="utf-8")
    except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
        return None


def test_no_tracked_file_points_outside_the_repository_to_the_spec():
    found = [
        f"{name}:{number}: {line.strip()}"
        for name in tracked()
        if (text := text_of(name)) is not None
        for number, line in enumerate(text.splitlines(), 1)
        if any(mark in line for mark in OUTSIDE)
    ]
    assert found == []


def test_every_relative_link_of_the_docs_names_a_tracked_file():
    files = set(tracked())
    broken = []
    for name in files:
        if not name.endswith(".md"):
            continue
        for match in LINK.finditer(text_of(name) or ""):
            target = (match.group(1) or match.group(2)).split("#")[0]
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
                continue  # a web address, a mail address, a path of the served site, or a local anchor
            resolved = (ROOT / name).parent.joinpath(target).resolve()
            inside = resolved.is_relative_to(ROOT)
            path = resolved.relative_to(ROOT).as_posix() if inside else str(resolved)
            if not inside or not (path in files or any(f.startswith(path + "/") for f in files)):
                broken.append(f"{name}: {target}")
    assert broken == []


def test_the_rules_and_the_commands_the_code_cites_are_in_docs():
    cited = {m for name in tracked() for m in re.findall(r"docs/[\w-]+\.md", text_of(name) or "")}
    assert {"docs/game-rules.md", "docs/commands.md"} <= cited
    assert sorted(c for c in cited if not (ROOT / c).is_file()) == []
