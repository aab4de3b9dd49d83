"""Deprecated: the certificates now live in two packages, `certiprog.certify` and `certiprog.audit`.

``certiprog.certificates`` held two unrelated ideas (issue 22): the numerical certification of an answer (KKT
measures, the rigorous optimality interval, dual recovery, the verdict), now `certiprog.certify`, and the paper
audit (claims registry, symbolic checks, bounds, the audit report), now `certiprog.audit`. Every old import path
keeps working: ``certiprog.certificates.check`` is `certiprog.certify.check`; ``certiprog.certificates.kkt`` *is*
the module `certiprog.certify.kkt` (the same object, so attributes set on it are seen), likewise ``rigorous``,
``recovery``, ``polish``, ``verdict``, and ``registry``, ``claimkit``, ``symbolic``, ``bounds``, ``audit`` (now
`certiprog.audit.report`); ``certiprog.certificates.duality``, split into modules of one idea each, re-exports its
public names. Importing these from outside certiprog emits a `DeprecationWarning` naming the new path.
"""
from __future__ import annotations

import sys
import warnings
from types import FrameType

from ..certify import (
    DEFAULT_TOL,
    DEFAULT_TOL_INACCURATE,
    BlockReport,
    Certificate,
    Interval,
    OptimalityInterval,
    PsdCertificate,
    Verdict,
    check,
    kkt_measures,
    optimality_interval,
    psd_certificate,
    recover_duals,
    variable_box,
)

#: old module path -> the module it now is
MOVED = {
    "kkt": "certiprog.certify.kkt",
    "rigorous": "certiprog.certify.rigorous",
    "recovery": "certiprog.certify.recovery",
    "polish": "certiprog.certify.polish",
    "verdict": "certiprog.certify.verdict",
    "duality": "certiprog.certify.interval (split: interval, upper_end, lower_end, box, psd, dual_cone, interior)",
    "registry": "certiprog.audit.registry",
    "claimkit": "certiprog.audit.claimkit",
    "symbolic": "certiprog.audit.symbolic",
    "bounds": "certiprog.audit.bounds",
    "audit": "certiprog.audit.report",
}


def warn_moved(old: str, new: str) -> None:
    """A `DeprecationWarning` that ``old`` is now ``new``, attributed to the line that imported it; silent when
    that line is inside certiprog itself (a leftover import there is the architecture test's business)."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen importlib")
                                 or frame.f_globals.get("__name__", "").startswith("certiprog.certificates")):
        frame, level = frame.f_back, level + 1
    caller = "" if frame is None else frame.f_globals.get("__name__", "")
    if caller == "certiprog" or caller.startswith("certiprog."):
        return
    warnings.warn(f"{old} is deprecated: import {new} instead (issue 22 split certiprog.certificates into "
                  f"certiprog.certify and certiprog.audit)", DeprecationWarning, stacklevel=level + 1)


def _importing_a_submodule() -> bool:
    """Is this package being imported as the parent of one of its submodules (``import
    certiprog.certificates.registry``)? Then that submodule's own warning names the exact new path, and the
    package stays silent (with warnings as errors, its vaguer warning would come first and hide it)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            name = frame.f_locals.get("name")
            if isinstance(name, str) and name.startswith(__name__ + "."):
                return True
        frame = frame.f_back
    return False


if not _importing_a_submodule():
    warn_moved("certiprog.certificates", "certiprog.certify (certification) or certiprog.audit (paper audit)")

__all__ = ["BlockReport", "Certificate", "DEFAULT_TOL", "DEFAULT_TOL_INACCURATE", "Interval", "OptimalityInterval",
           "PsdCertificate", "Verdict", "check", "kkt_measures", "optimality_interval", "psd_certificate",
           "recover_duals", "variable_box"]
