"""MOSEK backend: exported files read back against our conic data (always), licence errors, and solves
(skipped with MOSEK's own reason when no licence is present). Seeded."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog import (
    SOC, BackendError, ForAll, InputError, Model, OracleSet, PowerCone3D, Variable, maximize, minimize, norm2,
    quad_form, sum_squares, vstack,
)
from certiprog.certify import check
from certiprog.model.cones import smat, svec
from certiprog.solvers import get_backend, registered_backends, solve_conic

mosek = pytest.importorskip("mosek", reason="the mosek package is not installed (pip install 'certiprog[mosek]')")
from certiprog.solvers.backends import mosek_backend as mb  # noqa: E402

HAS_LICENCE, NO_LICENCE_REASON = mb.licence_status()
needs_licence = pytest.mark.skipif(not HAS_LICENCE, reason=NO_LICENCE_REASON)


# --------------------------------------------------------------------------- models
def every_cone_model(seed=0, dense_quadratic=True):
    """zero, nonneg, soc (2 cones), 3x3 psd, pow (3 cones, alpha 0.3) and a quadratic objective."""
    rng = np.random.default_rng(seed)
    x = Variable(3, "x")
    S = Variable((3, 3), "S", symmetric=True)
    u = Variable(3, "u")
    Q = rng.standard_normal((3, 3))
    Q = Q @ Q.T + 0.1 * np.eye(3)
    quad = quad_form(x, Q) if dense_quadratic else sum_squares(x - 1)
    C = rng.standard_normal((3, 3))
    C = C + C.T
    model = Model(minimize(rng.standard_normal(3) @ x + quad + (C @ S).trace() + 0.5), name="every-cone")
    model.add(x.sum() == 1, "budget")
    model.add(x >= -2, "lower")
    model.add(SOC(2.0 * np.ones(2), vstack([x.reshape((1, 3)), (0.5 * x - 0.1).reshape((1, 3))])), "pair_cones")
    model.add(norm2(x) <= 3, "ball")
    model.add(S >> 0, "psd")
    model.add(S.trace() == 1, "trace")
    model.add(PowerCone3D(u, 2 * np.ones(3), x, 0.3), "power")
    model.add(u <= 5, "u_upper")
    return model


def lp_model(seed=0):
    rng = np.random.default_rng(seed)
    n = 4
    A = rng.standard_normal((6, n))
    x0 = rng.uniform(-0.5, 0.5, n)
    x = Variable(n, "x")
    return Model(minimize(rng.standard_normal(n) @ x), [A @ x <= A @ x0 + rng.uniform(0.1, 1, 6),
                                                        x <= 2, x >= -2, x.sum() == x0.sum()])


def qp_model(seed=0):
    rng = np.random.default_rng(seed)
    n = 4
    Q = rng.standard_normal((n, n))
    x = Variable(n, "x")
    return Model(minimize(quad_form(x, Q @ Q.T + np.eye(n)) + rng.standard_normal(n) @ x), [x >= -1, x.sum() == 1])


# --------------------------------------------------------------------------- reading a task back
def mosek_svec(M):
    """MOSEK's svec by its definition: lower triangle column by column, off-diagonals times sqrt 2."""
    n = M.shape[0]
    return np.array([M[r, c] * (1.0 if r == c else np.sqrt(2.0)) for c in range(n) for r in range(c, n)])


