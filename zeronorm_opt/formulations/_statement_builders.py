"""One statement builder per formulation class, registered on :func:`.statement.statement_of`.

Each builder reads the instance through public attributes (``penalty``, ``C``,
``slack_penalty``, ``slack_scale``, the variables, ``weights``, ``active``) and returns a
:class:`~zeronorm_opt.formulations.statement.Statement`; user constraints and objective
terms are appended by :func:`~zeronorm_opt.formulations.statement.build_statement`. This module
imports the formulation classes it describes; ``zeronorm_opt.formulations`` imports it, so the
builders are registered before any formulation can be printed (and :mod:`.statement`, which
the base class imports, never imports a formulation back).
"""

from __future__ import annotations

from .adaptive_scaling import (
    BiasFormulation,
    L1ConstrainedMetricFormulation,
    MetricSubproblem,
    SquaredL1SVMFormulation,
)
from .binary import MarginFormulation, RescaledMarginFormulation
from .exact import ExactMulticlassZeroNormFormulation, _ExactZeroNorm
from .fsv import FSVFormulation
from .linear_oracle import LinearOracle
from .multiclass import WestonWatkinsFormulation, _MulticlassMargin
from .regression import BasisPursuitFormulation, LassoFormulation
from .statement import (
    Statement,
    constraint_latex,
    constraint_text,
    removed_note,
    statement_of,
    user_names,
    weights_note,
)
from .svm_dual import RescaledSVMDual

HALF = r"\frac{1}{2}"


def _g(value) -> str:
    return f"{value:g}"


def _coef(value) -> str:
    """A coefficient in front of a term: nothing for 1."""
    return "" if value == 1 else f"{value:g} "


def _margin_head(f) -> str:
    m = "hard margin" if f.C is None else f"soft margin (C = {_g(f.C)})"
    return m


def _slack_terms(f):
    """Objective term and constraint lines of hinge slacks (or none)."""
    if getattr(f, "xi", None) is None:
        return [], []
    return [("C Σ_i ξ_i", r"C \sum_{i} \xi_i")], [(r"ξ_i ≥ 0", r"\xi_i \geq 0")]


# ---------------------------------------------------------------------------------------------
# two-class margin problems
# ---------------------------------------------------------------------------------------------


def margin(f) -> Statement:
    m, n = f.X.shape
    l0 = f.slack_penalty == "l0"
    if f.penalty == "l1":
        obj = [("Σ_j c_j |v_j|", r"\sum_{j} c_j |v_j|")]
    else:
        obj = [("½ Σ_j c_j v_j²", rf"{HALF} \sum_{{j}} c_j v_j^2")]
    variables = [(f"v ∈ ℝ^{n}", rf"v \in \mathbb{{R}}^{{{n}}}"), ("b ∈ ℝ", r"b \in \mathbb{R}")]
    slack_obj, slack_cons = _slack_terms(f)
    rhs_t, rhs_l = ("1 − ξ_i", r"1 - \xi_i") if slack_obj else ("1", "1")
    if l0:
        cval = _g(f.slack_scale)
        if f.penalty == "l1":
            obj.append(("Σ_i c_{n+i} |u_i|", r"\sum_{i} c_{n+i} |u_i|"))
        else:
            obj.append(("½ Σ_i c_{n+i} u_i²", rf"{HALF} \sum_{{i}} c_{{n+i}} u_i^2"))
        variables.insert(1, (f"u ∈ ℝ^{m}", rf"u \in \mathbb{{R}}^{{{m}}}"))
        cons = [
            (
                f"y_i (v·x_i + b + {cval}·u_i) ≥ 1,  i = 1..{m}",
                rf"y_i (v^\top x_i + b + {cval}\, u_i) \geq 1,\quad i = 1,\dots,{m}",
            )
        ]
        title = f"l0 slacks, augmented data x̂_i = (x_i, {cval}·δ_i)"
        notes = [
            f"(v, u) are the weights of the augmented data x̂_i = (x_i, {cval}·δ_i): the"
            " zero-norm of (v, u) counts features plus training errors,"
            f" slack ξ_i = {cval}·y_i·u_i",
        ]
    else:
        cons = [
            (
                f"y_i (v·x_i + b) ≥ {rhs_t},  i = 1..{m}",
                rf"y_i (v^\top x_i + b) \geq {rhs_l},\quad i = 1,\dots,{m}",
            )
        ]
        title = _margin_head(f)
        notes = []
    if slack_obj:
        variables.append((f"ξ ∈ ℝ^{m}", rf"\xi \in \mathbb{{R}}^{{{m}}}"))
    removed = removed_note(f)
    cons += slack_cons + [
        (
            f"v_j = 0 for the removed features j ({removed})",
            rf"v_j = 0,\ j \in R\quad\text{{(removed features: {removed})}}",
        )
    ]
    notes.append(weights_note(f, f.penalty))
    return Statement(
        f"{type(f).__name__} — {f.penalty} step, {title}",
        "minimise",
        variables,
        obj + slack_obj,
        cons,
        notes=notes,
    )


