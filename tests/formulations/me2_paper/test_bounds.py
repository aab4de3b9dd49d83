"""Paper 002's bound (certiprog.formulations.me2_paper.bounds): Thm 2 with k^2 (moved from tests/core/test_bounds.py)."""
import pytest

from certiprog import InputError
from certiprog.audit.bounds import get_bound


def test_002_thm2_k_squared():
    b = get_bound("002-C46")
    vals = dict(n=1000, mu=0.1, lam=0.2, K=1.0, delta=0.05)
    assert b.evaluate(k=1.0, **vals) == pytest.approx(b.evaluate_printed(k=1.0, **vals))
    assert b.evaluate(k=4.0, **vals) > b.evaluate_printed(k=4.0, **vals)   # k = 4B^2 = 4 when B = 1
    with pytest.raises(InputError, match="k >= 1"):
        b.evaluate(k=0.5, **vals)