def task_semantics(task, xt):
    """Every constraint of a MOSEK task evaluated at the point ``xt``: {kind: [values]} (scalars for linear rows)."""
    out = {}
    ncon = task.getnumcon()
    if ncon:
        bk, bl, bu = task.getconboundslice(0, ncon)
        sub_i, sub_j, val = task.getarowslicetrip(0, ncon)
        ax = sp.csr_matrix((val, (sub_i, sub_j)), shape=(ncon, task.getnumvar())) @ xt
        for k, lo, up, a in zip(bk, bl, bu, ax):
            if k == mosek.boundkey.fx:
                out.setdefault("zero", []).append(np.array([abs(a - lo)]))
            elif k == mosek.boundkey.up:
                out.setdefault("nonneg", []).append(np.array([up - a]))
            elif k == mosek.boundkey.lo:
                out.setdefault("nonneg", []).append(np.array([a - lo]))
            else:
                raise AssertionError(f"unexpected bound key {k}")
    if task.getnumafe():
        afe, var, val = task.getafeftrip()
        v = sp.csr_matrix((val, (afe, var)), shape=(task.getnumafe(), task.getnumvar())) @ xt
        v = v + np.asarray(task.getafegslice(0, task.getnumafe()))
        for k in range(task.getnumacc()):
            dom = task.getaccdomain(k)
            kind = task.getdomaintype(dom)
            vals = v[np.asarray(task.getaccafeidxlist(k))]
            if kind == mosek.domaintype.rzero:
                out.setdefault("zero", []).extend(np.abs(vals).reshape(-1, 1))
            elif kind == mosek.domaintype.rplus:
                out.setdefault("nonneg", []).extend(vals.reshape(-1, 1))
            elif kind == mosek.domaintype.rminus:
                out.setdefault("nonneg", []).extend(-vals.reshape(-1, 1))
            elif kind == mosek.domaintype.quadratic_cone:
                out.setdefault("soc", []).append(vals)
            elif kind == mosek.domaintype.svec_psd_cone:
                out.setdefault("psd", []).append(vals)
            elif kind == mosek.domaintype.primal_power_cone:
                alpha = np.asarray(task.getpowerdomainalpha(dom))
                out.setdefault("pow", []).append(np.concatenate([alpha / alpha.sum(), vals]))
            elif kind == mosek.domaintype.rquadratic_cone:
                out.setdefault("rquad", []).append(vals)
            else:
                raise AssertionError(f"unexpected domain {kind}")
    return out


def expected_semantics(problem, x):
    """The same, from our ConicProblem and its documented cone definitions (no backend code involved)."""
    s = problem.b - problem.A @ x
    out = {}
    for blk in problem.blocks:
        c, part = blk.cone, s[blk.start:blk.stop]
        for piece in part.reshape(c.count, c.dim):
            if c.kind == "zero":
                out.setdefault("zero", []).extend(np.abs(piece).reshape(-1, 1))
            elif c.kind == "nonneg":
                out.setdefault("nonneg", []).extend(piece.reshape(-1, 1))
            elif c.kind == "psd":
                out.setdefault("psd", []).append(mosek_svec(smat(piece, c.side)))
            elif c.kind == "pow":
                out.setdefault("pow", []).append(np.concatenate([[c.alpha, 1 - c.alpha], piece]))
            else:
                out.setdefault(c.kind, []).append(piece)
    return out


def assert_same_semantics(got, want):
    assert set(got) == set(want), (sorted(got), sorted(want))
    for kind in want:
        key = lambda v: (len(v), tuple(np.round(v, 7)))  # noqa: E731
        g, w = sorted(got[kind], key=key), sorted(want[kind], key=key)
        assert len(g) == len(w), (kind, len(g), len(w))
        for a, b in zip(g, w):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10, err_msg=kind)


def read_back(path):
    task = mosek.Task()
    task.readdata(str(path))
    return task


# --------------------------------------------------------------------------- export (no licence needed)
@pytest.mark.parametrize("suffix", [".ptf", ".cbf", ".jtask", ".task"])
def test_export_reads_back_as_our_conic_data(tmp_path, suffix):
    model = every_cone_model()
    problem = model.compile().assemble()
    assert {c.kind for c in problem.cones} == {"zero", "nonneg", "soc", "psd", "pow"}
    task = read_back(mb.export(model, tmp_path / f"p{suffix}"))
    n = problem.n
    quad_cone = task.getnumvar() == n + 1  # every format gets the rotated cone here (conic rows present)
    assert quad_cone and task.getnumqobjnz() == 0
    rng = np.random.default_rng(1)
    for _ in range(3):
        x, t = rng.standard_normal(n), float(rng.uniform(1, 5))
        got = task_semantics(task, np.append(x, t))
        (epi,) = got.pop("rquad")
        # the epigraph: (t, 1, R x) in Q_r means t >= 1/2 ||R x||^2 = 1/2 x'Px
        assert epi[0] == pytest.approx(t) and epi[1] == pytest.approx(1.0)
        assert epi[2:] @ epi[2:] == pytest.approx(x @ (problem.P @ x), rel=1e-10)
        assert_same_semantics(got, expected_semantics(problem, x))
        objective = np.asarray(task.getc()) @ np.append(x, t) + task.getcfix()
        assert objective == pytest.approx(problem.q @ x + t + problem.r0, rel=1e-12)
    assert task.getobjsense() == mosek.objsense.minimize


