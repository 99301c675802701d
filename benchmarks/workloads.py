"""The workloads of the suite: each returns :class:`~benchmarks._common.Row` objects.

The package is always called through its public API (``AROM``, ``FSV``, ``MulticlassAROM``,
``GreedyRLS``, ``greedy_rls``), so the suite measures whatever path that API takes by default;
``backend="cvxpy"`` rows measure the declarative path explicitly (when an estimator has no
``backend`` parameter, or its default already is the cvxpy path, the row says so).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from . import references as ref
from ._common import (
    Row,
    bandwidth_pass,
    brown_yeast,
    cold_time,
    colon,
    lymphoma,
    median_time,
    timed,
    two_gaussians,
)

#: Workloads left out of ``--quick`` unless named with ``--only``.
NOT_QUICK = ("fsv",)

#: A scaling curve stops timing the package after a size that took longer than this (the next
#: size is about 3× larger).
CAP_S = 60.0


@dataclass
class Config:
    quick: bool
    repeats: int
    log: callable = print


def _support(est) -> int:
    return int(np.asarray(est.get_support()).sum())


def _declarative(cls, **params):
    """``cls(**params, backend="cvxpy")`` when the estimator has that switch, else None."""
    if "backend" in inspect.signature(cls).parameters:
        return cls(**params, backend="cvxpy")
    return None


def _path(est) -> str:
    return str(getattr(est, "backend_", getattr(est, "method_", "cvxpy")))


# ----------------------------------------------------------------------- l1-AROM and FSV


def _zero_norm_rows(cfg, name, loader, cls, params, reference, label, ref_label, objective):
    X, y = loader()
    t_ref, (v_ref, it_ref) = median_time(lambda: reference(X, y), cfg.repeats)
    rows = []
    est = cls(**params)
    t_pkg, fitted = median_time(lambda: cls(**params).fit(X, y), cfg.repeats)
    notes = f"path {_path(fitted)}; {fitted.n_iter_} vs {it_ref} solves; "
    notes += f"support {_support(fitted)} vs {int(np.count_nonzero(v_ref))}"
    extra = {"path": _path(fitted), "n_iter": fitted.n_iter_, "ref_n_iter": it_ref}
    if objective is not None:
        f_pkg, f_ref = objective(fitted.coef_[0]), objective(v_ref)
        notes += f"; objective {f_pkg:.4g} vs {f_ref:.4g}"
        extra.update(objective=f_pkg, ref_objective=f_ref)
    rows.append(
        Row(
            "zero-norm", label, name, f"{est!r}", ref_label, t_pkg, t_ref, cfg.repeats, notes, extra
        )
    )
    decl = _declarative(cls, **params)
    if decl is not None:
        if _path(fitted) == "cvxpy":  # the default already is the declarative path
            t_decl, fitted_decl = t_pkg, fitted
            note = "same path as the default on this version"
        else:
            t_decl, fitted_decl = median_time(lambda: decl.fit(X, y), cfg.repeats)
            note = f"{fitted_decl.n_iter_} solves; support {_support(fitted_decl)}"
        rows.append(
            Row(
                "zero-norm",
                label + " (declarative)",
                name,
                f"{decl!r}",
                ref_label,
                t_decl,
                t_ref,
                cfg.repeats,
                note,
            )
        )
    for row in rows:
        cfg.log(f"  {row.workload:<28} {name:<9} {row.package_s:8.3f} s  ratio {row.ratio:6.2f}")
    return rows


def zero_norm(cfg: Config) -> list[Row]:
    from zeronorm_opt import AROM

    highs = "linprog(highs) split-variable LP loop"
    rows = []
    sets = [("colon", colon)] + ([] if cfg.quick else [("lymphoma", lymphoma)])
    for name, loader in sets:
        rows += _zero_norm_rows(
            cfg, name, loader, AROM, {"penalty": "l1"}, ref.l1_arom_highs, "l1-AROM", highs, None
        )
    X, y = colon()
    t_ref, (v_ref, it_ref) = median_time(lambda: ref.l2_arom_svc(X, y), cfg.repeats)
    t_pkg, fitted = median_time(lambda: AROM(penalty="l2").fit(X, y), cfg.repeats)
    rows.append(
        Row(
            "zero-norm",
            "l2-AROM",
            "colon",
            "AROM(penalty='l2')",
            'SVC(kernel="linear", C=1e6) loop on the rescaled active features',
            t_pkg,
            t_ref,
            cfg.repeats,
            f"path {_path(fitted)}; support {_support(fitted)} vs {int(np.count_nonzero(v_ref))}",
        )
    )
    cfg.log(f"  l2-AROM colon {t_pkg:.3f} s vs {t_ref:.3f} s")
    return rows


def fsv(cfg: Config) -> list[Row]:
    """FSV (α = 5) against the HiGHS loop with costs α·exp(−α v); objectives compared.

    Not part of the default ``--quick`` selection (the hand-written loop takes seconds a fit
    on lymphoma); ``--quick --only fsv`` runs colon alone.
    """
    from zeronorm_opt import FSV

    highs = "linprog(highs) split-variable LP loop, costs α·exp(−α v)"
    rows = []
    sets = [("colon", colon)] + ([] if cfg.quick else [("lymphoma", lymphoma)])
    for name, loader in sets:
        rows += _zero_norm_rows(
            cfg,
            name,
            loader,
            FSV,
            {"alpha": 5.0},
            ref.fsv_highs,
            "FSV (α = 5)",
            highs,
            ref.fsv_objective,
        )
    return rows


def multiclass(cfg: Config) -> list[Row]:
    from zeronorm_opt import MulticlassAROM

    X, y = brown_yeast()
    t_ref, (W, it_ref) = median_time(lambda: ref.ovr_svc_loop(X, y, C=1.0), cfg.repeats)
    params = {"scheme": "ovr", "penalty": "l2", "C": 1.0}
    t_pkg, fitted = median_time(lambda: MulticlassAROM(**params).fit(X, y), cfg.repeats)
    ref_support = int(np.count_nonzero(np.abs(W).sum(axis=0)))
    cfg.log(f"  one-vs-rest yeast {t_pkg:.3f} s vs {t_ref:.3f} s")
    return [
        Row(
            "multiclass",
            "one-vs-rest l2-AROM (Q = 5)",
            "brown yeast",
            "MulticlassAROM(scheme='ovr', penalty='l2', C=1)",
            "per-class SVC(kernel='linear', C=1) loop",
            t_pkg,
            t_ref,
            cfg.repeats,
            f"{fitted.n_iter_} vs {it_ref} steps; support {_support(fitted)} vs {ref_support}",
        )
    ]


def _compile_only(form) -> float:
    """Seconds to compile ``form``'s problem for the solver its solve will use, not solving."""
    from zeronorm_opt.solvers import default_solver

    problem = form.problem
    return timed(lambda: problem.get_problem_data(default_solver(problem)))[0]


