"""Symbolic checks with SymPy: identities by simplification plus exact random spot checks."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import sympy


@dataclass
class IdentityCheck:
    """Outcome of `verify_identity`: ``holds``; ``method``; a counterexample (symbol -> value) when it fails."""

    holds: bool
    method: str
    counterexample: dict | None = None
    lhs_value: object = None
    rhs_value: object = None
    spot_checks: int = 0
    notes: list = field(default_factory=list)

    def __bool__(self):
        return self.holds


def _sample(sym, rng: random.Random):
    """A random rational respecting the symbol's assumptions (positive, nonnegative, integer)."""
    if sym.is_integer:
        lo = 1 if sym.is_positive else (0 if sym.is_nonnegative else -9)
        return sympy.Integer(rng.randint(lo, 9))
    v = sympy.Rational(rng.randint(1, 97), rng.randint(1, 31))
    if sym.is_positive or sym.is_nonnegative:
        return v
    return v if rng.random() < 0.5 else -v


def verify_identity(lhs, rhs, *, assumptions: dict | None = None, domain=None, spot_checks: int = 20,
                    seed: int = 0) -> IdentityCheck:
    """Check ``lhs == rhs`` symbolically; fall back to exact evaluation at random rational points.

    ``domain(subs) -> bool`` may restrict the spot checks (e.g. to 0 < delta < 1).
    Matrices are compared entrywise. A failed spot check returns the counterexample.
    """
    lhs, rhs = sympy.sympify(lhs), sympy.sympify(rhs)
    diff = sympy.Matrix(lhs) - sympy.Matrix(rhs) if isinstance(lhs, sympy.MatrixBase) else lhs - rhs
    if assumptions:
        diff = diff.subs(assumptions)
    try:
        simp = sympy.simplify(diff)
        zero = simp.is_zero_matrix if isinstance(simp, sympy.MatrixBase) else simp == 0
    except Exception as exc:  # simplify can fail on piecewise or special functions: rely on spot checks
        zero, simp = False, None
        note = f"simplify failed: {type(exc).__name__}"
    else:
        note = None
    free = sorted(diff.free_symbols, key=lambda s: s.name)
    rng = random.Random(seed)
    done = 0
    for _ in range(spot_checks * 20):
        if done >= spot_checks:
            break
        subs = {s: _sample(s, rng) for s in free}
        if domain is not None and not domain(subs):
            continue
        try:
            val = diff.subs(subs)
            val = sympy.nsimplify(val) if not isinstance(val, sympy.MatrixBase) else val
        except (ZeroDivisionError, ValueError):
            continue
        if val.has(sympy.zoo, sympy.nan):
            continue
        done += 1
        nonzero = any(sympy.N(v, 30) != 0 and abs(sympy.N(v, 30)) > 1e-25 for v in (val if isinstance(val, sympy.MatrixBase) else [val]))
        if nonzero:
            return IdentityCheck(False, "spot check", counterexample=subs, lhs_value=lhs.subs(subs),
                                 rhs_value=rhs.subs(subs), spot_checks=done, notes=[note] if note else [])
    if zero:
        return IdentityCheck(True, "simplify", spot_checks=done)
    return IdentityCheck(done > 0, "spot checks" if done else "none possible", spot_checks=done,
                         notes=[n for n in (note, "simplify did not reach 0; holds at every random rational point")
                                if n])
