"""Issue 13's reproducers, re-run: what each one gives today (one line each).

Each row is a bug report from issue 13 ("A certified that is never wrong ..."); the "today" column is computed
now, so the table stays honest as the code changes. The issue's own "before" figures are quoted in the row label.

    python benchmarks/trust_reproducers.py
"""
from __future__ import annotations

import json
import tempfile
import threading
import warnings
from pathlib import Path

import numpy as np


def _err(e: BaseException) -> str:
    from certiprog.errors import CertiprogError

    kind = "CertiprogError" if isinstance(e, CertiprogError) else "RAW"
    return f"{kind} {type(e).__name__}: {str(e).splitlines()[0][:90]}"


def _pima():
    from certiprog.datasets import load_pima, standardize

    X, y = load_pima()
    X = standardize(X)
    X1, X0 = X[y > 0][:60], X[y < 0][:100]
    return X, y, X1, X0, X0.mean(axis=0), np.cov(X0, rowvar=False, bias=True)


def scaled_background_risk():
    from certiprog.certify import check
    from certiprog.formulations import background_risk

    _, _, _, _, mu, S = _pima()
    W = np.vstack([np.eye(8)[1], -np.eye(8)[5]])
    exact = check(m1 := background_risk(W, mu, S), m1.solve(backend="clarabel")).interval
    m = background_risk(W, mu, 1e8 * S)
    sol = m.solve(backend="clarabel")
    cert = check(m, sol)
    rel = abs(sol.objective - 0.5 * (exact[0] + exact[1]) / 1e8) / (0.5 * (exact[0] + exact[1]) / 1e8)
    return f"objective {sol.objective:.4g} (error {rel:.1%}), verdict {cert.verdict}"


def scaled_w_osqp():
    from certiprog.certify import check
    from certiprog.formulations import background_risk

    _, _, _, _, mu, S = _pima()
    W = 1e-8 * np.vstack([np.eye(8)[1], -np.eye(8)[5]])
    m = background_risk(W, mu, S)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = m.solve(backend="cvxpy", solver="OSQP")
    cert = check(m, sol)
    return f"objective {sol.objective:.4g}, verdict {cert.verdict}, interval [{cert.interval[0]:.4g}, {cert.interval[1]:.4g}]"


def scaled_mcp_infeasible():
    from certiprog.certify import check
    from certiprog.demo import _ellipsoids
    from certiprog.formulations import mcp

    cen, bas, rad, lab = _ellipsoids(np.random.default_rng(0), P=4, D=6, m=2)
    m = mcp(1e-8 * cen, bas, 1e-8 * rad, lab, q=2)
    sol = m.solve(backend="clarabel")
    return f"status {sol.status}, verdict {check(m, sol).verdict}"


def indefinite_parameter():
    from certiprog import Model, Parameter, Variable, minimize
    from certiprog.model.atoms import quad_form

    x = Variable(2)
    Q = Parameter((2, 2), value=np.eye(2))
    m = Model(minimize(quad_form(x, Q)), [x >= -1, x <= 1])
    Q.value = np.diag([1.0, -1.0])
    sol = m.solve(backend="clarabel")
    return f"solved: status {sol.status}, objective {sol.objective:.3g}"


def equality_dual_sign():
    from certiprog import Model, Variable, minimize

    y, t = Variable(), Variable()
    c = 2 * y == t
    m = Model(minimize(t), [c, y >= 1])
    sol = m.solve(backend="clarabel")
    return f"dual of `2*y == t` = {float(np.ravel(sol.dual(c))[0]):+.3f} (rule s = lhs - rhs gives -1)"


def lower_end_finite(label):
    from certiprog.certify import check
    from certiprog.demo import demo_instances

    m = dict(demo_instances())[label]
    cert = check(m, m.solve(backend="clarabel"))
    return f"verdict {cert.verdict}, interval [{cert.interval[0]:.10g}, {cert.interval[1]:.10g}]"


