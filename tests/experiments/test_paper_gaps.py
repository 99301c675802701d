"""Slow reproductions of the three figures that differ from the papers (docs/methods/differences).

Each test carries the paper's figure and ours (the commands are on the docs page), reruns our
measurement on the same draws and asserts it within a stated tolerance of the documented
figure (the draws are seeded, so only solver round-off can move it) — and of the paper's where
the documented setting reproduces it.
"""

import zlib

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from zeronorm_opt.datasets import make_sparse_polynomial
from zeronorm_opt.estimators.alignment import AlignmentSelector
from zeronorm_opt.estimators.polynomial import PolynomialAROM, validation_stopped_arom
from zeronorm_opt.experiments.alignment_polynomials import E7Config, draw_trial, run_trial
from zeronorm_opt.experiments.feature_space_polynomials import E5Config, _draw_problem
from zeronorm_opt.experiments.nonlinear_52d import draw_e6
from zeronorm_opt.kernels import PolynomialSumKernel

pytestmark = pytest.mark.slow


def _runner_draw(target: str, n_train: int, run: int, n_points: int):
    """The E7 runner's polynomial and ``n_points`` of its points for one draw, standardised
    with the training part as the runner does (its first ``n_train`` rows)."""
    poly, X, y = draw_trial(E7Config(), run, target, n_train, n_points)
    return poly, StandardScaler().fit(X[:n_train]).transform(X), y


def _e5_errors(target: str, n_train: int, trials: int, max_iters=(50,)):
    """Test errors of the polynomial SVM, of l2-AROM stopped after each ``max_iter`` and of
    l2-AROM stopped by validation (key ``"validation"``), on the draws of the E5 runner (its
    seeds)."""
    config = E5Config()
    svm, arom = [], {k: [] for k in (*max_iters, "validation")}
    for trial in range(trials):
        poly, X_te, y_te = _draw_problem(config, target, trial)
        rng = np.random.default_rng([config.seed, zlib.crc32(target.encode()), trial, n_train])
        X, y = make_sparse_polynomial(
            n_train, config.n_inputs, target=poly, random_state=int(rng.integers(2**31))
        )
        if np.unique(y).size < 2:
            continue
        model = SVC(kernel=PolynomialSumKernel(2), C=config.svm_C).fit(X, y)
        svm.append(np.mean(model.predict(X_te) != y_te))
        for k in max_iters:
            model = PolynomialAROM(degree=2, penalty="l2", max_iter=k).fit(X, y)
            arom[k].append(np.mean(model.predict(X_te) != y_te))
        model, _ = validation_stopped_arom(X, y, random_state=trial)
        arom["validation"].append(np.mean(model.predict(X_te) != y_te))
    return 100 * np.array(svm), {k: 100 * np.array(v) for k, v in arom.items()}


def test_e5_dense_polynomial_gap():
    """Zero-norm paper, section 6, problem (f) (no zero coefficient): "not much worse" than the
    SVM (no figure given). Ours at 160 points: l2-AROM run to convergence errs 7.0 points more
    than the polynomial SVM (50 trials: 23.9 % vs 16.9 %; 8 trials: +8.1 ± 1.0); the gap
    grows with the AROM iterations (+2.5 ± 0.5 after 2, 8 trials): every rescaling drops
    monomials a dense target needs. Stopped by validation: +2.3 ± 1.4."""
    svm, arom = _e5_errors("sparse-0", 160, 8, max_iters=(2, 50))
    gap_full, gap_two = np.mean(arom[50] - svm), np.mean(arom[2] - svm)
    assert np.mean(svm) == pytest.approx(15.9, abs=0.3)
    assert gap_full == pytest.approx(8.1, abs=1.0) and gap_two == pytest.approx(2.5, abs=1.0)
    # Stopped by validation (a quarter of the points held out): +2.3 ± 1.4 points.
    gap_validation = np.mean(arom["validation"] - svm)
    assert gap_validation == pytest.approx(2.3, abs=1.0) and gap_validation < gap_full - 4


