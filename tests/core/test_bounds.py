"""Bounds as objects (certiprog.certificates.bounds, machinery only): evaluation and assumptions, the exact binomial
coverage test, and bounds in the one audit registry - each bound is an entry that `certiprog audit` checks, a wrong
bound is reported refuted. The papers' bounds are tested in tests/formulations/<paper>/test_bounds.py."""
import json

import numpy as np
import pytest
import sympy as sp
from scipy import stats

from certiprog import InputError
from certiprog.audit.report import audit, load, table, write_reports
from certiprog.audit.bounds import (EXAMPLE_VALUES, SYMBOLS, Assumption, Bound, binomial_coverage,
                                           delta_in_01, get_bound, list_bounds, moment_coverage, register,
                                           symbols, two_point)
from certiprog.audit.registry import ID_PATTERN, REGISTRY, claim, unregister, verified

LEVEL = 1e-3
N_TRIALS = 4000
R, m, delta = SYMBOLS["R"], SYMBOLS["m"], SYMBOLS["delta"]
MEAN_LAW = two_point([1.0, 0.0], [-1.0, 0.0], 0.5)


def mean_bound(id="004-zz.test", factor=1, **kw):
    """A local copy of a mean-deviation radius (R/sqrt(m))(2 + sqrt(2 ln(1/delta))), times ``factor``."""
    kw.setdefault("assumptions", ["||x|| <= R a.s.", delta_in_01()])
    return Bound(id, "test mean radius", id[:3], "test", r"\|\bar{x} - \hat{x}\|", symbols("R", "m", "delta"),
                 factor * R / sp.sqrt(m) * (2 + sp.sqrt(2 * sp.log(1 / delta))), delta, **kw)


@pytest.fixture
def temporary():
    """Register bounds / claims for one test and remove them afterwards."""
    ids = []
    yield ids
    for i in ids:
        REGISTRY.pop(i, None)


# ----------------------------------------------------------------------------------------------
# API, assumptions
# ----------------------------------------------------------------------------------------------
def test_registered_bounds_fields():
    bounds = list_bounds()
    assert len(bounds) >= 20
    for b in bounds:
        assert isinstance(b, Bound) and b.paper in {"000", "001", "002", "003", "004"} and b.where
        assert ID_PATTERN.match(b.id) and b.id.startswith(b.paper + "-")
        assert isinstance(b.expr, sp.Expr) and b.assumptions
        assert all(isinstance(s, sp.Symbol) for s in b.symbols.values())
        assert isinstance(b.latex(), str) and b.latex()
        assert "ge 1 -" in b.latex_statement()
        assert set(b.example_values()) == set(b.symbols)
    with pytest.raises(InputError, match="no bound"):
        get_bound("004-nope")
    with pytest.raises(InputError, match="no bound"):
        get_bound("004-T1")  # a claim without a bound


def test_one_registry_one_id_scheme():
    """Claims and bounds share one registry: ids are unique, of one form, and a bound is its claim's entry."""
    entries = load()
    assert len(entries) == len(set(entries)) and len(entries) > 200
    for id, c in entries.items():
        assert c.id == id and ID_PATTERN.match(id) and id.startswith(c.paper + "-"), id
        assert c.fn is not None or c.bound is not None, id
        if c.bound is not None:
            assert c.bound.id == id and c.bound.paper == c.paper
    bound_ids = {b.id for b in list_bounds()}
    assert bound_ids == {i for i, c in entries.items() if c.bound is not None}
    # where a claim and a bound state the same formula they are one entry (e.g. 004's eq. (6))
    for i in ("004-E6a", "004-E6b", "004-E8", "000-L3", "000-T6", "002-C46"):
        assert entries[i].fn is not None and entries[i].bound is get_bound(i)
    # a second registration under a taken id is refused, for claims and bounds alike
    with pytest.raises(ValueError, match="duplicate"):
        register(mean_bound("004-E6a"))
    with pytest.raises(ValueError, match="duplicate"):
        claim("004-E6b", "004", "x", "y")(lambda: verified("x"))
    with pytest.raises(ValueError, match="share one id"):
        claim("004-zz.other", "004", "x", "y", bound=get_bound("004-E6a"))
    with pytest.raises(ValueError, match="must read"):
        register(mean_bound("4.eq6"))
    with pytest.raises(InputError, match="no registry entry"):
        unregister("004-not-there")


