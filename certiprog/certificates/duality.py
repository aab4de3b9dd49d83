"""Deprecated: ``certiprog.certificates.duality`` was split into modules of one idea each in `certiprog.certify`
(`interval`, `upper_end`, `lower_end`, `box`, `psd`, `dual_cone`, `interior`, ...); its public names are
re-exported here from their new homes."""
from ..certify.box import variable_box
from ..certify.dual_cone import dual_in_cone
from ..certify.interior import interior_point, set_margin_solver
from ..certify.interval import OptimalityInterval, optimality_interval
from ..certify.lower_end import lower_bound
from ..certify.psd import PsdCertificate, psd_certificate, psd_shift
from ..certify.upper_end import upper_bound
from . import warn_moved

warn_moved(__name__, "certiprog.certify (its modules interval, upper_end, lower_end, box, psd, dual_cone, interior)")

__all__ = ["OptimalityInterval", "PsdCertificate", "dual_in_cone", "interior_point", "lower_bound",
           "optimality_interval", "psd_certificate", "psd_shift", "set_margin_solver", "upper_bound", "variable_box"]
