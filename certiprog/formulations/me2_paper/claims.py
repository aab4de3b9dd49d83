"""Claims of paper 002 — Maximal Exclusion Ellipsoids (ME^2), Metzler et al., CAp 2017 (hal-01581550).

One entry per row C002-01 .. C002-58 of the claims inventory in ``docs/derivations/002.md`` (ids
``002-C01`` .. ``002-C58``). Every check re-derives the statement (SymPy) or tests it (seeded numeric
predicates, solves of `certiprog.formulations.me2_paper.programs` compared with the closed forms). Refuted entries carry
a counterexample and the corrected form, and the corrected form is checked too.

Notation: ``y_i = x_i - c``, ``Y`` (n, d) stacks the ``y_i``; ``G = Y Y^T``; ``G' = G o G``;
``S(a) = Y^T diag(a) Y``; ``s = 1^T a``; dual function
``g(a, b, dl) = -a^T diag G - a^T G' a / (4 lam) - (b - dl - s)^2 / (4 mu) + B s - B b``.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy

from certiprog.audit.registry import claim, not_checkable_rows, refuted, verified
from certiprog.audit.symbolic import verify_identity
from certiprog.formulations.me2_paper import bounds as thm2_bound
from certiprog.formulations.me2_paper.programs import ME2_INSTANCES, me2_instance
from certiprog.formulations.me2_paper.programs import me2_objective as primal_obj  # Problem 2's objective
from certiprog.formulations.me2_paper.programs import squared_distances as qdist  # q_i = y_i^T M y_i

P = "002"

# the doc's six test instances (seed, n, d, mu, lam, B) and their data: the package's one table and generator
INSTANCES = ME2_INSTANCES
make_instance = me2_instance  # (seed, n, d, sigma=1) -> (X_neg, center)


# ------------------------------------------------------------------ numeric helpers (independent of me2's internals)
def dual_g(a, b, dl, Y, mu, lam, B):
    """The corrected dual function g (maximisation form), straight from the definitions."""
    G = Y @ Y.T
    s = float(np.sum(a))
    return float(-a @ np.diag(G) - a @ (G * G) @ a / (4 * lam) - (b - dl - s) ** 2 / (4 * mu) + B * s - B * b)


def closed_M(a, Y, lam):
    return np.eye(Y.shape[1]) + (Y.T * a) @ Y / (2 * lam)


def loss(M, R, x, c):
    """The corrected loss of Sec. 4.2: [R - ||x - c||_M^2]_+ (no 1/n, no R^2)."""
    y = x - c
    return max(0.0, R - float(y @ M @ y))


def k_lip(B):
    return max(1.0, 4 * B * B)


def N_reg(M, R, mu, lam, B):
    return mu * (B - R) ** 2 + lam * np.sum((M - np.eye(M.shape[0])) ** 2)


def ball(rng, m, d, B):
    v = rng.normal(size=(m, d))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v * B * rng.uniform(0, 1, size=(m, 1)) ** (1 / d)


def centred_sample(rng, n, d, B):
    """A centre c near 0 and n points around it, all inside the B-ball (the Sec. 4 setting)."""
    c = 0.2 * ball(rng, 1, d, B)[0]
    X = c + 0.3 * rng.normal(size=(n, d))
    X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True) / B)
    return c, X


def replace_one(rng, X, t, d, B):
    """S^i: a copy of X with point t replaced by a fresh draw from the B-ball."""
    Xi = X.copy()
    Xi[t] = ball(rng, 1, d, B)[0]
    return Xi


def replaced_pairs(rng, count, B=0.5, n=20, d=3):
    """Yield (c, X, X^t) for t < count: data in the B-ball and a copy with point t redrawn (Prop. 1's S, S^i)."""
    for t in range(count):
        c, X = centred_sample(rng, n, d, B)
        yield c, X, replace_one(rng, X, t, d, B)


@functools.lru_cache(maxsize=None)
def stability_optima(seed: int, t: int, mu: float, lam: float, B=0.5, n=20, d=3):
    """The ME^2 optima (P, P^i) on the t-th pair of `replaced_pairs` drawn from ``default_rng(seed)`` (cached:
    002-C38 and 002-C40 share them)."""
    c, X, Xi = list(replaced_pairs(np.random.default_rng(seed), t + 1, B, n, d))[t]
    return solve_primal(X, c, mu, lam, B), solve_primal(Xi, c, mu, lam, B)


def solve_primal(X, c, mu, lam, B, psd=False):
    from certiprog.formulations.me2_paper.programs import me2_primal

    model = me2_primal(X, c, mu, lam, B, psd=psd)
    sol = model.solve()
    if not sol.ok:
        raise RuntimeError(f"me2_primal did not solve: {sol.status}")
    out = model.derived(sol).as_dict()
    out["objective"] = float(sol.objective)
    out["sol"] = sol
    return out


def solve_dual(X, c, mu, lam, B):
    from certiprog.formulations.me2_paper.programs import me2_dual

    model = me2_dual(X, c, mu, lam, B)
    sol = model.solve()
    if not sol.ok:
        raise RuntimeError(f"me2_dual did not solve: {sol.status}")
    out = model.derived(sol).as_dict()
    out["dual_objective"] = float(sol.objective)
    out["alpha_raw"] = np.asarray(sol.value("alpha"), float)
    return out


@functools.lru_cache(maxsize=None)
def solved(i: int) -> dict:
    seed, n, d, mu, lam, B = INSTANCES[i]
    X, c = make_instance(seed, n, d)
    return dict(X=X, c=c, Y=X - c, n=n, d=d, mu=mu, lam=lam, B=B, P=solve_primal(X, c, mu, lam, B),
                D=solve_dual(X, c, mu, lam, B))


def gram_factor(Y):
    """K (d*d, n) with ||K a||^2 = ||Y^T diag(a) Y||_F^2 = a^T (G o G) a (full vectorisation)."""
    n, d = Y.shape
    return np.stack([Y[:, i] * Y[:, j] for i in range(d) for j in range(d)])


def solve_dual_variant(Y, mu, lam, B, sign_delta: float = -1.0, minimise_printed: bool = False):
    """Solve max -a^T diag G - ||K a||^2/(4 lam) - (b + sign_delta*dl - s)^2/(4 mu) + B s - B b on the dual box.

    ``sign_delta = -1`` is the corrected dual; ``+1`` is the dual obtained from the printed Lagrangian (3).
    ``minimise_printed`` solves the Sec. 3 printed min form (= min of -g) instead; returns the optimal value.
    """
    from certiprog.model import Model, Variable, maximize, minimize, sum_squares

    n = Y.shape[0]
    K = gram_factor(Y)
    diagG = np.sum(Y * Y, axis=1)
    a, b, dl = Variable(n, "a"), Variable((), "b"), Variable((), "dl")
    s = a.sum()
    g = (-(diagG @ a) - sum_squares(K @ a) * (1 / (4 * lam)) - sum_squares(b + sign_delta * dl - s) * (1 / (4 * mu))
         + B * s - B * b)
    m = Model(minimize(-g) if minimise_printed else maximize(g), name="dual_variant")
    m.add(a >= 0), m.add(a <= 1.0 / n), m.add(b >= 0), m.add(dl >= 0)
    sol = m.solve()
    if not sol.ok:
        raise RuntimeError(f"dual variant did not solve: {sol.status}")
    return float(sol.objective)


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


def _sym(names, **kw):
    return sympy.symbols(names, **kw)


# ====================================================================== Sec. 2 and 3
@claim("002-C03", P, "Sec. 3, Problem 2",
       "min_{M,R,xi} (1/n) sum xi_i + mu (B-R)^2 + lam ||M-I||_F^2 s.t. ||x_i-c||_M^2 >= R - xi_i, xi >= 0, "
       "B >= R >= 0 (R compared with the SQUARED M-distance)", kind="formula", relied_on=True)
def c03():
    worst_obj, worst_xi, worst_MR = 0.0, 0.0, 0.0
    for i in range(len(INSTANCES)):
        S = solved(i)
        Pr, D, Y = S["P"], S["D"], S["Y"]
        # the model's objective is the formula of Problem 2 evaluated at its own optimum
        worst_obj = max(worst_obj, rel(primal_obj(Pr["M"], Pr["R"], Pr["xi"], S["mu"], S["lam"], S["B"]), Pr["objective"]))
        # xi* = max(0, R - q) (eliminating xi)
        worst_xi = max(worst_xi, float(np.max(np.abs(Pr["xi"] - np.maximum(0, Pr["R"] - qdist(Y, Pr["M"]))))))
        # (M, R) unique (strictly convex in (M, R)): the primal solve and the dual recovery agree
        worst_MR = max(worst_MR, float(np.max(np.abs(Pr["M"] - D["M"]))) / max(1, np.max(np.abs(Pr["M"]))),
                       abs(Pr["R"] - D["R"]) / max(1, abs(Pr["R"])))
    if worst_obj > 1e-6 or worst_xi > 1e-5 or worst_MR > 1e-5:
        return refuted(f"Problem 2 misbehaves: objective mismatch {worst_obj:.2e}, xi mismatch {worst_xi:.2e}, "
                       f"(M,R) primal vs dual {worst_MR:.2e}")
    return verified(f"solved on {len(INSTANCES)} seeded instances (n>d, n<d, n=d): the objective is the printed formula "
                    f"(rel. err {worst_obj:.1e}), xi* = max(0, R - q) ({worst_xi:.1e}), and the optimal (M, R) is unique: "
                    f"the primal solve and the closed-form recovery from the dual agree to {worst_MR:.1e}.")


@claim("002-C04", P, "Sec. 3, par. 1",
       "the size of the projection space equals rank M; it can be much smaller than d (correlated features)",
       kind="claim")
def c04():
    # strongly correlated features: column 2 = column 1, column 3 = 2 * column 1
    rng = np.random.default_rng(42)
    base = rng.normal(size=(10, 1))
    X = np.hstack([base, base, 2 * base]) + 1e-3 * rng.normal(size=(10, 3))
    c = np.zeros(3)
    Pr = solve_primal(X, c, 1.0, 1e-3, 4.0)
    ev = np.linalg.eigvalsh(Pr["M"])
    rank = int(np.linalg.matrix_rank(Pr["M"]))
    # the corrected statement, on every instance and on random feasible dual points: lambda_min(M) >= 1
    worst = float(ev.min())
    for i in range(len(INSTANCES)):
        worst = min(worst, float(np.linalg.eigvalsh(solved(i)["P"]["M"]).min()))
    r2 = np.random.default_rng(1)
    for _ in range(50):
        Y = r2.normal(size=(7, 4))
        a = r2.uniform(0, 1 / 7, 7)
        worst = min(worst, float(np.linalg.eigvalsh(closed_M(a, Y, r2.uniform(1e-3, 10))).min()))
    if rank == 3 and worst >= 1 - 1e-6:
        return refuted(f"with perfectly correlated features (d = 3, column 2 = column 1, column 3 = 2 column 1) and "
                       f"lam = 1e-3 the optimal M has eigenvalues {np.round(ev, 4).tolist()}: rank M = {rank} = d. "
                       f"The closed form M = I + S(alpha)/(2 lam) is >= I, so rank M = d always "
                       f"(smallest eigenvalue over all test optima and 50 random dual points: {worst:.6f}).",
                       counterexample={"X": "10 points on the line t*(1,1,2) + 1e-3 noise", "c": "0", "mu": 1.0,
                                       "lam": 1e-3, "B": 4.0, "eigenvalues of M*": np.round(ev, 4).tolist()},
                       corrected="M >= I, so rank M = d: the learned map never reduces the dimension")
    return verified(f"found rank {rank} < d")


@claim("002-C05", P, "Sec. 3, par. 2", "the bigger lam, the closer ||x - c||_M^2 to the Euclidean distance",
       kind="claim")
def c05():
    X, c = make_instance(0, 8, 3)
    Y = X - c
    bound_num = float(np.max(np.sum(Y * Y, axis=1)))
    lams = [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0]
    dist = []
    for lam in lams:
        Pr = solve_primal(X, c, 1.0, lam, 4.0)
        dist.append(float(np.linalg.norm(Pr["M"] - np.eye(3))))
        if dist[-1] > bound_num / (2 * lam) + 1e-6:
            return refuted(f"||M - I|| = {dist[-1]} exceeds max||y||^2/(2 lam) at lam = {lam}")
    if not all(a > b for a, b in zip(dist, dist[1:])):
        return refuted(f"||M - I||_F is not decreasing in lam: {dist}", counterexample={"lams": lams, "dist": dist})
    return verified("||M - I||_F = ||S(alpha)||_F/(2 lam) <= (1^T alpha) max||y_k||^2/(2 lam) <= max||y_k||^2/(2 lam) "
                    f"(bound checked); seed-0 sweep lam = {lams}: ||M - I||_F = {[round(v, 4) for v in dist]}, "
                    "strictly decreasing.")


@claim("002-C06", P, "Sec. 3, par. 2", "mu controls the size of the ellipsoid: R* = B - 1^T alpha/(2 mu) "
       "in [B - 1/(2 mu), B] (generic case)", kind="claim")
def c06():
    X, c = make_instance(0, 8, 3)
    Rs = []
    mus = [0.1, 0.5, 1.0, 2.0, 10.0]
    for mu in mus:
        Pr = solve_primal(X, c, mu, 0.5, 4.0)
        R, a = Pr["R"], Pr["alpha"]
        if not (4.0 - 1 / (2 * mu) - 1e-6 <= R <= 4.0 + 1e-6):
            return refuted(f"R* = {R} outside [B - 1/(2 mu), B] at mu = {mu}")
        if abs(R - (4.0 - a.sum() / (2 * mu))) > 1e-5:
            return refuted(f"R* = {R} differs from B - 1^T alpha/(2 mu) = {4.0 - a.sum() / (2 * mu)} at mu = {mu}")
        Rs.append(R)
    if not all(a <= b + 1e-7 for a, b in zip(Rs, Rs[1:])):
        return refuted(f"R* is not monotone in mu: {Rs}")
    return verified(f"seed 0, mu = {mus}: R* = {[round(r, 4) for r in Rs]} (nondecreasing in mu, each equal to "
                    "B - 1^T alpha/(2 mu) and inside [B - 1/(2 mu), B] since 1^T alpha <= 1).")


@claim("002-C07", P, "Sec. 3, Fig. 1 caption", "lam very small induces a matrix M close to the identity",
       kind="claim")
def c07():
    X, c = make_instance(0, 8, 3)
    small = float(np.linalg.norm(solve_primal(X, c, 1.0, 1e-3, 4.0)["M"] - np.eye(3)))
    large = float(np.linalg.norm(solve_primal(X, c, 1.0, 100.0, 4.0)["M"] - np.eye(3)))
    if small > 1.0 and large < 0.01:
        return refuted(f"seed-0 instance (n = 8, d = 3, mu = 1, B = 4): lam = 1e-3 gives ||M - I||_F = {small:.4f} "
                       f"(far from I), lam = 100 gives {large:.5f}. The caption is reversed.",
                       counterexample={"instance": "seed 0, n=8, d=3, mu=1, B=4", "lam": 1e-3,
                                       "||M-I||_F": round(small, 4)},
                       corrected=f"lam very LARGE induces M close to I (checked: lam = 100 gives ||M - I||_F = {large:.5f})")
    return verified(f"small lam: {small}")


@claim("002-C08", P, "Sec. 3, eq. (3)",
       "L = (1/n) sum xi + mu(B-R)^2 - sum gamma_i xi_i - sum alpha_i(||x_i-c||_M^2 - R + xi_i) + lam||M-I||^2 "
       "- beta R + delta(B - R)", kind="formula")
def c08():
    B, R, s, b, dl = _sym("B R s beta delta", real=True)
    mu = sympy.Symbol("mu", positive=True)
    # R-part of the Lagrangian built from the constraint R <= B written R - B <= 0 (multiplier + delta (R - B))
    correct = mu * (B - R) ** 2 + s * R - b * R + dl * (R - B)
    printed = mu * (B - R) ** 2 + s * R - b * R + dl * (B - R)
    def dual_part(expr):
        Rs = sympy.solve(sympy.diff(expr, R), R)[0]
        return sympy.simplify(expr.subs(R, Rs))
    ok_c = verify_identity(dual_part(correct), -(b - dl - s) ** 2 / (4 * mu) - B * b + B * s)
    ok_p = verify_identity(dual_part(printed), -(b + dl - s) ** 2 / (4 * mu) - B * b + B * s)
    # numeric: the dual from (3) over-estimates p* (violating weak duality), the corrected one matches p*
    S = solved(0)
    w3 = solve_dual_variant(S["Y"], S["mu"], S["lam"], S["B"], sign_delta=+1.0)
    wc = solve_dual_variant(S["Y"], S["mu"], S["lam"], S["B"], sign_delta=-1.0)
    p = S["P"]["objective"]
    if ok_c and ok_p and w3 > p + 0.1 and rel(wc, p) < 1e-6:
        return refuted(f"with +delta(B - R) the R-minimisation gives -(beta + delta - 1^T alpha)^2/(4 mu) (SymPy), the "
                       f"dual of Problem 2 with R >= B. Seed-0 instance: its optimum is {w3:.10f} > p* = {p:.10f}, which "
                       "violates weak duality, so (3) cannot be the Lagrangian of Problem 2. App. A prints the correct "
                       f"sign; the corrected dual's optimum is {wc:.10f} = p*.",
                       counterexample={"instance": "seed 0, n=8, d=3, mu=1, lam=0.5, B=4", "p*": round(p, 10),
                                       "dual from eq. (3)": round(w3, 10)},
                       corrected="L = ... - beta R + delta (R - B)  (constraint R <= B written R - B <= 0)")
    return verified("the printed sign gives the right dual")


@claim("002-C09", P, "Sec. 3, eq. (4)", "grad_R L = sum alpha_i + 2 mu R - 2 mu B - beta", kind="formula")
def c09():
    mu = sympy.Symbol("mu", positive=True)
    B, R, s, b, dl = _sym("B R s beta delta", real=True)
    L = mu * (B - R) ** 2 + s * R - b * R + dl * (R - B)
    printed = s + 2 * mu * R - 2 * mu * B - b
    diff = sympy.simplify(sympy.diff(L, R) - printed)
    D = lambda r, m=1.0, BB=4.0, ss=0.5, bb=0.3, dd=0.7: m * (BB - r) ** 2 + ss * r - bb * r + dd * (r - BB)
    R_true, R_print = 4.0 + (0.3 - 0.7 - 0.5) / 2, (0.3 + 2 * 4.0 - 0.5) / 2
    ok_fix = verify_identity(sympy.diff(L, R), printed + dl)
    if diff != 0 and ok_fix and D(R_print) > D(R_true) + 0.1:
        return refuted(f"dL/dR of the (correct) Lagrangian minus the printed (4) is {diff} (SymPy). With mu = 1, B = 4, "
                       f"1^T alpha = 0.5, beta = 0.3, delta = 0.7 the R from the printed gradient gives D = {D(R_print):.4f} "
                       f"> {D(R_true):.4f} = min_R D. (The R printed after (4) already contains -delta; delta* = 0 at "
                       "the optimum, so results are unaffected.)",
                       counterexample={"mu": 1, "B": 4, "sum alpha": 0.5, "beta": 0.3, "delta": 0.7,
                                       "D(R_printed)": round(D(R_print), 6), "D(R_true)": round(D(R_true), 6)},
                       corrected="grad_R L = sum alpha_i + 2 mu R - 2 mu B - beta + delta")
    return verified("printed gradient is right")


@claim("002-C10", P, "Sec. 3, eq. (5)", "grad_{xi_i} L = 1/n - gamma_i - alpha_i, hence 0 <= alpha_i <= 1/n",
       kind="formula", relied_on=True)
def c10():
    n = 3
    xi = sympy.symbols("xi0:3", real=True)
    al = sympy.symbols("alpha0:3", nonnegative=True)
    ga = sympy.symbols("gamma0:3", nonnegative=True)
    L = sum(xi) / n - sum(g * x for g, x in zip(ga, xi)) - sum(a * x for a, x in zip(al, xi))
    for i in range(n):
        if sympy.simplify(sympy.diff(L, xi[i]) - (sympy.Rational(1, n) - ga[i] - al[i])) != 0:
            return refuted(f"d L / d xi_{i} differs from 1/n - gamma_i - alpha_i")
    worst = 0.0
    for i in range(len(INSTANCES)):
        S = solved(i)
        a, gam = S["P"]["alpha"], S["P"]["gamma"]
        worst = max(worst, float(np.max(np.abs(a + gam - 1 / S["n"]))), float(max(0, -a.min(), a.max() - 1 / S["n"])))
    if worst > 1e-6:
        return refuted(f"solver multipliers violate alpha + gamma = 1/n or the box by {worst}")
    return verified("SymPy: dL/dxi_i = 1/n - gamma_i - alpha_i; gamma_i >= 0 then gives alpha_i <= 1/n. Numerically the "
                    f"solver's multipliers of 'margin' and 'xi>=0' satisfy alpha + gamma = 1/n and the box to {worst:.1e} "
                    "on all 6 instances.")


@claim("002-C11", P, "Sec. 3", "d ||M - I||_F^2 / dM = 2 (M - I)", kind="formula")
def c11():
    d = 3
    M = sympy.Matrix(d, d, lambda i, j: sympy.Symbol(f"m{i}{j}", real=True))
    f = sum((M - sympy.eye(d)).applyfunc(lambda z: z ** 2))
    grad = M.applyfunc(lambda z: sympy.diff(f, z))
    chk = verify_identity(grad, 2 * (M - sympy.eye(d)))
    return verified(f"SymPy on a general 3x3 M (entrywise derivative): holds ({chk.method})") if chk else \
        refuted("gradient differs", counterexample=chk.counterexample)


def _sym_lagrangian(n=2, d=2):
    """SymPy Lagrangian of Problem 2 (correct signs) for symbolic Y (n x d) and a general M."""
    Y = sympy.Matrix(n, d, lambda i, j: sympy.Symbol(f"y{i}{j}", real=True))
    M = sympy.Matrix(d, d, lambda i, j: sympy.Symbol(f"m{i}{j}", real=True))
    al = sympy.Matrix(sympy.symbols(f"alpha0:{n}", nonnegative=True))
    ga = sympy.Matrix(sympy.symbols(f"gamma0:{n}", nonnegative=True))
    xi = sympy.Matrix(sympy.symbols(f"xi0:{n}", real=True))
    R, B = sympy.symbols("R B", real=True)
    b, dl = sympy.symbols("beta delta", nonnegative=True)
    mu, lam = sympy.symbols("mu lambda", positive=True)
    q = [(Y[i, :] * M * Y[i, :].T)[0, 0] for i in range(n)]
    L = (sum(xi) / n + mu * (B - R) ** 2 + lam * sum((M - sympy.eye(d)).applyfunc(lambda z: z ** 2))
         - sum(al[i] * (q[i] - R + xi[i]) for i in range(n)) - sum(ga[i] * xi[i] for i in range(n))
         - b * R + dl * (R - B))
    return dict(Y=Y, M=M, al=al, ga=ga, xi=xi, R=R, B=B, b=b, dl=dl, mu=mu, lam=lam, L=L, n=n, d=d)


@claim("002-C12", P, "Sec. 3, eq. (6)", "dL/dM = - sum_k alpha_k (x_k - c)(x_k - c)^T + 2 lam (M - I)",
       kind="formula")
def c12():
    s = _sym_lagrangian()
    M, Y, al, lam, d = s["M"], s["Y"], s["al"], s["lam"], s["d"]
    grad = M.applyfunc(lambda z: sympy.diff(s["L"], z))
    S = sum((al[k] * Y[k, :].T * Y[k, :] for k in range(s["n"])), sympy.zeros(d, d))
    chk = verify_identity(grad, -S + 2 * lam * (M - sympy.eye(d)))
    return verified(f"SymPy (n = d = 2, symbolic data, general M): holds ({chk.method})") if chk else \
        refuted("dL/dM differs", counterexample=chk.counterexample)


@claim("002-C13", P, "Sec. 3", "(4) => R = (beta - delta + 2 mu B - sum alpha_i) / (2 mu)", kind="closed_form",
       relied_on=True)
def c13():
    s = _sym_lagrangian()
    R = s["R"]
    Rs = sympy.solve(sympy.diff(s["L"], R), R)
    chk = verify_identity(Rs[0], (s["b"] - s["dl"] + 2 * s["mu"] * s["B"] - sum(s["al"])) / (2 * s["mu"]))
    worst = 0.0
    for i in range(len(INSTANCES)):
        S = solved(i)
        Pr = S["P"]
        worst = max(worst, abs(Pr["R"] - (Pr["beta"] - Pr["delta"] + 2 * S["mu"] * S["B"] - Pr["alpha"].sum())
                               / (2 * S["mu"])))
    if len(Rs) == 1 and chk and worst < 1e-5:
        return verified("SymPy: dL/dR = 0 of the correctly signed Lagrangian has the unique root "
                        "(beta - delta + 2 mu B - sum alpha)/(2 mu), the printed R (it contradicts the printed (4), see "
                        f"002-C09); numerically R* equals it with the solver's multipliers to {worst:.1e} on 6 instances.")
    return refuted(f"closed form of R fails (sympy {chk.holds}, numeric {worst})")


@claim("002-C14", P, "Sec. 3", "(6) => M = I + (1/(2 lam)) sum_k alpha_k (x_k - c)(x_k - c)^T", kind="closed_form",
       relied_on=True)
def c14():
    s = _sym_lagrangian()
    M, d = s["M"], s["d"]
    eqs = list(M.applyfunc(lambda z: sympy.diff(s["L"], z)))
    sol = sympy.solve(eqs, list(M), dict=True)[0]
    Msol = M.subs(sol)
    S = sum((s["al"][k] * s["Y"][k, :].T * s["Y"][k, :] for k in range(s["n"])), sympy.zeros(d, d))
    chk = verify_identity(Msol, sympy.eye(d) + S / (2 * s["lam"]))
    worst = 0.0
    for i in range(len(INSTANCES)):
        Sd = solved(i)
        a = np.clip(Sd["D"]["alpha_raw"], 0, 1 / Sd["n"])
        Mc = closed_M(a, Sd["Y"], Sd["lam"])
        worst = max(worst, float(np.max(np.abs(Mc - Sd["P"]["M"]))) / max(1.0, float(np.max(np.abs(Sd["P"]["M"])))))
    if chk and worst <= 1e-5:
        return verified("SymPy: the stationarity equations dL/dM = 0 (general M, n = d = 2) have the unique solution "
                        "I + S(alpha)/(2 lam). Numerically, I + Y^T diag(alpha) Y/(2 lam) with alpha from the dual solve "
                        f"equals the primal solve's M* (max rel. err {worst:.1e} on 6 instances).")
    return refuted(f"closed form of M fails (sympy {chk.holds}, numeric {worst})")


@claim("002-C15", P, "Sec. 3, below (6)",
       "M is PSD as a CONVEX combination of rank-1 PSD matrices; adding I makes it positive definite", kind="claim")
def c15():
    S = solved(0)
    a, lam = S["P"]["alpha"], S["lam"]
    wsum = float(a.sum() / (2 * lam))
    worst = min(float(np.linalg.eigvalsh(solved(i)["P"]["M"]).min()) for i in range(len(INSTANCES)))
    if abs(wsum - 1) > 1e-3 and worst >= 1 - 1e-6:
        return refuted(f"the weights alpha_k/(2 lam) are nonnegative but sum to 1^T alpha/(2 lam) = {wsum:.4f} != 1 at the "
                       "seed-0 optimum: the combination is conic, not convex. The conclusion holds: M >= I, smallest "
                       f"eigenvalue over the 6 optima {worst:.6f}.",
                       counterexample={"instance": "seed 0", "sum of weights alpha_k/(2 lam)": round(wsum, 6)},
                       corrected="M = I + sum_k (alpha_k/(2 lam)) y_k y_k^T is I plus a CONIC (nonnegative) combination "
                                 "of rank-1 PSD matrices, hence M >= I > 0")
    return verified("weights sum to one")


def _printed_min_form(al, b, dl, G, mu, lam, B, ones_n):
    """The Sec. 3 printed dual objective; ones_n is the vector/matrix size used for 1_d / 1_{dxd}."""
    Gp = G.multiply_elementwise(G)
    one = sympy.ones(ones_n, 1)
    quad = (al.T * (Gp / (4 * lam) + sympy.ones(ones_n, ones_n) / (4 * mu)) * al)[0, 0]
    lin = (al.T * (sympy.Matrix(G.diagonal()).reshape(G.shape[0], 1) - (B + b / (2 * mu) - dl / (2 * mu)) * one))[0, 0]
    return quad + b ** 2 / (4 * mu) + dl ** 2 / (4 * mu) + lin + b * (B - dl / (2 * mu))


def _g_sym(al, b, dl, G, mu, lam, B):
    Gp = G.multiply_elementwise(G)
    s = sum(al)
    return (-(al.T * sympy.Matrix(G.diagonal()).reshape(G.shape[0], 1))[0, 0] - (al.T * Gp * al)[0, 0] / (4 * lam)
            - (b - dl - s) ** 2 / (4 * mu) + B * s - B * b)


@claim("002-C16", P, "Sec. 3, dual",
       "min_{a,b,dl} a^T(G'/(4 lam) + 1_{dxd}/(4 mu)) a + b^2/(4mu) + dl^2/(4mu) + a^T(diag G - (B + b/(2mu) - "
       "dl/(2mu)) 1_d) + b(B - dl/(2mu)) s.t. 0 <= a_i <= 1/n, b, dl >= 0 (the dual of Problem 2)",
       kind="dual", relied_on=True)
def c16():
    n = 3
    al = sympy.Matrix(sympy.symbols("a0:3", real=True))
    b, dl, B = sympy.symbols("beta delta B", real=True)
    mu, lam = sympy.symbols("mu lambda", positive=True)
    G = sympy.Matrix(n, n, lambda i, j: sympy.Symbol(f"G{min(i, j)}{max(i, j)}", real=True))
    chk = verify_identity(_printed_min_form(al, b, dl, G, mu, lam, B, n), -_g_sym(al, b, dl, G, mu, lam, B))
    # literal reading with n != d: 1_{dxd} (d x d) cannot multiply alpha in R^n
    S = solved(0)
    n0, d0 = S["n"], S["d"]
    try:
        a = np.ones(n0) / n0
        _ = a @ np.ones((d0, d0)) @ a
        literal_defined = True
    except ValueError:
        literal_defined = False
    v_min = solve_dual_variant(S["Y"], S["mu"], S["lam"], S["B"], minimise_printed=True)
    p = S["P"]["objective"]
    if chk and not literal_defined and rel(v_min, -p) < 1e-6:
        return refuted(f"taken literally with n != d (seed 0: n = {n0}, d = {d0}) 1_{{dxd}} and 1_d cannot multiply alpha in "
                       "R^n (shape error). With n-dimensional ones the printed objective is exactly -g (SymPy, n = 3, "
                       f"symbolic G): a MIN of -g whose optimal value is {v_min:.10f} = -p* (p* = {p:.10f}), not p*.",
                       counterexample={"n": n0, "d": d0, "printed min value": round(v_min, 10), "p*": round(p, 10)},
                       corrected="replace 1_{dxd}, 1_d by 1_{nxn}, 1_n; the program is min(-g) and d* = -(its value) = p*; "
                                 "equivalently max g(a, b, dl) = -a^T diag G - a^T G' a/(4 lam) - (b - dl - 1^T a)^2/(4 mu) "
                                 "+ B 1^T a - B b")
    return verified("printed dual correct as printed")


@claim("002-C17", P, "Sec. 3, App. A", "G_ij = <x_i - c, x_j - c>; G' = G o G; G (hence G') is PSD", kind="claim")
def c17():
    rng = np.random.default_rng(17)
    worst = 0.0
    for _ in range(40):
        n, d = rng.integers(2, 12), rng.integers(1, 6)
        Y = rng.normal(size=(n, d)) * rng.uniform(0.1, 5)
        G = Y @ Y.T
        Gp = G * G
        scale = max(1.0, float(np.abs(Gp).max()))
        worst = min(worst, float(np.linalg.eigvalsh(G).min()) / scale, float(np.linalg.eigvalsh(Gp).min()) / scale)
        a = rng.uniform(0, 1, n)
        if abs(a @ Gp @ a - np.sum(((Y.T * a) @ Y) ** 2)) > 1e-9 * scale * n * n:
            return refuted("a^T G' a != ||S(a)||_F^2")
    if worst < -1e-10:
        return refuted(f"negative eigenvalue {worst}")
    return verified("Schur product theorem: G' = G o G is PSD; also a^T G' a = ||Y^T diag(a) Y||_F^2 >= 0. Numeric: 40 "
                    f"random (n, d), smallest scaled eigenvalue of G and G' {worst:.1e}, and the identity holds.")


@claim("002-C18", P, "Sec. 1, 3", "the closed form gives a positive definite M for free (no eigenvalue check)",
       kind="claim")
def c18():
    rng = np.random.default_rng(18)
    worst = np.inf
    for _ in range(200):
        n, d = rng.integers(1, 10), rng.integers(1, 6)
        Y = rng.normal(size=(n, d)) * rng.uniform(0.1, 5)
        a = rng.uniform(0, 1 / n, n)
        worst = min(worst, float(np.linalg.eigvalsh(closed_M(a, Y, 10 ** rng.uniform(-6, 2))).min()))
    if worst < 1 - 1e-8:
        return refuted(f"lambda_min(M(alpha)) = {worst} < 1")
    return verified(f"for every alpha >= 0, M(alpha) = I + S(alpha)/(2 lam) >= I: 200 random (Y, alpha, lam) give smallest "
                    f"eigenvalue {worst:.6f} >= 1 (one still has to solve the dual QP to get alpha).")


@claim("002-C19", P, "Sec. 3 (implicit)", "strong duality: the dual optimum equals p*", kind="theorem",
       relied_on=True)
def c19():
    worst = 0.0
    for i in range(len(INSTANCES)):
        S = solved(i)
        p, D = S["P"]["objective"], S["D"]
        a = np.clip(D["alpha_raw"], 0, 1 / S["n"])
        g_np = dual_g(a, D["beta"], D["delta"], S["Y"], S["mu"], S["lam"], S["B"])
        worst = max(worst, rel(D["dual_objective"], p), rel(g_np, p))
        # Slater: M = I, R = B/2, xi = B is strictly feasible
        q = np.sum(S["Y"] ** 2, axis=1)
        if not (np.all(q - S["B"] / 2 + S["B"] > 0) and 0 < S["B"] / 2 < S["B"]):
            return refuted("Slater point not strictly feasible")
    if worst > 1e-6:
        return refuted(f"duality gap {worst}")
    return verified(f"Slater holds (M = I, R = B/2, xi = B strictly feasible), so p* = d*; numerically the relative gap "
                    f"between me2_primal and me2_dual (and g evaluated in numpy at the dual point) is <= {worst:.1e} on 6 "
                    "instances.")


@claim("002-C20", P, "App. A", "A = sum alpha_i ||x_i - c||_M^2 = alpha^T diag G + (1/(2 lam)) alpha^T G' alpha at "
       "M = M(alpha)", kind="step")
def c20():
    s = _sym_lagrangian(n=3, d=2)
    Y, al, lam, d, n = s["Y"], s["al"], s["lam"], s["d"], s["n"]
    S = sum((al[k] * Y[k, :].T * Y[k, :] for k in range(n)), sympy.zeros(d, d))
    M = sympy.eye(d) + S / (2 * lam)
    A = sum(al[i] * (Y[i, :] * M * Y[i, :].T)[0, 0] for i in range(n))
    G = Y * Y.T
    rhs = (al.T * sympy.Matrix(G.diagonal()).reshape(n, 1))[0, 0] + (al.T * G.multiply_elementwise(G) * al)[0, 0] / (2 * lam)
    ok = sympy.expand(A - rhs) == 0
    return verified("SymPy (n = 3, d = 2, symbolic data): A - (a^T diag G + a^T G' a/(2 lam)) expands to 0") if ok else \
        refuted("A identity fails")


@claim("002-C21", P, "App. A", "N = ||M - I||_F^2 = alpha^T G' alpha / (4 lam^2) (final line)", kind="step")
def c21():
    s = _sym_lagrangian(n=3, d=2)
    Y, al, lam, d, n = s["Y"], s["al"], s["lam"], s["d"], s["n"]
    S = sum((al[k] * Y[k, :].T * Y[k, :] for k in range(n)), sympy.zeros(d, d))
    N = sum((S / (2 * lam)).applyfunc(lambda z: z ** 2))
    G = Y * Y.T
    ok = sympy.expand(N - (al.T * G.multiply_elementwise(G) * al)[0, 0] / (4 * lam ** 2)) == 0
    return verified("SymPy (n = 3, d = 2): ||S(a)/(2 lam)||_F^2 - a^T G' a/(4 lam^2) expands to 0") if ok else \
        refuted("N identity fails")


@claim("002-C22", P, "App. A, N expansion",
       "N = (1/4lam^2) sum_k alpha_k^2 G_kk^4 + (2/4lam^2) sum_{k>l} alpha_k alpha_l G_kl^2 G_lk^2", kind="step")
def c22():
    S = solved(0)
    a = np.clip(S["D"]["alpha_raw"], 0, 1 / S["n"])
    G, lam = S["Y"] @ S["Y"].T, S["lam"]
    N_true = float(np.sum((closed_M(a, S["Y"], lam) - np.eye(S["d"])) ** 2))
    iu = np.triu_indices(S["n"], 1)
    N_print = float((np.sum(a ** 2 * np.diag(G) ** 4) + 2 * np.sum(a[iu[0]] * a[iu[1]] * G[iu] ** 2 * G[iu] ** 2))
                    / (4 * lam ** 2))
    N_fix = float((np.sum(a ** 2 * np.diag(G) ** 2) + 2 * np.sum(a[iu[0]] * a[iu[1]] * G[iu] ** 2)) / (4 * lam ** 2))
    # the corrected line symbolically (n = 3)
    sy = _sym_lagrangian(n=3, d=2)
    Y, al, n = sy["Y"], sy["al"], 3
    Gs = Y * Y.T
    fix_sym = (sum(al[k] ** 2 * Gs[k, k] ** 2 for k in range(n))
               + 2 * sum(al[k] * al[l] * Gs[k, l] * Gs[l, k] for k in range(n) for l in range(k)))
    ok_sym = sympy.expand(fix_sym - (al.T * Gs.multiply_elementwise(Gs) * al)[0, 0]) == 0
    if abs(N_print - N_true) > 0.1 * N_true and abs(N_fix - N_true) < 1e-9 * max(1, N_true) and ok_sym:
        return refuted(f"at the seed-0 dual optimum the printed penultimate line gives {N_print:.5f}, the true "
                       f"||M - I||_F^2 is {N_true:.5f}",
                       counterexample={"instance": "seed 0 dual optimum", "printed": round(N_print, 6),
                                       "true N": round(N_true, 6)},
                       corrected="N = (1/4lam^2) sum_k alpha_k^2 G_kk^2 + (2/4lam^2) sum_{k>l} alpha_k alpha_l G_kl G_lk "
                                 "(= alpha^T G' alpha/(4 lam^2); checked with SymPy and numerically)")
    return verified("printed N expansion holds")


def _D_star(s, b, dl, mu, B):
    return -(b - dl - s) ** 2 / (4 * mu) - B * b + B * s


@claim("002-C23", P, "App. A, D expansion (2nd line)",
       "D = mu(B-R)^2 + R s + delta(R-B) - beta R at R* = (1/4mu)[s^2+b^2+dl^2-2dl b-2b s+2dl s] + (1/2mu)[-s^2+b s-dl s"
       "+B s] + (1/2mu)[dl b-dl^2-dl s] + (1/2mu)[-b^2+dl b-B b+b s]", kind="step")
def c23():
    mu = sympy.Symbol("mu", positive=True)
    B, s, b, dl = sympy.symbols("B s beta delta", real=True)
    R = (b - dl + 2 * mu * B - s) / (2 * mu)
    D = mu * (B - R) ** 2 + R * s + dl * (R - B) - b * R
    Dstar = _D_star(s, b, dl, mu, B)
    ok_D = verify_identity(D, Dstar)

    def inter(two_mu):
        return ((s ** 2 + b ** 2 + dl ** 2 - 2 * dl * b - 2 * b * s + 2 * dl * s) / (4 * mu)
                + (-s ** 2 + b * s - dl * s + two_mu * B * s) / (2 * mu) + (dl * b - dl ** 2 - dl * s) / (2 * mu)
                + (-b ** 2 + dl * b - two_mu * B * b + b * s) / (2 * mu))
    diff = sympy.factor(sympy.simplify(inter(1) - Dstar))
    chk = verify_identity(inter(1), Dstar)
    ok_fix = verify_identity(inter(2 * mu), Dstar)
    if ok_D and not chk and ok_fix:
        return refuted(f"SymPy: printed line - D* = {diff} != 0 unless mu = 1/2 or s = beta (D* = -(beta - delta - s)^2/(4 mu)"
                       " - B beta + B s). The +delta B and -delta B terms are also silently dropped (they cancel).",
                       counterexample={k.name: v for k, v in chk.counterexample.items()},
                       corrected="replace +B s by +2 mu B s and -B beta by -2 mu B beta inside the 1/(2 mu) brackets; "
                                 "then the line equals D* (SymPy)")
    return verified("printed intermediate D holds")


@claim("002-C24", P, "App. A, final D",
       "D = -(1/4mu)[s^2 + beta^2 + delta^2] + sum_k (B + beta/2mu - delta/2mu) + beta(-B + delta/2mu)", kind="step")
def c24():
    rng = np.random.default_rng(7)
    n, mu, B = 8, 1.0, 4.0
    a = rng.uniform(0, 1 / n, n)
    b, dl = 0.3, 0.2
    s = float(a.sum())
    D_star = _D_star(s, b, dl, mu, B)
    D_print = -(s ** 2 + b ** 2 + dl ** 2) / (4 * mu) + n * (B + b / (2 * mu) - dl / (2 * mu)) + b * (-B + dl / (2 * mu))
    mu_s = sympy.Symbol("mu", positive=True)
    Bs, ss, bs, ds = sympy.symbols("B s beta delta", real=True)
    fix = -(ss ** 2 + bs ** 2 + ds ** 2) / (4 * mu_s) + ss * (Bs + bs / (2 * mu_s) - ds / (2 * mu_s)) + bs * (-Bs + ds / (2 * mu_s))
    ok_fix = verify_identity(fix, _D_star(ss, bs, ds, mu_s, Bs))
    if abs(D_print - D_star) > 1.0 and ok_fix:
        return refuted(f"the sum over k lacks alpha_k: with seeded alpha (seed 7, n = 8), beta = 0.3, delta = 0.2, mu = 1, "
                       f"B = 4 the printed D is {D_print:.4f} while D* = {D_star:.5f}",
                       counterexample={"n": n, "alpha": np.round(a, 5).tolist(), "beta": b, "delta": dl, "mu": mu, "B": B,
                                       "printed": round(D_print, 5), "D*": round(D_star, 5)},
                       corrected="D = -(s^2 + beta^2 + delta^2)/(4 mu) + (B + beta/(2mu) - delta/(2mu)) sum_k alpha_k "
                                 "+ beta(-B + delta/(2mu)) = -(beta - delta - s)^2/(4 mu) - B beta + B s (SymPy)")
    return verified("printed final D holds")


@claim("002-C25", P, "App. A, final L",
       "L(alpha,beta,delta) = -a^T diag G - a^T G' a/(2lam) + a^T G' a/(4lam) - (1/4mu)[s^2+b^2+dl^2] "
       "+ (B + b/2mu - dl/2mu) s + b(-B + dl/2mu)  (the dual function)", kind="dual", relied_on=True)
def c25():
    n = 3
    al = sympy.Matrix(sympy.symbols("a0:3", real=True))
    b, dl, B = sympy.symbols("beta delta B", real=True)
    mu, lam = sympy.symbols("mu lambda", positive=True)
    G = sympy.Matrix(n, n, lambda i, j: sympy.Symbol(f"G{min(i, j)}{max(i, j)}", real=True))
    Gp = G.multiply_elementwise(G)
    s = sum(al)
    qf = (al.T * Gp * al)[0, 0]
    printed = (-(al.T * sympy.Matrix(G.diagonal()).reshape(n, 1))[0, 0] - qf / (2 * lam) + qf / (4 * lam)
               - (s ** 2 + b ** 2 + dl ** 2) / (4 * mu) + (B + b / (2 * mu) - dl / (2 * mu)) * s + b * (-B + dl / (2 * mu)))
    chk = verify_identity(printed, _g_sym(al, b, dl, G, mu, lam, B))
    # and it is min over the primal of the correct Lagrangian: re-derive from the symbolic Lagrangian (n = 2, d = 2)
    sy = _sym_lagrangian()
    L = sy["L"]
    sub = {z: v for z, v in zip(list(sy["M"]), list(sympy.eye(2) + sum(
        (sy["al"][k] * sy["Y"][k, :].T * sy["Y"][k, :] for k in range(2)), sympy.zeros(2, 2)) / (2 * sy["lam"])))}
    sub[sy["R"]] = (sy["b"] - sy["dl"] + 2 * sy["mu"] * sy["B"] - sum(sy["al"])) / (2 * sy["mu"])
    sub.update({sy["ga"][i]: sympy.Rational(1, 2) - sy["al"][i] for i in range(2)})
    Gs = sy["Y"] * sy["Y"].T
    g2 = _g_sym(sy["al"], sy["b"], sy["dl"], Gs, sy["mu"], sy["lam"], sy["B"])
    ok_derived = sympy.simplify(sympy.expand(L.subs(sub) - g2)) == 0
    if chk and ok_derived:
        return verified("SymPy: the printed L(alpha, beta, delta) equals g; and substituting M(alpha), R(alpha, beta, delta), "
                        "gamma = 1/n - alpha into the correctly signed Lagrangian (n = d = 2, symbolic data) gives g "
                        "(xi drops out).")
    return refuted(f"final L != g (printed identity {chk.holds}, derivation {ok_derived})")


# ====================================================================== Sec. 4
@claim("002-C27", P, "Sec. 4.1, Thm 1",
       "[BE02, Thm 12]: L <= L_S + 2 beta/n + (4 beta + K) sqrt(ln(1/delta)/(2n)) for uniform stability beta/n",
       kind="theorem")
def c27():
    bBE, beta, n, K, dl = sympy.symbols("beta_BE beta n K delta", positive=True)
    root = sympy.sqrt(sympy.log(1 / dl) / (2 * n))
    be02 = 2 * bBE + (4 * n * bBE + K) * root  # BE02 Thm 12 excess: 2 beta + (4 n beta + M) sqrt(ln(1/delta)/(2m))
    paper = 2 * beta / n + (4 * beta + K) * root
    chk = verify_identity(be02.subs(bBE, beta / n), paper)
    return verified("BE02 Thm 12 (stability beta_BE, loss bound M): excess 2 beta_BE + (4 n beta_BE + M) sqrt(ln(1/delta)/(2n)); "
                    "SymPy with beta_BE = beta/n gives the printed form exactly (transcription correct).") if chk else \
        refuted("transcription mismatch", counterexample=chk.counterexample)


def _corrected_problem8(X, c, mu, lam, B):
    """Problem 8 with the corrected loss [R - q]_+ and L_S = (1/n) sum, solved with certiprog."""
    from certiprog.model import Model, Variable, minimize, pos, sum_squares

    Y = X - c
    n, d = Y.shape
    M, R = Variable((d, d), "M", symmetric=True), Variable((), "R")
    Q = np.einsum("ki,kj->kij", Y, Y).reshape(n, d * d)
    obj = pos(R - Q @ M.flatten()).sum() * (1.0 / n) + mu * sum_squares(B - R) + lam * sum_squares(M - np.eye(d))
    m = Model(minimize(obj), [R >= 0, R <= B])
    sol = m.solve()
    return float(sol.objective)


@claim("002-C28", P, "Sec. 4.2, Problem 8",
       "Problem 8: min_{R,M} sum_i l(R,M,x_i) + mu(B-R)^2 + lam||M-I||^2, B >= R >= 0, with l = (1/n)[R^2 - ||x_i-c||_M^2]_+,"
       " is equivalent to Problem 2", kind="formula")
def c28():
    S = solved(0)
    Y, mu, lam, B, n = S["Y"], S["mu"], S["lam"], S["B"], S["n"]
    M, R, p = S["P"]["M"], S["P"]["R"], S["P"]["objective"]
    q = qdist(Y, M)
    N0 = mu * (B - R) ** 2 + lam * np.sum((M - np.eye(S["d"])) ** 2)
    printed = lambda r: float(np.sum(np.maximum(0, r ** 2 - q)) / n + mu * (B - r) ** 2 + lam * np.sum((M - np.eye(S["d"])) ** 2))
    grid = np.linspace(0, B, 4001)
    vals = np.array([printed(r) for r in grid])
    r_best = float(grid[vals.argmin()])
    F_corr = float(np.mean(np.maximum(0, R - q)) + N0)
    p8 = _corrected_problem8(S["X"], S["c"], mu, lam, B)
    if vals.min() < printed(R) - 1e-3 and rel(F_corr, p) < 1e-6 and rel(p8, p) < 1e-6:
        return refuted(f"seed-0 instance: at Problem 2's optimum (M*, R* = {R:.4f}) the printed objective is "
                       f"{printed(R):.4f} (p* = {p:.4f}), and with M* fixed R = {r_best:.4f} lowers it to {vals.min():.4f}: "
                       "(M*, R*) does not minimise the printed Problem 8, so the problems are not equivalent (R^2 "
                       "instead of R; the 1/n is also counted twice). With l = [R - q]_+ and L_S = (1/n) sum l, "
                       f"F_S(M*, R*) = {F_corr:.10f} = p* and the corrected Problem 8 solves to {p8:.10f}.",
                       counterexample={"instance": "seed 0, n=8, d=3, mu=1, lam=0.5, B=4", "R*": round(R, 6),
                                       "printed F at (M*,R*)": round(printed(R), 6),
                                       f"printed F at (M*,{r_best:.4f})": round(float(vals.min()), 6)},
                       corrected="F_S(M, R) = (1/n) sum_i [R - ||x_i - c||_M^2]_+ + mu(B-R)^2 + lam||M - I||_F^2 "
                                 "(l = [R - q]_+ without 1/n), equal to Problem 2 after eliminating xi")
    return verified("printed Problem 8 equivalent")


@claim("002-C29", P, "Sec. 4.2", "B >= max ||x||, B >= ||c|| => ||x - c|| <= 2B", kind="step")
def c29():
    rng = np.random.default_rng(29)
    B = 1.7
    x, c = ball(rng, 5000, 4, B), ball(rng, 5000, 4, B)
    # adversarial: antipodal points on the sphere reach 2B
    u = rng.normal(size=(100, 4))
    u = B * u / np.linalg.norm(u, axis=1, keepdims=True)
    worst = max(float(np.max(np.linalg.norm(x - c, axis=1))), float(np.max(np.linalg.norm(u - (-u), axis=1))))
    if worst > 2 * B + 1e-12:
        return refuted(f"||x - c|| = {worst} > 2B")
    return verified(f"triangle inequality ||x - c|| <= ||x|| + ||c|| <= 2B; 5000 random pairs in the B-ball plus antipodal "
                    f"pairs: max ||x - c|| = {worst:.6f} <= 2B = {2 * B} (tight).")


@claim("002-C30", P, "Sec. 4.2", "the loss l is convex in (M, R)", kind="claim")
def c30():
    rng = np.random.default_rng(30)
    worst = -np.inf
    for _ in range(2000):
        d = 3
        x, c = rng.normal(size=d), rng.normal(size=d)
        M1, M2 = rng.normal(size=(d, d)), rng.normal(size=(d, d))
        R1, R2 = rng.uniform(0, 4, 2)
        t = rng.uniform()
        lhs = loss(t * M1 + (1 - t) * M2, t * R1 + (1 - t) * R2, x, c)
        worst = max(worst, lhs - t * loss(M1, R1, x, c) - (1 - t) * loss(M2, R2, x, c))
    if worst > 1e-12:
        return refuted(f"Jensen violated by {worst}")
    return verified("[R - y^T M y]_+ is the max of 0 and a function affine in (M, R), hence convex; 2000 random Jensen "
                    f"tests: largest l(t th1 + (1-t) th2) - t l(th1) - (1-t) l(th2) = {worst:.1e} <= 0.")


@claim("002-C31", P, "Sec. 4.2, Lemma 1",
       "|l(M,R,x) - l(M',R',x)| <= k (|R - R'| + ||M - M'||_F), k = max(1, 4B^2)", kind="lemma")
def c31():
    rng = np.random.default_rng(5)
    B, d = 1.5, 4
    k = k_lip(B)
    worst = 0.0
    for _ in range(2000):
        c, x = ball(rng, 1, d, B)[0], ball(rng, 1, d, B)[0]
        A1, A2 = rng.normal(size=(d, d)), rng.normal(size=(d, d))
        M1, M2 = A1 @ A1.T, A2 @ A2.T
        R1, R2 = rng.uniform(0, B, 2)
        lhs = abs(loss(M1, R1, x, c) - loss(M2, R2, x, c))
        worst = max(worst, lhs / (k * (abs(R1 - R2) + np.linalg.norm(M1 - M2))))
    if worst > 1 + 1e-12:
        return refuted(f"Lipschitz ratio {worst} > 1")
    return verified("proof re-checked (hinge 1-Lipschitz; |y^T (M - M') y| <= ||y||^2 ||M - M'||_2 <= 4B^2 ||M - M'||_F); "
                    f"Monte Carlo, 2000 draws with x, c in the B-ball (B = 1.5): largest ratio {worst:.3f} <= 1. (For the "
                    "printed R^2 loss, k would have to be max(2B, 4B^2).)")


def _lemma2_pair():
    """The seeded pair (S, S^i) of ME^2 optima used for Lemma 2 (data in the B-ball, B = 0.5, n = 20, d = 3)."""
    B, n, d, mu, lam = 0.5, 20, 3, 1.0, 1.0
    rng = np.random.default_rng(1)
    for it in range(29):  # the 29th draw is the witness
        c, X = centred_sample(rng, n, d, B)
        Xi = X.copy()
        Xi[0] = c + (0.01 if it % 2 else 1) * ball(rng, 1, d, B)[0]
    P1, P2 = solve_primal(X, c, mu, lam, B), solve_primal(Xi, c, mu, lam, B)
    return dict(B=B, n=n, d=d, mu=mu, lam=lam, X=X, Xi=Xi, c=c, M=P1["M"], R=P1["R"], Mi=P2["M"], Ri=P2["R"])


@claim("002-C32", P, "Sec. 4.2, Lemma 2",
       "N(th) - N(th + t Delta) + N(th^i - t Delta) - N(th^i) <= (2 t k / n) ||Delta||, Delta = th^i - th, t in [0, 1]",
       kind="lemma")
def c32():
    W = _lemma2_pair()
    mu, lam, B, n = W["mu"], W["lam"], W["B"], W["n"]
    k = k_lip(B)
    M, R, Mi, Ri = W["M"], W["R"], W["Mi"], W["Ri"]
    Dn = abs(R - Ri) + np.linalg.norm(M - Mi)
    N = lambda MM, RR: N_reg(MM, RR, mu, lam, B)
    worst_fix = -np.inf
    out = None
    for t in (0.25, 0.5, 0.75, 1.0):
        Mt, Rt = M + t * (Mi - M), R + t * (Ri - R)
        Mit, Rit = Mi - t * (Mi - M), Ri - t * (Ri - R)
        rhs = 2 * t * k / n * Dn
        printed = N(M, R) - N(Mt, Rt) + N(Mit, Rit) - N(Mi, Ri)
        fixed = N(M, R) - N(Mt, Rt) + N(Mi, Ri) - N(Mit, Rit)
        worst_fix = max(worst_fix, fixed - rhs)
        if t == 0.5:
            out = (printed, rhs)
    printed, rhs = out
    if printed > 1.2 * rhs and worst_fix <= 1e-9:
        return refuted(f"on a pair of ME^2 optima (B = 0.5, n = 20, d = 3, mu = lam = 1, 29th seeded draw, one negative "
                       f"replaced) with t = 1/2 the printed LHS is {printed:.3e} > RHS {rhs:.3e}. The corrected sign "
                       f"(what App. B eq. (18) proves) holds for t in {{1/4, 1/2, 3/4, 1}} (worst LHS - RHS {worst_fix:.1e}).",
                       counterexample={"B": B, "n": n, "d": 3, "mu": mu, "lam": lam, "t": 0.5,
                                       "printed LHS": f"{printed:.4e}", "RHS": f"{rhs:.4e}"},
                       corrected="N(th) - N(th + t Delta) + N(th^i) - N(th^i - t Delta) <= (2 t k/n) ||Delta||")
    return verified(f"printed lemma holds on the witness ({printed} <= {rhs})")


@claim("002-C33", P, "App. B, (17)",
       "convexity: L_S(th + t Delta) - L_S(th) <= t (L_S(th^i) - L_S(th)) (and symmetric); summing gives (17)",
       kind="step")
def c33():
    rng = np.random.default_rng(33)
    worst = -np.inf
    for _ in range(300):
        d, n = 3, 10
        X, c = rng.normal(size=(n, d)), rng.normal(size=d)
        Lh = lambda MM, RR: np.mean([loss(MM, RR, x, c) for x in X])
        M, Mi = rng.normal(size=(d, d)), rng.normal(size=(d, d))
        R, Ri = rng.uniform(0, 5, 2)
        t = rng.uniform()
        a = Lh(M + t * (Mi - M), R + t * (Ri - R)) - Lh(M, R) - t * (Lh(Mi, Ri) - Lh(M, R))
        b = Lh(Mi - t * (Mi - M), Ri - t * (Ri - R)) - Lh(Mi, Ri) - t * (Lh(M, R) - Lh(Mi, Ri))
        worst = max(worst, a, b, a + b)
    if worst > 1e-12:
        return refuted(f"convexity step violated by {worst}")
    return verified("both convexity inequalities and their sum (17) hold in 300 random tests (worst slack "
                    f"{worst:.1e} <= 0); the printed parentheses t L(th^i - t L(th)) are garbled and mean t[L(th^i) - L(th)].")


@claim("002-C34", P, "App. B, (18)",
       "optimality of th for F_S and of th^i for F_{S^i}, plus (17), give (18)", kind="step")
def c34():
    W = _lemma2_pair()
    mu, lam, B = W["mu"], W["lam"], W["B"]
    M, R, Mi, Ri, X, Xi, c = W["M"], W["R"], W["Mi"], W["Ri"], W["X"], W["Xi"], W["c"]
    LS = lambda MM, RR, XX: np.mean([loss(MM, RR, x, c) for x in XX])
    worst = -np.inf
    for t in np.linspace(0, 1, 11):
        Mt, Rt = M + t * (Mi - M), R + t * (Ri - R)
        Mit, Rit = Mi - t * (Mi - M), Ri - t * (Ri - R)
        lhs = (LS(Mt, Rt, Xi) - LS(Mt, Rt, X) - LS(M, R, Xi) + LS(M, R, X)
               + mu * ((B - R) ** 2 + (B - Ri) ** 2 - (B - Rt) ** 2 - (B - Rit) ** 2)
               + lam * (np.sum((M - np.eye(3)) ** 2) + np.sum((Mi - np.eye(3)) ** 2)
                        - np.sum((Mt - np.eye(3)) ** 2) - np.sum((Mit - np.eye(3)) ** 2)))
        worst = max(worst, lhs)
    if worst > 1e-7:
        return refuted(f"(18) LHS = {worst} > 0 at a pair of optima")
    return verified(f"at a seeded pair of ME^2 optima (S, S^i), the LHS of (18) is <= {worst:.1e} for t in [0, 1] "
                    "(11 points), as the algebra (optimality + (17)) predicts.")


@claim("002-C35", P, "App. B", "H <= (2 t max(1, 4B^2)/n) ||Delta||", kind="step")
def c35():
    rng = np.random.default_rng(35)
    B, d, n = 0.8, 3, 12
    k = k_lip(B)
    worst = 0.0
    for _ in range(500):
        c = ball(rng, 1, d, B)[0]
        X = ball(rng, n, d, B)
        Xi = X.copy()
        Xi[rng.integers(n)] = ball(rng, 1, d, B)[0]
        A, Ai = rng.normal(size=(d, d)), rng.normal(size=(d, d))
        M, Mi = A @ A.T, Ai @ Ai.T
        R, Ri = rng.uniform(0, B, 2)
        t = rng.uniform()
        Mt, Rt = M + t * (Mi - M), R + t * (Ri - R)
        LS = lambda MM, RR, XX: np.mean([loss(MM, RR, x, c) for x in XX])
        H = LS(Mt, Rt, Xi) - LS(M, R, Xi) - LS(Mt, Rt, X) + LS(M, R, X)
        Dn = abs(R - Ri) + np.linalg.norm(M - Mi)
        worst = max(worst, H / (2 * t * k / n * Dn))
    if worst > 1 + 1e-9:
        return refuted(f"H bound ratio {worst}")
    return verified(f"S and S^i differ in one point, so H involves 4 loss terms divided by n; Lemma 1 bounds each "
                    f"difference by t k ||Delta||. 500 random draws in the B-ball: largest H/((2tk/n)||Delta||) = {worst:.3f}.")


@claim("002-C36", P, "Sec. 4.2, Prop. 1, (12)",
       "theta(R) = (B-R)^2 + (B-R^i)^2 - 2(B - (R+R^i)/2)^2 = (1/2)(R - R^i)^2", kind="step")
def c36():
    B, R, Ri = sympy.symbols("B R R_i", real=True)
    th12 = (B - R) ** 2 + (B - Ri) ** 2 - (B - (R + (Ri - R) / 2)) ** 2 - (B - (Ri - (Ri - R) / 2)) ** 2
    chk = verify_identity(th12, (R - Ri) ** 2 / 2)
    chk2 = verify_identity((B - R) ** 2 + (B - Ri) ** 2 - 2 * (B - (R + Ri) / 2) ** 2, (R - Ri) ** 2 / 2)
    return verified("SymPy: (12) as printed and its simplified form both equal (R - R^i)^2/2") if chk and chk2 else \
        refuted("theta identity fails", counterexample=(chk.counterexample or chk2.counterexample))


@claim("002-C37", P, "Sec. 4.2, Prop. 1, (13)",
       "tau(M) = ||M-I||^2 + ||M^i-I||^2 - 2||(M+M^i)/2 - I||^2 = (1/2)||M - M^i||_F^2", kind="step")
def c37():
    d = 2
    M = sympy.Matrix(d, d, lambda i, j: sympy.Symbol(f"m{i}{j}", real=True))
    Mi = sympy.Matrix(d, d, lambda i, j: sympy.Symbol(f"p{i}{j}", real=True))
    I = sympy.eye(d)
    fro = lambda A: sum(A.applyfunc(lambda z: z ** 2))
    tau = fro(M - I) + fro(Mi - I) - 2 * fro((M + Mi) / 2 - I)
    ok = sympy.expand(tau - fro(M - Mi) / 2) == 0
    printed13 = fro(M - I) - fro(M + (Mi - M) / 2 - I) + fro(Mi - M) - fro(Mi - (Mi - M) / 2 - I)
    printed_ok = sympy.expand(printed13 - fro(M - Mi) / 2) == 0
    if ok:
        return verified("SymPy (general 2x2 M, M^i): tau = ||M - M^i||_F^2 / 2. Note (E12): the printed (13) has "
                        f"+||M^i - M||^2 for +||M^i - I||^2 (as printed it {'also equals' if printed_ok else 'does NOT equal'} "
                        "the result), and its middle step's +1/2 sum((M-I)*(M^i-I)) should be -<M-I, M^i-I>_F; the "
                        "result is right.")
    return refuted("tau identity fails")


@claim("002-C38", P, "Sec. 4.2, Prop. 1, (14)",
       "mu (R^i - R)^2 + lam ||M^i - M||_F^2 <= (2 max(1, 4B^2)/n) ||Delta||", kind="step")
def c38():
    B, n = 0.5, 20
    k = k_lip(B)
    worst = 0.0
    for t in range(3):
        for mu, lam in [(1.0, 1.0), (0.05, 0.05)]:
            P1, P2 = stability_optima(100, t, mu, lam)
            Dn = abs(P1["R"] - P2["R"]) + np.linalg.norm(P1["M"] - P2["M"])
            lhs = mu * (P1["R"] - P2["R"]) ** 2 + lam * np.sum((P1["M"] - P2["M"]) ** 2)
            if Dn > 1e-9:
                worst = max(worst, lhs / (2 * k / n * Dn))
    if worst > 1 + 1e-6:
        return refuted(f"(14) ratio {worst}")
    return verified("(11) with theta = (R - R^i)^2/2 and tau = ||M - M^i||^2/2 (002-C36/37) multiplied by 2 is (14); on 6 "
                    f"pairs of optima (data in the B-ball, one negative replaced) the largest LHS/RHS is {worst:.3f}.")


@claim("002-C39", P, "Sec. 4.2, Prop. 1 proof",
       "all norms are equivalent, so there is kappa > 0 with kappa(|R - R^i| + ||M^i - M||_F) <= (R - R^i)^2 + "
       "||M^i - M||_F^2 for all arguments", kind="step")
def c39():
    kap, a, b = sympy.symbols("kappa a b", positive=True)
    # take b = 0 (M = M^i) and a = |R - R^i| = kappa/2
    gap = sympy.simplify((kap * (a + 0)) - (a ** 2 + 0)).subs(a, kap / 2)
    fix = verify_identity(2 * (a ** 2 + b ** 2) - (a + b) ** 2, (a - b) ** 2)
    rng = np.random.default_rng(0)
    ab = np.abs(rng.normal(size=(1000, 2)))
    ok_num = bool(np.all(ab.sum(1) ** 2 <= 2 * (ab ** 2).sum(1) + 1e-12))
    if sympy.simplify(gap - kap ** 2 / 4) == 0 and fix and ok_num:
        return refuted("a norm cannot be bounded by a SQUARED norm near 0: for any kappa > 0 take M = M^i and "
                       f"|R - R^i| = kappa/2; then LHS - RHS = {gap} > 0 (SymPy). The step is invalid, not a typo.",
                       counterexample={"kappa": "any k > 0 (e.g. 1)", "|R - R^i|": "kappa/2 (= 0.5)", "M - M^i": 0,
                                       "LHS": "kappa^2/2 (= 0.5)", "RHS": "kappa^2/4 (= 0.25)"},
                       corrected="(|a| + b)^2 <= 2(a^2 + b^2) (since 2(a^2+b^2) - (a+b)^2 = (a-b)^2 >= 0); i.e. the step holds "
                                 "as kappa ||Delta||^2 <= a^2 + b^2 with kappa = 1/2, giving ||Delta|| <= 4k/(n min(mu, lam))")
    return verified("norm-equivalence step holds")


@claim("002-C40", P, "Sec. 4.2, Prop. 1", "||Delta(M, R)|| <= 2 max(1, 4B^2)/(n kappa min(mu, lam)) "
       "(valid with kappa = 1/2: ||Delta|| <= 4k/(n min(mu, lam)))", kind="bound")
def c40():
    B, n = 0.5, 20
    k = k_lip(B)
    worst = 0.0
    for t in range(4):
        for mu, lam in [(1.0, 1.0), (0.05, 0.05), (0.01, 0.001)]:
            P1, P2 = stability_optima(100, t, mu, lam)
            Dn = abs(P1["R"] - P2["R"]) + np.linalg.norm(P1["M"] - P2["M"])
            worst = max(worst, Dn / (4 * k / (n * min(mu, lam))))
    if worst > 1 + 1e-6:
        return refuted(f"stability ratio {worst} > 1")
    return verified("with the corrected step (002-C39, kappa = 1/2): ||Delta||^2 <= 2(a^2 + b^2) <= (2/min)(mu a^2 + lam b^2) "
                    "<= (2/min)(2k/n)||Delta||. Monte Carlo (B = 0.5, n = 20, 12 replaced-point pairs, three (mu, lam)): "
                    f"largest ||Delta||/(4k/(n min(mu, lam))) = {worst:.3f}.")


@claim("002-C41", P, "Sec. 4.2, Prop. 1",
       "ME^2 is uniformly stable with beta = 2 max(1, 4B^2)^2 / (kappa min(mu, lam))", kind="proposition")
def c41():
    B, n, d = 0.5, 20, 3
    k = k_lip(B)
    rng = np.random.default_rng(41)
    worst = 0.0
    for t, (c, X, Xi) in enumerate(replaced_pairs(rng, 3, B, n, d)):
        mu, lam = (1.0, 1.0) if t % 2 else (0.05, 0.05)
        P1, P2 = solve_primal(X, c, mu, lam, B), solve_primal(Xi, c, mu, lam, B)
        beta = 2 * k ** 2 / (0.5 * min(mu, lam))
        xs = np.vstack([ball(rng, 2000, d, B), X, Xi])
        sup = max(abs(loss(P1["M"], P1["R"], x, c) - loss(P2["M"], P2["R"], x, c)) for x in xs)
        worst = max(worst, sup / (beta / n))
    if worst > 1 + 1e-9:
        return refuted(f"stability violated: ratio {worst}")
    return verified("with kappa = 1/2 (002-C39/40): |l(th) - l(th^i)| <= k ||Delta|| (Lemma 1, not Lemma 2; the printed "
                    "factor 2 is spurious) <= 4k^2/(n min(mu, lam)) = beta/n. Monte Carlo over 2000+ query points in the "
                    f"B-ball for 3 replaced-point pairs: largest sup|l diff|/(beta/n) = {worst:.4f}.")


@claim("002-C42", P, "Sec. 4.2, Lemma 3 proof", "F_S(M, R) <= F_S(I, 0) = mu B^2, hence lam ||M - I||_F^2 <= mu B^2",
       kind="step")
def c42():
    worst = -np.inf
    for i in range(len(INSTANCES)):
        S = solved(i)
        Y, mu, lam, B = S["Y"], S["mu"], S["lam"], S["B"]
        F_I0 = float(np.mean(np.maximum(0, 0 - np.sum(Y * Y, axis=1))) + mu * B ** 2)
        if abs(F_I0 - mu * B ** 2) > 1e-12:
            return refuted("F_S(I, 0) != mu B^2")
        worst = max(worst, lam * np.sum((S["P"]["M"] - np.eye(S["d"])) ** 2) - mu * B ** 2,
                    S["P"]["objective"] - F_I0)
    if worst > 1e-6:
        return refuted(f"violated by {worst}")
    return verified("L_S(I, 0) = 0 since q_i >= 0, so F_S(I, 0) = mu B^2; at the 6 optima F_S* <= mu B^2 and "
                    f"lam ||M - I||^2 <= mu B^2 (largest slack {worst:.3g}).")


@claim("002-C43", P, "Sec. 4.2, Lemma 3, (15)",
       "||M - I||_F^2 <= mu B^2/lam  <=>  ||M||_F^2 - ||I||_F^2 <= mu B^2/lam ('triangle inequality')", kind="step")
def c43():
    d = 3
    M = 2 * np.eye(d)
    lhs, rhs = float(np.sum(M * M) - d), float(np.sum((M - np.eye(d)) ** 2))
    fails = 0
    for i in range(len(INSTANCES)):
        Mx, dd = solved(i)["P"]["M"], solved(i)["d"]
        fails += np.sum(Mx * Mx) - dd > np.sum((Mx - np.eye(dd)) ** 2)
    Ms = sympy.Matrix(2, 2, lambda i, j: sympy.Symbol(f"m{i}{j}", real=True))
    fro = lambda A: sum(A.applyfunc(lambda z: z ** 2))
    ident = verify_identity(fro(Ms) - 2, fro(Ms - sympy.eye(2)) + 2 * (Ms - sympy.eye(2)).trace())
    worst_tri = max(float(np.linalg.norm(solved(i)["P"]["M"]) - np.sqrt(solved(i)["d"])
                          - np.linalg.norm(solved(i)["P"]["M"] - np.eye(solved(i)["d"]))) for i in range(len(INSTANCES)))
    if lhs > rhs and ident and worst_tri <= 1e-9:
        return refuted(f"||M||^2 - d = ||M - I||^2 + 2 tr(M - I) (SymPy), so ||M||^2 - ||I||^2 <= ||M - I||^2 iff tr M <= d. "
                       f"M = 2I, d = 3: {lhs:.0f} > {rhs:.0f}. It also fails at {fails}/6 ME^2 optima (tr M > d whenever "
                       "alpha != 0), and the '<=>' are not equivalences. The lemma's conclusion is still true (002-C44).",
                       counterexample={"M": "2 I", "d": 3, "||M||^2 - ||I||^2": lhs, "||M - I||^2": rhs},
                       corrected="||M||_F <= ||I||_F + ||M - I||_F <= sqrt(d) + B sqrt(mu/lam) (triangle inequality); the "
                                 "sharper sqrt(d + mu B^2/(2 lam)) follows from the KKT conditions (002-C44)")
    return verified("step (15) holds")


@claim("002-C44", P, "Sec. 4.2, Lemma 3", "||M*||_F <= sqrt(mu B^2/lam + d) at an optimum of Problem 8",
       kind="lemma")
def c44():
    worst_sharp = worst = -np.inf
    for i in range(len(INSTANCES)):
        S = solved(i)
        M, mu, lam, B, d = S["P"]["M"], S["mu"], S["lam"], S["B"], S["d"]
        f2 = float(np.sum(M * M))
        worst = max(worst, f2 - (mu * B ** 2 / lam + d))
        worst_sharp = max(worst_sharp, f2 - (mu * B ** 2 / (2 * lam) + d))
    if worst_sharp > 1e-6:
        return refuted(f"||M||^2 exceeds d + mu B^2/(2 lam) by {worst_sharp}")
    return verified("conclusion true although step (15) is wrong (002-C43). KKT proof of the sharper bound: "
                    "||M||^2 - d = sum alpha_k q_k/lam - ||S||^2/(4 lam^2) <= (1^T alpha) R/lam = 2 mu (B - R) R/lam <= "
                    f"mu B^2/(2 lam). On 6 optima: max(||M||^2 - d - mu B^2/(2 lam)) = {worst_sharp:.3g} <= 0.")


@claim("002-C45", P, "Sec. 4.2, Lemma 4", "0 <= l <= B + 4B^2 sqrt(mu B^2/lam + d)", kind="lemma")
def c45():
    rng = np.random.default_rng(45)
    B, n, d = 1.0, 15, 3
    worst_tight = worst = -np.inf
    for mu, lam in [(1.0, 1.0), (0.8, 0.1), (2.0, 0.01)]:
        c = ball(rng, 1, d, B)[0]
        X = ball(rng, n, d, B)
        Pr = solve_primal(X, c, mu, lam, B)
        xs = ball(rng, 2000, d, B)
        ls = np.maximum(0, Pr["R"] - qdist(xs - c, Pr["M"]))
        worst = max(worst, float(ls.max()) - (B + 4 * B ** 2 * np.sqrt(mu * B ** 2 / lam + d)))
        worst_tight = max(worst_tight, float(ls.max()) - Pr["R"], Pr["R"] - B)
    if worst > 0 or worst_tight > 1e-9:
        return refuted(f"loss bound violated ({worst}, {worst_tight})")
    return verified("the bound holds (loosely): since M >= 0, q >= 0 and 0 <= l <= R <= B, so K = B already works. "
                    f"Checked at 3 optima over 2000 query points each in the B-ball (max l - R = {worst_tight:.1e}). "
                    "The printed first line 'R + B^2 ||M||_F' should read 'R + 4B^2 ||M||_F' (E16).")


def _thm2_vacuity() -> str:
    """Where the corrected Thm 2 can be tested (the bound object's Monte Carlo) and why not at the paper's setting."""
    from certiprog.formulations.me2_paper.stability import thm2_excess

    small = thm2_excess(200, 10.0, 10.0, 0.5, 0.05)
    paper = thm2_excess(1159, 10.0, 100.0, 4.0, 0.05)
    return (f"The corrected bound's Monte Carlo test (stability.thm2_coverage, the bound object's result below) runs "
            f"where it is non-vacuous: B = 1/2 (k = 1), n = 200, mu = lam = 10, delta = 0.05, excess {small:.3g} < B. "
            f"At the paper's setting it is vacuous, so it cannot be tested there: B = 4 gives k = 64, and even the "
            f"grid's largest min(mu, lam) = 10 with Yeast6's n = 1159 training negatives gives an excess {paper:.3g}, "
            f"far above the loss range [0, B].")


@claim("002-C46", P, "Sec. 4.2, Thm 2",
       "L <= L_S + 4k/(n kappa m) + (8k/(kappa m) + B + 4B^2 sqrt(mu B^2/lam + d)) sqrt(ln(1/delta)/(2n)), "
       "k = max(1, 4B^2), m = min(mu, lam)", kind="theorem", bound=thm2_bound.C46)
def c46():
    k, n, kap, m, K, dl = sympy.symbols("k n kappa m K delta", positive=True)
    root = sympy.sqrt(sympy.log(1 / dl) / (2 * n))
    beta = 2 * k ** 2 / (kap * m)  # Prop. 1
    thm1 = 2 * beta / n + (4 * beta + K) * root
    printed = 4 * k / (n * kap * m) + (8 * k / (kap * m) + K) * root
    corrected = 4 * k ** 2 / (n * kap * m) + (8 * k ** 2 / (kap * m) + K) * root
    ok_fix = verify_identity(thm1, corrected)
    vals = dict(n=1000, delta=0.05, mu=1.0, lam=1.0, B=4.0, d=8)
    kk = k_lip(vals["B"])
    KK = vals["B"] + 4 * vals["B"] ** 2 * math.sqrt(vals["mu"] * vals["B"] ** 2 / vals["lam"] + vals["d"])
    sub = {k: kk, n: vals["n"], kap: 0.5, m: 1.0, K: KK, dl: vals["delta"]}
    pv, cv = float((printed - 0).subs(sub)), float(corrected.subs(sub))
    at = dict(k=kk, n=vals["n"], mu=vals["mu"], lam=vals["lam"], K=KK, delta=vals["delta"])
    if rel(thm2_bound.C46.evaluate_printed(**at), pv) > 1e-12 or rel(thm2_bound.C46.evaluate(**at), cv) > 1e-12:
        return refuted("the bound object 002-C46 differs from the re-derived forms", counterexample=at,
                       corrected=str(corrected))
    if ok_fix and pv < cv:
        return refuted("plugging Prop. 1's beta = 2k^2/(kappa m) into Thm 1 gives 2 beta/n = 4k^2/(n kappa m) and 4 beta = "
                       f"8k^2/(kappa m) (SymPy); the paper writes k for k^2. With k >= 1 the printed bound is smaller: "
                       f"B = 4 (k = 64), kappa = 1/2, mu = lam = 1, n = 1000, delta = 0.05, d = 8: printed excess {pv:.4g} "
                       f"< {cv:.4g}. {_thm2_vacuity()}",
                       counterexample={"B": 4, "k": kk, "kappa": 0.5, "mu": 1, "lam": 1, "n": 1000, "delta": 0.05, "d": 8,
                                       "printed excess": round(pv, 4), "Thm1 + Prop1 excess": round(cv, 4)},
                       corrected="L <= L_S + 8k^2/(n min(mu,lam)) + (16k^2/min(mu,lam) + K) sqrt(ln(1/delta)/(2n)) with "
                                 "kappa = 1/2 and K = B (or Lemma 4's B + 4B^2 sqrt(mu B^2/lam + d))")
    return verified("printed Thm 2 consistent")


@claim("002-C47", P, "Sec. 4.2, after Thm 2",
       "by the union bound the result extends to each of the p centres with probability 1 - delta/p", kind="claim")
def c47():
    # worst case for "Thm 2 unchanged (ln(1/delta)) for every centre": p independent centres each failing w.p. delta
    p, dl = 2, 0.1
    each_unchanged = 1 - dl
    all_unchanged = (1 - dl) ** p
    # corrected: run Thm 2 at confidence delta/p for each centre; union bound gives all simultaneously w.p. >= 1 - delta
    rng = np.random.default_rng(47)
    ok = True
    for _ in range(1000):
        pp, dd = int(rng.integers(1, 50)), float(rng.uniform(0, 1))
        ok &= (1 - dd / pp) ** pp >= 1 - dd - 1e-12  # independent worst case meets the union bound
        ok &= 1 - pp * (dd / pp) >= 1 - dd - 1e-12
    if each_unchanged < 1 - dl / p and ok:
        return refuted(f"the bound of Thm 2 (with ln(1/delta)) holds for one centre only with probability 1 - delta; it does "
                       f"not become 1 - delta/p per centre, and the union bound then gives 1 - p delta for all centres. "
                       f"Example: p = {p} independent centres each failing with probability delta = {dl}: each holds w.p. "
                       f"{each_unchanged} < 1 - delta/p = {1 - dl / p}, all hold w.p. {all_unchanged:.2f} < 1 - delta.",
                       counterexample={"p": p, "delta": dl, "P(one bound holds)": each_unchanged,
                                       "P(all hold)": round(all_unchanged, 4)},
                       corrected="apply Thm 2 at confidence delta/p for each centre (ln(p/delta) instead of ln(1/delta)); "
                                 "then all p bounds hold simultaneously with probability >= 1 - delta (union bound)")
    return verified("union bound statement fine")


@claim("002-C49", P, "Sec. 5",
       "F = 2 P R/(P + R), P = TP/(TP + FP), R = TP/(TP + FN), 'with ... TN the number of true negatives'",
       kind="formula")
def c49():
    TP, FP, FN = sympy.symbols("TP FP FN", positive=True)
    Pm, Rm = TP / (TP + FP), TP / (TP + FN)
    ok = verify_identity(2 * Pm * Rm / (Pm + Rm), 2 * TP / (2 * TP + FP + FN))
    tp, fp, fn, tn = 8, 2, 2, 88
    rec_fn, rec_tn = tp / (tp + fn), tp / (tp + tn)
    if ok and abs(rec_fn - rec_tn) > 0.1:
        return refuted(f"the formulas are the standard ones (SymPy: F = 2TP/(2TP + FP + FN)), but the text defines the "
                       f"symbol in the recall as 'TN the number of true negatives'. Reading it so changes recall: TP = {tp}, "
                       f"FP = {fp}, FN = {fn}, TN = {tn} gives TP/(TP+FN) = {rec_fn:.3f} but TP/(TP+TN) = {rec_tn:.3f}.",
                       counterexample={"TP": tp, "FP": fp, "FN": fn, "TN": tn, "recall (FN)": rec_fn,
                                       "recall (TN)": round(rec_tn, 4)},
                       corrected="Recall = TP/(TP + FN) with FN the number of FALSE negatives")
    return verified("definitions consistent")


# Table 1 of the paper: name -> (examples, features, I.R., printed rate %)
TABLE1 = {"Yeast3": (1484, 8, 8.1, 10.9), "Abalone": (4177, 8, 8.32, 10.7), "Wine": (1599, 11, 29.16, 3.3),
          "Abalone17": (2338, 8, 39.31, 2.5), "Yeast6": (1484, 8, 41.4, 2.4), "Abalone20": (1916, 8, 72.69, 1.4),
          "Abalone19": (4174, 8, 129.44, 0.76)}
DATASETS = list(TABLE1)
# Table 3 of the paper: method -> (precision, recall, F) lists over DATASETS (means over 10 runs)
TABLE3 = {
    "RF": ([0.84, 0.76, 0.05, 0.43, 0.10, 0, 0], [0.76, 0.60, 0.009, 0.14, 0.028, 0, 0],
           [0.79, 0.67, 0.015, 0.20, 0.044, 0, 0]),
    "DT": ([0.76, 0.74, 0, 0, 0, 0, 0], [0.88, 0.68, 0, 0, 0, 0, 0], [0.82, 0.71, 0, 0, 0, 0, 0]),
    "DT_O": ([0.67, 0.59, 0.061, 0.34, 0.093, 0.017, 0.019], [0.91, 0.77, 0.063, 0.36, 0.086, 0.020, 0.033],
             [0.77, 0.67, 0.061, 0.35, 0.089, 0.018, 0.024]),
    "DT_U": ([0.75, 0.68, 0.11, 0.28, 0.099, 0.17, 0], [0.90, 0.73, 0.072, 0.43, 0.086, 0.18, 0],
             [0.82, 0.69, 0.082, 0.33, 0.088, 0.18, 0]),
    "DT_OU": ([0.61, 0.50, 0.065, 0.23, 0.14, 0.12, 0.024], [0.94, 0.83, 0.12, 0.47, 0.21, 0.22, 0.083],
              [0.74, 0.62, 0.084, 0.31, 0.17, 0.15, 0.037]),
    "LSVM": ([0.51, 0.47, 0.049, 0.17, 0.090, 0.12, 0.020], [0.88, 0.93, 0.49, 0.81, 0.43, 0.80, 0.68],
             [0.64, 0.62, 0.087, 0.29, 0.15, 0.21, 0.038]),
    "RBFSVM": ([0.67, 0.59, 0.78, 0.29, 0.087, 0, 0], [0.78, 0.67, 0.091, 0.13, 0.10, 0, 0],
               [0.70, 0.63, 0.16, 0.17, 0.092, 0, 0]),
    "ME2": ([0.46, 0.50, 0.11, 0.25, 0.19, 0.14, 0.024], [0.87, 0.83, 0.29, 0.71, 0.43, 0.44, 0.13],
            [0.60, 0.62, 0.16, 0.37, 0.26, 0.21, 0.040]),
}


@claim("002-C50", P, "Sec. 5.1, Table 1", "I.R. = #negatives/#positives and rate = #positives/#examples "
       "(= 1/(1 + I.R.)) as tabulated", kind="claim")
def c50():
    rows = []
    for name, (N, _, ir, rate) in TABLE1.items():
        pos = round(N / (1 + ir))
        ir_back = (N - pos) / pos
        rate_back = 100 * pos / N
        rows.append((name, pos, ir_back, rate_back))
        if abs(ir_back - ir) > 0.011 or abs(rate_back - rate) > 0.1:
            return refuted(f"{name}: implied {pos} positives give I.R. {ir_back:.3f} and rate {rate_back:.3f}% vs printed "
                           f"{ir}, {rate}%", counterexample={"dataset": name, "positives": pos})
    return verified("implied positives " + ", ".join(f"{n} {p}" for n, p, _, _ in rows) + "; recomputed I.R. within 0.01 "
                    "and rates " + ", ".join(f"{r:.2f}%" for *_, r in rows) + " within 0.1 point of Table 1 (rounding only).")


@claim("002-C51", P, "Sec. 5.1", "the rate of positives is between 0.76 (Abalone19) and 10.9 (Yeast3)", kind="claim")
def c51():
    rates = {k: v[3] for k, v in TABLE1.items()}
    lo, hi = min(rates, key=rates.get), max(rates, key=rates.get)
    if (lo, rates[lo], hi, rates[hi]) == ("Abalone19", 0.76, "Yeast3", 10.9):
        return verified("Table 1: min rate 0.76% (Abalone19), max 10.9% (Yeast3); exact rates 0.77% and 10.99% (002-C50).")
    return refuted(f"Table 1 range is {rates[lo]} ({lo}) .. {rates[hi]} ({hi})")


@claim("002-C53", P, "Sec. 5.3, Table 3", "the F column equals 2PR/(P + R) of the P and R columns", kind="claim")
def c53():
    gaps = []
    for meth, (Pc, Rc, Fc) in TABLE3.items():
        for ds, p, r, f in zip(DATASETS, Pc, Rc, Fc):
            f2 = 0.0 if p + r == 0 else 2 * p * r / (p + r)
            gaps.append((abs(f2 - f), meth, ds, f, f2))
    gaps.sort(reverse=True)
    g, meth, ds, f, f2 = gaps[0]
    if g > 0.025:
        return refuted(f"{meth}/{ds}: F = {f} but 2PR/(P+R) = {f2:.3f}", counterexample={"method": meth, "dataset": ds})
    return verified(f"all 56 cells agree within 0.025; largest gap {g:.3f} at {meth}/{ds} (F = {f} vs {f2:.3f}). F is "
                    "averaged over runs, so small gaps from averaging are expected.")


@claim("002-C54", P, "Sec. 5.3", "ME^2 gets the best results (F-measure) on the five most imbalanced datasets",
       kind="claim")
def c54():
    ties = []
    for j, ds in enumerate(DATASETS[2:], start=2):
        me = TABLE3["ME2"][2][j]
        best_other = max(TABLE3[m][2][j] for m in TABLE3 if m != "ME2")
        if me < best_other:
            return refuted(f"{ds}: ME^2 F = {me} < {best_other}", counterexample={"dataset": ds})
        if me == best_other:
            ties.append(f"{ds} ({[m for m in TABLE3 if m != 'ME2' and TABLE3[m][2][j] == me][0]})")
    return verified("Table 3: ME^2 has the largest mean F-measure on Wine, Abalone17, Yeast6, Abalone20, Abalone19; tied on "
                    + ", ".join(ties) + " (best or tied-best; the standard deviations overlap).")


@claim("002-C55", P, "Sec. 5.3", "Yeast3: DT F = 0.82 vs ME^2 0.60, ME^2 recall 0.87; RF detects no positive when the "
       "rate is below 2%", kind="claim")
def c55():
    y3 = DATASETS.index("Yeast3")
    low = [j for j, ds in enumerate(DATASETS) if TABLE1[ds][3] < 2]
    ok = (TABLE3["DT"][2][y3] == 0.82 and TABLE3["ME2"][2][y3] == 0.60 and TABLE3["ME2"][1][y3] == 0.87
          and all(TABLE3["RF"][1][j] == 0 for j in low))
    if ok:
        return verified("Table 3 has DT F = 0.82, ME^2 F = 0.60 and recall 0.87 on Yeast3, and RF recall 0 on "
                        + ", ".join(DATASETS[j] for j in low) + " (the datasets with rate < 2%).")
    return refuted("the quoted numbers do not match Table 3")


@claim("002-C57", P, "Sec. 3 (derived)", "at the optimum delta* = 0 always, beta* = 0 unless some x_i = c, and the PSD "
       "multiplier Gamma* = 0 (M >> 0 never binds)", kind="claim", relied_on=True)
def c57():
    worst = 0.0
    for i in range(len(INSTANCES)):
        S = solved(i)
        # the dual solve's beta, delta (the primal solve's multipliers of R <= B are interior-point values ~1e-5
        # when R* is within 1e-2 of B)
        worst = max(worst, abs(S["D"]["beta"]), abs(S["D"]["delta"]))
    S = solved(0)
    Pp = solve_primal(S["X"], S["c"], S["mu"], S["lam"], S["B"], psd=True)
    gam = float(np.abs(Pp["sol"].dual("M_psd")).max())
    same = abs(Pp["objective"] - S["P"]["objective"])
    # degenerate case: three copies of c plus one far point, mu = 0.1, B = 1 => R* = 0 with beta* > 0
    c = np.zeros(2)
    X = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [3.0, 0.0]])
    Pd = solve_primal(X, c, 0.1, 1.0, 1.0)
    if worst < 1e-6 and gam < 1e-6 and same < 1e-7 and abs(Pd["R"]) < 1e-6 and Pd["beta"] > 1e-3 and abs(Pd["delta"]) < 1e-6:
        return verified(f"KKT argument (doc 002 §5); numerically |beta*|, |delta*| <= {worst:.1e} at the dual optima of the 6 instances, the "
                        f"PSD multiplier is {gam:.1e} and adding M >> 0 changes p* by {same:.1e}; degenerate case (3 copies "
                        f"of c + one far point, mu = 0.1, B = 1): R* = {Pd['R']:.1e}, beta* = {Pd['beta']:.4f} > 0, "
                        f"delta* = {Pd['delta']:.1e}.")
    return refuted(f"beta/delta {worst}, Gamma {gam}, psd change {same}, degenerate R {Pd['R']} beta {Pd['beta']}")