def overhead(cfg: Config) -> list[Row]:
    """Wall time outside the solver over a full l1-AROM run, after the first compile.

    Each run is a fit on a fresh formulation whose first problem was compiled (not solved)
    beforehand: the time outside the solver includes cvxpy's parameter application, the
    solver interface, the driver's own work and the compilation of the problems restricted to
    the active features (see ``ReweightedPenalty.loss_coef``). The notes add the steady state:
    the same run again on the last formulation, every layout compiled and warm-started.

    The l1 fit solves its first steps by column generation (``formulations.pricing``): the
    whole problem compiled beforehand is not used, and the restricted problems it compiles
    instead, a few milliseconds each, count as time outside the solver, while the solver's
    own time shrinks with them. The share then says little; the l1-AROM rows of
    ``zero_norm`` (declarative ÷ hand-written loop) are the measure of the whole fit.
    """
    from zeronorm_opt import LogSurrogate, successive_linearisation
    from zeronorm_opt.formulations import MarginFormulation

    X, y = colon()
    rows = []
    cases = [("l1-AROM", "l1")] + ([] if cfg.quick else [("l2-AROM (primal QP)", "l2")])
    for label, kind in cases:

        def run(f):
            wall, res = timed(
                lambda: successive_linearisation(f, LogSurrogate(), normalise_weights=True)
            )
            return wall, sum(r.solve_time for r in res.history), len(res.history)

        runs, compiles = [], []
        for _ in range(cfg.repeats):
            form = MarginFormulation(X, y, kind)
            compiles.append(_compile_only(form))
            runs.append(run(form))
        wall, solver, n_solves = sorted(runs)[len(runs) // 2]
        share = (wall - solver) / solver
        outside_ms = 1e3 * (wall - solver) / n_solves
        steady = sorted(run(form) for _ in range(cfg.repeats))[cfg.repeats // 2]
        steady_share = (steady[0] - steady[1]) / steady[1]
        rows.append(
            Row(
                "overhead",
                f"modelling overhead, {label}",
                "colon",
                "successive_linearisation wall time (fresh formulation, compiled)",
                "Σ solver_stats.solve_time",
                wall,
                solver,
                cfg.repeats,
                f"overhead (wall − solver)/solver = {share:.0%}: {outside_ms:.1f} ms outside "
                f"and {1e3 * solver / n_solves:.1f} ms in the solver per solve, {n_solves} "
                f"solves; first compile {np.median(compiles):.2f} s (excluded); the same run "
                f"again, every layout compiled and warm: {steady_share:.0%} "
                f"({1e3 * (steady[0] - steady[1]) / steady[2]:.1f} ms outside and "
                f"{1e3 * steady[1] / steady[2]:.1f} ms in the solver per solve)",
                {
                    "overhead": share,
                    "steady_overhead": steady_share,
                    "outside_ms_per_solve": outside_ms,
                    "compile_s": float(np.median(compiles)),
                },
            )
        )
        cfg.log(f"  overhead {label}: {share:.0%} (steady state {steady_share:.0%})")
    return rows


# ------------------------------------------------------------------------------ greedy RLS


def greedy(cfg: Config) -> list[Row]:
    from zeronorm_opt import GreedyRLS
    from zeronorm_opt.fast.greedy_rls import greedy_rls

    rows = []
    m, n, k = (10_000, 1000, 10) if cfg.quick else (20_000, 1000, 50)
    X, y = two_gaussians(m, n)
    t_ref, sel_ref = median_time(lambda: ref.greedy_rls_plain(X, y, k), cfg.repeats)
    for dtype in (np.float64, np.float32):
        t, res = median_time(lambda d=dtype: greedy_rls(X, y, k, dtype=d), cfg.repeats)
        same = res.selected.tolist() == sel_ref.tolist()
        rows.append(
            Row(
                "greedy RLS",
                f"greedy_rls, {np.dtype(dtype).name}",
                f"m={m} n={n} k={k}",
                f"greedy_rls(dtype={np.dtype(dtype).name})",
                "plain NumPy Algorithm 3",
                t,
                t_ref,
                cfg.repeats,
                f"same selection as the reference: {same}",
            )
        )
    rows += _rlscore(cfg, X, y, k, m, n)
    # The headline size, m = 50 000, n = 1000, k = 50: first call in a fresh process.
    M, N, K = 50_000, 1000, 50
    Xb, _ = two_gaussians(M, N)
    t_bw = bandwidth_pass(Xb)
    del Xb
    rounds = 2 if cfg.quick else 5
    t_plain = _plain_big(M, N, rounds) * K / rounds  # every round costs the same
    cases = [("greedy_rls_f64", "greedy_rls (cold)")]
    if not cfg.quick:
        cases += [
            ("GreedyRLS_f64", "GreedyRLS.fit (cold)"),
            ("greedy_rls_f32", "greedy_rls, float32 (cold)"),
            ("GreedyRLS_f32", "GreedyRLS.fit, float32 (cold)"),
        ]
    for case, label in cases:
        t, cpu = cold_time(case)
        per = t / (K * M * N) * 1e9
        rows.append(
            Row(
                "greedy RLS",
                label,
                f"m={M} n={N} k={K}",
                case,
                f"plain NumPy Algorithm 3 ({rounds} rounds, extrapolated to {K})",
                t,
                t_plain,
                1,
                f"CPU time {cpu:.1f} s; {per:.2f} ns per k·m·n element; one Xᵀv pass "
                f"{t_bw * 1e3:.0f} ms; time per round / pass = {t / K / t_bw:.1f}",
                {
                    "cpu_s": cpu,
                    "ns_per_kmn": per,
                    "bandwidth_pass_s": t_bw,
                    "round_over_pass": t / K / t_bw,
                },
            )
        )
        cfg.log(f"  {label}: {t:.2f} s, CPU {cpu:.2f} s ({t / K / t_bw:.1f} passes per round)")
    _ = GreedyRLS  # the estimator is timed in the fresh processes of benchmarks.cold
    return rows


def _plain_big(m, n, rounds) -> float:
    X, y = two_gaussians(m, n)
    return timed(lambda: ref.greedy_rls_plain(X, y, rounds))[0]


def _rlscore(cfg, X, y, k, m, n) -> list[Row]:
    try:
        from rlscore.learner import GreedyRLS as RLScoreGreedy
    except ImportError:
        cfg.log("  RLScore not installed: no RLScore row")
        return []
    from zeronorm_opt.fast.greedy_rls import greedy_rls

    t_ref, _ = median_time(lambda: RLScoreGreedy(X, y, k, regparam=1.0), cfg.repeats)
    t, _ = median_time(lambda: greedy_rls(X, y, k), cfg.repeats)
    return [
        Row(
            "greedy RLS",
            "greedy_rls vs RLScore",
            f"m={m} n={n} k={k}",
            "greedy_rls",
            "rlscore.learner.GreedyRLS",
            t,
            t_ref,
            cfg.repeats,
        )
    ]


# ----------------------------------------------------------------------------------- peers


def _l1_linearsvc_to(X, y, r):
    """``LinearSVC(penalty="l1", dual=False)`` with ``C`` bisected (log scale) to ``r`` genes.

    Returns the fitted model with the fewest non-zeros ≥ ``r`` met (or the last one), as a
    user tuning ``C`` for a gene budget would.
    """
    from sklearn.svm import LinearSVC

    lo, hi, best = 1e-4, 1e2, None
    for _ in range(30):
        C = np.sqrt(lo * hi)
        model = LinearSVC(penalty="l1", dual=False, C=C, max_iter=10_000).fit(X, y)
        nnz = int(np.count_nonzero(model.coef_))
        if nnz >= r and (best is None or nnz < best[1]):
            best = (model, nnz)
        if nnz == r:
            break
        lo, hi = (C, hi) if nnz < r else (lo, C)
    return best if best is not None else (model, nnz)


def _standard_error(values) -> float:
    """Standard error of the mean of ``values`` (0 for fewer than two)."""
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1) / np.sqrt(values.size)) if values.size > 1 else 0.0