def gurobi_licence():
    from certiprog import Model, Variable, minimize

    n = 3000
    x = Variable(n)
    m = Model(minimize(x.sum()), [x >= 0])
    sol = m.solve(backend="cvxpy", solver="GUROBI")
    return f"status {sol.status}"


def options_validated():
    from certiprog import Model, Variable, minimize

    x = Variable(2)
    m = Model(minimize(x.sum()), [x >= 0])
    out = []
    for v in ("ten", -5):
        try:
            m.solve(backend="clarabel", max_iter=v)
            out.append(f"max_iter={v!r} accepted")
        except Exception as e:  # noqa: BLE001
            out.append(_err(e).split(":")[0])
    sol = m.solve(backend="clarabel", max_iter=1)
    out.append(f"max_iter=1 -> status {sol.status}")
    return "; ".join(out)


def pyomo_threads():
    from certiprog import Model, Variable, minimize
    from certiprog.solvers import available_backends

    if "pyomo" not in available_backends():
        return "pyomo not installed"
    res = []

    def run():
        x = Variable(3)
        res.append(Model(minimize(x.sum()), [x >= 1]).solve(backend="pyomo").status)

    th = [threading.Thread(target=run) for _ in range(2)]
    [t.start() for t in th]
    [t.join(60) for t in th]
    return "deadlock" if any(t.is_alive() for t in th) else f"both finished: {res}"


def missing_atoms():
    import certiprog

    names = ["exp", "log", "log_sum_exp", "entr", "rel_entr", "kl_div", "logistic", "geo_mean", "square"]
    have = [n for n in names if hasattr(certiprog, n) or hasattr(certiprog.model, n)]
    return f"{len(have)}/{len(names)} present: {', '.join(have) or '-'}"


def pow_operator():
    from certiprog import Variable

    e = Variable(2) ** 2
    return f"ok: {type(e).__name__}"


def vstack_rows():
    from certiprog import Variable
    from certiprog.model import expression as ex

    vstack = getattr(ex, "vstack", None)
    if vstack is None:
        return "no vstack"
    e = vstack([Variable(3), Variable(3)])
    return f"vstack of two 3-vectors has shape {e.shape} (numpy: (2, 3))"


def raw_error(call):
    try:
        call()
        return "accepted"
    except Exception as e:  # noqa: BLE001
        return _err(e)


def tampered_solution():
    from certiprog import Model, Variable, minimize
    from certiprog.solvers.solution import Solution

    x = Variable(3)
    sol = Model(minimize(x.sum()), [x >= 1]).solve(backend="clarabel")
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "sol"
        sol.save(p)
        files = sorted(Path(d).iterdir())
        js = next(f for f in files if f.suffix == ".json")
        meta = json.loads(js.read_text())
        meta["extra_key"] = 1
        js.write_text(json.dumps(meta))
        Solution.load(p)
        return "tampered file accepted"


def mpm_tiny_gamma():
    from certiprog.estimators import MPMClassifier

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(1, 1, (60, 2)), rng.normal(-1, 1, (60, 2))])
    y = np.r_[np.ones(60), -np.ones(60)]
    clf = MPMClassifier(kernel="rbf", gamma=1e-8).fit(X, y)
    err = float(np.mean(clf.predict(X[:60]) != 1))
    bound = getattr(clf, "worst_case_error_", getattr(clf, "alpha_", None))
    return f"reported worst-case error {bound}, training error on class +1 {err:.2f}"


