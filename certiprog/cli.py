"""Command line: ``certiprog demo`` (more subcommands join as the project grows)."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="certiprog", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="solve every paper's core program on every available backend")
    demo.add_argument("--backends", nargs="*", default=None, help="backends to use (default: all available)")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import format_table, run_demo

        rows = run_demo(args.backends)
        print(format_table(rows))
        bad = [r for r in rows if r["status"] not in ("optimal", "inaccurate")]
        return 1 if bad else 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
