"""Slide-ready statements: they follow the instance, name the user's constraints, and their
LaTeX compiles (matplotlib's mathtext line by line; a full LaTeX run where a binary exists)."""

from __future__ import annotations

import inspect
import io
import shutil
import subprocess

import cvxpy as cp
import numpy as np
import pytest
from matplotlib.mathtext import math_to_image

import zeronorm_opt.formulations as F
from zeronorm_opt.formulations.base import Formulation, ReweightedFormulation
from zeronorm_opt.formulations.statement import build_statement, constraint_latex, statement_of

RNG = np.random.default_rng(0)
X = RNG.normal(size=(8, 4))
Y2 = np.array([1, 1, 1, 1, -1, -1, -1, -1])
Y3 = np.array([0, 1, 2, 0, 1, 2, 0, 1])


def _first(f):
    """The main weight expression of a formulation (for a user constraint)."""
    for name in ("v", "w", "W", "beta", "alpha", "s", "coef", "b"):
        var = getattr(f, name, None)
        if isinstance(var, cp.Expression) and not isinstance(var, cp.Parameter):
            return var
    raise AssertionError(type(f).__name__)


INSTANCES = {
    "margin l1 hard": lambda: F.MarginFormulation(X, Y2, "l1"),
    "margin l2 soft": lambda: F.MarginFormulation(X, Y2, "l2", C=2.0),
    "margin l0 slacks": lambda: F.MarginFormulation(X, Y2, slack_penalty="l0", slack_scale=0.5),
    "rescaled": lambda: F.RescaledMarginFormulation(X, Y2, "l2", C=1.0),
    "fsv hard": lambda: F.FSVFormulation(X, Y2),
    "fsv trade-off": lambda: F.FSVFormulation(X, Y2, trade_off=0.3),
    "fsv C": lambda: F.FSVFormulation(X, Y2, C=1.0),
    "weston-watkins": lambda: F.WestonWatkinsFormulation(X, Y3, "l1", C=1.0),
    "one-vs-rest": lambda: F.OneVsRestFormulation(X, Y3, "l2"),
    "lasso": lambda: F.LassoFormulation(X, X[:, 0], alpha=0.2),
    "basis pursuit": lambda: F.BasisPursuitFormulation(X[:3], X[:3, 0]),
    "svm dual": lambda: F.RescaledSVMDual(X, Y2, C=1.0, slack_scale=0.5),
    "l1 metric": lambda: F.L1ConstrainedMetricFormulation(X, Y2, C=1.0),
    "l1 metric cone": lambda: F.L1ConstrainedMetricFormulation(X, Y2, C=1.0, vectorize=True),
    "squared l1": lambda: F.SquaredL1SVMFormulation(X, Y2, C=1.0),
    "metric subproblem": lambda: F.MetricSubproblem(4, 4.0),
    "bias": lambda: F.BiasFormulation(Y2),
    "exact hard": lambda: F.ExactZeroNormFormulation(X, Y2),
    "exact budget ridge": lambda: F.ExactZeroNormFormulation(X, Y2, max_features=2, ridge=0.5),
    "exact multiclass": lambda: F.ExactMulticlassZeroNormFormulation(X, Y3, C=1.0),
}


def _render(expr: str) -> None:
    math_to_image(f"${expr}$", io.BytesIO(), format="png")


def _with_user_constraint(f):
    def first_entry(g):
        x = _first(g)
        return x if x.size == 1 else x[0]

    f.add_constraints(lambda g: [first_entry(g) >= 0.25])
    return f


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_latex_compiles_and_names_user_constraints(name):
    f = _with_user_constraint(INSTANCES[name]())
    statement = build_statement(f)
    lines = statement.latex_lines()
    for line in lines:
        _render(line)  # mathtext raises ValueError on anything it cannot parse
    latex = f.to_latex()
    assert latex.count("{") == latex.count("}")
    assert latex.startswith("\\begin{array}") and latex.endswith("\\end{array}")
    assert latex.isascii(), "pdflatex reads ASCII: Unicode must be spelled as commands"
    # the user's constraint is named, in both renderings
    assert "(user)" in latex and "(user)" in f.describe()
    user = [line for line in lines if "(user)" in line]
    assert len(user) == 1 and "0.25" in user[0]
    assert "\\geq" in user[0] or "\\leq" in user[0]
    assert f._repr_latex_().startswith("$$")


