"""Paper 003 — Error clumping (Dekel & Shamir, AISTATS 2012), eq. (1).

Derivation, PSD proof and corrections: ``docs/derivations/003.md``.

Data ``X`` (m, n) with rows x_i, labels ``y`` in {+1, -1}; no bias (append a constant feature). With the
closed-ball radius graph ``N_i = {j != i : ||x_i - x_j||_2 <= rho}`` (adjacency A, symmetric 0/1) the
neighbourhood matrix is

    Theta = I - eta / (m - 1) * A          (sparse; theta_ii = 1, theta_ij = -eta/(m-1) for j in N_i)

and eq. (1) reads::

    min_{w, xi}  lam/2 ||w||^2 + 1/(2m) xi^T Theta xi
    s.t.  xi_i >= 1 - y_i <w, x_i>   ('margin')     xi_i >= 0   ('xi>=0')

Theta is PSD exactly when it must be for every graph: Theta = eta/(m-1) L_G + diag(1 - eta d_i/(m-1)) with L_G
the graph Laplacian and d_i <= m - 1, so eta in [0, 1] gives a sum of squares (doc 003 §1.1); for eta > 1 the
complete graph has the eigenvalue 1 - eta < 0. Hence eta is restricted to [0, 1] and the quadratic is entered
with ``quad_form(xi, Theta, assume_psd=True)`` (no dense eigendecomposition: the model builds in O(nnz)).

``normalisation`` (default ``'printed'``, the formula above) reads the off-diagonal per neighbourhood instead:
``'dmax'`` (-eta/d_max), ``'symmetric'`` (-eta/sqrt(|N_i||N_j|)), ``'max'`` (-eta/max(|N_i|,|N_j|)) or ``'row'``
(-eta/|N_i|, by its symmetric part); `normalisation.py` defines each and proves its PSD range (eta in [0, 1] for
every graph except 'row', whose range depends on the graph and is checked).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from certiprog import validation as validate
from certiprog.errors import InputError
from certiprog.model import Model, Record, Variable, minimize, quad_form, sum_squares
from certiprog.solvers.structured import StructuredAnswer

from .graph import radius_graph
from .normalisation import Normalised, check_eta, check_normalisation, normalise

__all__ = ["ErrorClumpingData", "ErrorClumpingSolution", "error_clumping", "neighbourhood_matrix",
           "neighbourhood_graph"]


def _eta(eta) -> float:
    v = validate.scalar(eta, "eta (the discount, a number in [0, 1])")
    if not (0.0 <= v <= 1.0):
        raise InputError(
            f"eta must lie in [0, 1]; got {eta!r}. Theta = I - eta/(m-1) A is PSD for every neighbourhood graph only "
            "when eta <= 1 (Theta = eta/(m-1) Laplacian + diag(1 - eta d_i/(m-1)), d_i <= m-1); for eta > 1 it is "
            "indefinite (e.g. all points within rho: eigenvalue 1 - eta < 0) and eq. (1) is not convex"
        )
    return v


def neighbourhood_graph(X, rho, method: str = "blas") -> sp.csr_matrix:
    """The symmetric 0/1 adjacency A of the closed-ball rho-graph (A_ij = 1 iff i != j, ||x_i - x_j||_2 <= rho).

    `graph.radius_graph`: blocked float32 BLAS distances with a rigorous recheck near rho (exact, bounded memory;
    ``method='kdtree'``: scipy's cKDTree, kept for comparison).
    """
    return radius_graph(X, rho, method=method)


def neighbourhood_matrix(X, rho, eta, normalisation: str = "printed") -> sp.csr_matrix:
    """Theta = I - eta/(m-1) A (scipy.sparse CSR), A the closed-ball rho-graph (see `neighbourhood_graph`);
    ``normalisation`` other than 'printed': Theta = I - (eta/den) W of `normalisation.normalise`.

    ``eta`` must lie in [0, 1] (Theta PSD, doc 003 §1.1, §1.4; 'row' also eta lambda_max(W) <= 1). For m = 1
    Theta = I.
    """
    check_normalisation(normalisation)
    A = neighbourhood_graph(X, rho)
    if normalisation == "printed":
        return _theta(A, _eta(eta))
    G = normalise(A, normalisation)
    return G.theta(check_eta(eta, G))


def _theta(A: sp.csr_matrix, eta: float) -> sp.csr_matrix:
    """Theta = I - eta/(m-1) A (I for m = 1)."""
    m = A.shape[0]
    coef = eta / (m - 1) if m > 1 else 0.0
    return (sp.identity(m, format="csr") - coef * A).tocsr()


def _check_graph(graph, m: int) -> sp.csr_matrix:
    """A precomputed neighbourhood graph: m x m, symmetric, 0/1 entries, empty diagonal (so Theta is PSD)."""
    if not sp.issparse(graph):
        raise InputError("graph must be a scipy.sparse matrix, as returned by neighbourhood_graph(X, rho)")
    if graph.shape != (m, m):
        raise InputError(f"graph has shape {graph.shape}; expected ({m}, {m}) to match X")
    A = graph if (sp.isspmatrix_csr(graph) and graph.dtype == np.float64) else sp.csr_matrix(graph, dtype=float)
    if A.nnz:
        A = A.copy() if A is graph and not A.has_canonical_format else A
        A.sum_duplicates()  # also sorts the indices
        T = A.T.tocsr()  # one transposed pattern (no A - A.T temporaries: the 10 % MNIST graph has 1.2e8 entries)
        T.sum_duplicates()
        symmetric = np.array_equal(A.indptr, T.indptr) and np.array_equal(A.indices, T.indices)
        if not np.all(A.data == 1.0) or not symmetric or A.diagonal().any():
            raise InputError("graph must be symmetric with 0/1 entries and an empty diagonal (see neighbourhood_graph)")
    return A


@dataclass(frozen=True, eq=False)
class ErrorClumpingSolution(Record):
    """Eq. (1) at a solution (`error_clumping`'s ``model.derived(sol)``).

    ``predictions`` (sign <w, x_i>, 0 mapped to +1), ``errors`` (bool, y_i <w, x_i> <= 0), ``n_errors``,
    ``error_rate``; the clumping: ``error_pairs`` (neighbour pairs with both points misclassified), ``clumping``
    (mean, over misclassified points with >= 1 neighbour, of the fraction of their neighbours that are misclassified;
    NaN when undefined), ``penalty`` = ||xi||^2/(2m), ``discount`` = eta/(2m(m-1)) xi^T A xi (so the quadratic term
    is penalty - discount), ``w``, ``xi``, ``hinge`` = max(0, 1 - y o Xw) and ``xi_above_hinge`` (xi - hinge;
    positive entries are slacks lifted by clumped neighbours, doc 003 §1.2).
    """

    predictions: np.ndarray
    errors: np.ndarray
    n_errors: int
    error_rate: float
    error_pairs: int
    clumping: float
    penalty: float
    discount: float
    w: np.ndarray
    xi: np.ndarray
    hinge: np.ndarray
    xi_above_hinge: np.ndarray


@dataclass(frozen=True, eq=False)
class ErrorClumpingData:
    """The data of eq. (1) (``model.data`` of `error_clumping`): ``X`` (m, n), labels ``y``, ``rho``, ``eta``,
    ``lam``, the neighbourhood graph ``A`` and ``Theta = I - eta/(m-1) A`` (sparse; ``I - (eta/den) W`` under
    another ``normalisation``), ``degree`` (row sums of A), ``graph`` (the `normalisation.Normalised` reading)."""

    X: np.ndarray
    y: np.ndarray
    rho: float
    eta: float
    lam: float
    A: sp.csr_matrix
    Theta: sp.csr_matrix
    degree: np.ndarray
    graph: Normalised | None = None

    @property
    def normalisation(self) -> str:
        return "printed" if self.graph is None else self.graph.normalisation

    @property
    def m(self) -> int:
        return int(self.X.shape[0])

    def structured_solve(self, **options) -> StructuredAnswer:
        """The structured certified solver (`solver.solve_error_clumping`) for ``model.solve(solver="structured")``
        (`certiprog.solvers.structured`): w, xi, the duals alpha (of 'margin') and beta (of 'xi>=0') of its
        certificate, and its rigorous interval (``StructuredAnswer.interval``). ``options`` go to
        `solve_error_clumping` (tol, ...)."""
        from .solver import dual_point, solve_error_clumping

        fit = solve_error_clumping(self.X, self.y, self.rho, self.eta, self.lam, graph=self.A,
                                   normalisation=self.normalisation, **options)
        alpha, beta = dual_point(self.X, self.y, self.A, self.eta, fit.w, fit.xi, normalisation=self.graph)
        return StructuredAnswer({"w": fit.w, "xi": fit.xi}, {"margin": alpha, "xi>=0": beta},
                                "optimal" if fit.certified else "inaccurate", fit.interval, fit.iterations,
                                info=dict(rel_gap=fit.rel_gap, certified=fit.certified, structured_status=fit.status,
                                          **fit.info))

    def structured_auto(self, problem) -> bool:
        """Not tried first below `certiprog.solvers.structured.AUTO_MIN_NNZ` nonzeros (the size rule decides)."""
        return False

    def derive(self, sol) -> ErrorClumpingSolution:
        m, A, degree = self.m, self.A, self.degree
        wv = np.asarray(sol.value("w"), float)
        xv = np.asarray(sol.value("xi"), float)
        score = self.X @ wv
        margin = self.y * score
        err = margin <= 0
        n_err = int(err.sum())
        e = err.astype(float)
        err_nb = A @ e  # misclassified neighbours of each point
        if self.normalisation == "printed":
            discount = self.eta / (m - 1) * float(xv @ (A @ xv)) / (2.0 * m)
        else:
            assert self.graph is not None  # no graph reads as 'printed'
            discount = float(xv @ self.graph.apply(xv, self.eta)) / (2.0 * m)
        has_nb = err & (degree > 0)
        clump = float(np.mean(err_nb[has_nb] / degree[has_nb])) if has_nb.any() else float("nan")
        hinge = np.maximum(0.0, 1.0 - margin)
        return ErrorClumpingSolution(
            predictions=np.where(score >= 0, 1, -1), errors=err, n_errors=n_err, error_rate=n_err / m,
            error_pairs=int(round(float(e @ err_nb) / 2.0)), clumping=clump, penalty=float(xv @ xv) / (2.0 * m),
            discount=discount, w=wv, xi=xv, hinge=hinge,
            xi_above_hinge=xv - hinge)


def eq1_inputs(X, y, rho, eta, lam, graph=None):
    """Validated ``(X, y, rho, eta, lam, A)`` of eq. (1) with Theta as printed (A: the neighbourhood graph, built
    when ``graph`` is None): the check that the Model, the structured solver and Algorithm 1 all run."""
    X, yv, rho, eta, lam, G = eq1_inputs_normalised(X, y, rho, eta, lam, graph, "printed")
    return X, yv, rho, eta, lam, G.A


def eq1_inputs_normalised(X, y, rho, eta, lam, graph=None, normalisation: str = "printed"):
    """Validated ``(X, y, rho, eta, lam, G)`` of eq. (1), G the `normalisation.Normalised` reading of Theta on the
    neighbourhood graph (built when ``graph`` is None); eta is checked for that reading's PSD range."""
    check_normalisation(normalisation)
    X = validate.matrix(X, "X", min_rows=2)
    m, n = X.shape
    if n < 1:
        raise InputError("X has 0 columns; at least one feature is needed")
    yv = validate.labels(y, "y", size=m)
    rho = validate.scalar(rho, "rho", low=0.0, low_open=True)
    eta = _eta(eta)
    lam = validate.scalar(lam, "lam", low=0.0, low_open=True)
    A = neighbourhood_graph(X, rho) if graph is None else _check_graph(graph, m)
    G = normalise(A, normalisation)
    return np.ascontiguousarray(X), yv, rho, check_eta(eta, G), lam, G


def error_clumping(X, y, rho, eta, lam, graph=None, normalisation: str = "printed") -> Model:
    """Eq. (1) of paper 003 as a Model.

    ``normalisation``: Theta's off-diagonal for j in N_i (`normalisation.py`, PSD proved for each):
    ``'printed'`` (default) -eta/(m-1) as in the paper's text, PSD for every graph iff eta in [0, 1];
    ``'dmax'`` -eta/d_max and ``'symmetric'`` ``-eta/sqrt(|N_i||N_j|)`` (and ``'max'`` ``-eta/max(|N_i|,|N_j|)``), PSD with
    lambda_min(Theta) >= 1 - eta for eta in [0, 1] on every graph (indefinite for eta > 1: 'symmetric' on any graph
    with an edge); ``'row'`` ``-eta/|N_i|`` (its symmetric part), PSD for eta <= 1/lambda_max((D^-1 A + A D^-1)/2),
    which is <= 1 and checked on the graph. Outside these ranges (and for NaN, or an unknown name): InputError.

    ``graph``: the neighbourhood graph ``neighbourhood_graph(X, rho)`` when it is already at hand (e.g. a
    sweep over eta or lam); it is checked to be a symmetric 0/1 matrix with an empty diagonal.

    Arguments: ``X`` (m, n) finite, ``y`` (m,) in {+1, -1} (both classes), ``rho > 0`` (neighbourhood radius),
    ``eta`` in [0, 1] (discount; eta = 0 is the squared-hinge SVM), ``lam > 0`` (ridge weight).

    Variables ``w`` (n,), ``xi`` (m,); constraints ``'margin'`` (vector, xi >= 1 - y o Xw) and ``'xi>=0'``.
    ``model.data`` is an `ErrorClumpingData` (with ``Theta``, ``A`` (sparse), ``degree``); ``model.derived(sol)``
    an `ErrorClumpingSolution`.
    """
    X, yv, rho, eta, lam, G = eq1_inputs_normalised(X, y, rho, eta, lam, graph, normalisation)
    A = G.A
    m, n = X.shape
    Theta = _theta(A, eta) if normalisation == "printed" else G.theta(eta)
    Z = X * yv[:, None]  # rows y_i x_i

    w = Variable(n, "w")
    xi = Variable(m, "xi")
    obj = (0.5 * lam) * sum_squares(w) + (1.0 / (2.0 * m)) * quad_form(xi, Theta, assume_psd=True)
    model = Model(minimize(obj), name="error_clumping")
    model.add(xi >= 1.0 - Z @ w, name="margin")
    model.add(xi >= 0, name="xi>=0")
    model.data = ErrorClumpingData(X, yv, rho, eta, lam, A, Theta, np.asarray(A.sum(axis=1)).ravel(), G)
    return model
