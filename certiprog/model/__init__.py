"""The declarative IR: variables, parameters, affine expressions, atoms, constraints, models."""
from ..conic.cones import Cone
from .atoms import (
    abs_,
    entr,
    exp,
    geo_mean,
    hinge,
    inv_pos,
    kl_div,
    log,
    log_sum_exp,
    logistic,
    max_entries,
    norm1,
    norm2,
    norm_inf,
    pnorm,
    pos,
    power,
    psd_factor,
    quad_form,
    quad_over_lin,
    rel_entr,
    square,
    sum_squares,
)
from .cone_constraints import ExpCone, PowConeND
from .constraints import PSD, SOC, Constraint, Equality, Inequality, PowerCone3D
from .expression import Expression, Parameter, Variable, as_expression, concatenate, hstack, matmul, stack, vstack
from .forall import ForAll
from .formulation import Formulation, StructuredFormulation
from .index_sets import IndexSet, LqEllipsoid, OracleSet, PointCloud
from .model import Model, Objective, maximize, minimize
from .results import Record

__all__ = [
    "Cone", "Constraint", "Equality", "ExpCone", "Expression", "ForAll", "Formulation", "IndexSet", "Inequality",
    "LqEllipsoid", "StructuredFormulation",
    "Model", "Objective", "OracleSet", "Parameter", "PointCloud", "PowConeND", "PowerCone3D", "PSD", "Record", "SOC",
    "Variable",
    "abs_", "as_expression", "concatenate", "hinge", "hstack", "matmul", "max_entries", "maximize", "minimize", "norm1",
    "norm2", "norm_inf", "pnorm", "pos", "psd_factor", "quad_form", "quad_over_lin", "stack", "sum_squares", "vstack",
    "entr", "exp", "geo_mean", "inv_pos", "kl_div", "log", "log_sum_exp", "logistic", "power", "rel_entr", "square",
]