def test_e5_sparse_polynomial_advantage_is_reproduced():
    """Problem (c), 95 % zero coefficients: the paper's l2-AROM "clearly outperforms" the SVM.
    Ours at 80 points: 4.7 ± 0.8 % against 26.7 ± 0.8 % (10 trials; 5.0 vs 27.9 over 50)."""
    svm, arom = _e5_errors("sparse-0.95", 80, 10)
    assert np.mean(svm) == pytest.approx(26.7, abs=0.3)
    assert np.mean(arom[50]) == pytest.approx(4.7, abs=1.0)
    # The validation stop keeps the advantage (4.7 ± 0.8 %: it picks late iterates).
    assert np.mean(arom["validation"]) == pytest.approx(4.7, abs=1.0)


def _dfsa_e6(gamma: float, runs: int):
    exact, kept, recall = [], [], []
    for run in range(runs):
        Xtr, ytr, _, _ = draw_e6(1, run, 50, 1)
        sel = AlignmentSelector("decremental", kernel="poly", degree=2, gamma=gamma)
        sel.fit(Xtr, ytr)
        support = set(sel.get_support(indices=True).tolist())
        exact.append(support == {0, 1})
        kept.append(len(support))
        recall.append(len(support & {0, 1}) / 2)
    return 100 * np.mean(exact), np.mean(kept), 100 * np.mean(recall)


def test_e6_dfsa_at_50_points_depends_on_the_kernel_scale():
    """Alignment paper, Table 4, 50 points: recall 99.4 %, 6.38 features, exactly {x1, x2} in
    38.6 %. Ours with the literal kernel (1 + x·x')² on standardised data: 29.2 % / 7.66 (500
    runs, master seed 0), 25.5 ± 3.1 % / 8.01 ± 0.33 (200 runs, master seed 1). With the kernel
    (1 + γ x·x')², γ = 1.25: 37.0 ± 3.4 % / 7.14; γ = 1.5625: 46.0 ± 3.5 % / 6.71 ± 0.36 (200
    runs) — the paper's exact-pair rate lies between the two."""
    exact, kept, recall = _dfsa_e6(1.0, 200)
    assert exact == pytest.approx(25.5, abs=1.0) and kept == pytest.approx(8.01, abs=0.05)
    assert recall == 100.0
    exact_lo, kept_lo, _ = _dfsa_e6(1.25, 200)
    assert exact_lo == pytest.approx(37.0, abs=1.0) and kept_lo == pytest.approx(7.14, abs=0.05)
    exact_s, kept_s, _ = _dfsa_e6(1.5625, 200)
    assert exact_s == pytest.approx(46.0, abs=1.0) and kept_s == pytest.approx(6.71, abs=0.05)
    assert exact < exact_lo < 38.6 < exact_s and kept_s < 6.38 + 0.5 < kept


def _e7(n_polys: int, drop_negative: bool, balanced: bool = False):
    config = E7Config(targets=["sp0.97"], train_sizes=[100], n_runs=n_polys, balanced=balanced)
    recall, kept = [], []
    for run in range(n_polys):
        if not drop_negative:
            (record,) = run_trial(config, run, "sp0.97", 100, ["dFSA"])
            if record["status"] == "ok":
                recall.append(record["recall"])
                kept.append(len(record["kept"]))
            continue
        # The runner's draw, with step 13 of dFSA (an input whose removal lowers the
        # alignment is kept for good).
        poly, X, y = _runner_draw("sp0.97", 100, run, 700)
        if np.unique(y[:100]).size < 2:
            continue
        sel = AlignmentSelector("decremental", kernel="poly", degree=2, drop_negative=True)
        sel.fit(X[:100], y[:100], X_val=X[100:200], y_val=y[100:200])
        support = set(sel.get_support(indices=True).tolist())
        recall.append(len(support & set(poly.relevant)) / len(poly.relevant))
        kept.append(len(support))
    return 100 * np.mean(recall), np.mean(kept)


