"""Shared test fixtures: the repository root, the reference implementations, seeded data makers."""
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "reference")]  # helpers.py; the independent references



@pytest.fixture
def repo() -> Path:
    return REPO
