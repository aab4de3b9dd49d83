"""Paper 000's experiment (`certiprog reproduce hinge-minimax`): metrics, data, the paper's numbers, a tiny run on the
runner (tables, CSV, figures, resume) and bad configurations."""
import argparse
import importlib.util
import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certiprog.errors import InputError
from certiprog.formulations.hinge_minimax_paper import experiment as E
from certiprog.formulations.hinge_minimax_paper import tables

REPO = Path(__file__).resolve().parents[3]
PAPER = REPO.parent / "shared" / "papers" / "000_80a9b576a78792ed.txt"
LETTER = REPO.parent / "shared" / "data" / "keel" / "letter.dat"
needs_khhm = pytest.mark.skipif(
    importlib.util.find_spec("certiprog.formulations.hinge_minimax_paper.khhm") is None,
    reason="the KHHM learner (khhm.py) is not in this tree")


# ------------------------------------------------------------------------------------------------------------------
# Metrics
# ------------------------------------------------------------------------------------------------------------------
def rates_by_threshold(y, s):
    """Independent: FPR and FNR of the rule score >= t at every distinct score (and +inf)."""
    y = np.asarray(y) > 0
    ts = np.r_[np.inf, np.unique(s)[::-1]]
    fpr = np.array([np.mean(s[~y] >= t) for t in ts])
    fnr = np.array([np.mean(s[y] < t) for t in ts])
    return fpr, fnr


