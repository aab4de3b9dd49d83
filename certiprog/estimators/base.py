"""The base of every paper's scikit-learn classifier: the parameters they share, with one meaning each.

A paper's estimator inherits `CertifiedClassifier` (scikit-learn's ``ClassifierMixin`` and ``BaseEstimator``
included) and calls `CertifiedClassifier._check_shared` from its own parameter check; the shared parameters are
documented once, in `CertifiedClassifier`'s numpydoc entries, and each estimator's docstring says only where it
narrows them.
"""
from __future__ import annotations

from sklearn.base import BaseEstimator, ClassifierMixin

from .. import validation as validate
from ..errors import InputError

__all__ = ["CERTIFY", "CertifiedClassifier", "certify_mode"]

CERTIFY = (True, False, "auto", "kkt")  # the one meaning of ``certify``; "full" is read as True


def certify_mode(value, allowed=CERTIFY) -> str:
    """``certify`` as one word: ``"interval"`` (True, or the older "full"), ``"auto"``, ``"kkt"`` or ``"none"``
    (False); an InputError for anything else or for a value outside ``allowed``."""
    words = {True: "interval", False: "none", "auto": "auto", "kkt": "kkt", "full": "interval"}
    # `is` for the booleans: 1 and 0 are not True and False here, and numpy bools are refused like other numbers
    key = value if isinstance(value, bool) or (isinstance(value, str) and value in words) else None
    allowed_words = {words[a] for a in allowed}
    if key is None or words[key] not in allowed_words:
        shown = ", ".join(repr(a) for a in allowed)
        raise InputError(f"certify must be one of {shown} (True: a rigorous interval; 'kkt': the KKT check; 'auto': "
                         f"the interval where affordable; False: none); got {value!r:.60}")
    return words[key]


class CertifiedClassifier(ClassifierMixin, BaseEstimator):
    """scikit-learn classifier whose fits are certiprog programs: the parameters every paper's estimator shares,
    with one meaning each, checked one way (`_check_shared`), and binary-only tags.

    Subclasses set ``_certify_allowed`` when they offer only part of `CERTIFY`, and ``_solver_names`` for the
    paper algorithms ``solver`` may name besides a backend's solver. An estimator has only the parameters it uses.

    Parameters
    ----------
    backend : str or None
        The certiprog backend that solves the estimator's convex programs: ``"clarabel"``, ``"cvxpy"``, ``"piqp"``,
        ``"pyomo"``, ``"mosek"`` (`certiprog.solvers.available_backends`). None lets certiprog choose: the paper's
        structured solver where it has one, else the default backend order.
    solver : str or None
        Which solver runs: a solver of ``backend`` (``"CLARABEL"``, ``"OSQP"`` for cvxpy) or, for estimators whose
        paper has its own algorithm, that algorithm's name (``"dedicated"`` in ME2, ``"algorithm1"`` in error
        clumping), as each estimator lists. None: the backend's (or the paper's) default.
    certify : {True, False, "auto", "kkt"}
        What a fitted model's optimum is checked with, the same word in every estimator:

        * True: a rigorous interval [lower, upper] around the optimum, both ends proved (`certiprog.check` with the
          interval), for every reported solve;
        * ``"kkt"``: the KKT check of the solve (a verdict with measured residuals, no proved interval);
        * ``"auto"``: the rigorous interval where it is affordable (each estimator states its size rule), else the KKT
          check;
        * False: no check beyond what the solve itself reports (for the points of a parameter grid: certify the one
          you choose).

        ``"full"`` is read as True (the older spelling of the MPM estimators). An estimator that offers only part of
        this set says so and refuses the rest with an InputError.
    n_jobs : int or None
        joblib workers over the estimator's independent sub-problems, scikit-learn's meaning: None is 1 unless inside a
        ``joblib.parallel_backend`` context, -1 uses every core, 0 is refused.
    """

    _certify_allowed: tuple = CERTIFY
    _solver_names: tuple = ()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _check_shared(self) -> None:
        """InputError for a shared parameter this estimator has and cannot use (those it lacks are skipped)."""
        backend = None
        if hasattr(self, "backend"):
            backend = validate.backend(self.backend)
        if hasattr(self, "solver") and not (isinstance(self.solver, str) and self.solver in self._solver_names):
            validate.solver(self.solver, backend)
        if hasattr(self, "certify"):
            certify_mode(self.certify, self._certify_allowed)
        if getattr(self, "n_jobs", None) is not None:
            validate.integer(self.n_jobs, "n_jobs (joblib workers: None, a positive integer, or -1 for all cores)")
            if self.n_jobs == 0:
                raise InputError("n_jobs must be None, a positive integer, or negative (-1: all cores); got 0")

    def _certify_mode(self) -> str:
        """This estimator's ``certify`` as one word (see `certify_mode`)."""
        return certify_mode(self.certify, self._certify_allowed)