def test_ptf_keeps_order_and_names(tmp_path):
    """.ptf keeps our layout exactly: columns, linear rows, AFEs in order, PSD rows permuted to MOSEK's svec."""
    model = every_cone_model(dense_quadratic=False)
    problem = model.compile().assemble()
    path = mb.export(model, tmp_path / "p.ptf")
    text = path.read_text()
    assert "SVECPSD(6)" in text and "PPOW(3;0.3,0.7)" in text and "QUAD(4)" in text and "RQUAD(" in text
    assert "'budget[0]'" in text and "'x[0]'" in text
    task = read_back(path)
    assert [task.getvarname(j) for j in range(3)] == ["x[0]", "x[1]", "x[2]"]
    np.testing.assert_allclose(task.getc()[: problem.n], problem.q)
    kinds = [task.getdomaintype(task.getaccdomain(k)) for k in range(task.getnumacc())]
    D = mosek.domaintype
    assert kinds == [D.quadratic_cone] * 3 + [D.svec_psd_cone] + [D.primal_power_cone] * 3 + [D.rquadratic_cone]
    # diagonal P: the epigraph rows are sqrt(diag P) on the touched columns (no factorisation needed)
    d = problem.P.diagonal()
    afe, var, val = task.getafeftrip()
    F = sp.csr_matrix((val, (afe, var)), shape=(task.getnumafe(), task.getnumvar())).toarray()
    R = F[-(np.count_nonzero(d)):, : problem.n]
    np.testing.assert_allclose(R.T @ R, problem.P.toarray(), atol=1e-14)


def test_pure_qp_task_keeps_quadratic_objective_and_ptf_makes_it_conic(tmp_path):
    model = qp_model()
    problem = model.compile().assemble()
    task = read_back(mb.export(model, tmp_path / "q.jtask"))
    assert task.getnumvar() == problem.n and task.getnumacc() == 0
    _, qi, qj, qv = task.getqobj()
    L = sp.coo_matrix((qv, (qi, qj)), shape=(problem.n, problem.n)).toarray()
    np.testing.assert_allclose(L, np.tril(problem.P.toarray()), atol=1e-14)
    x = np.random.default_rng(2).standard_normal(problem.n)
    assert_same_semantics(task_semantics(task, x), expected_semantics(problem, x))
    conic = read_back(mb.export(model, tmp_path / "q.ptf"))
    assert conic.getnumqobjnz() == 0 and conic.getnumvar() == problem.n + 1


def test_svec_permutation_matches_mosek_definition():
    rng = np.random.default_rng(3)
    for side in (1, 2, 3, 4, 7):
        M = rng.standard_normal((side, side))
        M = M + M.T
        np.testing.assert_allclose(svec(M)[mb.svec_permutation(side)], mosek_svec(M), atol=1e-14)


@settings(derandomize=True, deadline=None, max_examples=25)
@given(n=st.integers(1, 7), rank=st.integers(0, 7), diagonal=st.booleans(), seed=st.integers(0, 2**16))
def test_quadratic_factor_reproduces_P(n, rank, diagonal, seed):
    rng = np.random.default_rng(seed)
    if diagonal:
        d = rng.uniform(0, 2, n) * (rng.random(n) < 0.7)
        P = np.diag(d)
    else:
        G = rng.standard_normal((min(rank, n), n))
        P = G.T @ G
    big = np.zeros((n + 2, n + 2))
    big[1:-1, 1:-1] = P  # untouched columns at both ends
    R = mb.quadratic_factor(sp.csc_matrix(big))
    assert R.shape[1] == n + 2 and R.shape[0] <= np.count_nonzero(np.abs(big).sum(axis=0))
    np.testing.assert_allclose((R.T @ R).toarray(), big, atol=1e-10 * (1 + np.abs(big).max()))