def test_e7_recall_on_random_polynomials():
    """Alignment paper, Table 5, sparseness 0.97 at 100 points: recall 95.56 % with 14.50 inputs
    kept. Ours (validation stop "best_on_path"): 85.6 ± 3.1 % / 13.00 ± 0.82 (30 polynomials;
    86.2 % / 13.39 over 100). With step 13 (drop_negative=True): 94.6 ± 1.5 % / 16.23 ± 0.48 —
    the paper's recall, with 1.7 inputs more. With the balanced ideal kernel: 91.9 / 14.77."""
    recall, kept = _e7(30, drop_negative=False)
    assert recall == pytest.approx(85.6, abs=0.5) and kept == pytest.approx(13.0, abs=0.05)
    recall_dn, kept_dn = _e7(30, drop_negative=True)
    assert recall_dn == pytest.approx(94.6, abs=0.5) and kept_dn == pytest.approx(16.23, abs=0.05)
    assert abs(recall_dn - 95.56) <= 2.0 and recall < 95.56 - 8.0 and kept_dn > 14.5
    # The ±1/m± ideal kernel (the paper's variant for unbalanced classes): 91.9 ± 2.1 % /
    # 14.77 ± 0.65 on these 30 polynomials (90.1 ± 1.2 / 14.14 on 100): the paper's count of
    # inputs, part of the recall gap closed.
    recall_b, kept_b = _e7(30, drop_negative=False, balanced=True)
    assert recall_b == pytest.approx(91.9, abs=0.5) and kept_b == pytest.approx(14.77, abs=0.05)
    assert recall < recall_b < 95.56 and abs(kept_b - 14.5) < 1.0


def _e7_balanced(n_polys: int, setting: str):
    """Recall % and inputs kept of dFSA with the ±1/m± ideal kernel on the runner's draws (100
    points, sparseness 0.97): ``"runner"`` as drawn, ``"drop_negative"`` with step 13 of dFSA,
    ``"kernel_coordinates"`` with each polynomial's ±1 on the coordinates of the kernel's
    feature space (linear and cross terms weighted √2)."""
    from sklearn.preprocessing import StandardScaler

    from zeronorm_opt.datasets import SparsePolynomial
    from zeronorm_opt.experiments.alignment_polynomials import hash_target

    recall, kept = [], []
    for run in range(n_polys):
        poly_rng = np.random.default_rng([0, run, hash_target("sp0.97")])
        poly = SparsePolynomial.random(20, 0.97, int(poly_rng.integers(2**31)))
        if setting == "kernel_coordinates":
            quadratic = poly.quadratic * np.where(np.eye(20, dtype=bool), 1.0, np.sqrt(2.0))
            poly = SparsePolynomial(poly.linear * np.sqrt(2.0), quadratic)
        rng = np.random.default_rng([0, run, hash_target("sp0.97"), 100])
        X, y = make_sparse_polynomial(700, 20, target=poly, random_state=int(rng.integers(2**31)))
        X = StandardScaler().fit(X[:100]).transform(X)
        if np.unique(y[:100]).size < 2:
            continue
        sel = AlignmentSelector(
            "decremental", kernel="poly", degree=2, balanced=True,
            drop_negative=setting == "drop_negative",
        )  # fmt: skip
        sel.fit(X[:100], y[:100], X_val=X[100:200], y_val=y[100:200])
        support = set(sel.get_support(indices=True).tolist())
        recall.append(len(support & set(poly.relevant)) / len(poly.relevant))
        kept.append(len(support))
    return 100 * np.mean(recall), np.mean(kept)


def test_e7_residual_is_neither_the_polynomials_weights_nor_step_13():
    """Alignment paper, Table 5, sparseness 0.97 at 100 points: 95.56 % / 14.50 inputs. With the
    balanced ideal kernel we keep the paper's count with less recall (90.1 ± 1.2 % / 14.14 on
    100 polynomials). Putting the ±1 on the kernel's √2-weighted coordinates does not change
    that (89.3 ± 1.3 / 13.89 on 100); step 13 of dFSA reaches the paper's recall only with
    about 1.8 inputs more (95.8 ± 0.7 / 16.27 on 100). On 30 polynomials: 91.9 / 14.77, 89.9 /
    14.20 and 96.9 / 17.00."""
    recall, kept = _e7_balanced(30, "runner")
    assert recall == pytest.approx(91.9, abs=0.5) and kept == pytest.approx(14.77, abs=0.05)
    recall_k, kept_k = _e7_balanced(30, "kernel_coordinates")
    assert recall_k == pytest.approx(89.9, abs=0.5) and kept_k == pytest.approx(14.20, abs=0.05)
    # The paper's count of inputs, its recall not reached: the weights are not the residual.
    assert abs(kept_k - 14.5) < 1.0 and recall_k < 95.56 - 3.0
    recall_d, kept_d = _e7_balanced(30, "drop_negative")
    assert recall_d == pytest.approx(96.9, abs=0.5) and kept_d == pytest.approx(17.0, abs=0.05)
    # Step 13 reaches the paper's recall only by keeping well over its 14.50 inputs.
    assert abs(recall_d - 95.56) < 2.0 and kept_d > 14.5 + 1.5


