"""The built documentation site, opened as a person would: headless Chromium renders the index and an API page.

Needs the site built (``certiprog docs``, which .ci/run does before the tests) and Debian's Chromium
(``apt-get install chromium``); skips, saying which is missing, otherwise. The screenshots are kept in
``docs/_build/screenshots`` to be looked at.
"""
from __future__ import annotations

import importlib.util
import re
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "docs" / "_build" / "html"
SHOTS = ROOT / "docs" / "_build" / "screenshots"


def _screenshot_module():
    spec = importlib.util.spec_from_file_location("docs_screenshot", ROOT / "docs" / "screenshot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


shot = _screenshot_module()
pytestmark = [
    pytest.mark.skipif(not (SITE / "index.html").is_file(),
                       reason=f"the site is not built ({SITE / 'index.html'} is absent): run certiprog docs"),
    pytest.mark.skipif(shot.chromium() is None, reason="no chromium on PATH (apt-get install chromium)"),
]


def png_rows(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and the unfiltered-enough scanlines of an 8-bit RGB(A) PNG (for a coarse look at its pixels)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big"), \
                body[8], body[9]
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * channels + 1
    return width, height, [raw[i * stride + 1:(i + 1) * stride] for i in range(height)]


def distinct_bytes(path: Path) -> int:
    """How many distinct byte values the image's rows hold: a blank (one-colour) page has very few."""
    _, _, rows = png_rows(path)
    return len(set(b"".join(rows[:: max(1, len(rows) // 50)])))


@pytest.mark.parametrize("page, must_show", [
    ("index.html", ["Getting started", "User guide", "API reference", "Tutorials", "The papers"]),
    ("api/generated/certiprog.Model.html", ["certiprog.Model", "solve", "add"]),
])
def test_page_renders_in_chromium(page, must_show):
    """Chromium renders the page (its DOM after the scripts ran has the navigation and the content) and a
    screenshot of it is a real picture, not a blank or error page."""
    dom = shot.rendered_dom(SITE / page)
    text = re.sub(r"<[^>]+>", " ", dom)
    for words in must_show:
        assert words in text, f"{page}: '{words}' not rendered"
    assert "bd-header" in dom and "bd-main" in dom  # the theme's layout loaded
    png = shot.screenshot(SITE / page, SHOTS / (page.replace("/", "_").removesuffix(".html") + ".png"))
    width, height, _ = png_rows(png)
    assert (width, height) == (1400, 1000)
    assert distinct_bytes(png) > 20


def test_every_api_name_and_tutorial_has_a_built_page():
    """The strict build produced a page per public name and per notebook, and the paper pages show their figures."""
    import importlib

    for module in ("certiprog", "certiprog.audit", "certiprog.certify", "certiprog.estimators",
                   "certiprog.formulations", "certiprog.solvers"):
        mod = importlib.import_module(module)
        for name in mod.__all__:
            own = SITE / "api" / "generated" / f"{module}.{name}.html"
            assert own.is_file() or any((SITE / "api" / "generated").glob(f"*.{name}.html")), f"{module}.{name}"
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        html = (SITE / "tutorials" / "notebooks" / f"{nb.stem}.html").read_text()
        assert "cell_output" in html, f"{nb.name} rendered without outputs"
    for pid in ("000", "001", "002", "003", "004"):
        html = (SITE / "papers" / f"{pid}.html").read_text()
        assert html.count("<img") >= 1, f"papers/{pid}.html shows no figure"
        assert "Derivations and the errors found in the paper" in html and "The reproduction" in html
