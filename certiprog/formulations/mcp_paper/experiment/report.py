"""The tables beside the paper's claims: generalisation and capacity rows, summary.md, the CSV files and
results.json.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from certiprog.experiments.kit import markdown_table, output_folder, write_csv, write_json

from .figures import plot_capacity, plot_convergence, plot_generalisation


def _mean_std(values) -> tuple:
    v = np.asarray([x for x in values if x is not None], float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan"), float("nan")
    return float(v.mean()), (float(v.std(ddof=1)) if v.size > 1 else float("nan"))  # no spread from one value


def _fmt(m, s=None, digits=3) -> str:
    if not np.isfinite(m):
        return "n/a"
    return f"{m:.{digits}f}" if s is None or not np.isfinite(s) else f"{m:.{digits}f} ± {s:.{digits}f}"


def first_reaching(curve: list, level: float) -> float:
    """Smallest n_points whose error is <= level (NaN if none)."""
    hits = [c["n_points"] for c in curve if np.isfinite(c["error"]) and c["error"] <= level]
    return float(min(hits)) if hits else float("nan")


def generalisation_table(records: list, level: float = 0.05) -> list:
    """One row per figure / configuration: MCP's points, time, error; the point SVM's error at about the same
    number of points and the points each method needs to reach ``level`` test error."""
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        if r["kind"] in ("ellipsoid", "image"):
            groups.setdefault(r.get("config", r["figure"]), []).append(r)
    rows = []
    for name, rs in groups.items():
        mcp_pts = _mean_std(r["mcp"]["n_points"] for r in rs)
        svm_at = []  # point SVM at the smallest budget >= MCP's points (else the largest)
        for r in rs:
            cands = [s for s in r["svm"] if s["n_points"] >= r["mcp"]["n_points"]] or [r["svm"][-1]]
            svm_at.append(cands[0])
        row = dict(figure=name, reps=len(rs), mcp_points=mcp_pts[0], mcp_points_std=mcp_pts[1],
                   mcp_solves=_mean_std(r["mcp"]["n_solves"] for r in rs)[0],
                   mcp_seconds=_mean_std(r["mcp"]["seconds"] for r in rs)[0],
                   mcp_error=_mean_std(r["mcp"]["error"] for r in rs)[0],
                   mcp_error_std=_mean_std(r["mcp"]["error"] for r in rs)[1],
                   svm_points=_mean_std(s["n_points"] for s in svm_at)[0],
                   svm_error=_mean_std(s["error"] for s in svm_at)[0],
                   svm_error_std=_mean_std(s["error"] for s in svm_at)[1],
                   svm_max_points=max(r["svm"][-1]["n_points"] for r in rs),
                   svm_error_at_max=_mean_std(r["svm"][-1]["error"] for r in rs)[0],
                   mcp_points_to_level=_mean_std(first_reaching(r["mcp"]["curve"], level) for r in rs)[0],
                   svm_points_to_level=_mean_std(first_reaching(r["svm"], level) for r in rs)[0])
        if rs[0]["kind"] == "ellipsoid":
            row.update(separable_exact=f"{sum(r['exact']['separable'] for r in rs)}/{len(rs)}",
                       kappa=_mean_std(r["exact"]["kappa"] for r in rs)[0],
                       exact_objective=_mean_std(r["exact"]["objective"] for r in rs)[0],
                       mcp_objective=_mean_std(r["mcp"]["objective"] for r in rs)[0],
                       claim=rs[0]["setting"]["claim"])
        rows.append(row)
    return rows


def capacity_table(records: list) -> list:
    """Fig. 3c/3d rows: mean kappa, m and m kappa^2 over repetitions, per grid point."""
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        if r["kind"] == "capacity":
            groups.setdefault((r["figure"], r["P"], r["D"], r["R0"]), []).append(r)
    rows = []
    for (fig, P, D, R0), rs in groups.items():
        rows.append(dict(figure=fig, P=P, D=D, R0=R0, N=rs[0]["N"], PD_over_N=rs[0]["PD_over_N"],
                         separable=f"{sum(r['separable'] for r in rs)}/{len(rs)}",
                         kappa=_mean_std(r["kappa"] for r in rs)[0], m=_mean_std(r["m"] for r in rs)[0],
                         m_kappa2=_mean_std(r["m_kappa2"] for r in rs)[0],
                         m_kappa2_std=_mean_std(r["m_kappa2"] for r in rs)[1]))
    return rows


def _markdown(rows: list, columns: list) -> str:
    """A Markdown table of ``rows``; ``columns`` = [(header, cell function)]."""
    return "\n".join(markdown_table([c for c, _ in columns], [[f(r) for _, f in columns] for r in rows])) + "\n"


def _csv(rows: list, path: Path) -> None:
    if rows:
        write_csv(path, rows, list(rows[0]))


def summary_markdown(result: dict, level: float = 0.05) -> str:
    gen = generalisation_table(result["records"], level)
    cap = capacity_table(result["records"])
    cfg, meta = result["config"], result["meta"]
    parts = [f"# Paper 001 experiments (certiprog reproduce mcp{' --quick' if cfg['quick'] else ''})\n",
             f"seed {cfg['seed']}, {cfg['reps']} repetition(s), {cfg['n_test']} test points per manifold, "
             f"MCP delta = {cfg['delta']}, wall time {meta['wall_time_s']:.1f} s"
             + (f" ({meta['n_reused']} of {meta['n_tasks']} task results reused from {meta.get('store', 'the store')}, "
                f"{meta.get('task_seconds', 0.0):.1f} s of task time in all)" if meta.get("n_reused") else "")
             + ".\n"]
    if gen:
        cols = [("figure", lambda r: r["figure"]),
                ("exact separable", lambda r: r.get("separable_exact", "-")),
                ("MCP points", lambda r: f"{r['mcp_points']:.0f}"),
                ("MCP solves", lambda r: f"{r['mcp_solves']:.0f}"),
                ("MCP time (s)", lambda r: f"{r['mcp_seconds']:.2f}"),
                ("MCP error", lambda r: _fmt(r["mcp_error"], r["mcp_error_std"])),
                ("point-SVM points", lambda r: f"{r['svm_points']:.0f}"),
                ("point-SVM error there", lambda r: _fmt(r["svm_error"], r["svm_error_std"])),
                ("point-SVM error at its max", lambda r: f"{_fmt(r['svm_error_at_max'])} ({r['svm_max_points']})"),
                (f"points to error <= {level:g}: MCP / SVM",
                 lambda r: f"{_fmt(r['mcp_points_to_level'], digits=0)} / {_fmt(r['svm_points_to_level'], digits=0)}")]
        parts += ["\n## Generalisation error vs training points (Fig. 3a/3b, 4a/4b, images)\n\n", _markdown(gen, cols)]
        claims = [r for r in gen if "claim" in r]
        if claims:
            parts.append("\nPaper's claims beside our numbers:\n\n")
            for r in claims:
                better = (r["mcp_error"] <= r["svm_error"]) if np.isfinite(r["svm_error"]) else None
                verdict = "n/a" if better is None else "MCP better or equal" if better else "point SVM better"
                parts.append(f"* {r['figure']}: paper: {r['claim']}. Ours: exact program separable in "
                             f"{r['separable_exact']} draws (kappa = {_fmt(r['kappa'])}); MCP error "
                             f"{_fmt(r['mcp_error'])} with {r['mcp_points']:.0f} points vs point SVM "
                             f"{_fmt(r['svm_error'])} with {r['svm_points']:.0f} points "
                             f"({verdict});"
                             f" MCP objective {_fmt(r['mcp_objective'], digits=4)} vs exact "
                             f"{_fmt(r['exact_objective'], digits=4)}.\n")
    if cap:
        cols = [("figure", lambda r: r["figure"]), ("P", lambda r: str(r["P"])), ("D", lambda r: str(r["D"])),
                ("R0", lambda r: f"{r['R0']:g}"), ("N", lambda r: str(r["N"])),
                ("PD/N", lambda r: f"{r['PD_over_N']:.2f}"), ("separable", lambda r: r["separable"]),
                ("kappa", lambda r: _fmt(r["kappa"])), ("m", lambda r: _fmt(r["m"], digits=1)),
                ("m kappa^2", lambda r: _fmt(r["m_kappa2"], r["m_kappa2_std"], digits=2))]
        parts += ["\n## m kappa^2 (Fig. 3c: P or D varied; Fig. 3d: R0 varied)\n\n", _markdown(cap, cols),
                  "\nPaper: m kappa^2 shows an approximate plateau as P or D grows, except near capacity "
                  "(PD/N -> 1, kappa -> 0); against R0 it rises quickly for easy tasks, then plateaus.\n"]
    return "".join(parts)


def write_outputs(result: dict, out) -> dict:
    """summary.md, CSV tables, PNG plots and results.json under ``out``; returns {name: path}."""
    out = output_folder(out)
    paths = {}
    recs = result["records"]
    (out / "summary.md").write_text(summary_markdown(result))
    paths["summary.md"] = out / "summary.md"
    gen, cap = generalisation_table(recs), capacity_table(recs)
    if gen:
        _csv(gen, out / "generalisation.csv")
        paths["generalisation.csv"] = out / "generalisation.csv"
    if cap:
        _csv(cap, out / "capacity.csv")
        paths["capacity.csv"] = out / "capacity.csv"
        plot_capacity(cap, out / "capacity.png")
        paths["capacity.png"] = out / "capacity.png"
    curves = [dict(figure=r.get("config", r["figure"]), rep=r["rep"], method=meth, n_points=c["n_points"],
                   error=c["error"]) for r in recs if r["kind"] != "capacity"
              for meth, cs in (("MCP", r["mcp"]["curve"]), ("point SVM", r["svm"])) for c in cs]
    if curves:
        _csv(curves, out / "curves.csv")
        paths["curves.csv"] = out / "curves.csv"
    for name in ("3a", "3b", "4a", "4b"):
        rs = [r for r in recs if r["kind"] == "ellipsoid" and r["figure"] == name]
        if rs:
            s = rs[0]["setting"]
            title = (f"Fig. {name}: L{s['q']:g} ellipsoids P={s['P']} N={s['N']} D={s['D']} R0={s['R0']:g}"
                     + (f" C={s['C']:g}" if s["C"] is not None else " hard margin"))
            plot_generalisation(rs, out / f"fig{name}.png", title)
            paths[f"fig{name}.png"] = out / f"fig{name}.png"
    imgs = [r for r in recs if r["kind"] == "image"]
    for cname in dict.fromkeys(r["config"] for r in imgs):
        rs = [r for r in imgs if r["config"] == cname]
        fname = "images_" + "".join(ch if ch.isalnum() else "_" for ch in cname).strip("_") + ".png"
        plot_generalisation(rs, out / fname, f"image manifolds: {cname}")
        paths[fname] = out / fname
    first = next((r for r in recs if r["kind"] != "capacity" and r["mcp"]["history"]), None)
    if first is not None:
        plot_convergence(first["mcp"]["history"], out / "convergence.png",
                         f"MCP convergence ({first.get('config', 'Fig. ' + first['figure'])}, rep {first['rep']})")
        paths["convergence.png"] = out / "convergence.png"
    paths["results.json"] = write_json(out / "results.json", result)
    return paths