def test_quadratic_factor_rejects_non_convex():
    with pytest.raises(BackendError, match="not convex"):
        mb.quadratic_factor(sp.csc_matrix(np.diag([1.0, -1.0])))
    with pytest.raises(BackendError, match="not convex"):
        mb.quadratic_factor(sp.csc_matrix(np.array([[1.0, 2.0], [2.0, 1.0]])))


def test_export_errors(tmp_path):
    model = lp_model()
    with pytest.raises(InputError, match=r"\.ptf"):
        mb.export(model, tmp_path / "p.lp")
    with pytest.raises(InputError, match="Model or a ConicProblem"):
        mb.export("not a model", tmp_path / "p.ptf")
    w = Variable(2, "w")
    box = OracleSet(lambda a: -np.sign(a), initial_points=np.ones(2))  # the box [-1, 1]^2, known by its oracle
    cut = Model(minimize(sum_squares(w)), [ForAll(box, lambda u: w @ u >= 1)])
    with pytest.raises(InputError, match="cutting planes"):
        mb.export(cut, tmp_path / "p.ptf")
    # a problem exported as a ConicProblem equals the one exported from the Model
    problem = model.compile().assemble()
    a = read_back(mb.export(problem, tmp_path / "a.ptf", names=False))
    b = read_back(mb.export(model, tmp_path / "b.ptf"))
    x = np.random.default_rng(4).standard_normal(problem.n)
    assert_same_semantics(task_semantics(a, x), task_semantics(b, x))


def test_registration():
    b = get_backend("mosek")
    assert b.licence == "MOSEK licence file" and b.requires == ("mosek",) and b.solvers() == ["mosek"]
    assert b.cones == {"zero", "nonneg", "soc", "psd", "pow", "exp", "pownd"} and b.duals
    assert "mosek" in registered_backends()


def test_bad_option_is_rejected_before_solving():
    with pytest.raises(BackendError, match="MSK_DPAR_INTPNT_CO_TOL_REL_GAP"):
        lp_model().solve(backend="mosek", NOT_A_MOSEK_PARAMETER=1)
    with pytest.raises(BackendError, match="rejected"):
        lp_model().solve(backend="mosek", MSK_DPAR_INTPNT_CO_TOL_REL_GAP="abc")


# --------------------------------------------------------------------------- licence
@pytest.mark.skipif(HAS_LICENCE, reason="a MOSEK licence is present: the no-licence error cannot be observed")
def test_solve_without_licence_names_the_paths_searched(tmp_path, monkeypatch):
    monkeypatch.delenv("MOSEKLM_LICENSE_FILE", raising=False)
    with pytest.raises(BackendError) as err:
        lp_model().solve(backend="mosek")
    msg = str(err.value)
    assert "licence" in msg and "mosek.lic" in msg and "MOSEKLM_LICENSE_FILE" in msg and "export" in msg
    fake = tmp_path / "nowhere" / "mosek.lic"
    monkeypatch.setenv("MOSEKLM_LICENSE_FILE", str(fake))
    with pytest.raises(BackendError, match=f"MOSEK searched: {fake}"):
        lp_model().solve(backend="mosek")
    ok, reason = mb.licence_status()
    assert not ok and str(fake) in reason


def test_licence_paths_parsing(monkeypatch):
    import os

    assert mb.licence_paths(f"The default search path is '{os.pathsep}/a/b.lic{os.pathsep}/c.lic'.") == \
        ["/a/b.lic", "/c.lic"]
    monkeypatch.setenv("MOSEKLM_LICENSE_FILE", "/x/y.lic")
    assert mb.licence_paths("no path in this text") == ["/x/y.lic"]
    monkeypatch.delenv("MOSEKLM_LICENSE_FILE")
    assert mb.licence_paths("")[0].endswith(os.path.join("mosek", "mosek.lic"))