def test_eer_known_values():
    assert E.eer([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(0.5)
    assert E.eer([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4]) == pytest.approx(0.0)
    assert E.eer([0, 0, 1, 1], [0.4, 0.3, 0.2, 0.1]) == pytest.approx(1.0)
    assert E.auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == pytest.approx(0.75)
    with pytest.raises(InputError, match="both classes"):
        E.eer([1, 1], [0.1, 0.2])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(4, 60), ties=st.booleans())
def test_eer_lies_between_the_roc_vertices(seed, n, ties):
    # at the crossing FNR = FPR the interpolated EER lies between max_t min(FPR, FNR) and min_t max(FPR, FNR)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    y[:2] = [0, 1]
    s = rng.integers(0, 4, size=n).astype(float) if ties else rng.normal(size=n) + y
    fpr, fnr = rates_by_threshold(y, s)
    e = E.eer(y, s)
    assert np.max(np.minimum(fpr, fnr)) - 1e-12 <= e <= np.min(np.maximum(fpr, fnr)) + 1e-12
    assert E.eer(y, 1e8 * s) == pytest.approx(e)        # invariant to a monotone rescaling


# ------------------------------------------------------------------------------------------------------------------
# Data
# ------------------------------------------------------------------------------------------------------------------
def test_synthetic_thirds_and_fraction():
    d = E.synthetic_2d(0.1, 5000, 0)
    sizes = {k: (int(v[1].sum()), int((v[1] == 0).sum())) for k, v in d.items()}
    assert sum(p for p, _ in sizes.values()) == 500 and sum(n for _, n in sizes.values()) == 4500
    assert all(abs(p - 500 / 3) <= 1 and abs(n - 1500) <= 1 for p, n in sizes.values())
    # the same seed gives the same data; the positives' training mean is near (1.5, 1.5)
    np.testing.assert_array_equal(E.synthetic_2d(0.1, 5000, 0)["test"][0], d["test"][0])
    Xtr, ytr = d["train"]
    np.testing.assert_allclose(Xtr[ytr > 0].mean(axis=0), [1.5, 1.5], atol=0.15)
    with pytest.raises(InputError, match="positives"):
        E.synthetic_2d(0.001, 1000, 0)


def test_bayes_score_is_the_optimal_roc():
    d = E.synthetic_2d(0.3, 3000, 1)
    X, y = d["test"]
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
    qda = QuadraticDiscriminantAnalysis().fit(*d["train"])
    # the true likelihood ratio beats (or ties) a fitted QDA on fresh data, and lies near the paper's level
    assert E.auc(y, E.bayes_score(X)) >= E.auc(y, qda.decision_function(X)) - 0.005
    assert 0.93 < E.auc(y, E.bayes_score(X)) < 0.98


def test_union_of_ldas_and_the_toy():
    d = E.latent_toy(100, 500, 0)
    X, y = d["train"]
    assert X.shape == (600, 2) and y.sum() == 100
    W, b, labels = E.union_of_ldas(X[y > 0], X[y == 0], 2, 0)
    assert W.shape == (2, 2) and b.shape == (2,) and set(labels) == {0, 1}
    # LDA direction = Sigma^-1 (mu_c - mu): check against a direct solve for cluster 0
    mu, S = X[y == 0].mean(axis=0), np.cov(X[y == 0], rowvar=False, bias=True)
    np.testing.assert_allclose(S @ W[0], X[y > 0][labels == 0].mean(axis=0) - mu, atol=1e-10)


@pytest.mark.skipif(not LETTER.is_file(), reason="shared data (keel/letter.dat) not present")
def test_letter_split():
    X, labels = E.load_letter()
    assert X.shape == (20000, 16) and len(set(labels)) == 26
    sp = E.letter_split(0, 0)
    for name, per in (("train", 100), ("val", 250)):
        _, lab = sp[name]
        assert all(np.sum(lab == c) == per for c in E.LETTERS)
    assert sum(len(sp[k][1]) for k in sp) == 20000
    np.testing.assert_allclose(sp["train"][0].mean(axis=0), 0, atol=1e-12)
    # about 25 negatives per positive in a letter's test part, as the paper says
    _, lab = sp["test"]
    assert 20 < np.sum(lab != "A") / np.sum(lab == "A") < 30


def test_standardised_split_matches_an_independent_split():
    from certiprog.datasets.letter import letter_split, standardised_split

    rng = np.random.default_rng(7)
    y = np.repeat(np.array(list("ABC")), 40)
    X = rng.normal(3.0, 5.0, size=(120, 4))
    X[:, 2] = 1.0                                          # a constant feature keeps sd 1
    parts = standardised_split(X, y, 10, 5, seed=3)
    tr, va, te = letter_split(y, 10, 5, seed=3)
    keep = [0, 1, 3]
    mu, sd = X[tr][:, keep].mean(axis=0), X[tr][:, keep].std(axis=0)
    for name, rows in (("train", tr), ("val", va), ("test", te)):
        np.testing.assert_array_equal(parts[name][1], y[rows])
        np.testing.assert_allclose(parts[name][0][:, keep], (X[rows][:, keep] - mu) / sd)
        np.testing.assert_allclose(parts[name][0][:, 2], 0.0)
    with pytest.raises(InputError):
        standardised_split(X[:-1], y)
    Xbad = X.copy()
    Xbad[0, 0] = np.nan
    with pytest.raises(InputError):
        standardised_split(Xbad, y, 10, 5)


def test_scored_and_timed_returns_the_first_output_and_calls_repeat_times():
    calls = []

    def fn(X):
        calls.append(1)
        return X[:, 0] * len(calls)

    X = np.arange(6.0).reshape(3, 2)
    score, per_row = E.scored_and_timed(fn, X, repeat=3)
    assert len(calls) == 3 and per_row >= 0
    np.testing.assert_array_equal(score, X[:, 0])
    with pytest.raises(InputError):
        E.scored_and_timed(fn, X, repeat=0)


def test_svc_decisions_equal_libsvms():
    from sklearn.svm import SVC

    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 3))
    y = X[:, 0] + 0.5 * rng.normal(size=150) > 0.8
    Xq = 1e3 * rng.normal(size=(70, 3)) ** 3 / 1e3           # query rows on another scale
    fits = [SVC(kernel="rbf", C=c, gamma=g, class_weight="balanced").fit(X, y) for c in (0.1, 10.0)
            for g in (0.1, 1.0)] + [SVC(kernel="linear", C=1.0).fit(X, y)]
    for est, got in zip(fits, E.svc_decisions(fits, Xq, chunk=16)):
        np.testing.assert_allclose(got, est.decision_function(Xq), rtol=1e-9, atol=1e-9)
    with pytest.raises(InputError):
        E.svc_decisions([SVC(kernel="poly").fit(X, y)], Xq)


