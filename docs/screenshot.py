"""Screenshots of the built site in headless Chromium: ``python docs/screenshot.py [--out DIR] [PAGE ...]``.

Opens pages of ``docs/_build/html`` (default: the index and the API page of ``certiprog.Model``) as a person
would, in Debian's Chromium (``apt-get install chromium``), and saves one PNG per page. Chromium runs with no
network, no sync, no first-run dialogs and a fresh profile in a temporary folder.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
SITE = DOCS / "_build" / "html"
DEFAULT_PAGES = ("index.html", "api/generated/certiprog.Model.html")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic", "--hide-scrollbars")


def chromium() -> str | None:
    """The Chromium executable on PATH (Debian's ``chromium``), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(args: list[str], profile: str, timeout: float) -> subprocess.CompletedProcess:
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("no chromium on PATH: apt-get install chromium")
    return subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=timeout)


def screenshot(page: Path, png: Path, size=(1400, 1000), timeout: float = 120) -> Path:
    """Save a ``size`` screenshot of the local HTML file ``page`` to ``png``."""
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        done = _run([f"--window-size={size[0]},{size[1]}", f"--screenshot={png}", page.resolve().as_uri()],
                    profile, timeout)
    if not png.is_file():
        raise RuntimeError(f"chromium wrote no screenshot of {page}: {done.stderr[-2000:]}")
    return png


def rendered_dom(page: Path, timeout: float = 120) -> str:
    """The page's DOM after Chromium ran its scripts (``--dump-dom``)."""
    with tempfile.TemporaryDirectory() as profile:
        done = _run(["--dump-dom", page.resolve().as_uri()], profile, timeout)
    return done.stdout


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", default=list(DEFAULT_PAGES), help="pages relative to the site folder")
    parser.add_argument("--site", default=str(SITE), help="the built site (default docs/_build/html)")
    parser.add_argument("--out", default=str(DOCS / "_build" / "screenshots"), help="folder for the PNGs")
    args = parser.parse_args(argv)
    for rel in args.pages:
        png = Path(args.out) / (rel.replace("/", "_").removesuffix(".html") + ".png")
        print(screenshot(Path(args.site) / rel, png))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
