"""pyplot for the experiments' PNG figures, once: on the Agg backend, which writes files and needs no display (the
experiments run on headless machines and in the test suite)."""
from __future__ import annotations

__all__ = ["pyplot"]


def pyplot():
    """``matplotlib.pyplot`` with the Agg backend selected (imported on first use)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt
