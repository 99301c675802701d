"""The mathematical statement of a formulation *instance*, as text and as LaTeX.

:func:`build_statement` reads what an instance is — its penalty (l1 / l2 / l0), its slacks
(none, hinge with ``C``, the augmented l0 slacks), its current weights and removed features,
the user's added constraints and objective terms — and writes the optimisation problem with
the names the documentation uses (``v`` for the original-space weights, ``b``, ``ξ``,
``β``, ``σ``; never the cvxpy variable name ``coef``). :class:`Statement` renders it as
plain text (:meth:`Statement.to_text`, what ``Formulation.describe()`` prints) and LaTeX
(:meth:`Statement.to_latex`, one ``array`` block for notebooks and slides;
:meth:`Statement.latex_lines`, each line alone for renderers without environments such as
matplotlib's mathtext).

User constraints are cvxpy objects: their text is cvxpy's own printout with the variables
renamed; their LaTeX a best-effort translation of simple expressions (indexing, sums, l1
norms, comparisons) and a ``\\text{}`` line otherwise.

The statement of each class of the package is written by a builder in
:mod:`._statement_builders`, registered on :func:`statement_of` when the ``formulations``
package is imported; this module imports no formulation class, so that the base class can
print any instance without importing its subclasses back. A formulation class without a
builder of its own (a user's) is rendered from its cvxpy problem (:func:`problem_statement`):
its objective terms, its constraints and its variables, the data arrays named by the
attributes that hold them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

__all__ = [
    "Statement",
    "build_statement",
    "constraint_latex",
    "constraint_text",
    "problem_statement",
    "text_to_latex",
]


@dataclass
class Statement:
    """An optimisation problem written out for people.

    Attributes
    ----------
    title : str
        The class and what the instance is (e.g. ``"MarginFormulation — l1 step, hard
        margin"``).
    sense : {"minimise", "maximise"}
    variables : tuple of (str, str)
        The optimisation variables, text and LaTeX.
    objective : list of (str, str)
        Terms of the objective, text and LaTeX (summed).
    constraints : list of (str, str)
        One line per constraint family, text and LaTeX.
    user_constraints : list of (str, str)
        The constraints the user added.
    notes : list of str
        What the symbols stand for (plain text; ``\\text{}`` lines in LaTeX).

    Examples
    --------
    >>> s = Statement("demo", "minimise", [("x", "x")], [("|x|", "|x|")], [("x ≥ 1", r"x \\geq 1")])
    >>> print(s.to_text())
    demo
      minimise    |x|
      over        x
      subject to  x ≥ 1
    >>> s.latex_lines()
    ['\\\\min_{x}\\\\; |x|', '\\\\mathrm{s.t.}\\\\; x \\\\geq 1']
    """

    title: str
    sense: str
    variables: list[tuple[str, str]]
    objective: list[tuple[str, str]]
    constraints: list[tuple[str, str]] = field(default_factory=list)
    user_constraints: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def _objective(self, side: int) -> str:
        # side 0: text, 1: LaTeX; a negative term reads "a − b", not "a + −b"
        minus = ("−", "-")[side]
        return " + ".join(t[side] for t in self.objective).replace(f"+ {minus}", f"{minus} ")

    def _constraints(self, side: int, mark: str) -> list[str]:
        return [c[side] for c in self.constraints] + [u[side] + mark for u in self.user_constraints]

    def to_text(self) -> str:
        """The statement as indented plain text (Unicode symbols)."""
        lines = [self.title]
        if self.objective:
            lines.append(f"  {self.sense:<10}  {self._objective(0)}")
        if self.variables:
            lines.append(f"  {'over':<10}  {', '.join(t for t, _ in self.variables)}")
        for k, text in enumerate(self._constraints(0, "   (user)")):
            lines.append(f"  {'subject to' if k == 0 else '':<10}  {text}")
        lines += [f"  {note}" for note in self.notes]
        return "\n".join(lines)

    def _head_latex(self) -> str:
        op = r"\min" if self.sense == "minimise" else r"\max"
        over = r",\,".join(t for _, t in self.variables)
        return rf"{op}_{{{over}}}"

    def latex_lines(self) -> list[str]:
        """Each line of the statement as a standalone math expression (no environment).

        The objective line, then one line per constraint (the user's marked "user"), then
        the notes as ``\\text{}`` lines. Every entry renders with matplotlib's mathtext.
        """
        lines = [rf"{self._head_latex()}\; {self._objective(1)}"] if self.objective else []
        cons = self._constraints(1, r"\quad\text{(user)}")
        lines += [rf"\mathrm{{s.t.}}\; {t}" for t in cons]
        lines += [text_to_latex(note) for note in self.notes]
        return lines

    def to_latex(self) -> str:
        """The statement as one LaTeX ``array`` (math mode; wrap in ``$$ … $$``)."""
        rows = []
        if self.objective:
            rows.append(rf"\displaystyle {self._head_latex()} & {self._objective(1)}")
        for k, line in enumerate(self._constraints(1, r" \quad \text{(user)}")):
            rows.append((r"\text{s.t.}" if k == 0 else "") + rf" & {line}")
        for note in self.notes:
            rows.append(rf"& {text_to_latex(note)}")
        return "\\begin{array}{ll}\n" + " \\\\\n".join(rows) + "\n\\end{array}"


# ---------------------------------------------------------------------------------------------
# user constraints: cvxpy printout → text and best-effort LaTeX
# ---------------------------------------------------------------------------------------------

#: LaTeX's special characters, escaped for ``\\text{}`` (``str.translate`` table).
_LATEX_SPECIAL = str.maketrans(
    {
        "\\": r"\backslash ",
        "_": r"\_",
        "#": r"\#",
        "%": r"\%",
        "&": r"\&",
        "{": r"\{",
        "}": r"\}",
        "$": r"\$",
        "^": r"\^{}",
        "~": r"\~{}",
    }
)
_TEXT_GREEK = {"beta": "β", "sigma": "σ", "xi": "ξ", "alpha": "α"}
_GREEK = {name: "\\" + name for name in _TEXT_GREEK}


def _rename(text: str, names: dict[str, str]) -> str:
    for old, new in names.items():
        # word boundaries only where the name starts/ends with a word character
        left = r"\b" if re.match(r"\w", old) else ""
        right = r"\b" if re.search(r"\w$", old) else ""
        text = re.sub(rf"{left}{re.escape(old)}{right}", lambda _m, new=new: new, text)
    return text


#: Unicode symbols of the text statements and their LaTeX (math mode) spelling.
_UNICODE_LATEX = {
    "ξ": r"\xi",
    "δ": r"\delta",
    "α": r"\alpha",
    "β": r"\beta",
    "σ": r"\sigma",
    "λ": r"\lambda",
    "Φ": r"\Phi",
    "Σ": r"\Sigma",
    "·": r"\cdot",
    "∘": r"\circ",
    "≥": r"\geq",
    "≤": r"\leq",
    "∝": r"\propto",
    "√σ": r"\sqrt{\sigma}",
    "‖": r"\|",
    "∈": r"\in",
    "ℝ": r"\mathbb{R}",
    "−": "-",
    "₀": "_0",
    "²": "^2",
    "ᵀ": r"^\top",
    "→": r"\to",
    "x̂": r"\hat{x}",
    "–": "-",
    "…": r"\dots",
}


#: A symbol of ``_UNICODE_LATEX`` (two-character ones first) and, after a one-character
#: symbol, the subscript that stays a subscript (ξ_i, σ_k).
_SYMBOL = re.compile(
    "|".join(re.escape(s) for s in _UNICODE_LATEX if len(s) == 2)
    + f"|([{''.join(re.escape(s) for s in _UNICODE_LATEX if len(s) == 1)}])"
    + r"(?:_([A-Za-z0-9]+))?"
)


def text_to_latex(text: str) -> str:
    """Plain text with Unicode maths as LaTeX: words in ``\\text{}``, symbols as commands.

    The result compiles with pdflatex (no Unicode left inside ``\\text``) and renders with
    matplotlib's mathtext.

    Examples
    --------
    >>> print(text_to_latex("slack ξ_i = c·y_i"))
    \\text{slack }\\xi_{i}\\text{ = c}\\cdot\\text{y\\_i}
    """
    out, start = [], 0
    for match in _SYMBOL.finditer(text):
        single, sub = match.groups()
        out += [_text_run(text[start : match.start()]), _UNICODE_LATEX[single or match[0]]]
        out.append(f"_{{{sub}}}" if sub else "")
        start = match.end()
    return "".join(out) + _text_run(text[start:])


def _text_run(run: str) -> str:
    # a symbol without a LaTeX spelling here becomes "?": the text stays compilable
    ascii_run = re.sub(r"[^\x00-\x7f]", "?", run).translate(_LATEX_SPECIAL)
    return rf"\text{{{ascii_run}}}" if run else ""


def _tidy_numbers(text: str) -> str:
    return re.sub(r"(?<![\w.])(-?\d+)\.0\b", r"\1", text)


def constraint_text(item, names: dict[str, str] | None = None) -> str:
    """cvxpy's printout of a constraint or expression, variables renamed, ≤ ≥ = symbols.

    Examples
    --------
    >>> import cvxpy as cp
    >>> coef = cp.Variable(3, name="coef")
    >>> constraint_text(coef[1] >= 0.5, {"coef": "v"})
    '0.5 ≤ v[1]'
    """
    text = _tidy_numbers(_rename(str(item), {**_TEXT_GREEK, **(names or {})}))
    for old, new in ((" <= ", " ≤ "), (" >= ", " ≥ "), (" == ", " = ")):
        text = text.replace(old, new)
    return text


#: cvxpy's comparison and product signs in LaTeX.
_LATEX_SIGNS = {"<=": r"\leq", ">=": r"\geq", "==": "=", "@": r"\cdot", "*": r"\cdot"}
_SIMPLE = re.compile(r"^[\w\s.,:\[\]()+\-*@<>=|\\{}^]*$")


def constraint_latex(item, names: dict[str, str] | None = None) -> str:
    """A best-effort LaTeX rendering of a cvxpy constraint or expression.

    Indexing becomes subscripts, ``Sum``/``norm1`` become ``\\sum``/``\\|·\\|_1``, the
    comparison signs ``\\leq``/``\\geq``/``=``; anything else (other atoms) is set as
    ``\\text{…}`` with LaTeX's special characters escaped, so the result always compiles.

    Examples
    --------
    >>> import cvxpy as cp
    >>> coef = cp.Variable(3, name="coef")
    >>> constraint_latex(coef[1] >= 0.5, {"coef": "v"})
    '0.5 \\\\leq v_{1}'
    >>> constraint_latex(cp.sum(coef) <= 2, {"coef": "v"})
    '\\\\sum v \\\\leq 2'
    """
    latex_names = {k: _GREEK.get(v, v) for k, v in (names or {}).items()}
    # Rename first: the variables may be expressions (v = the split variables under the
    # active mask) whose printout would hide the atoms matched below.
    text = _rename(_tidy_numbers(str(item)), latex_names)
    text = re.sub(r"Sum\(([\w\[\]:, ]+?), None, False\)", r"\\sum \1", text)
    text = re.sub(r"norm1\(([\w\[\]:, ]+?)\)", r"\\|\1\\|_1", text)
    if re.search(r"[A-Za-z_]\w*\(", text) or not _SIMPLE.match(text):
        return text_to_latex(constraint_text(item, names))

    def index(match):
        inner = match.group(2).replace(" ", "").replace(",", r",\,")
        return f"{match.group(1)}_{{{inner}}}"

    text = _rename(text, {**latex_names, **_GREEK})
    text = re.sub(r"\b([A-Za-z]\w*)\[([^\]]+)\]", index, text)
    # multi-letter identifiers that are not commands: upright
    text = re.sub(r"(?<![\\\w])([A-Za-z]{2,}\w*)", r"\\mathrm{\1}", text)
    text = re.sub(r"<=|>=|==|[@*]", lambda sign: _LATEX_SIGNS[sign[0]], text)
    return re.sub(r"\s+", " ", text).strip()


def _user_lines(formulation, specs, what: str, names) -> list[tuple[str, str]]:
    items = formulation._resolve(specs, what)
    return [(constraint_text(c, names), constraint_latex(c, names)) for c in items]


# ---------------------------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------------------------


@functools.singledispatch
def statement_of(formulation) -> Statement:
    """The statement of a formulation's own problem (without the user's additions).

    Dispatches on the class (the most specific registered base wins): each formulation class
    of the package has a builder registered by :mod:`._statement_builders`. A class without
    one (a user's) is rendered from its cvxpy problem by :func:`problem_statement`.
    """
    return problem_statement(formulation)


@functools.singledispatch
def user_names(formulation) -> dict[str, str]:
    """How cvxpy's variable names print in the statement (the docs' names; default: as is)."""
    return {}


def build_statement(formulation) -> Statement:
    """The :class:`Statement` of a formulation instance (any class of this package).

    Other subclasses of :class:`~zeronorm_opt.formulations.base.Formulation` (a user's) are
    rendered from their cvxpy problem (:func:`problem_statement`).

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt.formulations import MarginFormulation
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> f = MarginFormulation(X, [1, 1, -1, -1], penalty="l2", C=1.0)
    >>> print(build_statement(f).to_text())
    MarginFormulation — l2 step, soft margin (C = 1)
      minimise    ½ Σ_j c_j v_j² + C Σ_i ξ_i
      over        v ∈ ℝ^2, b ∈ ℝ, ξ ∈ ℝ^4
      subject to  y_i (v·x_i + b) ≥ 1 − ξ_i,  i = 1..4
                  ξ_i ≥ 0
                  v_j = 0 for the removed features j (none removed)
      c = the weights Parameter (currently all 1: the plain l2 norm)
    """
    statement = statement_of(formulation)
    names = user_names(formulation)
    f = formulation
    statement.user_constraints = _user_lines(f, f._user_constraints, "constraint", names)
    statement.objective = statement.objective + _user_lines(
        f, f._user_objective, "objective term", names
    )
    return statement


def _current(formulation, attribute: str, parameter: str):
    """``(values, n_features)`` of a public attribute, else of the Parameter named
    ``parameter`` (an attribute or an entry of ``parameters``), so that a formulation that
    stores its penalty elsewhere still gets a statement; None when neither holds values."""
    values = getattr(formulation, attribute, None)
    if values is None:
        param = getattr(formulation, parameter, None) or formulation.parameters.get(parameter)
        values = getattr(param, "value", None)
    if values is None:
        return None
    values = np.asarray(values, dtype=float)
    return values, getattr(formulation, "n_features", values.size)


def weights_note(formulation, kind: str) -> str:
    """What the weights Parameter currently holds (all 1: the plain norm), read through the
    public ``weights`` property or the ``"weights"`` Parameter."""
    current = _current(formulation, "weights", "weights")
    if current is None:
        return "c = the weights Parameter"
    weights, n_feat = current
    if np.allclose(weights[:n_feat], 1.0):
        state = f"currently all 1: the plain {kind} norm"
    else:
        state = f"currently in [{weights.min():.3g}, {weights.max():.3g}]"
    return f"c = the weights Parameter ({state})"


def removed_note(formulation) -> str:
    """How many features the active set (0 = removed) currently removes, read through the
    public ``active_mask`` of a reweighted formulation, else an ``active`` Parameter."""
    current = _current(formulation, "active_mask", "active")
    if current is None:
        return "none removed"
    active, n_feat = current
    removed = int(np.sum(active[:n_feat] == 0))
    return "none removed" if removed == 0 else f"{removed} removed"


# ---------------------------------------------------------------------------------------------
# any formulation: rendered from its cvxpy problem
# ---------------------------------------------------------------------------------------------


def _data_names(formulation) -> list[tuple[str, object]]:
    """The formulation's data arrays (public attributes holding arrays or sparse matrices)."""
    return [
        (name, value)
        for name, value in vars(formulation).items()
        if not name.startswith("_") and (isinstance(value, np.ndarray) or sp.issparse(value))
    ]


def _same_data(value, data) -> bool:
    if np.shape(value) != np.shape(data):  # before densifying a sparse matrix
        return False
    value, data = (a.toarray() if sp.issparse(a) else np.asarray(a) for a in (value, data))
    return bool(np.array_equal(value, data))


def _printed(item, data, names) -> str:
    """cvxpy's printout of ``item`` with its data arrays named (``X``, ``y``; a shape when no
    attribute holds them) and broadcasts (``Promote``) and sums written plainly."""
    text = str(item)
    for expr, symbol in names.items():  # the coefficients' expression, before any tidying
        text = text.replace(expr, symbol)
    for const in item.constants():
        if const.size <= 1:
            continue
        name = next((n for n, d in data if _same_data(const.value, d)), None)
        shape = "×".join(str(k) for k in const.shape)
        text = text.replace(str(const), name or f"[{shape} array]")
    text = re.sub(r"Promote\(([^(),]+), \([^)]*\)\)", r"\1", text)
    flat = r"((?:[^()]|\([^()]*\))*)"  # an argument with at most one level of brackets
    text = re.sub(rf"Sum\({flat}, None, False\)", r"sum(\1)", text)
    text = re.sub(rf"quad_over_lin\({flat}, 1(?:\.0)?, None, False\)", r"sum_squares(\1)", text)
    return text.replace("+ -", "- ")


def variable_line(name: str, *shape: int) -> tuple[str, str]:
    """``name ∈ ℝ^shape``, text and LaTeX (Greek names as symbols: ``"xi"`` → ``ξ``)."""
    text = constraint_text(name)
    upright = rf"\mathrm{{{name.translate(_LATEX_SPECIAL)}}}"
    latex = _GREEK.get(name, name if len(name) == 1 else upright)
    if not shape:
        return f"{text} ∈ ℝ", rf"{latex} \in \mathbb{{R}}"
    dims = "×".join(str(k) for k in shape)
    dims_latex = r" \times ".join(str(k) for k in shape)
    return f"{text} ∈ ℝ^{dims}", rf"{latex} \in \mathbb{{R}}^{{{dims_latex}}}"


#: The sums in front of a coefficient's penalty (text, LaTeX).
SUM_J = ("Σ_j c_j ", r"\sum_{j} c_j ")


def penalty_line(penalty: str, sums, term, scale: float | None = None) -> tuple[str, str]:
    """``s Σ c |x|`` (l1; ``s = 1`` by default) or ``s Σ c x²`` (l2; ``s = ½``), text and
    LaTeX, from the (text, LaTeX) pairs of the sums in front of the term and of the term."""
    scale = (1.0 if penalty == "l1" else 0.5) if scale is None else scale
    head_t = "" if scale == 1 else ("½ " if scale == 0.5 else f"{scale:g} ")
    head_l = "" if scale == 1 else (r"\frac{1}{2} " if scale == 0.5 else f"{scale:g} ")
    if penalty == "l1":
        return f"{head_t}{sums[0]}|{term[0]}|", rf"{head_l}{sums[1]}|{term[1]}|"
    return f"{head_t}{sums[0]}{term[0]}²", rf"{head_l}{sums[1]}{term[1]}^2"


def problem_statement(formulation) -> Statement:
    """The statement of any formulation, rendered from its cvxpy problem.

    For a formulation class without a builder of its own (a user's): the objective terms and
    constraints it states (for a
    :class:`~zeronorm_opt.formulations.ReweightedFormulation`, the penalty written out,
    then :meth:`~zeronorm_opt.formulations.ReweightedFormulation.loss_terms` and
    :meth:`~zeronorm_opt.formulations.ReweightedFormulation.loss_constraints`), as cvxpy
    prints them, with the coefficients under the attribute name the class gives them and the
    data arrays named by the attributes that hold them; the variables of the problem; the
    class ``statement`` text, if any, as notes. LaTeX is the best-effort translation of
    :func:`constraint_latex`.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from zeronorm_opt.formulations import ReweightedFormulation
    >>> class NonNegativeFit(ReweightedFormulation):
    ...     def __init__(self, A, t):
    ...         super().__init__()
    ...         self.A, self.t = np.asarray(A, float), np.asarray(t, float)
    ...         self.x = self.init_penalty(self.A.shape[1], "l2").coef
    ...     def loss_terms(self):
    ...         return [cp.sum_squares(self.A @ self.x - self.t)]
    ...     def loss_constraints(self):
    ...         return [self.x >= 0]
    >>> print(problem_statement(NonNegativeFit(np.eye(2), [1.0, -1.0])).to_text())
    NonNegativeFit
      minimise    ½ Σ_j c_j x_j² + sum_squares(A @ x - t)
      over        x ∈ ℝ^2
      subject to  0 ≤ x
                  x_j = 0 for the removed coefficients j (none removed)
      c = the weights Parameter (currently all 1: the plain l2 norm)
    """
    f = formulation
    reweighted = getattr(f, "reweighted", None)
    names: dict[str, str] = {}
    variables, objective, tail, notes = [], [], [], []
    hidden: set[int] = set()
    if reweighted is not None:
        symbol = next(
            (n for n, v in vars(f).items() if v is f.coef and n != "coef" and n[0] != "_"), "x"
        )
        # the coefficients under the class's name, the longer (indexed) printout first
        by_length = sorted({str(f.coef), str(reweighted.loss_coef)}, key=len, reverse=True)
        names = dict.fromkeys(by_length, symbol)
        sym_l = _GREEK.get(symbol, symbol)
        sums, term = SUM_J, (f"{symbol}_j", f"{sym_l}_j")
        if reweighted.group_size is not None:  # Σ_j c_j Σ_k |x_kj|: one weight per group j
            sums = (SUM_J[0] + "Σ_k ", SUM_J[1] + r"\sum_k ")
            term = (f"{symbol}_kj", f"{sym_l}_{{kj}}")
        objective.append(penalty_line(reweighted.penalty, sums, term, reweighted.scale))
        own_terms, own_constraints = f.loss_terms(), f.loss_constraints()
        hidden = {id(v) for v in reweighted.variables.values()}
        variables.append(variable_line(symbol, *f.coef.shape))
        notes = [weights_note(f, reweighted.penalty)]
        removed = removed_note(f)
        tail.append(
            (
                f"{symbol}_j = 0 for the removed coefficients j ({removed})",
                rf"{sym_l}_j = 0 \text{{ for the removed coefficients }} j \text{{ ({removed})}}",
            )
        )
    else:
        own_terms, own_constraints = f._objective_terms(), f._base_constraints()
    data = _data_names(f)

    def line(item):
        printed = _printed(item, data, names)
        return constraint_text(printed), constraint_latex(printed)

    # The variables of what the class states (not f.problem: printing builds no problem), in
    # order of appearance (a dict keeps the first).
    stated = {id(v): v for item in [*own_terms, *own_constraints] for v in item.variables()}
    variables += [variable_line(v.name(), *v.shape) for k, v in stated.items() if k not in hidden]
    own = [ln.strip() for ln in str(getattr(f, "statement", "")).strip().splitlines()]
    return Statement(
        type(f).__name__,
        "minimise",
        variables,
        objective + [line(t) for t in own_terms],
        [line(c) for c in own_constraints] + tail,
        notes=notes + own,
    )