def _e7_runner(target: str, n_train: int, n_polys: int, **settings):
    """Recall % and inputs kept of the E7 runner's dFSA row (its draws and protocol)."""
    config = E7Config(targets=[target], train_sizes=[n_train], n_runs=n_polys, **settings)
    records = [run_trial(config, run, target, n_train, ["dFSA"])[0] for run in range(n_polys)]
    ok = [r for r in records if r["status"] == "ok"]
    return 100 * np.mean([r["recall"] for r in ok]), np.mean([r["n_kept"] for r in ok])


def test_e7_rest_of_the_gap_is_the_noise_of_100_validation_examples():
    """Alignment paper, Table 5 at 100 points: sparseness 0.97 95.56 % / 14.50 inputs, 0.95
    94.84 / 16.99. Ours with the balanced ideal kernel and the paper's 100 validation examples:
    90.1 ± 1.2 / 14.14 and 89.0 ± 1.2 / 16.02 (100 polynomials); with 2,000 validation examples
    (the same path, its best set found with an accurate accuracy) 93.4 ± 1.1 / 14.44 and
    94.7 ± 0.9 / 17.02. On these 30 polynomials: 91.9 / 14.77 with 100 examples, 95.9 / 15.10
    with 2,000 (sparseness 0.95: 95.6 / 17.40; the dense polynomial: 89.0 / 17.80 and
    97.3 / 19.47)."""
    r100, k100 = _e7_runner("sp0.97", 100, 30, balanced=True)
    assert r100 == pytest.approx(91.9, abs=0.5) and k100 == pytest.approx(14.77, abs=0.05)
    r2000, k2000 = _e7_runner("sp0.97", 100, 30, balanced=True, n_val=2000)
    assert r2000 == pytest.approx(95.9, abs=0.5) and k2000 == pytest.approx(15.10, abs=0.05)
    # The larger validation set finds sets with more of the relevant inputs, at the paper's
    # count, closer to the paper's recall.
    assert r2000 > r100 + 1.0 and abs(k2000 - 14.5) < 1.0
    assert abs(r2000 - 95.56) < abs(r100 - 95.56)
    r95, k95 = _e7_runner("sp0.95", 100, 30, balanced=True, n_val=2000)
    assert r95 == pytest.approx(95.6, abs=0.5) and k95 == pytest.approx(17.40, abs=0.05)
    assert abs(r95 - 94.84) < 2.0 and abs(k95 - 16.99) < 1.0
    # The dense polynomial (paper: 98.45 / 19.69) moves most: 90.2 ± 1.0 / 18.03 with 100
    # examples, 97.7 ± 0.5 / 19.53 with 2,000 (100 polynomials).
    r0, k0 = _e7_runner("sp0.0", 100, 30, balanced=True)
    r0_2000, k0_2000 = _e7_runner("sp0.0", 100, 30, balanced=True, n_val=2000)
    assert r0 == pytest.approx(89.0, abs=0.5) and k0 == pytest.approx(17.80, abs=0.05)
    assert r0_2000 == pytest.approx(97.3, abs=0.5) and k0_2000 == pytest.approx(19.47, abs=0.05)
    assert abs(r0_2000 - 98.45) < 2.0 < abs(r0 - 98.45)


def _path_recalls(
    n_train: int, n_polys: int, balanced: bool, sparseness: float = 0.97
) -> np.ndarray:
    """Recall of each dFSA path (run to one input) cut at 1, 2, ..., 20 inputs kept: one row
    per random polynomial of the given sparseness, on the runner's training draws."""
    from zeronorm_opt.fast.alignment import decremental_selection, ideal_target

    rows = []
    for run in range(n_polys):
        poly, X, y = _runner_draw(f"sp{sparseness}", n_train, run, n_train)
        if np.unique(y).size < 2:
            continue
        removed, _ = decremental_selection(
            X, ideal_target(y, balanced), "poly", degree=2, n_features_to_select=1
        )
        relevant = set(poly.relevant)
        order = removed + sorted(set(range(20)) - set(removed))  # the survivor last
        rows.append([len(relevant & set(order[20 - k :])) / len(relevant) for k in range(1, 21)])
    return np.array(rows)