def rescaled(f) -> Statement:
    m, n = f.X.shape
    if f.penalty == "l1":
        obj = [("‖w‖₁", r"\|w\|_1")]
    else:
        obj = [("½ ‖w‖₂²", rf"{HALF} \|w\|_2^2")]
    slack_obj, slack_cons = _slack_terms(f)
    rhs_t, rhs_l = ("1 − ξ_i", r"1 - \xi_i") if slack_obj else ("1", "1")
    variables = [(f"w ∈ ℝ^{n}", rf"w \in \mathbb{{R}}^{{{n}}}"), ("b ∈ ℝ", r"b \in \mathbb{R}")]
    if slack_obj:
        variables.append((f"ξ ∈ ℝ^{m}", rf"\xi \in \mathbb{{R}}^{{{m}}}"))
    cons = [
        (
            f"y_i (w·(x_i ∘ z) + b) ≥ {rhs_t},  i = 1..{m}",
            rf"y_i (w^\top (x_i \circ z) + b) \geq {rhs_l},\quad i = 1,\dots,{m}",
        )
    ] + slack_cons
    return Statement(
        f"{type(f).__name__} — {f.penalty}-AROM step on rescaled data, {_margin_head(f)}",
        "minimise",
        variables,
        obj + slack_obj,
        cons,
        notes=["z = the scale Parameter; original-space weights v = z ∘ w; AROM: z ← z ∘ |w|"],
    )


def fsv(f) -> Statement:
    m, n = f.X.shape
    linear_t, linear_l = "Σ_j c_j v_j", r"\sum_{j} c_j v_j"
    if f.trade_off is not None:
        lam = _g(f.trade_off)
        obj = [
            (
                f"(1 − {lam}) (mean_{{i∈+}} ξ_i + mean_{{i∈−}} ξ_i)",
                rf"(1 - {lam}) \left(\frac{{1}}{{m_+}}\sum_{{i \in +}} \xi_i"
                rf" + \frac{{1}}{{m_-}}\sum_{{i \in -}} \xi_i\right)",
            ),
            (f"{lam} {linear_t}", rf"{lam} {linear_l}"),
        ]
        title = f"trade-off λ = {lam}"
    else:
        obj = [(linear_t, linear_l)] + _slack_terms(f)[0]
        title = _margin_head(f)
    rhs_t, rhs_l = ("1 − ξ_i", r"1 - \xi_i") if f.xi is not None else ("1", "1")
    variables = [
        (f"w ∈ ℝ^{n}", rf"w \in \mathbb{{R}}^{{{n}}}"),
        (f"v ∈ ℝ^{n}", rf"v \in \mathbb{{R}}^{{{n}}}"),
        ("b ∈ ℝ", r"b \in \mathbb{R}"),
    ]
    cons = [
        (
            f"y_i (w·x_i + b) ≥ {rhs_t},  i = 1..{m}",
            rf"y_i (w^\top x_i + b) \geq {rhs_l},\quad i = 1,\dots,{m}",
        ),
        ("−v ≤ w ≤ v", r"-v \leq w \leq v"),
    ]
    if f.xi is not None:
        variables.append((f"ξ ∈ ℝ^{m}", rf"\xi \in \mathbb{{R}}^{{{m}}}"))
        cons.append(("ξ_i ≥ 0", r"\xi_i \geq 0"))
    removed = removed_note(f)
    cons.append(
        (
            f"v_j = 0 for the removed features j ({removed})",
            rf"v_j = 0,\ j \in R\quad\text{{(removed features: {removed})}}",
        )
    )
    return Statement(
        f"{type(f).__name__} — linearised FSV step, {title}",
        "minimise",
        variables,
        obj,
        cons,
        notes=[
            "c = the weights Parameter; SLA sets c_j = α exp(−α v_j^k), the gradient of"
            " Σ_j (1 − exp(−α v_j))"
        ],
    )