def test_evaluate_checks_assumptions():
    b = mean_bound()
    v = b.evaluate(R=2.0, m=100, delta=0.05)
    assert v == pytest.approx(2.0 / 10 * (2 + np.sqrt(2 * np.log(20))), rel=1e-14)
    assert np.allclose(b.evaluate_array(R=1.0, m=np.array([25, 100]), delta=0.05),
                       [1 / 5 * (2 + np.sqrt(2 * np.log(20))), 1 / 10 * (2 + np.sqrt(2 * np.log(20)))])
    for bad in ({"R": 1, "m": 100, "delta": 1.5}, {"R": -1, "m": 100, "delta": .1}, {"R": 1, "m": 0, "delta": .1},
                {"R": 1, "m": 10.5, "delta": .1}, {"R": np.nan, "m": 10, "delta": .1}):
        with pytest.raises(InputError):
            b.evaluate(**bad)
    with pytest.raises(InputError, match="missing"):
        b.evaluate(R=1.0, m=10)
    with pytest.raises(InputError, match="unknown"):
        b.evaluate(R=1.0, m=10, delta=0.1, Q=3)
    with pytest.raises(ValueError, match="not declared"):
        Bound("004-zz.bad", "x", "004", "x", "x", symbols("m"), R / m)
    assert b.failure_probability(delta=0.2) == pytest.approx(0.2)
    assert b.scaled(0.5).evaluate(R=1, m=4, delta=0.1) == pytest.approx(0.5 * b.evaluate(R=1, m=4, delta=0.1))


# ----------------------------------------------------------------------------------------------
# The binomial test itself
# ----------------------------------------------------------------------------------------------
def test_binomial_coverage_calibration():
    rng = np.random.default_rng(0)
    r = binomial_coverage(rng.random(5000) >= 0.05, 0.05)          # exactly nominal
    assert r.passes and 0.03 < r.rate < 0.07
    r = binomial_coverage(rng.random(5000) >= 0.08, 0.05)          # 1.6x nominal: detected
    assert not r.passes and r.lower > 0.05
    k, n = 37, 1000
    res = binomial_coverage(np.r_[np.zeros(k, bool), np.ones(n - k, bool)], 0.02, level=1e-3)
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=1 - 1e-3, method="exact")
    assert res.ci == pytest.approx((ci.low, ci.high), rel=1e-9)
    assert res.p_value == pytest.approx(stats.binomtest(k, n, 0.02, alternative="greater").pvalue, rel=1e-9)
    # level of the test: simulate many exact-nominal experiments; rejection rate must be <= ~level
    k_sim = rng.binomial(2000, 0.05, size=20000)
    rejected = stats.binom.sf(k_sim - 1, 2000, 0.05) < 1e-2
    assert rejected.mean() <= 1e-2 * 1.5


@pytest.mark.random
def test_harness_detects_shrunk_bound():
    """A bound shrunk to a quarter of its radius fails; the correct one and half of it pass (for the symmetric two-point
    law sqrt(m)||x_hat - x_bar||/R ~ |N(0,1)| while the radius is 2 + sqrt(2 ln 20) = 4.45, so half the radius still
    fails only ~2.6% < 5% of the time - a correct verdict)."""
    b, m_, d_ = mean_bound(), 50, 0.05
    run = lambda bound: bound.coverage(MEAN_LAW.moment_sampler(m_), MEAN_LAW.mean, lambda s: s["mean"], N_TRIALS,  # noqa
                                       d_, seed=7, values=dict(R=1.0, m=m_), level=LEVEL)
    assert run(b).passes
    half = run(b.scaled(0.5))
    assert half.passes and 0 < half.rate < d_
    quarter = run(b.scaled(0.25))
    assert not quarter.passes and quarter.lower > d_, str(quarter)