def _best_cut_recall(recalls: np.ndarray, mean_kept: float) -> tuple[float, float]:
    """The largest mean recall % over per-polynomial cuts of the paths whose mean number of
    inputs kept is about ``mean_kept``: what a perfect stopping rule would give (the cuts
    maximise recall − λ·kept, λ found by bisection)."""
    kept = np.arange(1, recalls.shape[1] + 1)
    lo, hi = 0.0, 1.0
    for _ in range(60):
        lam = (lo + hi) / 2
        choice = np.argmax(recalls - lam * kept, axis=1)
        lo, hi = (lam, hi) if kept[choice].mean() > mean_kept else (lo, lam)
    choice = np.argmax(recalls - hi * kept, axis=1)
    return 100 * recalls[np.arange(len(recalls)), choice].mean(), kept[choice].mean()


def test_e7_plus_minus_one_path_cannot_reach_the_papers_recall():
    """Alignment paper, Table 5, sparseness 0.97 at 200 points: 98.49 % / 11.54 inputs. Whatever
    stops it, the dFSA path of the ±1 ideal kernel cannot give that: cut at the best point for
    each polynomial it gives 95.5 % at 11.53 inputs (100 polynomials); the balanced ideal
    kernel's path gives 98.6 % at 11.49 — the paper's figure is what a perfect stop on that
    path gives. On these 30 polynomials: 94.6 % at 11.37 inputs and 99.1 % at 11.43."""
    best_pm, kept_pm = _best_cut_recall(_path_recalls(200, 30, balanced=False), 11.54)
    best_b, kept_b = _best_cut_recall(_path_recalls(200, 30, balanced=True), 11.54)
    assert best_pm == pytest.approx(94.6, abs=0.5) and best_b == pytest.approx(99.1, abs=0.5)
    assert abs(kept_pm - 11.54) < 0.2 and abs(kept_b - 11.54) < 0.2
    assert best_pm < 98.49 - 1.0 < best_b


def _e7_dfsa_at_scale(target: str, n_train: int, n_polys: int, gamma: float):
    """Recall % and inputs kept of dFSA with the kernel (1 + γ x·x')² (alignment and validation
    SVM), the balanced ideal kernel and 2,000 validation examples, on the E7 runner's draws of
    a named target (``"x1"`` or ``"x1x2+x3"``)."""
    recall, kept = [], []
    for run in range(n_polys):
        poly, X, y = _runner_draw(target, n_train, run, n_train + 2000)
        sel = AlignmentSelector("decremental", kernel="poly", degree=2, gamma=gamma, balanced=True)
        sel.fit(X[:n_train], y[:n_train], X_val=X[n_train:], y_val=y[n_train:])
        support = set(sel.get_support(indices=True).tolist())
        recall.append(len(support & set(poly.relevant)) / len(poly.relevant))
        kept.append(len(support))
    return 100 * np.mean(recall), np.mean(kept)


def test_e7_at_50_points_the_kernel_scale_trades_x1x2x3_for_x1():
    """Alignment paper, Table 5 at 50 points: x1x2+x3 98.00 % / 7.16 inputs, sign(x1) 100 % /
    1.45. Ours (balanced ideal kernel, 2,000 validation examples, 100 polynomials): 88.7 ± 2.5 /
    6.85 and 100 / 1.72 with the paper's kernel (1 + x·x')²; with (1 + 2 x·x')² 96.7 ± 1.4 /
    10.88 and 100 / 8.32 — the recall of x1x2+x3 comes only with inputs kept, and sign(x1)
    breaks. On these 30 draws: 84.4 / 6.97 and 1.70 at γ = 1; 95.6 / 10.73 and 8.53 at γ = 2."""
    r1, k1 = _e7_dfsa_at_scale("x1x2+x3", 50, 30, 1.0)
    r2, k2 = _e7_dfsa_at_scale("x1x2+x3", 50, 30, 2.0)
    assert r1 == pytest.approx(84.4, abs=0.5) and k1 == pytest.approx(6.97, abs=0.05)
    assert r2 == pytest.approx(95.6, abs=0.5) and k2 == pytest.approx(10.73, abs=0.05)
    x1_r1, x1_k1 = _e7_dfsa_at_scale("x1", 50, 30, 1.0)
    x1_r2, x1_k2 = _e7_dfsa_at_scale("x1", 50, 30, 2.0)
    assert x1_r1 == x1_r2 == 100.0
    assert x1_k1 == pytest.approx(1.70, abs=0.05) and x1_k2 == pytest.approx(8.53, abs=0.05)
    # The larger scale moves x1x2+x3 towards the paper's recall, past its count of inputs, and
    # sign(x1) far from its 1.45.
    assert r1 < r2 and abs(r2 - 98.0) < abs(r1 - 98.0) and k2 > 7.16 + 3.0
    assert abs(x1_k1 - 1.45) < 0.5 < 3.0 < x1_k2 - 1.45


