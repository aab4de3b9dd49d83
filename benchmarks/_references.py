"""The reference programs written directly in CVXPY that more than one benchmark times against certiprog."""
from __future__ import annotations

__all__ = ["cvxpy_error_clumping"]


def cvxpy_error_clumping(X, y, A, eta: float, lam: float):
    """Paper 003's eq. (1) as a ``cvxpy.Problem``: ``lam/2 ||w||^2 + xi' Theta xi / (2m)`` over ``xi >= 0``,
    ``xi >= 1 - y * (X w)``, with ``Theta = I - eta / (m - 1) A`` for the neighbourhood graph ``A`` (sparse, m x m);
    ``Theta`` is passed through ``psd_wrap`` (CVXPY's eigenvalue check would be dense)."""
    import cvxpy as cp
    import scipy.sparse as sp

    m = X.shape[0]
    Theta = sp.identity(m, format="csr") - (eta / (m - 1)) * A
    w, xi = cp.Variable(X.shape[1]), cp.Variable(m)
    obj = lam / 2 * cp.sum_squares(w) + cp.quad_form(xi, cp.psd_wrap(Theta)) / (2 * m)
    return cp.Problem(cp.Minimize(obj), [xi >= 0, xi >= 1 - cp.multiply(y, X @ w)])
