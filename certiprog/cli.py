"""Command line: ``certiprog demo``, ``certiprog audit [paper]``, ``certiprog reproduce NAME``, ``certiprog docs``."""
from __future__ import annotations

import argparse
import sys

#: measured by benchmarks/quick_runs.py (not estimates); update with its output when the experiments change
QUICK_TIMES = """\
time of `certiprog reproduce NAME --quick`, measured by benchmarks/quick_runs.py on
2026-11-27 17:39 UTC, 2-core AMD EPYC VM (load 0.7-1.1):
  hinge-minimax   31 s wall, 37 s CPU
  mcp             10 s wall, 12 s CPU
  me2             26 s wall, 26 s CPU
  error-clumping  23 s wall, 23 s CPU
  hp-mpm           4 s wall,  4 s CPU
(the wall time grows with the machine's load: me2 took 2 min 41 s wall for 36 s CPU at load 10-12)"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="certiprog", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="solve every paper's core program on every available backend, with certificates")
    demo.add_argument("--backends", nargs="*", default=None, help="backends to use (default: all available)")
    aud = sub.add_parser("audit", help="check every formula, step and bound a paper states (claims and bounds)")
    aud.add_argument("paper", nargs="?", default=None, help="000, 001, 002, 003 or 004 (default: all)")
    aud.add_argument("--out", default="results/audit", help="folder for audit.json and audit.md")
    aud.add_argument("--no-progress", action="store_true", help="hide the progress bar (shown only on a terminal)")
    aud.add_argument("--only", nargs="+", default=None, metavar="ID", help="check only these entries (e.g. 004-E6a)")
    dcs = sub.add_parser("docs", help="build the documentation site strictly (needs the docs extra) into a folder")
    dcs.add_argument("--out", default=None, help="HTML folder (default: docs/_build/html of the checkout)")
    rep = sub.add_parser("reproduce", help="reproduce a paper's experiments (tables, CSV, plots)",
                         description="Reproduce a paper's experiments (tables, CSV, plots); --quick for a small run.",
                         epilog=QUICK_TIMES, formatter_class=argparse.RawDescriptionHelpFormatter)
    rep_sub = rep.add_subparsers(dest="experiment", required=True)
    from certiprog.experiments import experiments, load, runner

    for name, exp in experiments().items():
        p = rep_sub.add_parser(name, help=exp.help)
        p.set_defaults(_experiment=name)
        try:
            module = load(name)
            if runner.is_task_experiment(module):  # the shared options: --out --executor --jobs --shard ...
                runner.add_arguments(p)
            module.add_arguments(p)
        except ImportError as exc:  # an experiment whose optional packages are missing still lists itself
            p.set_defaults(_import_error=str(exc))
    args = parser.parse_args(argv)
    if args.command == "reproduce":
        if getattr(args, "_import_error", None):
            print(f"certiprog reproduce {args.experiment}: {args._import_error}", file=sys.stderr)
            return 2
        from certiprog.errors import CertiprogError

        module = load(args._experiment)
        try:
            if runner.is_task_experiment(module):
                done = runner.reproduce(module, args, args.experiment)
                paths, run_report = done.paths, done.report
            else:
                paths, run_report = module.run(args), None
        except CertiprogError as exc:
            print(f"certiprog reproduce {args.experiment}: {exc}", file=sys.stderr)
            return 2
        print(next(iter(paths.values())).read_text())
        if run_report is not None:
            merged = f"merged {done.merged['copied']} result(s); " if done.merged else ""
            print(f"tasks: {merged}{len(run_report.computed)} computed, {len(run_report.reused)} reused from "
                  f"{done.store.folder} ({run_report.executor}, {run_report.wall_time_s:.1f} s)")
        print("wrote " + ", ".join(str(p) for p in paths.values()))
        return 0
    if args.command == "docs":  # the site's sources live in the checkout's docs/, beside this package
        import runpy
        from pathlib import Path

        script = Path(__file__).resolve().parents[1] / "docs" / "build.py"
        if not script.is_file():
            print(f"certiprog docs: {script} not found; build the site from a checkout (pip install -e .)",
                  file=sys.stderr)
            return 2
        build = runpy.run_path(str(script))["build"]
        return build(args.out)
    if args.command == "demo":
        from certiprog.demo import report

        text, code = report(args.backends)  # the table, the backends skipped and why, why a row failed
        print(text, file=sys.stderr if code == 2 else sys.stdout)
        return code
    if args.command == "audit":
        from certiprog.audit.report import audit, table, write_reports
        from certiprog.errors import CertiprogError

        try:
            results = audit(args.paper, progress=False if args.no_progress else None, ids=args.only)
        except CertiprogError as exc:
            print(f"certiprog audit: {exc}", file=sys.stderr)
            return 2
        print(table(results))
        js, md = write_reports(results, args.out)
        print(f"reports: {js} and {md}")
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
