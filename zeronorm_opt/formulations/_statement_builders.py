"""One statement builder per formulation class, registered on :func:`.statement.statement_of`.

Each builder reads the instance through public attributes (``penalty``, ``C``,
``slack_penalty``, ``slack_scale``, the variables, ``weights``, ``active``) and returns a
:class:`~zeronorm_opt.formulations.statement.Statement`; user constraints and objective
terms are appended by :func:`~zeronorm_opt.formulations.statement.build_statement`. This module
imports the formulation classes it describes; ``zeronorm_opt.formulations`` imports it, so the
builders are registered before any formulation can be printed (and :mod:`.statement`, which
the base class imports, never imports a formulation back).

Every line is a (text, LaTeX) pair; the helpers below write the pieces that several classes
share (margins, slacks, removed features, penalties) once.
"""

from __future__ import annotations

from collections import namedtuple

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
    SUM_J,
    Statement,
    constraint_latex,
    constraint_text,
    penalty_line,
    removed_note,
    statement_of,
    user_names,
    variable_line,
    weights_note,
)
from .svm_dual import RescaledSVMDual

HALF = r"\frac{1}{2}"


def _g(value) -> str:
    return f"{value:g}"


def _coef(value) -> str:
    """A coefficient in front of a term: nothing for 1."""
    return "" if value == 1 else f"{value:g} "


def _statement(f, what: str, variables, objective, constraints=(), notes=(), sense="minimise"):
    """The Statement of ``f``, titled "<class> — what"."""
    title = f"{type(f).__name__} — {what}"
    return Statement(title, sense, variables, objective, list(constraints), notes=list(notes))


def _margin_head(f) -> str:
    return "hard margin" if f.C is None else f"soft margin (C = {_g(f.C)})"


#: The hinge slacks of a margin problem (empty lists without them) and the margins'
#: right-hand side (1 − ξ_i, or 1 without slacks), text and LaTeX.
_Hinge = namedtuple("_Hinge", "objective constraints variables rhs")


def _hinge(f, m: int, per_class: bool = False) -> _Hinge:
    """The slacks ``ξ ∈ ℝ^m`` of ``f`` (``ξ_ik`` per class), none when ``f.xi`` is None."""
    if getattr(f, "xi", None) is None:
        return _Hinge([], [], [], ("1", "1"))
    xi_t, xi_l = ("ξ_ik", r"\xi_{ik}") if per_class else ("ξ_i", r"\xi_i")
    return _Hinge(
        [(f"C Σ_i {xi_t}", rf"C \sum_{{i}} {xi_l}")],
        [(f"{xi_t} ≥ 0", rf"{xi_l} \geq 0")],
        [variable_line("xi", m)],
        (f"1 − {xi_t}", rf"1 - {xi_l}"),
    )


def _margins(inner, rhs, m) -> tuple[str, str]:
    """``y_i (inner) ≥ rhs,  i = 1..m`` from (text, LaTeX) pairs."""
    return (
        f"y_i ({inner[0]}) ≥ {rhs[0]},  i = 1..{m}",
        rf"y_i ({inner[1]}) \geq {rhs[1]},\quad i = 1,\dots,{m}",
    )


def _class_margins(weston_watkins: bool, rhs, Q, where: str = "") -> tuple[str, str]:
    """The multiclass margins (Weston–Watkins or one-vs-rest); ``where`` precedes the range."""
    if weston_watkins:
        return (
            f"(w_c(i) − w_k)·x_i + b_c(i) − b_k ≥ {rhs[0]},  {where}k ≠ c(i)",
            rf"(w_{{c(i)}} - w_k)^\top x_i + b_{{c(i)}} - b_k \geq {rhs[1]},\quad k \neq c(i)",
        )
    return (
        f"y_i^k (w_k·x_i + b_k) ≥ {rhs[0]},  {where}k = 1..{Q}",
        rf"y_i^k (w_k^\top x_i + b_k) \geq {rhs[1]},\quad k = 1,\dots,{Q}",
    )


def _class_weights(Q, n) -> list[tuple[str, str]]:
    W = (f"W ∈ ℝ^({Q}×{n})", rf"W \in \mathbb{{R}}^{{{Q}\times {n}}}")
    return [W, variable_line("b", Q)]


def _removed(f, symbol=("v_j", "v_j"), which="the removed features j", label="removed features"):
    """``x_j = 0`` for the features the active set removes."""
    removed = removed_note(f)
    return (
        f"{symbol[0]} = 0 for {which} ({removed})",
        rf"{symbol[1]} = 0,\ j \in R\quad\text{{({label}: {removed})}}",
    )


# ---------------------------------------------------------------------------------------------
# two-class margin problems
# ---------------------------------------------------------------------------------------------