@pytest.mark.skipif(shutil.which("latex") is None, reason="no latex binary on this machine")
@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_latex_compiles_with_latex(name, tmp_path):
    f = _with_user_constraint(INSTANCES[name]())
    doc = (
        "\\documentclass{article}\\usepackage{amsmath,amssymb}\\begin{document}\n"
        f"\\[{f.to_latex()}\\]\n\\end{{document}}\n"
    )
    (tmp_path / "s.tex").write_text(doc)
    run = subprocess.run(
        ["latex", "-interaction=nonstopmode", "s.tex"], cwd=tmp_path, capture_output=True
    )
    assert run.returncode == 0, run.stdout.decode(errors="replace")[-2000:]


def test_every_formulation_class_has_a_statement():
    covered = tuple(cls for cls in statement_of.registry if cls is not object)
    classes = [
        obj
        for _, obj in inspect.getmembers(F, inspect.isclass)
        if issubclass(obj, Formulation) and obj not in (Formulation, ReweightedFormulation)
    ]
    assert classes
    for cls in classes:
        assert issubclass(cls, covered), f"{cls.__name__} has no statement builder"


def test_text_follows_the_instance():
    hard_l1 = F.MarginFormulation(X, Y2, "l1").describe()
    soft_l2 = F.MarginFormulation(X, Y2, "l2", C=2.0).describe()
    l0 = F.MarginFormulation(X, Y2, slack_penalty="l0", slack_scale=0.5).describe()
    assert "|v_j|" in hard_l1 and "v_j²" not in hard_l1
    assert "ξ" not in hard_l1 and "hard margin" in hard_l1
    assert "v_j²" in soft_l2 and "C Σ_i ξ_i" in soft_l2 and "≥ 1 − ξ_i" in soft_l2
    assert "C = 2" in soft_l2
    assert "augmented" in l0 and "u_i" in l0 and "0.5·u_i" in l0
    for text in (hard_l1, soft_l2, l0):
        assert "coef" not in text and "Promote" not in text and "cvxpy problem" not in text
    assert "cvxpy problem:" in F.MarginFormulation(X, Y2).describe(raw=True)
    multi = F.WestonWatkinsFormulation(X, Y3, "l2").describe()
    assert "w_kj²" in multi and "Weston–Watkins" in multi and "ξ" not in multi


def test_statement_follows_weights_and_removed_features():
    f = F.MarginFormulation(X, Y2, "l1")
    assert "currently all 1" in f.describe() and "none removed" in f.describe()
    f.set_weights(np.array([1.0, 2.0, 3.0, 4.0]))
    f.set_active([True, False, True, True])
    text = f.describe()
    assert "currently in [1, 4]" in text and "1 removed" in text


def test_user_constraints_and_terms_use_the_docs_names():
    f = F.MarginFormulation(X, Y2, "l1")
    f.add_constraints(lambda g: [g.v[1] >= 0.05, cp.sum(g.v) <= 3])
    f.add_objective_term(lambda g: 0.1 * cp.norm1(g.v))
    text, latex = f.describe(), f.to_latex()
    assert "0.05 ≤ v[1]   (user)" in text
    assert "v_{1}" in latex and r"\sum v \leq 3" in latex and r"\|v\|_1" in latex
    aug = F.MarginFormulation(X, Y2, slack_penalty="l0").add_constraints(
        lambda g: [g.v[1] >= 0.05, g.u[0] == 0]
    )
    text = aug.describe()
    assert "0.05 ≤ v[1]" in text and "u[0] = 0" in text and "coef" not in text


def test_unrenderable_constraint_falls_back_to_text():
    f = F.MarginFormulation(X, Y2, "l1")
    f.add_constraints(lambda g: [cp.norm2(g.v) <= 2])
    line = constraint_latex(cp.norm2(f.v) <= 2, {"coef": "v"})
    assert line.startswith("\\text{") and line.isascii()
    _render(line)
    assert "(v, 2) ≤ 2   (user)" in f.describe()


def test_exact_statement_reports_mode_and_big_m():
    f = F.ExactZeroNormFormulation(X, Y2)
    text = f.describe()
    assert "Σ_j s_j" in text and "MILP" in text and "hard margin" in text
    assert "M set at solve" in text
    f.solve()
    assert f"M = {f.big_m.value:.4g}" in f.describe()
    budget = F.ExactZeroNormFormulation(X, Y2, max_features=2, ridge=0.5).describe()
    assert "Σ_j s_j ≤ 2" in budget and "MIQP" in budget and "0.5 ‖w‖²" in budget
