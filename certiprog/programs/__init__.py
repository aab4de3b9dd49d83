"""Programs several papers share, in the core so that no paper imports another: the Marshall-Olkin worst-case
probability QP (`marshall_olkin`)."""
from .marshall_olkin import background_risk, background_risks, set_halfspaces

__all__ = ["background_risk", "background_risks", "set_halfspaces"]
