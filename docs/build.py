"""Build certiprog's documentation site, strictly: ``python docs/build.py [--out DIR]`` (or ``certiprog docs``).

Runs ``sphinx-build -W --keep-going -n -b html docs DIR``: any warning (a broken cross-reference, a public name
without a docstring, a notebook that fails, a quick reproduction that fails) fails the build. The HTML goes to
``docs/_build/html`` by default; open its ``index.html``. Needs the ``docs`` extra (``pip install -e ".[docs]"``).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
DEFAULT_OUT = DOCS / "_build" / "html"


def build(out=None, *, jobs: str = "1") -> int:
    """Build the site into ``out`` (default ``docs/_build/html``); returns sphinx-build's exit code."""
    try:
        import myst_nb  # noqa: F401
        import numpydoc  # noqa: F401
        import pydata_sphinx_theme  # noqa: F401
        import sphinx  # noqa: F401
    except ImportError as exc:
        print(f"certiprog docs: {exc.name} is missing; install the docs extra: pip install -e \".[docs]\"",
              file=sys.stderr)
        return 2
    out = Path(out) if out else DEFAULT_OUT
    # the generated sources (API pages, notebook copies, module tables, figure fragments) are written before
    # Sphinx starts, so that its discovery and autosummary's stub generation see them on a clean checkout (written
    # only at builder-inited, a fresh clone's API pages were found but their stubs were never generated)
    sys.path.insert(0, str(DOCS / "_ext"))
    import certiprog_site

    certiprog_site.write_api_pages()
    certiprog_site.copy_notebooks()
    certiprog_site.write_module_tables()
    certiprog_site.write_figure_fragments()
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-j", jobs, "-b", "html", str(DOCS), str(out)]
    start = time.perf_counter()
    code = subprocess.call(cmd)
    took = time.perf_counter() - start
    if code == 0:
        print(f"site built in {took:.0f} s: open {out / 'index.html'}")
    else:
        print(f"certiprog docs: the strict build failed after {took:.0f} s (warnings are errors; see above)",
              file=sys.stderr)
    return code


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help=f"HTML folder (default {DEFAULT_OUT})")
    return build(parser.parse_args(argv).out)


if __name__ == "__main__":
    raise SystemExit(main())
