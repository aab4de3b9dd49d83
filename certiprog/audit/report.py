"""Paper audit: run every registry entry's check - claims and bounds, one registry, one id scheme - and report
per paper (table, JSON, Markdown). An entry that carries a `Bound` is marked ``B`` in the table and has a
``bound`` object in the JSON (its expression, failure probability, printed forms and status)."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from ..papers import load_claims, papers
from .registry import REGISTRY, STATUSES, Claim, Result, claim, not_checkable, refuted, verified


def load(paper_ids=None) -> dict[str, Claim]:
    """Import the bound and claim modules of the given papers (all installed if None), registering their entries."""
    paper_ids = tuple(papers()) if paper_ids is None else tuple(paper_ids)
    load_claims(paper_ids)
    return {k: c for k, c in REGISTRY.items() if c.paper in paper_ids}


def audit(paper: str | None = None, progress: bool | None = False, ids=None) -> list[tuple[Claim, Result]]:
    """Check every entry (claim or bound) of ``paper`` (all papers if None), or only those in ``ids``;
    returns (entry, result) pairs in id order."""
    if paper is not None and paper not in papers():
        raise InputError(f"unknown paper {paper!r}; choose one of {tuple(papers())}")
    claims = sorted(load(None if paper is None else (paper,)).values(), key=lambda c: (c.paper, c.id))
    if ids is not None:
        ids = (ids,) if isinstance(ids, str) else tuple(ids)
        unknown = sorted(set(ids) - {c.id for c in claims})
        if unknown:
            raise InputError(f"ids: no entries {unknown} in the registry of paper(s) {paper or 'all'}")
        claims = [c for c in claims if c.id in set(ids)]
    it = claims
    if progress is not False:  # None: a bar only on a terminal (tqdm's disable=None), as `reproduce` does
        from tqdm.auto import tqdm

        it = tqdm(claims, desc="audit", leave=False, disable=None if progress is None else False)
    return [(c, c.check()) for c in it]


def table(results) -> str:
    """A plain-text table per paper with a status count line."""
    out = []
    for p in sorted({c.paper for c, _ in results}):
        rows = [(c, r) for c, r in results if c.paper == p]
        counts = {s: sum(r.status == s for _, r in rows) for s in STATUSES}
        n_bounds = sum(c.bound is not None for c, _ in rows)
        out.append(f"paper {p}: " + ", ".join(f"{n} {s}" for s, n in counts.items())
                   + f" ({len(rows)} entries, {n_bounds} with a bound object: B)")
        out.append(f"  {'id':18s} {'where':22s} {'kind':12s} B {'status':14s} detail")
        for c, r in rows:
            detail = r.detail.splitlines()[0][:90] if r.detail else ""
            b = "B" if c.bound is not None else " "
            out.append(f"  {c.id:18s} {c.where[:22]:22s} {c.kind:12s} {b} {r.status:14s} {detail}")
        out.append("")
    return "\n".join(out)


def _bound_json(b) -> dict | None:
    if b is None:
        return None
    text = lambda e: None if e is None else str(e)  # noqa: E731
    return {"name": b.name, "quantity": b.quantity, "expr": str(b.expr), "failure_prob": str(b.failure_prob),
            "printed": text(b.printed), "printed_failure_prob": text(b.printed_failure_prob), "status": b.status,
            "assumptions": [str(a) for a in b.assumptions], "monte_carlo": b.monte_carlo is not None}


def write_reports(results, out_dir) -> tuple[Path, Path]:
    """Write audit.json and audit.md under ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = [{"id": c.id, "paper": c.paper, "where": c.where, "statement": c.statement, "kind": c.kind,
             "relied_on": c.relied_on, "bound": _bound_json(c.bound), **r.to_json()} for c, r in results]
    (out / "audit.json").write_text(json.dumps({"format": "certiprog.audit/1", "claims": data}, indent=1))
    lines = ["# certiprog paper audit", ""]
    for p in sorted({c.paper for c, _ in results}):
        lines += [f"## Paper {p}", "", "| id | where | kind | statement | status | detail |",
                  "|---|---|---|---|---|---|"]
        for c, r in results:
            if c.paper != p:
                continue
            det = r.detail.replace("\n", " ").replace("|", "\\|")
            if r.corrected:
                det += f" **Corrected:** {r.corrected}".replace("|", "\\|")
            if r.counterexample:
                example = ", ".join(f"{k}={v}" for k, v in r.counterexample.items())
                det += " **Counterexample:** " + example.replace("|", "\\|")
            stmt = c.statement.replace("\n", " ").replace("|", "\\|")
            kind = c.kind if c.bound is None or c.kind == "bound" else f"{c.kind} (bound)"
            lines.append(f"| {c.id} | {c.where} | {kind} | {stmt} | **{r.status}** | {det} |")
        lines.append("")
    (out / "audit.md").write_text("\n".join(lines))
    return out / "audit.json", out / "audit.md"


__all__ = ["Claim", "REGISTRY", "Result", "STATUSES", "audit", "claim", "load", "not_checkable", "refuted", "table",
           "verified", "write_reports"]
