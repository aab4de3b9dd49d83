"""One class per cone (`certiprog.conic.cones`): projections, Moreau's decomposition, interior points, rigorous
membership of K and K* (against an independent margin in floating point; the certificates call these tests, having
none of their own), the dual nudge, the margin, the smooth boundary function and the cheap repair into K* (dual
polish), the compatibility of ``Cone(kind, ...)``, the backends' tables, and bad input.

Conventions: K° = -K* is the polar cone; Moreau: v = Pi_K(v) + Pi_K°(v) with the two parts orthogonal, and
Pi_K°(v) = -Pi_K*(-v).
"""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.conic.cones import (
    CLASSES,
    KINDS,
    Cone,
    ExponentialCone,
    NonnegCone,
    PowerCone,
    PowerConeND,
    PsdCone,
    SecondOrderCone,
    ZeroCone,
    distance_to_cone,
    project,
    smat,
    svec,
)
from certiprog.errors import CertiprogError, InputError, ShapeError

CONES = [ZeroCone(4), NonnegCone(5), SecondOrderCone(4, 3), SecondOrderCone(1, 2), PsdCone.of_side(3, 2),
         PsdCone.of_side(1), ExponentialCone(4), PowerCone(0.3, 3), PowerConeND((0.2, 0.3, 0.5), 2)]
IDS = [f"{c.kind}{c.dim}x{c.count}" for c in CONES]
SEEDED = settings(derandomize=True, max_examples=40, deadline=None)


def vectors(cone: Cone):
    """Random points of R^rows at scales 1e-8 .. 1e8 (the rules' scaled-data cases)."""
    entries = st.lists(st.floats(-10, 10, allow_nan=False), min_size=cone.rows, max_size=cone.rows)
    return st.builds(lambda v, s: np.array(v) * s, entries, st.sampled_from([1e-8, 1e-3, 1.0, 1e3, 1e8]))


def polar(cone: Cone, v: np.ndarray) -> np.ndarray:
    """Pi_K°(v) = -Pi_K*(-v)."""
    return -cone.project_dual(-v)


def inward(cone: Cone, p: np.ndarray, scale: float, dual: bool = False) -> np.ndarray:
    """p moved a little into the interior (a point of K plus a positive multiple of an interior point is interior)."""
    e = cone.dual_interior() if dual else cone.interior()
    return p + 1e-7 * scale * e


def margin(cone: Cone, row: np.ndarray, dual: bool = False) -> float:
    """An independent floating-point measure of one copy's membership (> 0 inside, < 0 outside; none of the
    classes' code): eigenvalues for PSD, logarithms for the exponential and power cones."""
    k = cone.kind
    if k == "zero":
        return np.inf if dual else -np.abs(row).max()
    if k in ("nonneg", "soc", "psd"):  # self-dual
        if k == "nonneg":
            return row.min()
        if k == "soc":
            return row[0] - np.linalg.norm(row[1:])
        return np.linalg.eigvalsh(smat(row, cone.side)).min()
    a = np.array(cone.weights) if k != "exp" else None
    with np.errstate(divide="ignore", invalid="ignore"):
        if k == "exp" and not dual:
            x, y, z = row
            return min(y, z, np.log(z) - np.log(y) - x / y) if y > 0 and z > 0 else min(y, z)
        if k == "exp":
            u, v, w = row
            return min(-u, w, np.log(w) - np.log(-u) - v / u + 1) if u < 0 and w > 0 else min(-u, w)
        x, z = row[:-1], abs(row[-1])
        if x.min() <= 0:
            return x.min()
        g = np.exp(a @ np.log(x / a)) if dual else np.exp(a @ np.log(x))
        return (g - z) / (1 + g)


