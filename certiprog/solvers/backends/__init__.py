"""Backends: each module registers itself; importing this package registers them all."""
from . import clarabel_backend, cvxpy_backend, mosek_backend, piqp_backend, pyomo_backend  # noqa: F401