# --------------------------------------------------------------------------- solves (need a licence)
def _psd_model(seed=0):
    rng = np.random.default_rng(seed)
    S = Variable((3, 3), "S", symmetric=True)
    C = rng.standard_normal((3, 3))
    return Model(minimize(((C + C.T) @ S).trace()), [S >> 0, S.trace() == 1])


@needs_licence
@pytest.mark.parametrize("make", [lp_model, qp_model, every_cone_model, _psd_model])
def test_solve_matches_clarabel_with_duals(make):
    model = make()
    ref = model.solve(backend="clarabel")
    sol = model.solve(backend="mosek")
    assert sol.status == "optimal" and sol.solver == "mosek" and sol.iterations >= 0 and sol.solve_time > 0
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6, abs=1e-6)
    cert = check(model, sol)
    assert cert.verdict in ("certified", "inaccurate"), cert.summary()
    for name in model.constraints:  # same duals in one convention (unique here: strictly convex or LP with slack)
        np.testing.assert_allclose(sol.dual(name), ref.dual(name), atol=1e-4, err_msg=name)


@needs_licence
def test_solve_maximize_and_options():
    x = Variable(3, "x")
    model = Model(maximize(np.array([1.0, 2.0, 3.0]) @ x), [norm2(x) <= 1])
    sol = model.solve(backend="mosek", MSK_DPAR_INTPNT_CO_TOL_REL_GAP=1e-12)
    assert sol.objective == pytest.approx(np.sqrt(14), rel=1e-7)


@needs_licence
def test_infeasible_and_unbounded_give_certified_rays():
    x = Variable(2, "x")
    infeasible = Model(minimize(x.sum()), [x >= 1, x.sum() <= 1, norm2(x) <= 10])
    sol = infeasible.solve(backend="mosek")
    assert sol.status == "infeasible" and sol.x is None and sol.certificate is not None
    assert check(infeasible, sol).verdict in ("certified_infeasible", "accurate_infeasible")
    unbounded = Model(minimize(x[0] - x[1]), [x[0] >= 0, norm2(x[0]) <= x[1] + 5])
    sol = unbounded.solve(backend="mosek")
    assert sol.status == "unbounded" and sol.certificate is not None
    assert check(unbounded, sol).verdict in ("certified_unbounded", "accurate_unbounded")


def test_refuses_unknown_cone_kind():
    """A cone kind outside MOSEK's set is refused before solving (registry check and the builder itself)."""
    from certiprog.model.cones import Cone

    problem = lp_model().compile().assemble()
    odd = object.__new__(Cone)  # a kind no backend knows (Cone itself refuses unknown kinds)
    for k, v in dict(kind="nope", dim=problem.m, count=1, alpha=None).items():
        object.__setattr__(odd, k, v)
    bad = type(problem)(problem.P, problem.q, problem.r0, problem.A, problem.b,
                        [odd], problem.sense, problem.columns, problem.blocks, problem.structure)
    with pytest.raises(BackendError, match="nope"):
        solve_conic(bad, "mosek")
    with pytest.raises(BackendError, match="unsupported cone"):
        mb.fill_task(mosek.Task(), bad)


# --------------------------------------------------------------------------- the solve path without a licence
# Only ``Task.optimize`` is replaced: the fake reads the task MOSEK holds (through MOSEK's getters), solves
# MOSEK's *documented* primal and dual problems with CVXPY, and stores the answer in MOSEK's own convention
# (y = s_l^c - s_u^c with A'y + F'doty - Q x = c, doty in D*; Farkas rays for certificates). Everything after
# ``optimize`` (status, x, the sign and PSD-order mapping of y / doty, the rays) then runs for real, and
# `certificates.check` judges the result against our conic data.
TIGHT = dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)  # primal and dual solved apart must agree


