"""Command line: ``certiprog demo`` and ``certiprog audit [paper]``."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="certiprog", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="solve every paper's core program on every available backend, with certificates")
    demo.add_argument("--backends", nargs="*", default=None, help="backends to use (default: all available)")
    aud = sub.add_parser("audit", help="check every formula, step and bound a paper states")
    aud.add_argument("paper", nargs="?", default=None, help="000, 001, 002, 003 or 004 (default: all)")
    aud.add_argument("--out", default="results/audit", help="folder for audit.json and audit.md")
    aud.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import format_table, run_demo

        rows = run_demo(args.backends)
        print(format_table(rows))
        bad = [r for r in rows if r["status"] not in ("optimal", "inaccurate")]
        return 1 if bad else 0
    if args.command == "audit":
        from .certificates.claims import audit, table, write_reports

        results = audit(args.paper, progress=not args.no_progress)
        print(table(results))
        js, md = write_reports(results, args.out)
        print(f"reports: {js} and {md}")
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