# ----------------------------------------------------------------------------------------------
# The audit checks bounds
# ----------------------------------------------------------------------------------------------
def test_bound_audit_verified_and_refuted():
    good = mean_bound(monte_carlo=moment_coverage(MEAN_LAW, 50, "mean"))
    r = good.audit()
    assert r.status == "verified" and "Monte Carlo: 0/400 failures" in r.detail, r.detail
    assert mean_bound().audit().status == "verified" and "formula only" in mean_bound().audit().detail
    # a wrong expression (a tenth of the radius): the seeded coverage test rejects it
    wrong = good.scaled(0.1)
    r = wrong.audit()
    assert r.status == "refuted" and r.counterexample["failures"] > 40 and r.corrected, r.detail
    # no assumptions stated / an expression that does not evaluate to a finite number >= 0
    assert mean_bound(assumptions=[]).audit().status == "refuted"
    neg = Bound("004-zz.neg", "x", "004", "x", "x", symbols("m", "delta"), -1 / sp.sqrt(m), delta, [delta_in_01()])
    assert neg.audit().status == "refuted"
    nan = Bound("004-zz.nan", "x", "004", "x", "x", symbols("m", "delta"), sp.log(delta - 1), delta, [delta_in_01()])
    assert nan.audit().status == "refuted"
    # an assumption that fails at the example values
    strict = mean_bound(assumptions=[Assumption("m <= 10", lambda v: v["m"] <= 10, ("m",))])
    r = strict.audit()
    assert r.status == "refuted" and "m <= 10" in r.detail
    assert mean_bound(example={"m": 5}, assumptions=strict.assumptions).audit().status == "verified"
    assert EXAMPLE_VALUES["delta"] == 0.05


def test_audit_reports_a_wrong_bound_refuted(temporary, tmp_path):
    """A temporarily registered bound with a wrong expression appears in the audit (table, JSON, Markdown) as
    refuted; so does a claim whose own check passes but whose bound is wrong."""
    load(("004",))
    wrong = register(mean_bound("004-zz.wrong", factor=0.1, monte_carlo=moment_coverage(MEAN_LAW, 50, "mean")))
    temporary.append(wrong.id)
    right = register(mean_bound("004-zz.right", monte_carlo=moment_coverage(MEAN_LAW, 50, "mean")))
    temporary.append(right.id)
    assert get_bound("004-zz.wrong") is wrong
    claimed = register(mean_bound("004-zz.claimed", factor=0.1, monte_carlo=moment_coverage(MEAN_LAW, 50, "mean")))
    temporary.append(claimed.id)
    claim("004-zz.claimed", "004", "test", "a claim whose own check passes", kind="bound", bound=claimed)(
        lambda: verified("the claim's own check passes"))
    res = audit("004", ids=["004-zz.wrong", "004-zz.right", "004-zz.claimed"])
    got = {c.id: r for c, r in res}
    assert got["004-zz.wrong"].status == "refuted" and "Monte Carlo coverage rejects" in got["004-zz.wrong"].detail
    assert got["004-zz.right"].status == "verified"
    assert got["004-zz.claimed"].status == "refuted" and "own check: verified" in got["004-zz.claimed"].detail
    text = table(res)
    assert "004-zz.wrong" in text and "3 entries, 3 with a bound object" in text
    js, md = write_reports(res, tmp_path)
    data = {c["id"]: c for c in json.loads(js.read_text())["claims"]}
    assert data["004-zz.wrong"]["status"] == "refuted" and data["004-zz.wrong"]["bound"]["monte_carlo"]
    assert data["004-zz.right"]["bound"]["expr"].startswith("R*(")
    assert "| 004-zz.wrong |" in md.read_text()
    with pytest.raises(InputError, match="no entries"):
        audit("004", ids=["004-zz.absent"])


def test_audit_covers_every_bound():
    """`certiprog audit` runs every registered bound's check: each has a status, none crashes, all pass."""
    ids = [b.id for b in list_bounds()]
    res = audit(None, ids=ids)
    assert sorted(c.id for c, _ in res) == sorted(ids)
    for c, r in res:
        assert "Bound object:" in r.detail or r.detail.startswith(c.id), (c.id, r.detail[:200])
        assert "the check raised" not in r.detail and "bound object:" not in r.detail, (c.id, r.detail[:300])
        if c.fn is None:  # bound variants without an inventory row
            assert r.status == "verified", (c.id, r.detail)