def read_form(task):
    n, m, k = task.getnumvar(), task.getnumcon(), task.getnumafe()
    _, qi, qj, qv = task.getqobj()
    L = sp.coo_matrix((qv, (qi, qj)), shape=(n, n)).toarray()
    form = dict(n=n, c=np.asarray(task.getc()), cfix=task.getcfix(), Q=L + L.T - np.diag(np.diag(L)))
    if m:
        i, j, v = task.getarowslicetrip(0, m)
        bk, bl, bu = task.getconboundslice(0, m)
        form.update(A=sp.csr_matrix((v, (i, j)), shape=(m, n)), bk=list(bk), bl=np.asarray(bl), bu=np.asarray(bu))
    else:
        form.update(A=sp.csr_matrix((0, n)), bk=[], bl=np.zeros(0), bu=np.zeros(0))
    if k:
        i, j, v = task.getafeftrip()
        form.update(F=sp.csr_matrix((v, (i, j)), shape=(k, n)), g=np.asarray(task.getafegslice(0, k)))
    else:
        form.update(F=sp.csr_matrix((0, n)), g=np.zeros(0))
    form["accs"] = []
    for a in range(task.getnumacc()):
        dom = task.getaccdomain(a)
        kind = task.getdomaintype(dom)
        alpha = np.asarray(task.getpowerdomainalpha(dom)) if kind == mosek.domaintype.primal_power_cone else None
        form["accs"].append((kind, alpha, np.asarray(task.getaccafeidxlist(a))))
    return form


def _mosek_smat_operator(side):
    """vec (column-major) of the symmetric matrix whose MOSEK svec is v, as a sparse matrix acting on v."""
    rows, cols, vals = [], [], []
    k = 0
    for c in range(side):
        for r in range(c, side):
            if r == c:
                rows.append(c * side + c), cols.append(k), vals.append(1.0)
            else:
                rows += [c * side + r, r * side + c]
                cols += [k, k]
                vals += [1 / np.sqrt(2)] * 2
            k += 1
    return sp.csr_matrix((vals, (rows, cols)), shape=(side * side, k))


def in_domain(kind, alpha, v, dual=False):
    import cvxpy as cp

    D = mosek.domaintype
    if kind == D.quadratic_cone:
        return [cp.SOC(v[0], v[1:])]
    if kind == D.rquadratic_cone:  # 2 v0 v1 >= ||v2:||^2, v0, v1 >= 0 (self-dual)
        return [cp.SOC(v[0] + v[1], cp.hstack([v[0] - v[1], np.sqrt(2) * v[2:]]))]
    if kind == D.svec_psd_cone:  # self-dual for the svec inner product
        side = int(round((np.sqrt(8 * v.size + 1) - 1) / 2))
        return [cp.reshape(_mosek_smat_operator(side) @ v, (side, side), order="F") >> 0]
    if kind == D.primal_power_cone:
        a = float(alpha[0] / alpha.sum())
        if dual:  # (v0/a)^a (v1/(1-a))^(1-a) >= |v2|
            return [cp.PowCone3D(v[0] / a, v[1] / (1 - a), v[2], a)]
        return [cp.PowCone3D(v[0], v[1], v[2], a)]
    raise AssertionError(f"no CVXPY form for domain {kind}")


def _bounds(form):
    fx = np.array([k == mosek.boundkey.fx for k in form["bk"]], bool)
    has_lo = fx | np.array([k in (mosek.boundkey.lo, mosek.boundkey.ra) for k in form["bk"]], bool)
    has_up = fx | np.array([k in (mosek.boundkey.up, mosek.boundkey.ra) for k in form["bk"]], bool)
    return has_lo, has_up


def mosek_primal(form):
    import cvxpy as cp

    x = cp.Variable(form["n"])
    has_lo, has_up = _bounds(form)
    Ax, v = form["A"] @ x, form["F"] @ x + form["g"]
    cons = [Ax[i] >= form["bl"][i] for i in np.flatnonzero(has_lo)] + \
        [Ax[i] <= form["bu"][i] for i in np.flatnonzero(has_up)]
    for kind, alpha, idx in form["accs"]:
        cons += in_domain(kind, alpha, v[idx])
    obj = form["c"] @ x + form["cfix"] + (0.5 * cp.quad_form(x, cp.psd_wrap(form["Q"])) if form["Q"].any() else 0)
    cp.Problem(cp.Minimize(obj), cons).solve(solver="CLARABEL", **TIGHT)
    return x.value