def test_benchmark_uses_the_experiments_eer_and_split():
    spec = importlib.util.spec_from_file_location("hinge_minimax_bench", REPO / "benchmarks" / "hinge_minimax.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 200)
    y[:2] = (0, 1)
    s = y + rng.normal(0, 1.0, 200)
    assert bench.rate_at_eer(y, s) == pytest.approx(1.0 - E.eer(y, s))
    if LETTER.is_file():
        from certiprog.datasets.letter import load_letter, standardised_split

        Xtr, ytr, Xte, yte = bench._standardised_split(0)
        parts = standardised_split(*load_letter(), seed=0)
        np.testing.assert_array_equal(Xtr, parts["train"][0])
        np.testing.assert_array_equal(yte, parts["test"][1])


# ------------------------------------------------------------------------------------------------------------------
# The paper's numbers
# ------------------------------------------------------------------------------------------------------------------
@pytest.mark.skipif(not PAPER.is_file(), reason="paper text not present")
def test_paper_numbers_are_in_the_text():
    text = PAPER.read_text()
    assert re.search(r"AUC 94\.68 94\.91 95\.07 94\.96 94\.89 95\.83", text)
    assert tuple(tables.TABLE1_AUC.values()) == (94.68, 94.91, 95.07, 94.96, 94.89, 95.83)
    for method, (rate, secs) in tables.TABLE2.items():
        label = {"RBF SVM": "RBF kernel SVM"}.get(method, method.replace("=", " = "))
        assert f"{label} {rate:.2f} {secs:.1e}" in text, method
    for value in tables.TABLE4.values():
        assert f"{value:.2f}%" in text
    for method, (a, t) in tables.TABLE3.items():
        assert f"{a:.2f}" in text


# ------------------------------------------------------------------------------------------------------------------
# Configuration
# ------------------------------------------------------------------------------------------------------------------
def parse(*argv):
    from certiprog.experiments.runner import add_arguments

    p = argparse.ArgumentParser()
    E.add_arguments(p)
    add_arguments(p)
    return p.parse_args(list(argv))


def test_config_from_args():
    cfg = E.config_from_args(parse("--quick", "--parts", "table1", "--fractions", "0.1,0.5"))
    assert cfg.quick and cfg.parts == ("table1",) and cfg.t1_fractions == (0.1, 0.5) and not cfg.certify
    cfg = E.config_from_args(parse("--letters", "a,b", "--delta-grid", "0.2,0.4", "--lam-grid", "1"))
    assert cfg.t2_letters == ("A", "B") and cfg.certify and cfg.delta_grid == (0.2, 0.4) and cfg.lam_grid == (1.0,)
    cfg = E.config_from_args(parse("--table4-sizes", "2,3", "--transfer-positives", "20,100",
                                   "--transfer-per-class", "10", "--transfer-problems", "2"))
    assert cfg.t4_C == cfg.t4_K == (2, 3) and cfg.tr_pos_sizes == (20, 100) and cfg.tr_class_sizes == (10,)
    assert cfg.tr_problems == 2
    cfg = E.config_from_args(parse("--table2-methods", "KHHM", "RBF SVM"))
    assert cfg.t2_methods == ("RBF SVM",) and cfg.t2_K == (1, 2, 3, 4)
    cfg = E.config_from_args(parse("--table2-methods", "AdaBoost"))
    assert cfg.t2_methods == ("AdaBoost",) and cfg.t2_K == ()
    with pytest.raises(InputError, match="no method"):
        E.validate_config(replace(cfg, t2_methods=()))
    with pytest.raises(InputError, match="integers"):
        E.config_from_args(parse("--table4-sizes", "2.5"))
    with pytest.raises(InputError, match="at most 5"):
        E.config_from_args(parse("--transfer-problems", "6"))
    with pytest.raises(InputError, match="delta_grid"):
        E.config_from_args(parse("--delta-grid", "0.2,1.5"))
    with pytest.raises(InputError, match="letters"):
        E.config_from_args(parse("--letters", "A,1"))
    with pytest.raises(InputError, match="fractions"):
        E.config_from_args(parse("--fractions", "0.7"))
    with pytest.raises(InputError, match="numbers"):
        E.config_from_args(parse("--fractions", "x"))
    for bad in (dict(t1_reps=0), dict(delta_grid=(1.5,)), dict(lam_grid=(np.nan,)), dict(t2_K=(0,)),
                dict(t2_methods=("SVM",)), dict(parts=("table9",))):
        with pytest.raises(InputError):
            E.validate_config(replace(E.Config(), **bad))


def test_missing_data_is_named(tmp_path):
    cfg = replace(E.Config(), parts=("table2",), data_root=str(tmp_path))
    E.load_letter.cache_clear()
    with pytest.raises(InputError, match="letter"):
        E.tasks(cfg)


# ------------------------------------------------------------------------------------------------------------------
# A tiny run on the runner
# ------------------------------------------------------------------------------------------------------------------
@needs_khhm
@pytest.mark.skipif(not LETTER.is_file(), reason="shared data (keel/letter.dat) not present")
def test_tiny_run(tmp_path):
    from certiprog.experiments.runner import reproduce

    args = parse("--quick", "--parts", "table1", "fig5", "table2", "--fractions", "0.5", "--letters", "A",
                 "--executor", "serial", "--out", str(tmp_path), "--no-progress")
    cfg = E.config_from_args(args)
    cfg_small = replace(cfg, t1_n=600, t2_K=(1,), t2_methods=("Linear SVM",))
    E_mod = _with_config(cfg_small)
    rep = reproduce(E_mod, args, "hinge-minimax")
    paths = rep.paths
    assert {"table.md", "table1.csv", "table2.csv", "fig5.png", "results.json"} <= set(paths)
    md = paths["table.md"].read_text()
    assert "[95.83]" in md and "| KHHM K=1 |" in md and "SUN397" in md
    res = json.loads(paths["results.json"].read_text())
    kh = [r for r in res["records"] if r["_part"] == "table1" and r["method"] == "KHHM"]
    assert kh and 0.5 < kh[0]["auc_test"] <= 1 and kh[0]["history"]
    bayes = [r for r in res["records"] if r["_part"] == "table1" and r["method"] == "Bayes"][0]
    assert kh[0]["auc_test"] <= bayes["auc_test"] + 0.03     # nothing beats the true likelihood ratio by much
    assert paths["fig5.png"].stat().st_size > 10_000
    again = reproduce(E_mod, args, "hinge-minimax")          # resumes: every task read back
    assert len(again.report.computed) == 0 and len(again.report.reused) == len(rep.report.reused) + len(
        rep.report.computed)


def _with_config(cfg):
    """The experiment module with ``config_from_args`` returning ``cfg`` (a smaller run than --quick)."""
    import types

    mod = types.ModuleType("hm_small")
    for name in ("add_arguments", "tasks", "aggregate", "default_out"):
        setattr(mod, name, getattr(E, name))
    mod.config_from_args = lambda args: cfg
    return mod


@needs_khhm
@pytest.mark.skipif(not LETTER.is_file(), reason="shared data (keel/letter.dat) not present")
def test_table4_analogue_tasks():
    cfg = replace(E.Config(), parts=("table4",), certify=False, t4_letters=("B",), t4_C=(2,), t4_K=(2,), t4_epochs=2)
    tasks = E.tasks(cfg)
    methods = {t.config["method"] for t in tasks}
    assert {"Union of LDAs", "KHHM"} <= methods
    results = []
    for t in tasks:
        if t.config["method"] in ("Union of LDAs", "KHHM"):
            r = E.table4_task(t.config)
            assert 0.5 < r["rate_test"] <= 1 and 0.5 < r["auc_test"] <= 1
            results.append(dict(r, _part="table4"))
    rows = E.table4_rows(cfg, results)
    assert {r["method"] for r in rows} == {"Union of LDAs", "KHHM"}
    assert all(r["paper_rate"] == tables.TABLE4[r["method"]] for r in rows)
    md = E.format_report(cfg, [], [], results, {}, [], rows)
    assert "ANALOGUE" in md and "Not run: ['LHM', 'NN']" in md


MNIST = REPO.parent / "shared" / "data" / "mnist" / "train-images.idx3-ubyte.gz"


def test_binary_problems_are_disjoint():
    for setting in ("best", "worst"):
        for k in range(5):
            pos, neg = E.binary_problem(setting, k)
            assert not set(pos) & set(neg)
            assert set(pos) | set(neg) == (set(range(5)) if setting == "best" else set(range(5, 10)))
    assert sum(E.BEST_MULTI_CLASSES, ()) == (0, 1, 2, 3, 4)


@pytest.mark.slow  # ~30-50 s: MNIST read, a CNN trained and JAX compiles, even at this size
@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="the nn extra (jax, optax) is not installed")
@pytest.mark.skipif(not MNIST.is_file(), reason="shared data (mnist) not present")
def test_transfer_tasks_tiny():
    from certiprog.experiments.runner import resolve

    cfg = replace(E.Config(), parts=("transfer",), certify=False, tr_n_source=300, tr_source_epochs=1,
                  tr_pos_sizes=(20,), tr_class_sizes=(10,), tr_problems=1, tr_n_neg=100, tr_epochs=1,
                  tr_cnn_epochs=1, tr_finetune_epochs=1)
    tasks = E.tasks(cfg)
    assert {t.config["method"] for t in tasks} >= {"NN linear", "NN matching", "CNN scratch"}
    # the source pool holds only digits 0-4 and is disjoint from the target pool
    pools = E.mnist_pools(cfg.seed, cfg.tr_n_source)
    assert set(pools["source"][1]) == set(range(5)) and len(pools["source"][1]) == 300
    assert len(pools["source"][1]) + len(pools["target"][1]) == 60000
    results = []
    for t in tasks:
        if t.config["method"] in ("NN linear", "CNN scratch"):
            r = resolve(t.function)(t.config)
            value = r.get("rate_test", r.get("accuracy"))
            assert 0.0 <= value <= 1.0
            results.append(dict(r, _part="transfer"))
    rows = E.transfer_rows(cfg, results)
    assert {(r["kind"], r["method"]) for r in rows} >= {("binary", "NN linear"), ("multi", "CNN scratch")}