# ---------------------------------------------------------------------------------------------
# multiclass
# ---------------------------------------------------------------------------------------------


def multiclass(f) -> Statement:
    m, n = f.X.shape
    Q = f.n_classes
    if f.penalty == "l1":
        obj = [("Σ_j c_j Σ_k |w_kj|", r"\sum_{j} c_j \sum_{k} |w_{kj}|")]
    else:
        obj = [("½ Σ_j c_j Σ_k w_kj²", rf"{HALF} \sum_{{j}} c_j \sum_{{k}} w_{{kj}}^2")]
    slack_obj, slack_cons = _slack_terms(f)
    obj += [(t.replace("ξ_i", "ξ_ik"), lt.replace(r"\xi_i", r"\xi_{ik}")) for t, lt in slack_obj]
    rhs_t, rhs_l = ("1 − ξ_ik", r"1 - \xi_{ik}") if slack_obj else ("1", "1")
    if isinstance(f, WestonWatkinsFormulation):
        scheme = "Weston–Watkins"
        cons = [
            (
                f"(w_c(i) − w_k)·x_i + b_c(i) − b_k ≥ {rhs_t},  i = 1..{m}, k ≠ c(i)",
                rf"(w_{{c(i)}} - w_k)^\top x_i + b_{{c(i)}} - b_k \geq {rhs_l},"
                rf"\quad k \neq c(i)",
            )
        ]
    else:
        scheme = "one-vs-rest"
        cons = [
            (
                f"y_i^k (w_k·x_i + b_k) ≥ {rhs_t},  i = 1..{m}, k = 1..{Q}"
                "  (y_i^k = +1 iff c(i) = k)",
                rf"y_i^k (w_k^\top x_i + b_k) \geq {rhs_l},\quad k = 1,\dots,{Q}",
            )
        ]
    cons += [(t.replace("ξ_i", "ξ_ik"), lt.replace(r"\xi_i", r"\xi_{ik}")) for t, lt in slack_cons]
    removed = removed_note(f)
    cons.append(
        (
            f"w_kj = 0 for every k and the removed features j ({removed})",
            rf"w_{{kj}} = 0,\ j \in R\quad\text{{(removed features: {removed})}}",
        )
    )
    variables = [
        (f"W ∈ ℝ^({Q}×{n})", rf"W \in \mathbb{{R}}^{{{Q}\times {n}}}"),
        (f"b ∈ ℝ^{Q}", rf"b \in \mathbb{{R}}^{{{Q}}}"),
    ]
    if slack_obj:
        variables.append(("ξ ≥ 0", r"\xi"))
    return Statement(
        f"{type(f).__name__} — {scheme}, {f.penalty} step, {_margin_head(f)}, Q = {Q}",
        "minimise",
        variables,
        obj,
        cons,
        notes=[weights_note(f, f.penalty) + "; one weight per feature, shared by all classes"],
    )


# ---------------------------------------------------------------------------------------------
# regression, dual, adaptive scaling, oracles
# ---------------------------------------------------------------------------------------------


def lasso(f) -> Statement:
    n, p = f.Phi.shape
    lam = _g(f.alpha)
    centred = getattr(f, "column_means", None) is not None
    # With column means μ the design is Φ − 1μᵀ (centred inside the residual).
    design, design_tex = ("Φ", r"\Phi")
    if centred:
        design, design_tex = "(Φ − 1μᵀ)", r"(\Phi - \mathbf{1}\mu^\top)"
    return Statement(
        f"{type(f).__name__} — weighted Lasso, λ = {lam}",
        "minimise",
        [(f"β ∈ ℝ^{p}", rf"\beta \in \mathbb{{R}}^{{{p}}}")],
        [
            (f"(1/{n}) ‖Y − {design}β‖²", rf"\frac{{1}}{{{n}}} \|Y - {design_tex}\beta\|_2^2"),
            (f"{lam} Σ_j c_j |β_j|", rf"{lam} \sum_{{j}} c_j |\beta_j|"),
        ],
        [
            (
                f"β_j = 0 for the removed coefficients j ({removed_note(f)})",
                rf"\beta_j = 0,\ j \in R\quad\text{{(removed: {removed_note(f)})}}",
            )
        ],
        notes=[weights_note(f, "l1")],
    )