def margin(f) -> Statement:
    m, n = f.X.shape
    obj = [penalty_line(f.penalty, SUM_J, ("v_j", "v_j"))]
    variables = [variable_line("v", n), variable_line("b")]
    hinge = _hinge(f, m)
    notes = []
    if f.slack_penalty == "l0":
        cval = _g(f.slack_scale)
        obj.append(penalty_line(f.penalty, ("Σ_i c_{n+i} ", r"\sum_{i} c_{n+i} "), ("u_i",) * 2))
        variables.insert(1, variable_line("u", m))
        inner = (f"v·x_i + b + {cval}·u_i", rf"v^\top x_i + b + {cval}\, u_i")
        cons = [_margins(inner, hinge.rhs, m)]
        title = f"l0 slacks, augmented data x̂_i = (x_i, {cval}·δ_i)"
        notes.append(
            f"(v, u) are the weights of the augmented data x̂_i = (x_i, {cval}·δ_i): the"
            " zero-norm of (v, u) counts features plus training errors,"
            f" slack ξ_i = {cval}·y_i·u_i"
        )
    else:
        cons = [_margins(("v·x_i + b", r"v^\top x_i + b"), hinge.rhs, m)]
        title = _margin_head(f)
    cons += hinge.constraints + [_removed(f)]
    notes.append(weights_note(f, f.penalty))
    title = f"{f.penalty} step, {title}"
    return _statement(f, title, variables + hinge.variables, obj + hinge.objective, cons, notes)


def rescaled(f) -> Statement:
    m, n = f.X.shape
    obj = [("‖w‖₁", r"\|w\|_1") if f.penalty == "l1" else ("½ ‖w‖₂²", rf"{HALF} \|w\|_2^2")]
    hinge = _hinge(f, m)
    variables = [variable_line("w", n), variable_line("b")] + hinge.variables
    cons = [_margins(("w·(x_i ∘ z) + b", r"w^\top (x_i \circ z) + b"), hinge.rhs, m)]
    note = "z = the scale Parameter; original-space weights v = z ∘ w; AROM: z ← z ∘ |w|"
    title = f"{f.penalty}-AROM step on rescaled data, {_margin_head(f)}"
    return _statement(f, title, variables, obj + hinge.objective, cons + hinge.constraints, [note])


def fsv(f) -> Statement:
    m, n = f.X.shape
    hinge = _hinge(f, m)
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
        obj = [(linear_t, linear_l)] + hinge.objective
        title = _margin_head(f)
    variables = [variable_line("w", n), variable_line("v", n), variable_line("b")]
    variables += hinge.variables
    cons = [
        _margins(("w·x_i + b", r"w^\top x_i + b"), hinge.rhs, m),
        ("−v ≤ w ≤ v", r"-v \leq w \leq v"),
        *hinge.constraints,
        _removed(f),
    ]
    note = (
        "c = the weights Parameter; SLA sets c_j = α exp(−α v_j^k), the gradient of"
        " Σ_j (1 − exp(−α v_j))"
    )
    return _statement(f, f"linearised FSV step, {title}", variables, obj, cons, [note])


# ---------------------------------------------------------------------------------------------
# multiclass
# ---------------------------------------------------------------------------------------------


def multiclass(f) -> Statement:
    (m, n), Q = f.X.shape, f.n_classes
    obj = [penalty_line(f.penalty, ("Σ_j c_j Σ_k ", r"\sum_{j} c_j \sum_{k} "), ("w_kj", "w_{kj}"))]
    hinge = _hinge(f, m, per_class=True)
    weston_watkins = isinstance(f, WestonWatkinsFormulation)
    margins_t, margins_l = _class_margins(weston_watkins, hinge.rhs, Q, f"i = 1..{m}, ")
    if not weston_watkins:
        margins_t += "  (y_i^k = +1 iff c(i) = k)"
    removed = _removed(f, ("w_kj", "w_{kj}"), "every k and the removed features j")
    cons = [(margins_t, margins_l), *hinge.constraints, removed]
    variables = _class_weights(Q, n) + ([("ξ ≥ 0", r"\xi")] if hinge.variables else [])
    scheme = "Weston–Watkins" if weston_watkins else "one-vs-rest"
    title = f"{scheme}, {f.penalty} step, {_margin_head(f)}, Q = {Q}"
    notes = [weights_note(f, f.penalty) + "; one weight per feature, shared by all classes"]
    return _statement(f, title, variables, obj + hinge.objective, cons, notes)


# ---------------------------------------------------------------------------------------------
# regression, dual, adaptive scaling, oracles
# ---------------------------------------------------------------------------------------------