def _e7_best_on_path(target: str, n_train: int, n_polys: int, svm: SVC) -> tuple[float, float]:
    """Recall % and inputs kept of dFSA (balanced ideal kernel, the paper's kernel) stopped at
    the best set of its path for ``svm``'s accuracy on 2,000 validation examples (ties to the
    fewest inputs), on the E7 runner's draws; the first 100 validation examples are the
    runner's."""
    from sklearn.base import clone

    from zeronorm_opt.fast.alignment import (
        decremental_selection,
        ideal_target,
        removal_path_masks,
    )

    recall, kept = [], []
    for run in range(n_polys):
        poly, X, y = _runner_draw(target, n_train, run, n_train + 2000)
        (X_tr, X_val), (y_tr, y_val) = np.split(X, [n_train]), np.split(y, [n_train])
        removed, _ = decremental_selection(X_tr, ideal_target(y_tr, True), "poly", degree=2)
        masks = removal_path_masks(20, removed)
        scores = np.array(
            [clone(svm).fit(X_tr[:, mask], y_tr).score(X_val[:, mask], y_val) for mask in masks]
        )
        best = masks[np.flatnonzero(scores == scores.max())[-1]]  # the path shrinks: last = fewest
        recall.append(len(set(np.flatnonzero(best)) & set(poly.relevant)) / len(poly.relevant))
        kept.append(best.sum())
    return 100 * np.mean(recall), np.mean(kept)


def test_e7_libsvm_default_validation_kernel_breaks_sign_x1():
    """Alignment paper, Table 5 at 50 points: x1x2+x3 98.00 % / 7.16 inputs, sign(x1) 100 % /
    1.45. A validation SVM with libsvm's default polynomial kernel, (x·x'/k)² on k inputs,
    scores the interaction better (96.3 % / 8.75 on 100 draws, against 88.7 / 6.85 with the
    paper's (1 + x·x')²) but cannot represent sign(x1), so the stop keeps 6.50 inputs there.
    On these 30 draws: 94.4 % / 9.73 (84.4 / 6.97 with the paper's kernel) and 7.63 inputs."""
    libsvm_default = SVC(kernel="poly", degree=2, gamma="auto", coef0=0.0, C=1.0)
    recall, kept = _e7_best_on_path("x1x2+x3", 50, 30, libsvm_default)
    x1_recall, x1_kept = _e7_best_on_path("x1", 50, 30, libsvm_default)
    assert recall == pytest.approx(94.4, abs=0.5) and kept == pytest.approx(9.73, abs=0.05)
    assert x1_recall == 100.0 and x1_kept == pytest.approx(7.63, abs=0.05)
    # Closer to the paper's recall for the interaction, far from its count for sign(x1).
    paper_kernel, _ = _e7_best_on_path("x1x2+x3", 50, 30, _quadratic_svm(1.0))
    assert paper_kernel < recall and x1_kept > 1.45 + 3.0


def _quadratic_svm(C: float) -> SVC:
    """The runner's validation SVM, (1 + x·x')², with the given ``C``."""
    return SVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0, C=C)


def test_e7_noise_inputs_kept_for_sign_x1_come_from_the_soft_margin():
    """Alignment paper, Table 5 at 250 and 300 points: sign(x1) 1.00 input kept. Ours with C = 1
    (2,000 validation examples, 100 draws): 1.30 ± 0.06 and 1.22 ± 0.04. The soft margin
    misplaces the threshold on x1 alone (0.85 % of the validation points wrong at 300 points,
    0.22 % with C = 10⁴), so a noise input can score higher; with C = 10⁴ 1.05 and 1.09.
    On these 30 draws at 300 points: 1.37 and 1.13."""
    _, soft = _e7_best_on_path("x1", 300, 30, _quadratic_svm(1.0))
    _, hard = _e7_best_on_path("x1", 300, 30, _quadratic_svm(1e4))
    assert soft == pytest.approx(1.37, abs=0.05) and hard == pytest.approx(1.13, abs=0.05)
    assert abs(hard - 1.0) < abs(soft - 1.0) / 2


