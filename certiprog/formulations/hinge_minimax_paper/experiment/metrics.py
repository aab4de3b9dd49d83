"""The two scores of paper 000's tables (one definition each): the AUC and the rate at the equal error rate.
"""
from __future__ import annotations

import numpy as np

from certiprog.errors import InputError


def auc(y, score) -> float:
    """Area under the ROC curve of ``score`` for labels ``y`` (True / 1 = positive), `sklearn.metrics.roc_auc_score`."""
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(np.asarray(y) > 0, np.asarray(score, float)))


def eer(y, score) -> float:
    """Equal error rate: where the ROC's false-negative rate 1 - TPR equals its false-positive rate, by linear
    interpolation between the points of `sklearn.metrics.roc_curve` on either side. The paper's "classification
    rate at EER" is ``1 - eer``."""
    from sklearn.metrics import roc_curve

    y = np.asarray(y) > 0
    if y.all() or not y.any():
        raise InputError("the EER needs both classes in y")
    fpr, tpr, _ = roc_curve(y, np.asarray(score, float))
    gap = (1 - tpr) - fpr                      # non-increasing along the curve, from 1 to -1
    i = int(np.argmax(gap <= 0))
    if gap[i] == 0 or i == 0:
        return float(fpr[i])
    t = gap[i - 1] / (gap[i - 1] - gap[i])
    return float(fpr[i - 1] + t * (fpr[i] - fpr[i - 1]))