def peers(cfg: Config) -> list[Row]:
    """AROM against the selectors a user would pick instead, on the same colon splits.

    20 random stratified 50/12 splits (the protocol of Weston et al., 2003, as the microarray
    experiment uses) in both modes: with 12 test points one split moves the error by 0.083,
    so fewer splits cannot tell the methods apart. Each row reports the mean test error, its
    standard error over the splits, and the paired difference to RFE on the same splits
    (mean ± standard error; negative: fewer errors than RFE).
    """
    from sklearn.feature_selection import RFE
    from sklearn.model_selection import StratifiedShuffleSplit
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from zeronorm_opt import AROM

    X, y = colon()
    n_splits = 20
    budgets = (20,) if cfg.quick else (20, 100)
    splits = list(StratifiedShuffleSplit(n_splits, test_size=12, random_state=0).split(X, y))
    methods = {
        "AROM(penalty='l1', r)": lambda Xt, yt, r: (
            AROM(penalty="l1", n_features_to_select=r).fit(Xt, yt),
            r,
        ),
        "AROM(penalty='l2', r)": lambda Xt, yt, r: (
            AROM(penalty="l2", n_features_to_select=r).fit(Xt, yt),
            r,
        ),
        "RFE(SVC(linear), r)": lambda Xt, yt, r: (
            RFE(SVC(kernel="linear"), n_features_to_select=r).fit(Xt, yt),
            r,
        ),
        "LinearSVC(l1), C → r": _l1_linearsvc_to,
    }
    rows = []
    for r in budgets:
        stats = {}
        for label, fit in methods.items():
            times, errors, sizes = [], [], []
            for train, test in splits:
                scaler = StandardScaler().fit(X[train])
                Xt, Xs = scaler.transform(X[train]), scaler.transform(X[test])
                t, (model, size) = timed(lambda f=fit, A=Xt, b=y[train], r=r: f(A, b, r))
                times.append(t)
                errors.append(float(np.mean(model.predict(Xs) != y[test])))
                sizes.append(size)
            stats[label] = (float(np.median(times)), np.asarray(errors), float(np.mean(sizes)))
        t_rfe, rfe_errors = stats["RFE(SVC(linear), r)"][:2]
        for label, (t, errors, size) in stats.items():
            err, err_se = float(errors.mean()), _standard_error(errors)
            diff, diff_se = (
                float((errors - rfe_errors).mean()),
                _standard_error(errors - rfe_errors),
            )
            rows.append(
                Row(
                    "peers",
                    f"{label}, r = {r}",
                    f"colon, {n_splits} splits 50/12",
                    label,
                    "RFE(SVC(kernel='linear'))",
                    t,
                    t_rfe,
                    n_splits,
                    f"test error {err:.3f} ± {err_se:.3f}; minus RFE's on the same splits "
                    f"{diff:+.3f} ± {diff_se:.3f}; genes {size:.0f}",
                    {
                        "test_error": err,
                        "test_error_se": err_se,
                        "error_minus_rfe": diff,
                        "error_minus_rfe_se": diff_se,
                        "genes": size,
                    },
                )
            )
            cfg.log(
                f"  r={r} {label:<24} {t:7.3f} s  test error {err:.3f} ± {err_se:.3f}, "
                f"minus RFE {diff:+.3f} ± {diff_se:.3f}"
            )
    return rows