def test_e7_at_25_points_every_random_target_trails_the_paper():
    """Alignment paper, Table 5 at 25 points: sparseness 0.97 90.87 % / 17.42 inputs, 0.95
    91.87 / 17.93, 0 91.05 / 18.21. Ours (balanced ideal kernel, 2,000 validation examples,
    100 polynomials): 84.3 / 15.56, 84.8 / 16.35, 83.3 / 16.66 — 6.6 to 7.8 points of recall
    and 1.5 to 1.9 inputs below (z = −2.6 to −3.0). On these 30 polynomials: 88.8 / 16.53,
    81.3 / 15.40 and 82.5 / 16.50."""
    paper = {"sp0.97": (90.87, 17.42), "sp0.95": (91.87, 17.93), "sp0.0": (91.05, 18.21)}
    ours = {"sp0.97": (88.8, 16.53), "sp0.95": (81.3, 15.40), "sp0.0": (82.5, 16.50)}
    recalls = []
    for target, (recall, kept) in ours.items():
        got_recall, got_kept = _e7_best_on_path(target, 25, 30, _quadratic_svm(1.0))
        assert got_recall == pytest.approx(recall, abs=0.5)
        assert got_kept == pytest.approx(kept, abs=0.05)
        assert got_recall < paper[target][0] and got_kept < paper[target][1] - 0.5
        recalls.append(paper[target][0] - got_recall)
    assert np.mean(recalls) > 4.0  # 7.0 points below the paper on average


def test_e7_at_25_points_our_path_allows_the_papers_figures():
    """Alignment paper, Table 5 at 25 points: sparseness 0.97 90.87 % / 17.42 inputs, 0.95
    91.87 / 17.93. Cut where we like per polynomial, our dFSA path gives 96.5 and 95.3 % at
    the paper's counts (100 polynomials), while the stop by validation accuracy (2,000
    examples) gives 84.3 / 15.56 and 84.8 / 16.35: the stop, not the path, falls short. On
    these 30 polynomials: 96.7 and 96.1 % at the paper's counts."""
    for sparseness, (paper_recall, paper_kept), expected in (
        (0.97, (90.87, 17.42), 96.7),
        (0.95, (91.87, 17.93), 96.1),
    ):
        best, kept = _best_cut_recall(_path_recalls(25, 30, True, sparseness), paper_kept)
        assert best == pytest.approx(expected, abs=0.5) and abs(kept - paper_kept) < 0.2
        stopped, _ = _e7_best_on_path(f"sp{sparseness}", 25, 30, _quadratic_svm(1.0))
        assert stopped < paper_recall < best


