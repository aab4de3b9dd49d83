"""Re-make the figures shown on the paper pages: ``python docs/make_figures.py [--store DIR] [NAME ...]``.

For every experiment of every paper (or the NAMEs given), runs ``certiprog reproduce NAME --quick --out
STORE/NAME`` and copies the figures it wrote (``*.png``) to ``docs/papers/figures/NAME/``, with
``provenance.json``: the command, the commit it ran at, the date, its wall time and the files. The site shows
these committed images (``papers/NNN.md``) instead of re-running the experiments at every build: the quick runs
together take minutes (measured 2026-11-27 on the 2-core machine under load 8-12: hinge-minimax 267 s, me2 389 s,
error-clumping 53 s, mcp 11 s, hp-mpm 4 s), more than the CI budget allows next to the test suite. The runner
resumes from STORE, so a second call with the same ``--store`` and unchanged code only copies.
"""
from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
FIGURES = DOCS / "papers" / "figures"


def commit() -> str:
    """The repository's HEAD commit (with ``+dirty`` when tracked files under certiprog/ are modified)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "certiprog"], cwd=ROOT, capture_output=True,
                           text=True)
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def make(name: str, store: Path) -> dict:
    """Run the quick reproduction of ``name`` into ``store / name`` and copy its figures; returns the provenance."""
    out = store / name
    cmd = ["certiprog", "reproduce", name, "--quick", "--out", str(out), "--no-progress"]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "certiprog.cli", *cmd[1:]], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    target = FIGURES / name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    files = sorted(p.name for p in out.glob("*.png"))
    for f in files:
        shutil.copyfile(out / f, target / f)
    record = {"command": " ".join(cmd[:4]), "commit": commit(),
              "date": datetime.date.today().isoformat(), "wall_s": round(wall, 1), "files": files}
    (target / "provenance.json").write_text(json.dumps(record, indent=1) + "\n")
    return record


def main(argv=None) -> int:
    from certiprog.papers import papers

    names = [e.name for p in papers().values() for e in p.experiments]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=names, help=f"experiments (default: all of {names})")
    parser.add_argument("--store", default=None, help="the runner's store (default: a temporary folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(args.store) if args.store else Path(tmp)
        for name in args.names:
            rec = make(name, store)
            print(f"{name}: {len(rec['files'])} figure(s) in {rec['wall_s']} s at {rec['commit']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