def basis_pursuit(f) -> Statement:
    n, p = f.Phi.shape
    return Statement(
        f"{type(f).__name__} — basis pursuit, n = {n}, p = {p}",
        "minimise",
        [(f"β ∈ ℝ^{p}", rf"\beta \in \mathbb{{R}}^{{{p}}}")],
        [("Σ_j c_j |β_j|", r"\sum_{j} c_j |\beta_j|")],
        [
            ("Φβ = Y", r"\Phi\beta = Y"),
            (
                f"β_j = 0 for the removed coefficients j ({removed_note(f)})",
                rf"\beta_j = 0,\ j \in R\quad\text{{(removed: {removed_note(f)})}}",
            ),
        ],
        notes=[weights_note(f, "l1")],
    )


def svm_dual(f) -> Statement:
    m = f.X.shape[0]
    obj = [
        ("Σ_i α_i", r"\sum_{i} \alpha_i"),
        ("−½ ‖z ∘ Xᵀ(y ∘ α)‖²", rf"-{HALF} \|z \circ X^\top (y \circ \alpha)\|^2"),
    ]
    if f.slack_scale is not None:
        c2 = _g(f.slack_scale**2)
        obj.append((f"−½·{c2} ‖z_u ∘ α‖²", rf"-{HALF}\cdot {c2}\, \|z_u \circ \alpha\|^2"))
    box_t, box_l = (
        (f"0 ≤ α_i ≤ {_g(f.C)}", rf"0 \leq \alpha_i \leq {_g(f.C)}")
        if f.C is not None
        else ("α_i ≥ 0", r"\alpha_i \geq 0")
    )
    return Statement(
        f"{type(f).__name__} — SVM dual on rescaled data"
        + ("" if f.C is None else f", C = {_g(f.C)}")
        + ("" if f.slack_scale is None else f", l0 slacks (ridge c² = {_g(f.slack_scale**2)})"),
        "maximise",
        [(f"α ∈ ℝ^{m}", rf"\alpha \in \mathbb{{R}}^{{{m}}}")],
        obj,
        [("Σ_i y_i α_i = 0", r"\sum_{i} y_i \alpha_i = 0"), (box_t, box_l)],
        notes=["z = the scale Parameter; original weights v = z² ∘ Xᵀ(y ∘ α)"],
    )


def l1_metric(f) -> Statement:
    m, n = f.X.shape
    C, s0 = _g(f.C), _g(f.sigma0)
    variables = [
        (f"β ∈ ℝ^{n}", rf"\beta \in \mathbb{{R}}^{{{n}}}"),
        ("b ∈ ℝ", r"b \in \mathbb{R}"),
        (f"ξ ∈ ℝ^{m}", rf"\xi \in \mathbb{{R}}^{{{m}}}"),
        (f"σ ∈ ℝ^{n}", rf"\sigma \in \mathbb{{R}}^{{{n}}}"),
    ]
    cons = [
        (
            f"y_i (β·x_i + b) ≥ 1 − ξ_i,  i = 1..{m}",
            rf"y_i (\beta^\top x_i + b) \geq 1 - \xi_i,\quad i = 1,\dots,{m}",
        ),
        ("ξ ≥ 0,  σ ≥ 0", r"\xi \geq 0,\quad \sigma \geq 0"),
        (f"Σ_k σ_k = {n}·{s0}", rf"\sum_{{k}} \sigma_k = {n} \cdot {s0}"),
    ]
    if f.t is not None:
        variables.append((f"t ∈ ℝ^{n}", rf"t \in \mathbb{{R}}^{{{n}}}"))
        obj = [("½ Σ_k t_k", rf"{HALF} \sum_{{k}} t_k")]
        cons.append(
            (
                "‖(2β_k, t_k − σ_k)‖ ≤ t_k + σ_k",
                r"\|(2\beta_k,\ t_k - \sigma_k)\| \leq t_k + \sigma_k",
            )
        )
        note = "vectorised epigraph form: t_k ≥ β_k² / σ_k as one second-order cone"
    else:
        obj = [("½ Σ_k β_k² / σ_k", rf"{HALF} \sum_{{k}} \beta_k^2 / \sigma_k")]
        note = "each β_k² / σ_k is one cvxpy quad_over_lin atom (jointly convex)"
    return Statement(
        f"{type(f).__name__} — adaptive scaling, linear kernel, C = {C}, σ₀ = {s0}",
        "minimise",
        variables,
        obj + [(f"{_coef(f.C)}Σ_i ξ_i", rf"{_coef(f.C)}\sum_{{i}} \xi_i")],
        cons,
        notes=[note, "σ_k = squared scale of feature k; β = √σ ∘ w, at the optimum σ_k ∝ |β_k|"],
    )