# --------------------------------------------------------------------------------- scaling


def scaling(cfg: Config, curves=("l1", "l2")) -> list[Row]:
    """l1-AROM against n at m = 100, l2-AROM against m at n = 1000 (package and reference)."""
    from zeronorm_opt import AROM

    from ._common import sparse_linear

    rows = []
    ns = [1000, 2000, 5000] if cfg.quick else [1000, 3000, 10_000, 30_000, 100_000]
    ms = [100, 200, 500] if cfg.quick else [100, 300, 1000, 3000, 10_000]
    reps = 1 if cfg.quick else 3
    cases = []
    if "l1" in curves:
        cases += [("l1-AROM vs n", "n", (100, n), {"penalty": "l1"}, ref.l1_arom_highs) for n in ns]
    if "l2" in curves:
        cases += [
            ("l2-AROM vs m", "m", (m, 1000), {"penalty": "l2", "C": 1.0}, _svc_c1) for m in ms
        ]
    given_up = set()
    for workload, key, (m, n), params, reference in cases:
        X, y = sparse_linear(m, n, seed=0 if key == "n" else 1)
        t_ref, _ = median_time(lambda X=X, y=y, f=reference: f(X, y), reps)
        if workload in given_up:
            t_pkg, note = float("nan"), f"not run: the previous size took over {CAP_S:.0f} s"
        else:
            t_pkg, fitted = median_time(lambda X=X, y=y, p=params: AROM(**p).fit(X, y), reps)
            note = f"path {_path(fitted)}"
            if t_pkg > CAP_S:
                given_up.add(workload)
        label = "AROM(penalty='l1')" if key == "n" else "AROM(penalty='l2', C=1)"
        ref_label = "linprog(highs) loop" if key == "n" else "SVC(kernel='linear', C=1) loop"
        rows.append(
            Row(
                "scaling",
                workload,
                f"m={m} n={n}",
                label,
                ref_label,
                t_pkg,
                t_ref,
                reps,
                note,
                {"m": m, "n": n},
            )
        )
        cfg.log(f"  {workload} m={m} n={n}: {t_pkg:.2f} s vs {t_ref:.2f} s")
    return rows