# --------------------------------------------------------------------------- projections
@pytest.mark.parametrize("cone", CONES, ids=IDS)
@SEEDED
@given(data=st.data())
def test_projection_is_idempotent_and_lands_in_the_cone(cone, data):
    v = data.draw(vectors(cone))
    scale = 1.0 + np.abs(v).max()
    for dual in (False, True):
        p = cone.project(v, dual=dual)
        assert np.allclose(cone.project(p, dual=dual), p, rtol=0, atol=1e-9 * scale)
        assert cone.dual_contains(inward(cone, p, scale, True)) if dual else cone.contains(inward(cone, p, scale))
        assert np.linalg.norm(v - p) <= np.linalg.norm(v) * (1 + 1e-12)  # 0 lies in K and in K*


@pytest.mark.parametrize("cone", CONES, ids=IDS)
@SEEDED
@given(data=st.data())
def test_moreau_decomposition(cone, data):
    v = data.draw(vectors(cone))
    scale = 1.0 + np.linalg.norm(v)
    p, q = cone.project(v), polar(cone, v)
    assert np.allclose(p + q, v, rtol=0, atol=1e-9 * scale)
    inner = np.einsum("ij,ij->i", p.reshape(cone.count, cone.dim), q.reshape(cone.count, cone.dim))
    assert np.all(np.abs(inner) <= 1e-9 * scale ** 2)
    assert cone.dual_contains(inward(cone, -q, scale, True))  # Pi_K°(v) lies in K° = -K*


@pytest.mark.parametrize("cone", CONES, ids=IDS)
@SEEDED
@given(data=st.data())
def test_projection_is_the_nearest_point(cone, data):
    """||v - Pi_K(v)|| <= ||v - w|| for points w of K (projections of other random points), likewise for K*."""
    v, u = data.draw(vectors(cone)), data.draw(vectors(cone))
    tol = 1e-9 * (1 + np.linalg.norm(v) + np.linalg.norm(u))
    for dual in (False, True):
        w = cone.project(u, dual=dual)
        assert np.linalg.norm(v - cone.project(v, dual=dual)) <= np.linalg.norm(v - w) + tol
        assert abs(cone.distance(v, dual=dual) - np.linalg.norm(v - cone.project(v, dual=dual))) <= tol


@pytest.mark.parametrize("cone", [c for c in CONES if c.self_dual], ids=lambda c: c.kind)
def test_self_dual_cones_project_alike(cone):
    v = np.random.default_rng(1).normal(size=cone.rows)
    assert np.array_equal(cone.project(v), cone.project_dual(v))


def test_zero_cone_dual_is_everything():
    v = np.random.default_rng(2).normal(size=5)
    K = ZeroCone(5)
    assert np.array_equal(K.project(v), np.zeros(5)) and np.array_equal(K.project_dual(v), v)
    assert K.dual_contains(v) and not K.contains(v) and K.contains(np.zeros(5))


def test_projections_match_closed_forms():
    """SOC: ((t + ||x||)/2)(1, x/||x||) off the cone; PSD: negative eigenvalues clipped; the 3-D power cone is the
    n-dimensional one with weights (a, 1 - a); the legacy functions give the methods' numbers."""
    rng = np.random.default_rng(3)
    v = np.array([0.5, 3.0, 4.0])
    assert np.allclose(SecondOrderCone(3).project(v), 2.75 * np.array([1, 0.6, 0.8]))
    A = rng.normal(size=(4, 4))
    A = A + A.T
    w, V = np.linalg.eigh(A)
    K = PsdCone.of_side(4)
    assert np.allclose(smat(K.project(svec(A)), 4), (V * np.maximum(w, 0)) @ V.T, atol=1e-12)
    u = rng.normal(size=30)
    assert np.allclose(PowerCone(0.3, 10).project(u), PowerConeND((0.3, 0.7), 10).project(u), atol=1e-12)
    for c in CONES:
        x = rng.normal(size=c.rows)
        assert np.array_equal(project(c, x), c.project(x)) and np.array_equal(project(c, x, True), c.project_dual(x))
        assert distance_to_cone(c, x) == pytest.approx(c.distance(x), abs=1e-15)


