"""The user's guide (docs/guide.md): every picture it shows is in docs/guide/ and is one
the browser tests take (`make guide` copies it from their artifacts), and the README
links the guide. A picture renamed in a test, or dropped from the Makefile, fails here."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_picture_of_the_guide_exists_and_make_guide_renews_it():
    guide = (ROOT / "docs/guide.md").read_text(encoding="utf-8")
    pictures = re.findall(r"!\[[^\]]+\]\((guide/[^)]+\.png)\)", guide)
    assert len(pictures) >= 8
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    tests = " ".join((ROOT / path).read_text(encoding="utf-8")
                     for path in re.search(r"GUIDE_TESTS := (.*?)\nGUIDE_SHOTS", makefile, re.S).group(1).replace("\\", " ").split())
    for picture in pictures:
        path = ROOT / "docs" / picture
        assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", picture
        name = Path(picture).stem
        assert name in makefile, f"{name}: `make guide` does not renew it"
    for shot in re.search(r"GUIDE_SHOTS := (.*?)\nguide:", makefile, re.S).group(1).replace("\\", " ").split():
        assert f'"{shot}.png"' in tests, f"{shot}: no test of GUIDE_TESTS takes it"
    assert "](docs/guide.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
