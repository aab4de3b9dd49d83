"""certiprog's exceptions: every one names what was wrong and how to fix it."""


class CertiprogError(Exception):
    """Base class of every error raised by certiprog."""


class InputError(CertiprogError, ValueError):
    """Bad data handed to a public function (NaN, wrong shape, empty class, ...)."""


class InputTypeError(InputError, TypeError):
    """Input of the wrong type (a dict or an object where numbers are needed): an InputError that is also the
    TypeError scikit-learn's estimator checks expect."""


class ShapeError(CertiprogError, ValueError):
    """Expressions whose shapes cannot be combined."""


class DCPError(CertiprogError, TypeError):
    """A construction that is not convex (or not affine where it must be)."""


class NonConvexError(DCPError, InputError):
    """Data that make a well-formed model non-convex (an indefinite quad_form matrix, a nonpositive
    quad_over_lin denominator), found before any backend is called. Both a DCPError and an InputError."""


class BackendError(CertiprogError, RuntimeError):
    """A backend or solver is missing, unlicensed or failed to run."""


class OptionError(BackendError, InputError):
    """A solver option that no solver certiprog would use accepts (an unknown name, a value of the wrong type).
    Bad input, so also an InputError; a BackendError for code that catches a solver's refusals."""


class ModelError(CertiprogError, ValueError):
    """A model that cannot be compiled (duplicate names, no objective, ...)."""


class SavedFileError(InputError, ModelError):
    """A saved file (a Solution's JSON + .npz, ...) that is missing, corrupt, tampered with or of another
    format. Also a ModelError, which the first solution format raised."""