def _batch_dfsa_masks(X: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The feature sets of dFSA with step 13 read as batch removal: each iteration removes every
    input whose removal does not lower the alignment (Algorithm 2's "DecrAlign(i) > 0" taken as
    a slip for "≤ 0"), keeping at least one; one row per iteration, all inputs first."""
    from zeronorm_opt.fast.alignment import AlignmentState

    n = X.shape[1]
    state = AlignmentState(X, t, "poly", degree=2, features=range(n))
    mask = np.ones(n, dtype=bool)
    masks, current = [mask.copy()], state.alignment()
    while mask.sum() > 1:
        candidates = np.flatnonzero(mask)
        gain = state.candidate_alignments(candidates) - current
        tol = 1e-12 * abs(current)
        if gain.max() < -tol:
            break
        order = np.argsort(-gain)
        out = candidates[order[: min(int(np.sum(gain >= -tol)), mask.sum() - 1)]]
        for j in out:
            state.toggle(int(j))
        mask[out] = False
        current = state.alignment()
        masks.append(mask.copy())
    return np.array(masks)


def _e7_batch_literal(target: str, n_train: int, n_polys: int) -> tuple[float, float]:
    """Recall % and inputs kept of batch-removal dFSA (balanced ideal kernel) under §5.2's stop
    read literally on the paper's 100 validation examples: the first iteration that lowers the
    validation accuracy is undone and the search ends."""
    from zeronorm_opt.fast.alignment import ideal_target

    recall, kept = [], []
    for run in range(n_polys):
        poly, X, y = _runner_draw(target, n_train, run, n_train + 100)
        (X_tr, X_val), (y_tr, y_val) = np.split(X, [n_train]), np.split(y, [n_train])
        masks = _batch_dfsa_masks(X_tr, ideal_target(y_tr, True))
        scores = [
            _quadratic_svm(1.0).fit(X_tr[:, mask], y_tr).score(X_val[:, mask], y_val)
            for mask in masks
        ]
        drops = [i for i in range(1, len(scores)) if scores[i] < scores[i - 1]]
        final = masks[drops[0] - 1] if drops else masks[-1]
        recall.append(len(set(np.flatnonzero(final)) & set(poly.relevant)) / len(poly.relevant))
        kept.append(final.sum())
    return 100 * np.mean(recall), np.mean(kept)


def test_e7_step_13_as_batch_removal_fits_large_sizes_only():
    """Alignment paper, Algorithm 2's optional step 13 read as a batch removal, with §5.2's
    literal stop on 100 validation examples (100 polynomials): with 2-5 iterations instead of up
    to 19 the literal rule no longer stops by chance at 200 points (sign(x1) 1.01 inputs, paper
    1.03), but at 50 points sign(x1) keeps 4.77 (paper 1.45) and x1x2+x3 10.44 (paper 7.16).
    On these 30 draws: 1.00, 4.43 and 92.2 % / 11.63."""
    _, x1_200 = _e7_batch_literal("x1", 200, 30)
    _, x1_50 = _e7_batch_literal("x1", 50, 30)
    pair_recall, pair_50 = _e7_batch_literal("x1x2+x3", 50, 30)
    assert x1_200 == pytest.approx(1.00, abs=0.02) and x1_50 == pytest.approx(4.43, abs=0.05)
    assert pair_recall == pytest.approx(92.2, abs=0.5) and pair_50 == pytest.approx(11.63, abs=0.05)
    # Right where the checks are few and the sets large; 2-3 inputs too many at 50 points.
    assert abs(x1_200 - 1.03) < 0.1 and x1_50 > 1.45 + 2.0 and pair_50 > 7.16 + 3.0


def test_e7_at_25_points_the_stop_needs_an_svm_trained_on_more_points():
    """Alignment paper, Table 5 at 25 points: sparseness 0.97 90.87 % / 17.42 inputs, 0.95
    91.87 / 17.93, 0 91.05 / 18.21. An SVM trained on the 25 training points cannot use most
    relevant inputs, so a stop by its accuracy (even on 2,000 validation examples) falls 4-10
    points below; trained on the training and the 100 validation examples together and scored
    on 500 other points (``validation_svm="training+validation"``), it reaches the paper (100
    polynomials: 92.1 / 16.97, 93.5 / 17.91, 95.0 / 18.99). On these 30 polynomials: 95.3 /
    17.60, 92.5 / 17.43, 94.3 / 18.87 against 88.8, 81.3 and 82.5 % for the SVM on the training
    points."""
    paper = {"sp0.97": (90.87, 17.42), "sp0.95": (91.87, 17.93), "sp0.0": (91.05, 18.21)}
    ours = {"sp0.97": (95.3, 17.60), "sp0.95": (92.5, 17.43), "sp0.0": (94.3, 18.87)}
    joint = E7Config(balanced=True, validation_svm="training+validation")
    training_only = E7Config(balanced=True, n_val=2000)
    for target, (recall, kept) in ours.items():
        stopped = [run_trial(joint, run, target, 25, ["dFSA"])[0] for run in range(30)]
        got_recall = 100 * np.mean([r["recall"] for r in stopped])
        got_kept = np.mean([r["n_kept"] for r in stopped])
        assert got_recall == pytest.approx(recall, abs=0.5)
        assert got_kept == pytest.approx(kept, abs=0.05)
        assert abs(got_kept - paper[target][1]) < 1.0
        baseline = [run_trial(training_only, run, target, 25, ["dFSA"])[0] for run in range(30)]
        assert 100 * np.mean([r["recall"] for r in baseline]) < paper[target][0] - 2.0 < got_recall