def _regression(f, what, objective, constraints=()) -> Statement:
    """A weighted-l1 regression over β: its removed coefficients and its weights."""
    removed = _removed(f, ("β_j", r"\beta_j"), "the removed coefficients j", "removed")
    variables, notes = [variable_line("beta", f.Phi.shape[1])], [weights_note(f, "l1")]
    return _statement(f, what, variables, objective, [*constraints, removed], notes)


def lasso(f) -> Statement:
    n, lam = f.Phi.shape[0], _g(f.alpha)
    # With column means μ the design is Φ − 1μᵀ (centred inside the residual).
    design, design_tex = ("Φ", r"\Phi")
    if getattr(f, "column_means", None) is not None:
        design, design_tex = "(Φ − 1μᵀ)", r"(\Phi - \mathbf{1}\mu^\top)"
    residual = (f"(1/{n}) ‖Y − {design}β‖²", rf"\frac{{1}}{{{n}}} \|Y - {design_tex}\beta\|_2^2")
    penalty = (f"{lam} Σ_j c_j |β_j|", rf"{lam} \sum_{{j}} c_j |\beta_j|")
    return _regression(f, f"weighted Lasso, λ = {lam}", [residual, penalty])


def basis_pursuit(f) -> Statement:
    n, p = f.Phi.shape
    objective, fit = [("Σ_j c_j |β_j|", r"\sum_{j} c_j |\beta_j|")], ("Φβ = Y", r"\Phi\beta = Y")
    return _regression(f, f"basis pursuit, n = {n}, p = {p}", objective, [fit])


def svm_dual(f) -> Statement:
    obj = [
        ("Σ_i α_i", r"\sum_{i} \alpha_i"),
        ("−½ ‖z ∘ Xᵀ(y ∘ α)‖²", rf"-{HALF} \|z \circ X^\top (y \circ \alpha)\|^2"),
    ]
    title = "SVM dual on rescaled data"
    box = ("α_i ≥ 0", r"\alpha_i \geq 0")
    if f.C is not None:
        title += f", C = {_g(f.C)}"
        box = (f"0 ≤ α_i ≤ {_g(f.C)}", rf"0 \leq \alpha_i \leq {_g(f.C)}")
    if f.slack_scale is not None:
        c2 = _g(f.slack_scale**2)
        obj.append((f"−½·{c2} ‖z_u ∘ α‖²", rf"-{HALF}\cdot {c2}\, \|z_u \circ \alpha\|^2"))
        title += f", l0 slacks (ridge c² = {c2})"
    variables = [variable_line("alpha", f.X.shape[0])]
    cons = [("Σ_i y_i α_i = 0", r"\sum_{i} y_i \alpha_i = 0"), box]
    note = "z = the scale Parameter; original weights v = z² ∘ Xᵀ(y ∘ α)"
    return _statement(f, title, variables, obj, cons, [note], sense="maximise")


def _scaled_svm(f, what, variables, objective, constraints, notes=()) -> Statement:
    """The two adaptive-scaling SVMs: weights β, bias b, hinge slacks ξ and their margins."""
    m, n = f.X.shape
    hinge = (f"{_coef(f.C)}Σ_i ξ_i", rf"{_coef(f.C)}\sum_{{i}} \xi_i")
    margins = _margins((r"β·x_i + b", r"\beta^\top x_i + b"), _hinge(f, m).rhs, m)
    variables = [variable_line("beta", n), variable_line("b"), variable_line("xi", m), *variables]
    title = f"{what}, C = {_g(f.C)}, σ₀ = {_g(f.sigma0)}"
    return _statement(f, title, variables, objective + [hinge], [margins, *constraints], notes)


def l1_metric(f) -> Statement:
    n, s0 = f.X.shape[1], _g(f.sigma0)
    variables = [variable_line("sigma", n)]
    cons = [
        ("ξ ≥ 0,  σ ≥ 0", r"\xi \geq 0,\quad \sigma \geq 0"),
        (f"Σ_k σ_k = {n}·{s0}", rf"\sum_{{k}} \sigma_k = {n} \cdot {s0}"),
    ]
    if f.t is not None:
        variables.append(variable_line("t", n))
        obj = [("½ Σ_k t_k", rf"{HALF} \sum_{{k}} t_k")]
        cone = "‖(2β_k, t_k − σ_k)‖ ≤ t_k + σ_k"
        cons.append((cone, r"\|(2\beta_k,\ t_k - \sigma_k)\| \leq t_k + \sigma_k"))
        note = "vectorised epigraph form: t_k ≥ β_k² / σ_k as one second-order cone"
    else:
        obj = [("½ Σ_k β_k² / σ_k", rf"{HALF} \sum_{{k}} \beta_k^2 / \sigma_k")]
        note = "each β_k² / σ_k is one cvxpy quad_over_lin atom (jointly convex)"
    notes = [note, "σ_k = squared scale of feature k; β = √σ ∘ w, at the optimum σ_k ∝ |β_k|"]
    return _scaled_svm(f, "adaptive scaling, linear kernel", variables, obj, cons, notes)