def test_transfer_rows_average_problems():
    cfg = replace(E.Config(), tr_pos_sizes=(20, 50), tr_class_sizes=(10,))
    recs = [dict(_part="transfer", method="LHM", setting="best", problem=p, n_pos=20, rep=0, rate_test=v)
            for p, v in enumerate((0.8, 0.9))]
    recs += [dict(_part="transfer", method="CNN scratch", setting="worst", size=10, rep=0, accuracy=0.5)]
    rows = E.transfer_rows(cfg, recs)
    lhm = [r for r in rows if r["method"] == "LHM"][0]
    assert lhm["value"] == pytest.approx(85.0) and lhm["n"] == 2 and lhm["size"] == 20
    cnn = [r for r in rows if r["method"] == "CNN scratch"][0]
    assert cnn["kind"] == "multi" and cnn["value"] == pytest.approx(50.0)
    md = E.format_report(cfg, [], [], recs, {}, [], (), rows)
    assert "ANALOGUE" in md and "| binary | best | LHM | 20 | 85.00 |" in md


def test_without_the_network_library(monkeypatch):
    # the default run drops the transfer part and Table 4's NN when JAX / optax are missing; asking for transfer
    # explicitly is a clear error
    monkeypatch.setattr(E, "has_network_library", lambda: False)
    cfg = E.config_from_args(parse("--quick"))
    assert "transfer" not in cfg.parts and "table1" in cfg.parts
    cfg4 = replace(cfg, parts=("table4",))
    if LETTER.is_file():
        assert "NN" not in {t.config["method"] for t in E.tasks(cfg4)}
    with pytest.raises(InputError, match="certiprog\\[nn\\]"):
        E.tasks(replace(cfg, parts=("transfer",)))
    assert "needs JAX" in E.format_report(cfg, [], [], [], {}, [])