def squared_l1(f) -> Statement:
    m, n = f.X.shape
    C, s0 = _g(f.C), _g(f.sigma0)
    return Statement(
        f"{type(f).__name__} — squared-l1 SVM, C = {C}, σ₀ = {s0}",
        "minimise",
        [
            (f"β ∈ ℝ^{n}", rf"\beta \in \mathbb{{R}}^{{{n}}}"),
            ("b ∈ ℝ", r"b \in \mathbb{R}"),
            (f"ξ ∈ ℝ^{m}", rf"\xi \in \mathbb{{R}}^{{{m}}}"),
        ],
        [
            (
                f"½ (Σ_k |β_k|)² / ({n}·{s0})",
                rf"{HALF} \left(\sum_{{k}} |\beta_k|\right)^2 / ({n} \cdot {s0})",
            ),
            (f"{_coef(f.C)}Σ_i ξ_i", rf"{_coef(f.C)}\sum_{{i}} \xi_i"),
        ],
        [
            (
                f"y_i (β·x_i + b) ≥ 1 − ξ_i,  i = 1..{m}",
                rf"y_i (\beta^\top x_i + b) \geq 1 - \xi_i,\quad i = 1,\dots,{m}",
            ),
            ("ξ ≥ 0", r"\xi \geq 0"),
        ],
    )


def metric_subproblem(f) -> Statement:
    n = f.s.size
    total = _g(f.total)
    return Statement(
        f"{type(f).__name__} — Frank–Wolfe direction over the metric simplex",
        "minimise",
        [(f"s ∈ ℝ^{n}", rf"s \in \mathbb{{R}}^{{{n}}}")],
        [("g·s", r"g^\top s")],
        [
            ("s ≥ 0", r"s \geq 0"),
            (f"Σ_k s_k = {total}", rf"\sum_{{k}} s_k = {total}"),
            (f"s_k ≤ {total}·allowed_k", rf"s_k \leq {total}\, a_k"),
        ],
        notes=["g = the cost Parameter (gradient of the SVM cost); a = the allowed Parameter"],
    )


def linear_oracle(f) -> Statement:
    cons = [(constraint_text(c), constraint_latex(c)) for c in f._base_constraints()]
    return Statement(
        f"{type(f).__name__} — linear minimisation oracle",
        "minimise",
        [(f"s ∈ ℝ^{f.s.size}", rf"s \in \mathbb{{R}}^{{{f.s.size}}}")],
        [("g·s", r"g^\top s")],
        cons,
        notes=["g = the cost Parameter"],
    )


def bias(f) -> Statement:
    m = f.y.size
    return Statement(
        f"{type(f).__name__} — optimal bias, m = {m}",
        "minimise",
        [("b ∈ ℝ", r"b \in \mathbb{R}")],
        [("Σ_i max(0, 1 − y_i (f_i + b))", r"\sum_{i} \max(0,\ 1 - y_i (f_i + b))")],
        notes=["f = the outputs Parameter"],
    )


# ---------------------------------------------------------------------------------------------
# exact zero-norm
# ---------------------------------------------------------------------------------------------