@claim("002-C58", P, "Sec. 3 (derived)", "weak duality: g(alpha, beta, delta) <= p* for every dual-feasible point",
       kind="theorem")
def c58():
    rng = np.random.default_rng(11)
    worst = -np.inf
    for i in range(len(INSTANCES)):
        S = solved(i)
        n, p = S["n"], S["P"]["objective"]
        for _ in range(30):
            a = rng.uniform(0, 1 / n, n) * (rng.uniform() < 0.8)
            b, dl = rng.exponential(size=2) * rng.integers(0, 2, 2)
            worst = max(worst, dual_g(a, b, dl, S["Y"], S["mu"], S["lam"], S["B"]) - p)
    if worst > 1e-7:
        return refuted(f"g exceeds p* by {worst}")
    return verified(f"180 random dual-feasible points on the 6 instances: max g - p* = {worst:.3g} <= 0.")


# ----------------------------------------------------------------------------- rows with nothing to compute
# (definitions, citations, design choices, results on unavailable data): data, one row each
not_checkable_rows(P, [  # (id, where, kind, statement, reason)
    ("002-C01", "Sec. 2, eq. (1)", "formula",
     "SVDD: min_{R,c,xi} R^2 + (mu/n) sum xi_i s.t. ||x_i - c||^2 <= R^2 + xi_i, xi >= 0",
     "definition of SVDD quoted from [TD04]/[PA11]: it introduces the method the paper builds on and asserts "
     "nothing that can be derived (it is a convex QCQP in (R^2, c, xi))."),
    ("002-C02", "Sec. 2", "claim",
     "using R instead of R^2 in SVDD is often preferable [PA11]",
     "empirical statement cited from [PA11]; checking it needs PA11's experiments, not this paper."),
    ("002-C26", "Sec. 4.1, Def. 1", "formula",
     "uniform stability: sup_x |l(theta_S, x) - l(theta_{S^i}, x)| <= beta/n",
     "definition quoted from [BE02] (with the stability constant written beta/n); nothing to derive."),
    ("002-C48", "Sec. 4.2", "claim",
     "the dependence of the bound on d generally holds for Mahalanobis learning [VB15]",
     "statement about the literature, cited from [VB15]; not derivable from this paper."),
    ("002-C52", "Sec. 5.2", "algorithm",
     "decision rule (nearest positive; inside its ellipsoid and among the m = 3 nearest), tuning grids mu in "
     "{0.75..10}, lam in {1e-6..1e2}, B = 4",
     "experimental procedure: step 2) 'at most the m-th closest nearest neighbour of the ellipsoid's centre' is "
     "ambiguous (rank among the query points or among the training data), so there is no unique statement to "
     "check; certiprog's me2_predict documents the reading it implements."),
    ("002-C56", "Sec. 5.3, Fig. 3", "claim",
     "on Yeast6 with decreasing positive rate ME^2 keeps the best F; 5 of 7 other methods reach F = 0 at 98.75% "
     "negatives",
     "read off a figure whose data are not printed; checking needs re-running all 8 methods on subsampled Yeast6 "
     "(5 runs per rate) with the paper's R packages."),
])