# ------------------------------------------------------------------------------------------------------------------
# Issue 24: the printed Alg. 1 and the paper's baselines in Table 2, splits, grids widened, LHM's structure
# ------------------------------------------------------------------------------------------------------------------
def test_table2_rows_methods_splits_and_settings():
    cfg = replace(E.Config(), parts=("table2",), t2_letters=("A", "B"), t2_K=(1, 2), t2_reps=3, t2_side_reps=1)
    assert E.khhm_methods(cfg) == ["KHHM K=1", "KHHM K=2", "KHHM K=2 (risk)"]
    assert E.khhm_method("KHHM K=2 (risk)") == (2, "risk") and E.khhm_method("KHHM K=3") == (3, "always")
    assert E.paper_row("KHHM K=2") and E.paper_row("Linear SVM") and E.paper_row("AdaBoost")
    assert not E.paper_row("KHHM K=2 (risk)") and not E.paper_row("Linear SVM (balanced)")
    tasks = [t for t in E.tasks(cfg)]
    names = [t.name for t in tasks]
    # the paper's rows on 3 splits, the rows beside them on 1
    assert sum("rep 2 KHHM K=2" in n for n in names) == 2 and not any("rep 1 KHHM K=2 (risk)" in n for n in names)
    assert not any("rep 2 Linear SVM (balanced)" in n for n in names) and any("rep 2 AdaBoost" in n for n in names)
    assert all(t.config["refits"] == E.REFITS for t in tasks)
    assert E.rounds_for(4, 25) == 7 and E.rounds_for(5, 25) == 5 and E.rounds_for(1, 25) == 25
    # table2_rows: the mean over splits of the mean over letters, and the spread of the split means
    recs = []
    for rep, (a, b) in enumerate(((0.90, 0.94), (0.92, 0.96), (0.88, 0.92))):
        for letter, v in (("A", a), ("B", b)):
            recs.append(dict(_part="table2", method="KHHM K=2", letter=letter, rep=rep, rate_test=v,
                             seconds_per_sample=1e-6))
    row, = E.table2_rows(cfg, recs)
    assert row["rate_mean"] == pytest.approx(92.0) and row["n_splits"] == 3
    assert row["rate_sd_splits"] == pytest.approx(100 * np.std([0.92, 0.94, 0.90], ddof=1))
    assert row["paper_rate"] == 92.98 and row["setting"].startswith("paper's")
    assert E.table2_setting("Linear SVM").startswith("paper's") and "no class weights" in E.table2_setting("RBF SVM")
    assert E.table2_setting("Linear SVM (balanced)").startswith("ours")