def _svc_c1(X, y):
    return ref.l2_arom_svc(X, y, C=1.0)


def scaling_l1(cfg: Config) -> list[Row]:
    """The l1-AROM curve of :func:`scaling` alone."""
    return scaling(cfg, curves=("l1",))


def scaling_l2(cfg: Config) -> list[Row]:
    """The l2-AROM curve of :func:`scaling` alone."""
    return scaling(cfg, curves=("l2",))


# ------------------------------------------------------------------------------- alignment


def alignment(cfg: Config) -> list[Row]:
    """Incremental kernel updates of dFSA against recomputing every kernel (bench_alignment)."""
    from zeronorm_opt.datasets import make_weston_nonlinear
    from zeronorm_opt.fast.alignment import AlignmentState

    from .bench_alignment import KERNELS, _scratch_scan

    rows = []
    X, y = make_weston_nonlinear(100 if cfg.quick else 300, random_state=0)
    t = y.astype(float)
    cols = np.arange(X.shape[1])
    for kernel, opts in KERNELS:
        state = AlignmentState(X, t, kernel, features=cols, **opts)
        t_inc, _ = median_time(lambda s=state: s.candidate_alignments(cols), cfg.repeats)
        t_scr, _ = median_time(lambda k=kernel, o=opts: _scratch_scan(X, t, k, o), cfg.repeats)
        rows.append(
            Row(
                "alignment",
                f"dFSA candidate scan, {kernel}",
                f"make_weston_nonlinear m={X.shape[0]}",
                "AlignmentState.candidate_alignments",
                "every kernel from scratch",
                t_inc,
                t_scr,
                cfg.repeats,
            )
        )
    return rows


WORKLOADS = {
    "zero_norm": zero_norm,
    "fsv": fsv,
    "multiclass": multiclass,
    "overhead": overhead,
    "greedy": greedy,
    "peers": peers,
    "scaling": scaling,
    "alignment": alignment,
}

#: Parts of a workload, run only when named with ``--only`` (never twice in the default run).
PARTS = {"scaling_l1": scaling_l1, "scaling_l2": scaling_l2}