def test_exponential_projection_keeps_moreau_exact_near_the_faces():
    """Points whose projections lie close to a face of K_exp or of its polar, where the root-based candidates lose
    digits to cancellation (before the final Moreau pairing, the gap ||Pi_K(v) + Pi_K°(v) - v|| reached 8e-8 of
    ||v||): 20,000 random points at scales 1e-8 .. 1e8 and the two found by a stress run keep it at rounding level."""
    rng = np.random.default_rng(12)
    V = rng.normal(size=(20000, 3)) * 10.0 ** rng.integers(-8, 9, size=(20000, 1))
    V[rng.random(V.shape) < 0.2] = 0.0
    V = np.vstack([[[0.08467573, -2.20854762, 0.86003215]], [[-2299460.64229925, 85468.76690583, -1983973.88126396]],
                   V])
    E = ExponentialCone(V.shape[0])
    v = V.reshape(-1)
    with np.errstate(all="ignore"):
        p, q = E.project(v).reshape(-1, 3), polar(E, v).reshape(-1, 3)
    scale = 1.0 + np.linalg.norm(V, axis=1)
    assert np.all(np.abs(p + q - V).max(axis=1) <= 1e-13 * scale)
    assert np.all(np.abs(np.einsum("ij,ij->i", p, q)) <= 1e-10 * scale ** 2)


def test_vectorised_psd_svec_round_trip():
    rng = np.random.default_rng(4)
    for n in (1, 2, 5):
        v = rng.normal(size=n * (n + 1) // 2)
        M = smat(v, n)
        assert np.allclose(M, M.T) and np.allclose(svec(M), v)
        assert np.trace(M @ M) == pytest.approx(v @ v)  # svec is an isometry for the trace inner product


# --------------------------------------------------------------------------- interior points
@pytest.mark.parametrize("cone", CONES, ids=IDS)
def test_interior_points_are_strictly_inside(cone):
    rng = np.random.default_rng(5)
    e, f = cone.interior(), cone.dual_interior()
    assert e.shape == f.shape == (cone.rows,)
    assert cone.contains(e) and cone.dual_contains(f)
    if cone.kind != "zero":  # {0} has no interior; every other cone keeps a ball around e
        for _ in range(5):
            d = rng.normal(size=cone.rows)
            d *= 1e-3 / np.linalg.norm(d)
            assert cone.contains(e + d) and cone.dual_contains(f + d)
            assert cone.contains(e, rad=1e-3) and cone.dual_contains(f, rad=1e-3)


# --------------------------------------------------------------------------- rigorous membership
def _random_points(cone: Cone, rng, n: int = 40) -> list:
    """Points on both sides of the cone and of its dual: projections moved in or out by random amounts."""
    out = []
    for _ in range(n):
        v = rng.normal(size=cone.rows) * 10.0 ** rng.integers(-3, 4)
        for dual in (False, True):
            p = cone.project(v, dual=dual)
            e = cone.dual_interior() if dual else cone.interior()
            out.append(p + rng.uniform(-0.5, 0.5) * np.linalg.norm(v) * e / max(np.linalg.norm(e), 1.0))
        out.append(v)
    return out


def _clear(cone: Cone, x: np.ndarray, dual: bool) -> bool | None:
    """True / False where the independent margin is clearly positive / negative in every copy / some copy."""
    rows = x.reshape(cone.count, cone.dim)
    m = np.array([margin(cone, r, dual) for r in rows])
    tol = 1e-6 * (1 + np.abs(x).max())
    if np.all(m > tol):
        return True
    if np.any(m < -tol):
        return False
    return None


@pytest.mark.parametrize("cone", CONES, ids=IDS)
def test_rigorous_membership_agrees_with_an_independent_margin(cone):
    rng = np.random.default_rng(6)
    seen = {True: 0, False: 0}
    for x in _random_points(cone, rng):
        for dual in (False, True):
            expect = _clear(cone, x, dual)
            if expect is None:
                continue
            got = cone.dual_contains(x) if dual else cone.contains(x)
            assert got == expect, (x, dual)
            seen[expect] += 1
    assert seen[False] > 0 and (seen[True] > 0 or cone.kind == "zero")


@pytest.mark.parametrize("cone", [c for c in CONES if c.kind != "zero"], ids=lambda c: f"{c.kind}{c.dim}")
def test_membership_is_sound_just_outside(cone):
    """A boundary point pushed outward by 1e-10 of its size (along the normal v - Pi_K(v)) is never proved, nor is
    a ball around a boundary point that reaches outside."""
    rng = np.random.default_rng(7)
    for _ in range(30):
        v = rng.normal(size=cone.rows) * 3
        for dual in (False, True):
            p = cone.project(v, dual=dual)
            n = v - p
            if np.linalg.norm(n) < 1e-6:
                continue
            out = p + 1e-10 * (1 + np.linalg.norm(p)) * n / np.linalg.norm(n)
            test = cone.dual_contains if dual else cone.contains
            assert not test(out)
            assert not test(p, rad=1e-8 * (1 + np.linalg.norm(p)))


@pytest.mark.parametrize("cone", CONES, ids=IDS)
def test_dual_nudge_is_proved_and_close(cone):
    rng = np.random.default_rng(9)
    for _ in range(25):
        w = rng.normal(size=cone.rows) * 10.0 ** rng.integers(-4, 5)
        z = cone.dual_nudge(w)
        assert cone.dual_contains(z)
        p = cone.project_dual(w)
        assert np.linalg.norm(z - p) <= 1e-8 * (1 + np.linalg.norm(w))
        # a point already proved in K* stays put up to rounding-level moves
        f = cone.dual_interior() * (1 + np.linalg.norm(w))
        assert np.allclose(cone.dual_nudge(f), f, rtol=1e-12)


@pytest.mark.parametrize("cone", CONES, ids=IDS)
def test_linear_cuts_hold_on_the_cone_and_cut_something_off(cone):
    rng = np.random.default_rng(10)
    C = cone.linear_cuts()
    assert C.shape[1] == cone.dim and C.shape[0] >= 1
    cut = 0
    for _ in range(50):
        v = rng.normal(size=cone.rows) * 10.0 ** rng.integers(-3, 4)
        P = cone.project(v).reshape(cone.count, cone.dim)
        assert np.all(P @ C.T <= 1e-12 * (1 + np.abs(v).max()))
        cut += int(np.any(v.reshape(cone.count, cone.dim) @ C.T > 0))
    assert cut > 0


@pytest.mark.parametrize("cone", [c for c in CONES if c.kind != "zero"], ids=lambda c: f"{c.kind}{c.dim}")
def test_dual_as_primal_maps_the_dual_cone_onto_the_cone(cone):
    """w in K* <=> scale * w[perm] in K, on random points clearly on either side (independent margins) and on
    projections onto K* moved inward."""
    perm, scale = cone.dual_as_primal()
    rng = np.random.default_rng(11)
    decided = 0
    for x in _random_points(cone, rng):
        rows = x.reshape(cone.count, cone.dim)
        mapped = (rows[:, perm] * scale).reshape(-1)
        expect = _clear(cone, x, True)
        if expect is not None and _clear(cone, mapped, False) is not None:
            assert _clear(cone, mapped, False) == expect
            decided += 1
        p = inward(cone, cone.project_dual(x), 1 + np.abs(x).max(), dual=True).reshape(cone.count, cone.dim)
        assert cone.contains((p[:, perm] * scale).reshape(-1))
    assert decided > 0
    assert ZeroCone(3).dual_as_primal() is None


def test_exact_membership_without_arithmetic():
    assert NonnegCone(3).contains_exactly([0.0, 1.0, 2.0]) and not NonnegCone(3).contains_exactly([0.0, -1e-300, 2.0])
    assert SecondOrderCone(3, 2).contains_exactly([1.0, 0, 0, 0.0, 0, 0])
    assert not SecondOrderCone(3).contains_exactly([1.0, 0.5, 0])  # inside, but that takes arithmetic
    assert ZeroCone(2).contains_exactly([0.0, 0.0]) and not ExponentialCone().contains_exactly([-1.0, 1, 1])


def test_faces_of_the_nonsymmetric_cones_are_proved_exactly():
    """Points on the closed faces (y = 0 of K_exp, u = 0 of K_exp*, z = 0 of the power cones) are in the cones."""
    E = ExponentialCone(2)
    assert E.contains([-1.0, 0.0, 0.0, 0.0, 0.0, 2.0]) and not E.contains([1e-9, 0.0, 1.0, -1.0, 0.0, 0.0])
    assert E.dual_contains([0.0, 1.0, 0.0, 0.0, 0.0, 3.0]) and not E.dual_contains([0.0, -1e-9, 1.0, -1, 1, 1])
    P = PowerConeND((0.25, 0.75))
    assert P.contains([0.0, 2.0, 0.0]) and P.dual_contains([3.0, 0.0, 0.0]) and not P.contains([0.0, 2.0, 1e-12])


# --------------------------------------------------------------------------- compatibility
def test_cone_dispatches_on_kind_and_behaves_as_a_value():
    assert KINDS == ("zero", "nonneg", "soc", "psd", "pow", "exp", "pownd")
    assert [c.kind for c in CLASSES] == list(KINDS)
    c = Cone("soc", 3)
    assert type(c) is SecondOrderCone and isinstance(c, Cone) and c.kind == "soc"
    assert c == SecondOrderCone(3) and hash(c) == hash(SecondOrderCone(3)) and c != Cone("nonneg", 3)
    p = Cone(kind="pow", dim=3, alpha=0.3)
    assert p == PowerCone(0.3) and p.weights == (0.3, 0.7) and p.rows == 3
    assert Cone("pow", 3, 2, 0.3) != Cone("pow", 3, 2, 0.4) and len({Cone("soc", 3), Cone("soc", 3, 1)}) == 1
    n = Cone("pownd", 4, 2, [0.2, 0.3, 0.5])
    assert n == PowerConeND((0.2, 0.3, 0.5), 2) and isinstance(n.alpha, tuple) and n.rows == 8
    assert PsdCone.of_side(3) == Cone("psd", 6) and Cone("psd", 6).side == 3
    assert ExponentialCone(2) == Cone("exp", 3, 2)
    for cone in CONES + [Cone("pownd", 4, 2, [0.2, 0.3, 0.5])]:
        d = json.loads(json.dumps(cone.to_json()))
        assert Cone(**d) == cone and copy.deepcopy(cone) == cone and copy.copy(cone) == cone
        assert repr(cone).startswith(f"Cone(kind={cone.kind!r}, dim={cone.dim}")
        assert cone.with_count(5) == Cone(cone.kind, cone.dim, 5, cone.alpha)
    with pytest.raises(AttributeError):
        c.dim = 4
    with pytest.raises(AttributeError):
        c.kind = "nonneg"


def test_backends_keep_one_table_covering_every_cone():
    from certiprog.solvers.backends import clarabel_backend, cvxpy_backend, mosek_backend, pyomo_backend

    assert set(clarabel_backend.CLARABEL_CONES) == set(CLASSES) == set(cvxpy_backend.CVXPY_CONES)
    assert set(mosek_backend.MOSEK_CONES) | set(mosek_backend._LINEAR) == set(CLASSES)
    assert set(pyomo_backend._Environ.CONES) | set(pyomo_backend._LINEAR) | {PsdCone} == set(CLASSES)
    assert clarabel_backend.CONES == frozenset(KINDS) == cvxpy_backend._ALL == mosek_backend.CONES


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("cone", CONES, ids=IDS)
def test_bad_vectors_raise(cone):
    good = cone.interior()
    bad = good.copy()
    bad[0] = np.nan
    for call in (cone.project, cone.project_dual, cone.distance, cone.dual_nudge):
        with pytest.raises(InputError):
            call(bad)
        with pytest.raises(ShapeError):
            call(np.ones(cone.rows + 1))
        with pytest.raises(CertiprogError):
            call("not numbers")
    for test in (cone.contains, cone.dual_contains):
        with pytest.raises(ShapeError):
            test(np.ones(cone.rows + 1))
        with pytest.raises(InputError):
            test(good, rad=-1.0)
        with pytest.raises(InputError):
            test("not numbers")
        assert not test(bad) and not test(good, rad=np.inf)  # NaN or an infinite ball: nothing proved


@pytest.mark.parametrize("args", [
    ("soc", -1), ("soc", 3, 1.5), ("soc", 3, True), ("psd", 4), ("pow", 3, 1, 1.5), ("pow", 4, 1, 0.5),
    ("pow", 3, 1, None), ("exp", 4), ("pownd", 3, 1, (0.5, 0.6)), ("pownd", 3, 1, (0.5, np.nan)), ("nope", 3),
    (3, 3), ("soc", 3, 1, 0.5),
])
def test_bad_cones_raise(args):
    with pytest.raises(InputError):
        Cone(*args)


def test_subclass_constructors_check_too():
    with pytest.raises(InputError):
        PowerCone(0.0)
    with pytest.raises(InputError):
        PowerConeND([0.3, 0.3])
    with pytest.raises(InputError):
        SecondOrderCone("soc", 3)
    with pytest.raises(InputError):
        ExponentialCone(-1)


# --------------------------------------------------------------------------- margin, boundary function, repair
SMOOTH = [c for c in CONES if c.kind in ("soc", "exp", "pow", "pownd") and c.dim > 1]


@pytest.mark.parametrize("cone", CONES, ids=IDS)
def test_margin_is_homogeneous_and_agrees_with_membership(cone):
    """margin > 0 at interior points, >= 0 (to rounding) on the boundary, < 0 where the independent margin says
    clearly outside (where the formula reaches), and positively homogeneous of degree 1."""
    rng = np.random.default_rng(11)
    e = cone.interior().reshape(cone.count, cone.dim)
    m = cone.margin(e)
    assert m.shape == (cone.count,)
    assert np.all(m > 0) if cone.kind != "zero" else np.all(m == 0)
    for x in _random_points(cone, rng):
        S = x.reshape(cone.count, cone.dim)
        mine = cone.margin(S)
        assert np.allclose(cone.margin(3.0 * S), 3.0 * mine, rtol=1e-9, atol=1e-300)
        ref = np.array([margin(cone, r) for r in S])
        tol = 1e-6 * (1 + np.abs(S).max())
        assert np.all(mine[ref > tol] > 0) or cone.kind == "zero"
        assert np.all(mine[ref < -tol] <= 0)  # (0 where the formula's domain ends: exp y <= 0, power x <= 0)
        on = cone.project(x).reshape(cone.count, cone.dim)
        assert np.all(cone.margin(on) >= -1e-7 * (1 + np.abs(on).max(axis=1)))


@pytest.mark.parametrize("cone", SMOOTH, ids=lambda c: f"{c.kind}{c.dim}")
def test_boundary_function_gradient_hessian_and_dual(cone):
    """f is the margin on its branch, its gradient and Hessian (diag(D) + c V V') match central differences,
    <G, s> = f (Euler: degree 1), and lambda G lies on the boundary of K* where s lies on the boundary of K."""
    rng = np.random.default_rng(12)
    one = cone.with_count(1)
    checked = 0
    for _ in range(60):
        v = rng.normal(size=one.dim) * 3
        outside = one.distance(v) > 1e-6  # then its projection lies on the boundary
        for s in (one.project(v), v):
            S = s.reshape(1, -1)
            if not one.boundary_smooth(S)[0]:
                continue
            br = one.boundary_branch(S)
            f, G, D, c, V = one.boundary(S, br)
            assert np.allclose(f, one.margin(S), rtol=1e-9, atol=1e-12)
            assert np.isclose(G[0] @ s, f[0], rtol=1e-8, atol=1e-10 * (1 + np.abs(s).max()))
            H = np.diag(D[0]) + c[0] * np.outer(V[0], V[0])
            h = 1e-6 * (1 + np.abs(s).max())
            if np.abs(H).max() * h > 1e-3 * (1 + np.abs(G).max()):
                continue  # too near the edge of the smooth region for central differences
            for j in range(one.dim):
                dj = np.eye(one.dim)[j] * h
                fp, Gp = one.boundary((s + dj).reshape(1, -1), br)[:2]
                fm, Gm = one.boundary((s - dj).reshape(1, -1), br)[:2]
                assert np.isclose((fp[0] - fm[0]) / (2 * h), G[0, j], rtol=1e-5, atol=1e-6)
                assert np.allclose((Gp[0] - Gm[0]) / (2 * h), H[:, j], rtol=1e-4, atol=1e-5 * (1 + np.abs(H).max()))
            if s is not v and outside:  # on the boundary of K: lambda G on the boundary of K*
                assert abs(f[0]) <= 1e-7 * (1 + np.abs(s).max())
                g = 2.5 * G[0]
                assert one.distance(g, dual=True) <= 1e-7 * (1 + np.abs(g).max())
                assert not one.dual_contains(g - 1e-6 * (1 + np.abs(g).max()) * one.dual_interior())
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("cone", CONES, ids=IDS)
def test_into_dual_lands_in_the_dual_cone_and_keeps_its_points(cone):
    rng = np.random.default_rng(13)
    for _ in range(30):
        w = rng.normal(size=cone.rows) * 10.0 ** rng.integers(-3, 4)
        z = cone.into_dual(w)
        assert z.shape == w.shape
        assert cone.distance(z, dual=True) <= 1e-9 * (1 + np.abs(w).max())
        # a point of K* (on its boundary, or inside) moves by rounding at most: into_dual is idempotent to rounding
        assert np.allclose(cone.into_dual(z), z, rtol=0, atol=1e-12 * (1 + np.abs(z).max()))
        f = cone.dual_interior() * (1 + np.abs(w).max())
        assert np.array_equal(cone.into_dual(f), f)


def test_separable_cones_are_their_rows():
    """zero and nonneg: dim rows in one copy are the same set as dim one-row copies (certify regroups them)."""
    rng = np.random.default_rng(14)
    for cone in CLASSES:
        assert cone.separable == (cone.kind in ("zero", "nonneg"))
    for cone in (ZeroCone(6), NonnegCone(3, 2)):
        rows = Cone(cone.kind, 1, cone.rows)
        v = rng.normal(size=cone.rows)
        assert np.array_equal(cone.project(v), rows.project(v))
        assert np.array_equal(cone.project_dual(v), rows.project_dual(v))
        assert np.array_equal(np.min(rows.margin(v.reshape(-1, 1)).reshape(cone.count, cone.dim), axis=1),
                              cone.margin(v.reshape(cone.count, cone.dim)))



def test_own_shape_is_the_psd_matrix_and_none_elsewhere():
    cone = PsdCone.of_side(3)
    M = np.array([[2.0, 0.5, -1.0], [0.5, 3.0, 0.25], [-1.0, 0.25, 4.0]])
    assert np.array_equal(cone.own_shape(svec(M)), M)
    two = PsdCone.of_side(3, 2)
    assert np.array_equal(two.own_shape(np.concatenate([svec(M), svec(2 * M)])), np.stack([M, 2 * M]))
    for c in CONES:
        if c.kind != "psd":
            assert c.own_shape(np.zeros(c.rows)) is None