def exact(f) -> Statement:
    multi = isinstance(f, ExactMulticlassZeroNormFormulation)
    m, n = f.X.shape
    obj = [] if f.max_features is not None else [("Σ_j s_j", r"\sum_{j} s_j")]
    if f.xi is not None:
        ik = "ik" if multi else "i"
        obj.append((f"{_coef(f.C)}Σ ξ_{ik}", rf"{_coef(f.C)}\sum \xi_{{{ik}}}"))
    wname = "W" if multi else "w"
    if f.ridge is not None:
        obj.append((f"{_coef(f.ridge)}‖{wname}‖²", rf"{_coef(f.ridge)}\|{wname}\|_2^2"))
    rhs_t, rhs_l = ("1", "1")
    if f.xi is not None:
        rhs_t, rhs_l = ("1 − ξ_ik", r"1 - \xi_{ik}") if multi else ("1 − ξ_i", r"1 - \xi_i")
    if not multi:
        cons = [
            (
                f"y_i (w·x_i + b) ≥ {rhs_t},  i = 1..{m}",
                rf"y_i (w^\top x_i + b) \geq {rhs_l},\quad i = 1,\dots,{m}",
            ),
            ("−M s_j ≤ w_j ≤ M s_j", r"-M s_j \leq w_j \leq M s_j"),
        ]
        variables = [(f"w ∈ ℝ^{n}", rf"w \in \mathbb{{R}}^{{{n}}}"), ("b ∈ ℝ", r"b \in \mathbb{R}")]
        scheme = "two classes"
    else:
        Q = f.n_classes
        if f.scheme == "weston_watkins":
            cons = [
                (
                    f"(w_c(i) − w_k)·x_i + b_c(i) − b_k ≥ {rhs_t},  k ≠ c(i)",
                    rf"(w_{{c(i)}} - w_k)^\top x_i + b_{{c(i)}} - b_k \geq {rhs_l},"
                    rf"\quad k \neq c(i)",
                )
            ]
        else:
            cons = [
                (
                    f"y_i^k (w_k·x_i + b_k) ≥ {rhs_t},  k = 1..{Q}",
                    rf"y_i^k (w_k^\top x_i + b_k) \geq {rhs_l},\quad k = 1,\dots,{Q}",
                )
            ]
        cons.append(("−M s_j ≤ w_kj ≤ M s_j  for every class k", r"-M s_j \leq w_{kj} \leq M s_j"))
        variables = [
            (f"W ∈ ℝ^({Q}×{n})", rf"W \in \mathbb{{R}}^{{{Q}\times {n}}}"),
            (f"b ∈ ℝ^{Q}", rf"b \in \mathbb{{R}}^{{{Q}}}"),
        ]
        scheme = f"{f.scheme.replace('_', '-')}, Q = {Q}, one shared support"
    if f.xi is not None:
        cons.append(("ξ ≥ 0", r"\xi \geq 0"))
        variables.append(("ξ", r"\xi"))
    cons.append((f"s ∈ {{0,1}}^{n}", rf"s \in \{{0,1\}}^{{{n}}}"))
    variables.append(("s", "s"))
    if f.max_features is not None:
        r = f.max_features
        cons.append((f"Σ_j s_j ≤ {r}", rf"\sum_{{j}} s_j \leq {r}"))
    mode = "budget" if f.max_features is not None else ("hard margin" if f.C is None else "soft")
    kind = "MIQP" if f.ridge is not None else "MILP"
    big_m = f"M = {f.big_m.value:.4g}" if f._big_m_ready else "M set at solve from the l1 LP"
    return Statement(
        f"{type(f).__name__} — exact zero-norm ({kind}, {mode}, {scheme})",
        "minimise",
        variables,
        obj,
        cons,
        notes=[f"s_j = 1 iff feature j may be used; {big_m}"],
    )


# ---------------------------------------------------------------------------------------------
# registration
# ---------------------------------------------------------------------------------------------

for _cls, _builder in (
    (MarginFormulation, margin),
    (RescaledMarginFormulation, rescaled),
    (FSVFormulation, fsv),
    (_MulticlassMargin, multiclass),
    (LassoFormulation, lasso),
    (BasisPursuitFormulation, basis_pursuit),
    (RescaledSVMDual, svm_dual),
    (L1ConstrainedMetricFormulation, l1_metric),
    (SquaredL1SVMFormulation, squared_l1),
    (MetricSubproblem, metric_subproblem),
    (LinearOracle, linear_oracle),
    (BiasFormulation, bias),
    (_ExactZeroNorm, exact),
):
    statement_of.register(_cls, _builder)


@user_names.register
def _margin_names(f: MarginFormulation) -> dict[str, str]:
    # v (and u) are expressions of the split variables (coef_pos, coef_neg, the active
    # mask): name them by how cvxpy prints them, the longer (indexed) ones first.
    if getattr(f, "u", None) is None:
        return {str(f.v): "v"}
    return {str(f.v): "v", str(f.u): "u", str(f.coef): "(v, u)"}