def mosek_dual(form, farkas=False):
    """MOSEK's documented dual: max l'slc - u'suc - g'doty + cfix - 1/2 xq'Q xq  s.t.  A'(slc - suc) + F'doty - Q xq
    = c, doty in D*; with ``farkas``: c -> 0 and the objective fixed to 1 (primal infeasibility certificate)."""
    import cvxpy as cp

    m, k = form["A"].shape[0], form["F"].shape[0]
    has_lo, has_up = _bounds(form)
    slc, suc, doty = cp.Variable(m, nonneg=True), cp.Variable(m, nonneg=True), cp.Variable(k)
    cons = [slc[i] == 0 for i in np.flatnonzero(~has_lo)] + [suc[i] == 0 for i in np.flatnonzero(~has_up)]
    for kind, alpha, idx in form["accs"]:
        cons += in_domain(kind, alpha, doty[idx], dual=True)
    bl, bu = np.where(has_lo, form["bl"], 0.0), np.where(has_up, form["bu"], 0.0)
    value = bl @ slc - bu @ suc - form["g"] @ doty
    lhs = form["A"].T @ (slc - suc) + form["F"].T @ doty
    if farkas:
        prob = cp.Problem(cp.Minimize(cp.sum(slc + suc) + cp.norm(doty)), cons + [lhs == 0, value == 1])
    elif form["Q"].any():
        xq = cp.Variable(form["n"])
        prob = cp.Problem(cp.Maximize(value + form["cfix"] - 0.5 * cp.quad_form(xq, cp.psd_wrap(form["Q"]))),
                          cons + [lhs - form["Q"] @ xq == form["c"]])
    else:
        prob = cp.Problem(cp.Maximize(value + form["cfix"]), cons + [lhs == form["c"]])
    prob.solve(solver="CLARABEL", **({} if farkas else TIGHT))
    assert prob.status in ("optimal", "optimal_inaccurate"), prob.status
    return slc.value - suc.value, doty.value if k else np.zeros(0)


def mosek_ray(form):
    """A primal ray: c'd = -1, A d within the recession cone of the bounds, F d in D, Q d = 0."""
    import cvxpy as cp

    d = cp.Variable(form["n"])
    has_lo, has_up = _bounds(form)
    Ad, v = form["A"] @ d, form["F"] @ d
    cons = [form["c"] @ d == -1, form["Q"] @ d == 0] + [Ad[i] >= 0 for i in np.flatnonzero(has_lo)] + \
        [Ad[i] <= 0 for i in np.flatnonzero(has_up)]
    for kind, alpha, idx in form["accs"]:
        cons += in_domain(kind, alpha, v[idx])
    prob = cp.Problem(cp.Minimize(cp.norm(d)), cons)
    prob.solve(solver="CLARABEL")
    assert prob.status == "optimal", prob.status
    return d.value


@pytest.fixture
def documented_mosek(monkeypatch):
    """Replace Task.optimize by the documented-duality fake; ``state['answer']`` picks what it returns."""
    state = {"answer": "optimal", "calls": 0}
    itr = mosek.soltype.itr

    def optimize(task):
        state["calls"] += 1
        form = read_form(task)
        n, m = form["n"], form["A"].shape[0]
        xx, y, doty = np.zeros(n), np.zeros(m), np.zeros(form["F"].shape[0])
        if state["answer"] == "optimal":
            xx = mosek_primal(form)
            y, doty = mosek_dual(form)
            state["solsta"] = mosek.solsta.optimal
        elif state["answer"] == "infeasible":
            y, doty = mosek_dual(form, farkas=True)
            state["solsta"] = mosek.solsta.prim_infeas_cer
        else:
            xx = mosek_ray(form)
            state["solsta"] = mosek.solsta.dual_infeas_cer
        task.putxxslice(itr, 0, n, np.asarray(xx, float))
        if m:
            task.putyslice(itr, 0, m, np.asarray(y, float))
        for a, (_, _, idx) in enumerate(form["accs"]):
            task.putaccdoty(itr, a, np.asarray(doty[idx], float))
        assert np.allclose(task.getaccdotys(itr), doty) and np.allclose(task.getyslice(itr, 0, m), y)
        return mosek.rescode.ok

    monkeypatch.setattr(mosek.Task, "optimize", optimize)
    monkeypatch.setattr(mosek.Task, "getsolsta", lambda task, which: state["solsta"])
    monkeypatch.setattr(mosek.Task, "getprosta", lambda task, which: mosek.prosta.unknown)
    return state