def rows():
    from certiprog import Variable
    from certiprog.model.constraints import PowerCone3D

    def kernel_none():
        from certiprog.formulations.hp_mpm_paper.kernels import kernel_mpm

        rng = np.random.default_rng(0)
        kernel_mpm(rng.normal(size=(5, 2)), rng.normal(size=(6, 2)), rank_tol=None)

    def mcp_bases():
        from certiprog.formulations import mcp

        mcp(np.zeros((2, 2)), "x", np.ones((2, 1)), np.array([1.0, -1.0]))

    def me2_mu():
        from certiprog.formulations.me2_paper.programs import me2_fit

        rng = np.random.default_rng(0)
        me2_fit(rng.normal(size=(3, 2)), rng.normal(size=(17, 2)), mu="abc", lam=1.0, B=4.0)

    def complex_input():
        from certiprog.formulations import mpm

        rng = np.random.default_rng(0)
        mpm(rng.normal(size=(5, 2)) + 1j, rng.normal(size=(6, 2)))

    def estimator_backend():
        from certiprog.estimators import MPMClassifier

        rng = np.random.default_rng(0)
        MPMClassifier(backend="nope").fit(rng.normal(size=(10, 2)), np.r_[np.ones(5), -np.ones(5)])

    def zero_columns():
        from certiprog.formulations import error_clumping

        error_clumping(np.zeros((6, 0)), np.r_[np.ones(3), -np.ones(3)], rho=1.0, eta=0.5, lam=0.1)

    return [
        ("background_risk Sigma*1e8, clarabel (was 93 % off, certified)", scaled_background_risk),
        ("background_risk W*1e-8, cvxpy/OSQP (was 9.8e-20 vs 0.5135, certified)", scaled_w_osqp),
        ("mcp 1e-8 scaled, clarabel (was certified_infeasible on a feasible program)", scaled_mcp_infeasible),
        ("quad_form with a Parameter set indefinite (was certified saddle 0)", indefinite_parameter),
        ("`2*y == t` equality dual (was +1)", equality_dual_sign),
        ("error_clumping demo lower end (was -inf)", lambda: lower_end_finite("003 error_clumping (Pima)")),
        ("mpm demo lower end (was -inf)", lambda: lower_end_finite("004 mpm (Pima)")),
        ("cvxpy/GUROBI over the size-limited licence (was numerical_error)", gurobi_licence),
        ("max_iter='ten', -5, 1 (was accepted / swallowed)", options_validated),
        ("pyomo from two threads (was a deadlock)", pyomo_threads),
        ("exp-cone / power atoms (were missing)", missing_atoms),
        ("x ** 2 (was a raw error)", pow_operator),
        ("vstack of 1-D vectors (was concatenation)", vstack_rows),
        ("PowerCone3D(alpha=[...]) (was a raw error)", lambda: raw_error(lambda: PowerCone3D(Variable(2), Variable(2), Variable(2), alpha=[0.3, 0.4]))),
        ("Variable(-1) (was a raw error)", lambda: raw_error(lambda: Variable(-1))),
        ("Variable(2.5) (was a raw error)", lambda: raw_error(lambda: Variable(2.5))),
        ("kernel_mpm(rank_tol=None) (was a raw error)", lambda: raw_error(kernel_none)),
        ("mcp(bases='x') (was a raw error)", lambda: raw_error(mcp_bases)),
        ("me2_fit(mu='abc') (was a raw error)", lambda: raw_error(me2_mu)),
        ("complex input to mpm (was truncated silently)", lambda: raw_error(complex_input)),
        ("MPMClassifier(backend='nope') (was a raw error)", lambda: raw_error(estimator_backend)),
        ("error_clumping on zero columns (was a raw cKDTree error)", lambda: raw_error(zero_columns)),
        ("tampered saved Solution (was accepted)", tampered_solution),
        ("MPMClassifier(rbf, gamma=1e-8) (bound 0.0038 refuted by 70 % training error)", mpm_tiny_gamma),
    ]


def main():
    """One row per reproducer: what it returns, or the error it raises (warnings silenced)."""
    print("| reproducer (before) | today |\n|---|---|")
    for label, f in rows():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = f()
        except Exception as e:  # noqa: BLE001
            got = _err(e)
        print(f"| {label} | {got} |", flush=True)


if __name__ == "__main__":
    main()
