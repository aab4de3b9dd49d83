"""Table 2 / 3 beside the paper's numbers: the summary rows, the Markdown report, table.csv, the accuracy plot and
results.json.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np

from certiprog.errors import InputError
from certiprog.experiments.kit import output_folder, row, rule, write_csv, write_json

from .config import METHODS, MISSING_NOTE, PAPER_PROPORTIONS

log = logging.getLogger(__name__)


def summarise(result: dict) -> list[dict]:
    """One row per (data set, proportion, method): mean/std test accuracy (percent), the paper's number, the
    worst-case bounds next to the test error, and how often the nu grid had to be extended."""
    from certiprog.formulations.hp_mpm_paper.tables import paper_accuracy

    kernel = bool(result["config"]["kernel"])
    groups: dict = {}
    for r in result["records"]:
        groups.setdefault((r["dataset"], r["proportion"]), []).append(r)
    rows = []
    for (name, p), recs in groups.items():
        for method in METHODS:
            acc = np.array([np.nan if r[method]["test_acc"] is None else r[method]["test_acc"] for r in recs])
            ok = acc[np.isfinite(acc)] * 100
            row = dict(dataset=name, proportion=p, method=method, kernel=kernel, n_partitions=len(recs),
                       n_failed=int(np.sum(~np.isfinite(acc))),
                       mean=float(ok.mean()) if ok.size else None,
                       std=float(ok.std(ddof=1)) if ok.size > 1 else (0.0 if ok.size else None),
                       paper=paper_accuracy(name, method, p, kernel=kernel))
            row["diff"] = None if row["mean"] is None or row["paper"] is None else row["mean"] - row["paper"]
            if method in ("MPM", "HP-MPM"):
                bounds = [r[method].get("bound") for r in recs if r[method].get("bound") is not None
                          and r[method]["test_acc"] is not None]
                errs = [1 - r[method]["test_acc"] for r in recs if r[method]["test_acc"] is not None
                        and r[method].get("bound") is not None]
                row["bound_mean"] = float(np.mean(bounds)) if bounds else None
                row["test_error_mean"] = float(np.mean(errs)) if errs else None
                row["bound_holds"] = int(np.sum(np.array(bounds) >= np.array(errs))) if bounds else None
            if method == "HP-MPM":
                row["grid_extended"] = int(sum(bool(r[method].get("grid_extended")) for r in recs))
                nu1 = [r[method]["bound_nu1"] for r in recs if r[method].get("bound_nu1") is not None]
                row["bound_nu1_mean"] = float(np.mean(nu1)) if nu1 else None
                nus = [r[method]["params"]["nu"] for r in recs if r[method].get("params")]
                row["nu_median"] = float(np.median(nus)) if nus else None
            rows.append(row)
    return rows


CSV_FIELDS = ("dataset", "kernel", "proportion", "method", "n_partitions", "n_failed", "mean", "std", "paper", "diff",
              "bound_mean", "test_error_mean", "bound_holds", "bound_nu1_mean", "grid_extended", "nu_median", "status")


def _fmt(v, spec=".2f"):
    return "" if v is None or (isinstance(v, float) and not np.isfinite(v)) else format(v, spec)


def format_table(result: dict, rows: list[dict]) -> str:
    """The Markdown report: one table per data set (methods x proportions, 'ours ± std (paper)'), the HP-MPM and
    MPM worst-case bounds beside their test errors, the nu-grid notes and the missing data sets."""
    from certiprog.datasets import DATASETS_004, MISSING_004

    cfg, meta = result["config"], result["meta"]
    table_no = 3 if cfg["kernel"] else 2
    radius = "1" if cfg["kernel"] else "the largest training norm"
    out = [f"# Paper 004, Table {table_no} ({'Gaussian kernel' if cfg['kernel'] else 'linear'}): our runs beside "
           "the paper's", "",
           f"Mean test accuracy (%) ± std over {cfg['partitions']} random partition(s) per cell, paper's value in "
           f"parentheses (50 partitions, no std published). Validation fraction {cfg['validation']}, "
           f"delta = {cfg['delta']}, R = {radius}, backend {cfg['backend'] or 'chosen by certiprog'}, "
           f"seed {cfg['seed']}"
           f"{', QUICK grids' if cfg['quick'] else ''}. Wall time {meta['wall_time_s']:.1f} s for "
           f"{meta['n_tasks']} tasks ({_run_note(cfg, meta)}).", ""]
    by_set: dict = {}
    for r in rows:
        by_set.setdefault(r["dataset"], []).append(r)
    for name, rs in by_set.items():
        info = DATASETS_004[name]
        props = sorted({r["proportion"] for r in rs})
        cell = {(r["method"], r["proportion"]): r for r in rs}
        out += [f"## {info.paper_name}" + (f" ({info.note})" if info.note else ""), "",
                row("method", *(f"{p:g}" for p in props)), rule(1 + len(props))]
        for m in METHODS:
            vals = []
            for p in props:
                r = cell[(m, p)]
                txt = "failed" if r["mean"] is None else f"{r['mean']:.2f} ± {r['std']:.2f}"
                if r["n_failed"] and r["mean"] is not None:
                    txt += f" [{r['n_failed']} failed]"
                vals.append(txt + (f" ({r['paper']:.2f})" if r["paper"] is not None else ""))
            out.append(row(m, *vals))
        for m, label in (("HP-MPM", "HP-MPM bound 1-α* / test error"), ("MPM", "MPM bound 1-α* / test error")):
            out.append(row(label, *(f"{_fmt(cell[(m, p)]['bound_mean'], '.3f')} / "
                                    f"{_fmt(cell[(m, p)]['test_error_mean'], '.3f')}" for p in props)))
        out.append(row("HP-MPM bound at ν = 1 (the valid one)",
                       *(_fmt(cell[("HP-MPM", p)]["bound_nu1_mean"], ".3f") for p in props)))
        out.append(row("ν grid (median ν chosen)", *(
            ("extended " + f"{cell[('HP-MPM', p)]['grid_extended']}/{cell[('HP-MPM', p)]['n_partitions']}"
             if cell[("HP-MPM", p)]["grid_extended"] else "paper")
            + f" ({_fmt(cell[('HP-MPM', p)]['nu_median'], '.2g')})" for p in props)))
        out.append("")
    out += ["## Not run", ""]
    for key, label in MISSING_004.items():
        out.append(f"- {label}: {MISSING_NOTE}")
    out += ["", "Notes: 'extended k/n' = in k of n partitions no ν of the paper's grid gave κ* > 0, and ν was "
            "chosen from ν_max × the paper's fractions instead. "
            "Adult is compared with Table 5's m = 5000 row (linear only). bHP-MPM has paper numbers only there "
            "and in Table 4 (German, kernel). Bounds are means over partitions of 1/(1+κ*²) at the chosen "
            "parameter (HP-MPM with ν < 1 is no longer a valid high-probability bound, paper Sec. 6).", ""]
    return "\n".join(out)


def _run_note(cfg: dict, meta: dict) -> str:
    note = f"{meta.get('executor', 'loky')}, n_jobs = {meta.get('jobs', cfg['n_jobs'])}"
    if meta.get("n_reused"):
        note += f"; {meta['n_reused']} reused from {meta.get('store', 'the store')}, " \
                f"{meta.get('task_seconds', 0.0):.1f} s of task time in all"
    return note


def write_outputs(result: dict, out) -> dict:
    """table.md, table.csv, accuracy_vs_proportion.png and results.json under ``out``; returns their paths."""
    from certiprog.datasets import MISSING_004
    from certiprog.formulations.hp_mpm_paper.tables import TABLE2, TABLE3

    out = output_folder(out)
    rows = summarise(result)
    paths = {name: out / name for name in ("table.md", "table.csv", "accuracy_vs_proportion.png", "results.json")}
    paths["table.md"].write_text(format_table(result, rows))
    paper = TABLE3 if result["config"]["kernel"] else TABLE2
    missing = [dict(dataset=key, kernel=result["config"]["kernel"], proportion=p, method=method, paper=v,
                    status=MISSING_NOTE)  # the paper's numbers of the sets we cannot run, ours left empty
               for key in MISSING_004 for method, values in paper.get(key, {}).items()
               for p, v in zip(PAPER_PROPORTIONS, values)]
    write_csv(paths["table.csv"], [dict(r, status="ok") for r in rows] + missing, CSV_FIELDS,
              extrasaction="ignore", blank_none=True)
    try:
        import matplotlib.pyplot as plt

        from certiprog.formulations.hp_mpm_paper.plots import plot_accuracy_vs_proportion
    except ImportError as exc:  # the tables and the JSON do not need matplotlib
        log.warning("no accuracy plot: %s (pip install certiprog[plots])", exc)
        del paths["accuracy_vs_proportion.png"]
    else:
        fig = plot_accuracy_vs_proportion(rows, title="Table 3 (Gaussian kernel)" if result["config"]["kernel"]
                                          else "Table 2 (linear)")
        fig.savefig(paths["accuracy_vs_proportion.png"], dpi=110)
        plt.close(fig)
    write_json(paths["results.json"], result)
    return paths


def load_results(path) -> dict:
    """A results.json written by `write_outputs` (config, meta, records), checked for its three parts."""
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict) or not {"config", "meta", "records"} <= set(data):
        raise InputError(f"{path} is not a certiprog hp-mpm results file (needs config, meta, records)")
    return data