def squared_l1(f) -> Statement:
    n, s0 = f.X.shape[1], _g(f.sigma0)
    l1_squared = (
        f"½ (Σ_k |β_k|)² / ({n}·{s0})",
        rf"{HALF} \left(\sum_{{k}} |\beta_k|\right)^2 / ({n} \cdot {s0})",
    )
    return _scaled_svm(f, "squared-l1 SVM", [], [l1_squared], [("ξ ≥ 0", r"\xi \geq 0")])


def _oracle(f, what, constraints, note) -> Statement:
    """``min g·s`` over ``s`` (a linear minimisation oracle)."""
    variables = [variable_line("s", f.s.size)]
    return _statement(f, what, variables, [("g·s", r"g^\top s")], constraints, [note])


def metric_subproblem(f) -> Statement:
    total = _g(f.total)
    cons = [
        ("s ≥ 0", r"s \geq 0"),
        (f"Σ_k s_k = {total}", rf"\sum_{{k}} s_k = {total}"),
        (f"s_k ≤ {total}·allowed_k", rf"s_k \leq {total}\, a_k"),
    ]
    note = "g = the cost Parameter (gradient of the SVM cost); a = the allowed Parameter"
    return _oracle(f, "Frank–Wolfe direction over the metric simplex", cons, note)


def linear_oracle(f) -> Statement:
    cons = [(constraint_text(c), constraint_latex(c)) for c in f._base_constraints()]
    return _oracle(f, "linear minimisation oracle", cons, "g = the cost Parameter")


def bias(f) -> Statement:
    hinge = ("Σ_i max(0, 1 − y_i (f_i + b))", r"\sum_{i} \max(0,\ 1 - y_i (f_i + b))")
    title = f"optimal bias, m = {f.y.size}"
    return _statement(f, title, [variable_line("b")], [hinge], notes=["f = the outputs Parameter"])


# ---------------------------------------------------------------------------------------------
# exact zero-norm
# ---------------------------------------------------------------------------------------------


def exact(f) -> Statement:
    multi = isinstance(f, ExactMulticlassZeroNormFormulation)
    m, n = f.X.shape
    budget = f.max_features is not None
    obj = [] if budget else [("Σ_j s_j", r"\sum_{j} s_j")]
    if f.xi is not None:
        ik = "ik" if multi else "i"
        obj.append((f"{_coef(f.C)}Σ ξ_{ik}", rf"{_coef(f.C)}\sum \xi_{{{ik}}}"))
    wname = "W" if multi else "w"
    if f.ridge is not None:
        obj.append((f"{_coef(f.ridge)}‖{wname}‖²", rf"{_coef(f.ridge)}\|{wname}\|_2^2"))
    rhs = _hinge(f, m, per_class=multi).rhs
    if not multi:
        cons = [
            _margins(("w·x_i + b", r"w^\top x_i + b"), rhs, m),
            ("−M s_j ≤ w_j ≤ M s_j", r"-M s_j \leq w_j \leq M s_j"),
        ]
        variables = [variable_line("w", n), variable_line("b")]
        scheme = "two classes"
    else:
        Q = f.n_classes
        cons = [
            _class_margins(f.scheme == "weston_watkins", rhs, Q),
            ("−M s_j ≤ w_kj ≤ M s_j  for every class k", r"-M s_j \leq w_{kj} \leq M s_j"),
        ]
        variables = _class_weights(Q, n)
        scheme = f"{f.scheme.replace('_', '-')}, Q = {Q}, one shared support"
    if f.xi is not None:
        cons.append(("ξ ≥ 0", r"\xi \geq 0"))
        variables.append(("ξ", r"\xi"))
    cons.append((f"s ∈ {{0,1}}^{n}", rf"s \in \{{0,1\}}^{{{n}}}"))
    variables.append(("s", "s"))
    if budget:
        cons.append((f"Σ_j s_j ≤ {f.max_features}", rf"\sum_{{j}} s_j \leq {f.max_features}"))
    mode = "budget" if budget else ("hard margin" if f.C is None else "soft")
    kind = "MIQP" if f.ridge is not None else "MILP"
    big_m = f"M = {f.big_m.value:.4g}" if f._big_m_ready else "M set at solve from the l1 LP"
    notes = [f"s_j = 1 iff feature j may be used; {big_m}"]
    return _statement(f, f"exact zero-norm ({kind}, {mode}, {scheme})", variables, obj, cons, notes)


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
