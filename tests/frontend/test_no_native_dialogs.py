"""No page asks through the browser's own dialogs (issue 35, item 5): `window.prompt`,
`confirm` and `alert` block the page, cannot be styled for a tablet, and a finger dismisses
them by accident. Every question is a dialog in the page (keyboard and touch)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A call of the global function (window.prompt(...), confirm(...)); not a method of the
# same name on an object (`dialog.confirm(`) nor the word in a comment's prose.
NATIVE = re.compile(r"(?<![\w.$])(?:window\.)?(prompt|confirm|alert)\s*\(")
COMMENT = re.compile(r"^\s*(//|\*|/\*|\{#)")


def native_calls() -> list[str]:
    found = []
    for folder, pattern in (("static", "*.js"), ("templates", "*.html")):
        for path in sorted((ROOT / folder).rglob(pattern)):
            if "vendor" in path.parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if NATIVE.search(line) and not COMMENT.match(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_no_page_uses_the_browsers_own_dialogs():
    assert native_calls() == []


def test_the_scan_finds_a_native_prompt():
    """The scan itself can fail: a prompt written the ways the floor once did is found."""
    for text in ('const why = window.prompt("Why?");', 'if (confirm("Sure?")) go();', "alert('done')"):
        assert NATIVE.search(text), text
    for text in ("dialog.confirm(answer)", "$confirm(x)", "// never window.prompt( here"):
        assert not NATIVE.search(text) or COMMENT.match(text), text