@pytest.mark.skipif(not LETTER.is_file(), reason="shared data (keel/letter.dat) not present")
def test_baselines_as_the_paper_ran_them():
    """The paper's SVMs are libsvm C-SVC without class weights, its AdaBoost 100 stumps; ours beside them."""
    from unittest import mock

    split = E.letter_split(0, 0)
    (Xtr, ltr), (Xval, lval) = split["train"], split["val"]
    ytr, yval = (ltr == "A").astype(int), (lval == "A").astype(int)
    config = dict(C_grid=(1.0,), linear_C_grid=(0.1, 1.0), gamma_grid=(0.1,), ada_depths=(1, 2), ada_rates=(0.5, 1.0))
    rate = lambda y, s: 1 - E.eer(y, s)  # noqa: E731
    seen = []
    from sklearn.svm import SVC

    real_fit = SVC.fit

    def spy(self, X, y, *a, **k):
        seen.append((self.kernel, self.class_weight, self.C))
        return real_fit(self, X, y, *a, **k)

    with mock.patch.object(SVC, "fit", spy):
        _, params, _ = E._baseline("Linear SVM", config, Xtr, ytr, Xval, yval, rate, 0)
        E._baseline("Linear SVM (balanced)", config, Xtr, ytr, Xval, yval, rate, 0)
    assert seen[:2] == [("linear", None, 0.1), ("linear", None, 1.0)]
    assert seen[2:] == [("linear", "balanced", 0.1), ("linear", "balanced", 1.0)]
    assert params["C"] in (0.1, 1.0)
    fn, params, val = E._baseline("AdaBoost", config, Xtr[:600], ytr[:600], Xval, yval, rate, 0)
    assert params["max_depth"] == 1 and params["learning_rate"] in (0.5, 1.0) and 0.5 < val <= 1
    _, params, _ = E._baseline("AdaBoost (depth by validation)", config, Xtr[:600], ytr[:600], Xval, yval, rate, 0)
    assert params["max_depth"] in (1, 2) and params["learning_rate"] == 1.0


def test_khhm_grid_is_widened_past_an_edge_and_the_final_fit_certified():
    data = E.synthetic_2d(0.2, 600, 0)
    (Xtr, ytr), (Xval, yval) = data["train"], data["val"]
    config = dict(delta_grid=(0.5, 0.9), lam_grid=(0.1,), widen=("delta",), refits=4, certify=True,
                  backend="clarabel")
    fit, params, val, verdicts, grid = E.fit_khhm_grid(Xtr, ytr, Xval, yval, 2, config, E.auc)
    deltas = sorted({r["delta"] for r in grid["results"]})
    assert params["delta"] not in (deltas[0], deltas[-1]) or grid["edges"] or deltas[-1] >= 0.99 \
        or deltas[0] <= 0.01
    assert {r["lam"] for r in grid["results"]} == {0.1}             # lam not widened
    assert sum(verdicts.values()) == len(fit.subproblems) and fit.settings["certify"]
    assert fit.settings["max_rounds"] == 2 and fit.settings["accept"] == "always"


def test_structure_iteration_counts_to_the_true_groups():
    from types import SimpleNamespace

    from certiprog.formulations.hinge_minimax_paper.lhm import structure_iteration

    truth = np.r_[np.zeros(10, int), np.ones(10, int)]
    wrong = np.tile([0, 1], 10)
    fit = SimpleNamespace(assignments=[wrong, np.where(np.arange(20) < 9, 1, 0), 1 - truth])
    assert structure_iteration(fit, truth) == 2               # 19 of 20 agree (labels swapped): 0.95
    assert structure_iteration(fit, truth, agreement=0.99) == 3
    assert structure_iteration(SimpleNamespace(assignments=[wrong]), truth) is None
