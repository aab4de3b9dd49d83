"""Paper audit of papers 000 and 004: every inventory row of docs/derivations/000.md and 004.md has a registry entry,
every check returns a valid status, and the statuses are the ones the audit established."""
import math
import re
import time
from pathlib import Path

import pytest

from certiprog.audit.report import STATUSES, audit

ROOT = Path(__file__).resolve().parents[2]

EXPECTED = {
    "000": {
        "verified": ["000-MO", "000-T1", "000-T1b", "000-E9", "000-E10", "000-E12", "000-E13", "000-E15", "000-L3b",
                     "000-L4", "000-L4b", "000-T8", "000-E25"],
        "refuted": ["000-E8", "000-T1a", "000-G", "000-L2a", "000-L2b", "000-Dd", "000-L3", "000-L5", "000-T6",
                    "000-T7", "000-T10", "000-T11", "000-A2", "000-NN1", "000-X2", "000-L9", "000-A1g"],
        "not checkable": ["000-D1", "000-D2", "000-D3", "000-D4", "000-A1", "000-R", "000-E17", "000-E20", "000-E24",
                          "000-NN2", "000-X1"],
    },
    "004": {
        "verified": ["004-T1", "004-E1", "004-E2", "004-P", "004-T2a", "004-T2b", "004-T2c", "004-T2d", "004-T2e",
                     "004-E6a", "004-P1i", "004-P1ii", "004-E8", "004-HP", "004-C1a", "004-C1b", "004-C1c", "004-E10",
                     "004-A0", "004-A1", "004-A2", "004-A3", "004-E11", "004-G", "004-K1", "004-K2", "004-K4",
                     "004-X1", "004-X3"],
        "refuted": ["004-P1", "004-C1d", "004-Alg1", "004-K3"],
        "not checkable": ["004-L", "004-U", "004-E6b", "004-X2", "004-X4"],
    },
}
# bound variants (re-derived or corrected forms of an inventory row, `certificates.registry` id scheme)
BOUND_VARIANTS = {"000": {"000-L4.cov"},
                  "004": {"004-E6a.mcdiarmid", "004-E6a.half", "004-E6b.rederived", "004-E6b.half", "004-E8.joint",
                          "004-C1d.joint", "004-C1d.eq8"}}
# inventory rows whose formula is a Bound object: one entry, the claim's check and the bound's audit
WITH_BOUND = {"000": {"000-L3", "000-L3b", "000-L4", "000-L4b", "000-L5", "000-T6", "000-T8"},
              "004": {"004-E6a", "004-E6b", "004-P1", "004-E8", "004-T2c", "004-C1d"}}
for _p in EXPECTED:
    EXPECTED[_p]["verified"] = EXPECTED[_p]["verified"] + sorted(BOUND_VARIANTS[_p])
# rows the colleague's inventory marks V / R outright (P and N rows were decided by the audit)
INVENTORY_V = {"000": ["000-MO", "000-T1", "000-T1b", "000-E9", "000-E12", "000-E13", "000-E15", "000-L4"],
               "004": ["004-T1", "004-E1", "004-E2", "004-P", "004-T2a", "004-T2b", "004-T2c", "004-T2d", "004-E6a",
                       "004-P1i", "004-P1ii", "004-E8", "004-HP", "004-C1a", "004-C1b", "004-C1c", "004-E10", "004-A0",
                       "004-A1", "004-A2", "004-A3", "004-E11", "004-K1", "004-K2", "004-X1"]}
INVENTORY_R = {"000": ["000-T1a", "000-G", "000-L2b", "000-Dd"], "004": []}
# inventory V rows the audit overturned with a concrete counterexample (see the entries' details)
OVERTURNED = {"000-E8", "000-L2a", "004-Alg1"}
RELIED = {"000": {"000-E8", "000-T1"}, "004": {"004-T2a", "004-T2b", "004-T2c", "004-E6a", "004-E6b", "004-E8",
                                               "004-C1b", "004-P1", "004-Alg1"}}

_CACHE = {}


def _results(paper):
    if paper not in _CACHE:
        t0 = time.perf_counter()
        res = audit(paper)
        _CACHE[paper] = (res, time.perf_counter() - t0)
    return _CACHE[paper]


def _inventory_ids(paper):
    text = (ROOT / "docs" / "derivations" / f"{paper}.md").read_text()
    inv = text[text.index("Claims inventory"):]
    return re.findall(rf"^\| ({paper}-[A-Za-z0-9]+) \|", inv, flags=re.M)


@pytest.mark.parametrize("paper", ["000", "004"])
def test_every_inventory_row_has_an_entry(paper):
    res, _ = _results(paper)
    ids = [c.id for c, _ in res if c.fn is not None]  # the claims; the other entries are bound variants
    inv = _inventory_ids(paper)
    assert len(inv) == {"000": 41, "004": 38}[paper]
    assert sorted(ids) == sorted(inv), (set(inv) ^ set(ids))
    assert len(res) == len({c.id for c, _ in res})
    variants = {c.id for c, _ in res if c.fn is None}
    assert variants == BOUND_VARIANTS[paper]
    assert all(c.bound is not None and c.id.split(".")[0] in inv for c, _ in res if c.fn is None)
    assert sorted(sum(EXPECTED[paper].values(), [])) == sorted(inv + sorted(variants))


@pytest.mark.parametrize("paper", ["000", "004"])
def test_statuses(paper):
    res, _ = _results(paper)
    got = {c.id: r for c, r in res}
    for c, r in res:
        assert r.status in STATUSES, c.id
        assert "the check raised" not in r.detail, (c.id, r.detail)
        assert r.detail and c.statement and c.where
    for status, ids in EXPECTED[paper].items():
        for i in ids:
            assert got[i].status == status, (i, got[i].status, got[i].detail[:300])
    for i in INVENTORY_V[paper]:
        assert got[i].status == "verified" or i in OVERTURNED, i
    for i in INVENTORY_R[paper]:
        assert got[i].status == "refuted", i


@pytest.mark.parametrize("paper", ["000", "004"])
def test_refuted_entries_carry_evidence(paper):
    res, _ = _results(paper)
    for c, r in res:
        if r.status == "refuted":
            assert r.counterexample, c.id
            assert r.corrected, c.id
        if r.status == "not checkable":
            assert len(r.detail) > 40, c.id  # a precise reason


@pytest.mark.parametrize("paper", ["000", "004"])
def test_relied_on_flags(paper):
    res, _ = _results(paper)
    flagged = {c.id for c, _ in res if c.relied_on}
    assert RELIED[paper] <= flagged


@pytest.mark.parametrize("paper", ["000", "004"])
def test_bounds_are_audited(paper):
    res, _ = _results(paper)
    have = {c.id for c, _ in res if c.bound is not None}
    assert have == WITH_BOUND[paper] | BOUND_VARIANTS[paper]
    for c, r in res:
        if c.bound is not None:
            assert c.bound.id == c.id
            assert "evaluates to" in r.detail and "bound object:" not in r.detail, (c.id, r.detail[:300])


def test_runtime_is_reported():
    """Timing belongs in benchmarks, not assertions: the audit records a finite run time per paper."""
    total = _results("000")[1] + _results("004")[1]
    assert math.isfinite(total) and total > 0
