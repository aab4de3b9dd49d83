"""The deprecated ``certiprog.certificates`` (issue 22 split it into ``certiprog.certify`` and ``certiprog.audit``):
every old import path keeps working, an old submodule is the new module itself, and an import from outside
certiprog warns while certiprog's own imports stay silent."""
import subprocess
import sys

import pytest

import certiprog.audit.registry
import certiprog.audit.report
import certiprog.certify
import certiprog.certify.kkt
import certiprog.certify.rigorous

MOVED = {
    "kkt": "certiprog.certify.kkt", "rigorous": "certiprog.certify.rigorous",
    "recovery": "certiprog.certify.recovery", "polish": "certiprog.certify.polish",
    "verdict": "certiprog.certify.verdict", "registry": "certiprog.audit.registry",
    "claimkit": "certiprog.audit.claimkit", "symbolic": "certiprog.audit.symbolic",
    "bounds": "certiprog.audit.bounds", "audit": "certiprog.audit.report",
}


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_submodule_is_the_new_module(old):
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        mod = importlib.import_module(f"certiprog.certificates.{old}")
    assert mod is importlib.import_module(MOVED[old])  # the same object: attributes set on one are seen by both


def test_the_old_names_are_the_new_objects():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import certiprog.certificates as old
        from certiprog.certificates.duality import (optimality_interval, psd_certificate, set_margin_solver,
                                                    upper_bound, variable_box)
        from certiprog.certificates.kkt import check
        from certiprog.certificates.registry import REGISTRY, claim

    from certiprog.certify.interior import set_margin_solver as new_set_margin_solver
    from certiprog.certify.upper_end import upper_bound as new_upper_bound

    assert old.check is certiprog.certify.check is check is certiprog.check
    assert all(getattr(old, n) is getattr(certiprog.certify, n) for n in old.__all__)
    assert optimality_interval is certiprog.certify.optimality_interval
    assert psd_certificate is certiprog.certify.psd_certificate and variable_box is certiprog.certify.variable_box
    assert set_margin_solver is new_set_margin_solver and upper_bound is new_upper_bound
    assert REGISTRY is certiprog.audit.registry.REGISTRY and claim is certiprog.audit.registry.claim


def test_an_import_from_outside_certiprog_warns_and_names_the_new_path():
    out = _run("import warnings\n"
               "warnings.simplefilter('error', DeprecationWarning)\n"
               "try:\n"
               "    import certiprog.certificates.registry\n"
               "except DeprecationWarning as w:\n"
               "    print('warned:', w)\n")
    assert out.returncode == 0, out.stderr
    assert "warned: certiprog.certificates.registry is deprecated: import certiprog.audit.registry" in out.stdout


def test_certiprog_itself_imports_no_deprecated_path():
    """``import certiprog`` (model, solvers and every backend, the check) and the new packages raise no
    DeprecationWarning of the shim even with warnings as errors."""
    out = _run("import warnings\n"
               "warnings.filterwarnings('error', message='.*certiprog.certificates', category=DeprecationWarning)\n"
               "import certiprog, certiprog.solvers, certiprog.certify, certiprog.audit.report, certiprog.audit.bounds\n"
               "print('ok')\n")
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
