"""How long a new user waits for every paper's quick reproduction (issue 23 item 5: at most 2 minutes on 2 cores).

Runs ``certiprog reproduce NAME --quick`` for every registered experiment, exactly as a new user types it (default
options, outputs in a temporary folder that is deleted afterwards), one at a time, each in a fresh process, and
prints per paper: wall seconds, CPU seconds (user + system of the run and every process it waited for, e.g. its
joblib workers: ``os.wait4``), peak resident memory, the exit status, the 1-minute load average before and after
(the machine may be shared: a load above the number of cores stretches the wall time, not the CPU time) and whether
the wall time is over the limit. The header names the date, the machine and its cores.

    python benchmarks/quick_runs.py [--only me2 mcp] [--limit 120] [--timeout 900] [--extra=--jobs=2]
                                    [--out quick_runs.json]

The numbers quoted in README.md and in ``certiprog reproduce --help`` come from this script.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time


def machine() -> str:
    """``host, CPU model, N cores`` of this machine."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            names = [line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")]
        model = names[0] if names else model
    except OSError:
        pass
    return f"{platform.node()}, {model}, {os.cpu_count()} cores"


def command() -> list:
    """The ``certiprog`` command of this environment (the console script beside this interpreter, else PATH's)."""
    here = os.path.join(os.path.dirname(sys.executable), "certiprog")
    found = here if os.path.exists(here) else shutil.which("certiprog")
    if found is None:
        raise SystemExit("certiprog is not installed in this environment (pip install -e .)")
    return [found]


def run_one(name: str, extra: list, limit: float, timeout: float) -> dict:
    """``certiprog reproduce name --quick *extra`` in a fresh process in a temporary folder: its figures (a run
    still going after ``timeout`` seconds is stopped, with its process group, and reported as such)."""
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryFile("w+") as log:
        load0 = os.getloadavg()[0]
        t0 = time.perf_counter()
        proc = subprocess.Popen(command() + ["reproduce", name, "--quick", *extra], cwd=tmp, stdout=log,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        stopped = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                os.killpg(proc.pid, 15)
                stopped = True
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.5)
        wall = time.perf_counter() - t0
        log.seek(0)
        out = log.read()
    return dict(name=name, wall_s=wall, cpu_s=usage.ru_utime + usage.ru_stime, peak_rss_mb=usage.ru_maxrss / 1024,
                exit=os.waitstatus_to_exitcode(status), stopped=stopped, load_before=load0,
                load_after=os.getloadavg()[0], over=wall > limit,
                tail=out.strip().splitlines()[-3:] if out.strip() else [])


def _fmt(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{int(s // 60)} min {s % 60:02.0f} s"


def main(argv=None) -> list:
    from certiprog.experiments import experiments

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", default=None, help="these experiments only (default: all)")
    ap.add_argument("--limit", type=float, default=120.0, help="the wall-time limit in seconds (issue 23: 2 min)")
    ap.add_argument("--timeout", type=float, default=900.0, help="stop a run after this many seconds")
    ap.add_argument("--extra", action="append", default=[], help="an extra option for every run, e.g. --extra=--jobs=2")
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    args = ap.parse_args(argv)
    names = list(experiments()) if args.only is None else args.only
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"# certiprog reproduce NAME --quick {' '.join(args.extra)}: one at a time, each in a fresh process\n")
    print(f"{when}; {machine()}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}\n")
    print("| experiment | wall | CPU (user + sys) | peak RSS | exit | load avg before / after | over "
          f"{_fmt(args.limit)} |\n|---|---|---|---|---|---|---|")
    rows = []
    for name in names:
        r = run_one(name, args.extra, args.limit, args.timeout)
        rows.append(r)
        ended = f"stopped at {_fmt(args.timeout)}" if r["stopped"] else r["exit"]
        print(f"| {name} | {_fmt(r['wall_s'])} | {_fmt(r['cpu_s'])} | {r['peak_rss_mb']:.0f} MB | {ended} | "
              f"{r['load_before']:.1f} / {r['load_after']:.1f} | {'OVER' if r['over'] else 'no'} |", flush=True)
    over = [r["name"] for r in rows if r["over"]]
    failed = [r["name"] for r in rows if r["exit"] != 0]
    print(f"\nover the limit: {', '.join(over) or 'none'}; failed: {', '.join(failed) or 'none'}")
    for r in rows:
        if r["exit"] != 0:
            print(f"\n{r['name']} ended with {r['exit']}:\n  " + "\n  ".join(r["tail"]))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(dict(date=when, machine=machine(), extra=args.extra, runs=rows), fh, indent=1)
    return rows


if __name__ == "__main__":
    main()
