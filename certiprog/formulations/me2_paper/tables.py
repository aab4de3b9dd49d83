"""Paper 002's Table 3 (mean and standard deviation over 10 runs of precision, recall and F-measure), transcribed.

``TABLE3[method][dataset] = ((P, sd), (R, sd), (F, sd))``; data set keys as in `certiprog.datasets.DATASETS_002`
plus "abalone" (not available here). "A standard deviation equal to zero indicates a value smaller than 10^-2."
"""
from __future__ import annotations

METHODS = ("RF", "DT", "DT_O", "DT_U", "DT_OU", "LSVM", "RBFSVM", "ME2")
DATASETS = ("yeast3", "abalone", "wine", "abalone17", "yeast6", "abalone20", "abalone19")
SCORES = ("precision", "recall", "f1")

_ROWS = {  # per method: P row, R row, F row; each (mean, sd) per data set in DATASETS order
    "RF": ("0.84 .04 0.76 .04 0.05 .15 0.43 .34 0.10 .20 0 0 0 0",
           "0.76 .06 0.60 .05 0.009 .03 0.14 .10 0.028 .06 0 0 0 0",
           "0.79 .03 0.67 .04 0.015 .05 0.20 .15 0.044 .09 0 0 0 0"),
    "DT": ("0.76 .12 0.74 .04 0 0 0 0 0 0 0 0 0 0",
           "0.88 0 0.68 .04 0 0 0 0 0 0 0 0 0 0",
           "0.82 .12 0.71 .04 0 0 0 0 0 0 0 0 0 0"),
    "DT_O": ("0.67 .05 0.59 .03 0.061 .07 0.34 .07 0.093 .08 0.017 .05 0.019 .04",
             "0.91 .02 0.77 .06 0.063 .07 0.36 .09 0.086 .07 0.020 .06 0.033 .067",
             "0.77 .03 0.67 .02 0.061 .07 0.35 .08 0.089 .08 0.018 .06 0.024 .05"),
    "DT_U": ("0.75 .03 0.68 .08 0.11 .09 0.28 .08 0.099 .10 0.17 .15 0 0",
             "0.90 .03 0.73 .09 0.072 .06 0.43 .22 0.086 .07 0.18 .14 0 0",
             "0.82 .02 0.69 .02 0.082 .06 0.33 .13 0.088 .08 0.18 .11 0 0"),
    "DT_OU": ("0.61 .04 0.50 .03 0.065 .04 0.23 .06 0.14 .09 0.12 .13 0.024 .03",
              "0.94 .03 0.83 .05 0.12 .07 0.47 .18 0.21 .13 0.22 .21 0.083 .11",
              "0.74 .03 0.62 .03 0.084 .05 0.31 .08 0.17 .10 0.15 .16 0.037 .05"),
    "LSVM": ("0.51 0 0.47 0 0.049 .01 0.17 .012 0.090 0 0.12 0 0.020 0",
             "0.88 0 0.93 0 0.49 .25 0.81 0 0.43 0 0.80 0 0.68 .12",
             "0.64 0 0.62 0 0.087 .01 0.29 .02 0.15 .01 0.21 0 0.038 .01"),
    "RBFSVM": ("0.67 .07 0.59 .01 0.78 .20 0.29 .12 0.087 .07 0 0 0 0",
               "0.78 .15 0.67 .07 0.091 0 0.13 .08 0.10 .09 0 0 0 0",
               "0.70 .07 0.63 .04 0.16 .01 0.17 .10 0.092 .08 0 0 0 0"),
    "ME2": ("0.46 .02 0.50 .02 0.11 .03 0.25 .03 0.19 .04 0.14 .07 0.024 .02",
            "0.87 .02 0.83 .02 0.29 .08 0.71 .12 0.43 .06 0.44 .14 0.13 .10",
            "0.60 .02 0.62 .02 0.16 .04 0.37 .05 0.26 .05 0.21 .09 0.040 .03"),
}


def _parse() -> dict:
    table = {}
    for method, rows in _ROWS.items():
        vals = [[float(v) for v in r.split()] for r in rows]
        table[method] = {ds: tuple((vals[s][2 * k], vals[s][2 * k + 1]) for s in range(3))
                         for k, ds in enumerate(DATASETS)}
    return table


TABLE3 = _parse()


def paper_value(method: str, dataset: str, score: str):
    """(mean, sd) the paper reports, or None."""
    try:
        return TABLE3[method][dataset][SCORES.index(score)]
    except (KeyError, ValueError):
        return None