@pytest.mark.parametrize("make", [every_cone_model, lp_model, qp_model, _psd_model])
def test_solve_path_maps_documented_mosek_duals_to_ours(make, documented_mosek):
    model = make()
    ref = model.solve(backend="clarabel")
    sol = model.solve(backend="mosek")
    assert documented_mosek["calls"] == 1
    assert sol.status == "optimal" and sol.backend == "mosek" and sol.x.shape == (ref.problem.n,)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6, abs=1e-7)
    cert = check(model, sol)
    assert cert.verdict == "certified", cert.summary()
    assert not cert.duals_recovered
    for name in model.constraints:  # duals of these models are unique: same numbers as Clarabel's
        np.testing.assert_allclose(sol.dual(name), ref.dual(name), atol=2e-5, err_msg=name)


def test_solve_path_maps_infeasibility_and_unboundedness_rays(documented_mosek):
    x = Variable(3, "x")
    S = Variable((3, 3), "S", symmetric=True)
    infeasible = Model(minimize(x.sum() + S.trace()),
                       [x >= 1, x.sum() <= 2, norm2(x) <= 10, S >> 0, S[0, 0] == -1 + x[0] - x[0]])
    documented_mosek["answer"] = "infeasible"
    sol = infeasible.solve(backend="mosek")
    assert sol.status == "infeasible" and sol.x is None and sol.certificate.shape == (sol.problem.m,)
    cert = check(infeasible, sol)
    assert cert.verdict in ("certified_infeasible", "accurate_infeasible"), cert.summary()
    unbounded = Model(minimize(x[0] - x[1] + sum_squares(x[2])), [x[0] >= 0, norm2(x[0]) <= x[1] + 5])
    documented_mosek["answer"] = "unbounded"
    sol = unbounded.solve(backend="mosek")
    assert sol.status == "unbounded" and sol.certificate.shape == (sol.problem.n,)
    cert = check(unbounded, sol)
    assert cert.verdict in ("certified_unbounded", "accurate_unbounded"), cert.summary()


def test_status_mapping():
    S, R = mosek.solsta, mosek.rescode
    assert mb._status_key(mosek, S.optimal, R.ok) == "optimal"
    assert mb._status_key(mosek, S.prim_infeas_cer, R.ok) == "infeasible"
    assert mb._status_key(mosek, S.dual_infeas_cer, R.ok) == "unbounded"
    assert mb._status_key(mosek, S.prim_and_dual_feas, R.trm_stall) == "inaccurate"
    assert mb._status_key(mosek, S.unknown, R.trm_max_iterations) == "iteration_limit"
    assert mb._status_key(mosek, S.unknown, R.trm_max_time) == "time_limit"
    assert mb._status_key(mosek, S.unknown, R.trm_stall) == "numerical_error"
    assert mb._status_key(mosek, S.prim_illposed_cer, R.ok) == "numerical_error"


def test_model_export_writes_a_cbf_file_mosek_reads_back(tmp_path):
    import mosek

    from certiprog import Model, Variable, minimize, norm2

    x = Variable(3, "x")
    m = Model(minimize(norm2(x - 1.0)), name="tiny")
    m.add(x.sum() == 1.0, name="budget")
    path = m.export(tmp_path / "tiny.cbf")
    assert path.exists()
    with mosek.Env() as env, env.Task() as task:
        task.readdata(str(path))
        assert task.getnumvar() == m.compile().assemble().n
