"""Template source checks that no page test would catch everywhere.

Django's `{# ... #}` comment is one line only: a `{#` whose `#}` is on a later line is
not a comment but text, and the page shows it (issue 22: the collection log showed
"{# 4 CCR 12385 gives counting the drop ..."). A multi-line comment is
`{% comment %} ... {% endcomment %}`. The check tokenizes every template with Django's
own lexer, so what counts as a comment is exactly what Django treats as one.
"""

from pathlib import Path

from django.conf import settings
from django.template.base import Lexer, TokenType


def template_files() -> list[Path]:
    roots = [Path(d) for engine in settings.TEMPLATES for d in engine.get("DIRS", [])]
    roots += [Path(settings.BASE_DIR) / app / "templates" for app in ("cardroom", "tables", "rounds", "collections_fees")]
    files = sorted(f for root in roots if root.is_dir() for f in root.rglob("*.html"))
    assert files, "no template found: the scan would prove nothing"
    return files


def unclosed_comments(source: str) -> list[str]:
    """The text tokens that carry a `{#`: a comment Django did not recognise."""
    return [t.contents.strip()[:60] for t in Lexer(source).tokenize()
            if t.token_type == TokenType.TEXT and "{#" in t.contents]


def test_the_scan_sees_a_multi_line_comment():
    assert unclosed_comments("a {# one line #} b") == []
    assert unclosed_comments("a {# two\nlines #} b") == ["a {# two\nlines #} b"]


def test_no_template_has_a_multi_line_hash_comment():
    found = {str(f.relative_to(settings.BASE_DIR)): unclosed_comments(f.read_text()) for f in template_files()}
    assert {f: c for f, c in found.items() if c} == {}
