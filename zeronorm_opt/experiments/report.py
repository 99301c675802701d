"""Reports of finished (or partial) results files: tables beside the paper's figures, and plots.

:func:`report` reads a JSON-lines results file, rebuilds each experiment's configuration from
the settings stored in its records, prints the experiment's own table and a summary table —
every metric as **mean ± standard error of the mean** (sample standard deviation / √n) over
the trials, the spread the console table of ``zeronorm-opt run`` prints too (both format their
cells with :func:`format_mean_se`) — with the paper's figure beside it where the paper prints
one (:attr:`Experiment.paper <zeronorm_opt.experiments.pipeline.Experiment>`), and draws the
experiment's plots with matplotlib (Agg backend, PNG files), the paper's figures as markers
labelled "paper" beside ours.
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..exceptions import InputError
from .pipeline import RECORD_KEY, Experiment, PaperFigure
from .results_store import ResultsStore

#: How every table of the package states its spread (console and report alike).
SPREAD_NOTE = "mean ± standard error of the mean (sample standard deviation / √n)"


# ---------------------------------------------------------------------------------------------
# Summary statistics
# ---------------------------------------------------------------------------------------------
def mean_se(values: Sequence[float]) -> tuple[float, float, int]:
    """Mean, standard error of the mean (``std(ddof=1) / √n``; nan for n < 2) and n.

    Examples
    --------
    >>> mean_se([1.0, 2.0, 3.0])
    (2.0, 0.5773502691896258, 3)
    """
    x = np.asarray([v for v in values if v is not None], dtype=float)
    if x.size == 0:
        return math.nan, math.nan, 0
    se = float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else math.nan
    return float(x.mean()), se, int(x.size)


def _cell(mean: float, se: float, scale: float, digits: int = 2) -> str:
    if math.isnan(mean):
        return "n/a"
    if math.isnan(se):
        return f"{scale * mean:.{digits}f}"
    return f"{scale * mean:.{digits}f} ± {scale * se:.{digits}f}"


def format_mean_se(values: Sequence[float], scale: float = 1.0, digits: int = 2) -> str:
    """``"mean ± SE"`` of ``values`` times ``scale`` (the mean alone for one value, ``n/a``
    for none): the cell of every table, console and report alike (see :data:`SPREAD_NOTE`).

    Examples
    --------
    >>> format_mean_se([0.2, 0.3], scale=100)
    '25.00 ± 5.00'
    >>> format_mean_se([0.2], scale=100, digits=1), format_mean_se([])
    ('20.0', 'n/a')
    """
    mean, se, _ = mean_se(values)
    return _cell(mean, se, scale, digits)


def mean_se_cell(records: Sequence[dict], field: str, scale: float = 1.0) -> str:
    """:func:`format_mean_se` of ``field`` over ``records``, followed by ``(k fail)`` when it is
    None in ``k`` of them (failed records).

    Examples
    --------
    >>> mean_se_cell([{"error": 0.2}, {"error": 0.3}, {"error": None}], "error", 100)
    '25.00 ± 5.00 (1 fail)'
    """
    values = [r[field] for r in records if r[field] is not None]
    failed = len(records) - len(values)
    return format_mean_se(values, scale) + (f" ({failed} fail)" if failed else "")


def summary_rows(experiment: Experiment, records: list[dict], config) -> list[dict]:
    """One row per (method, setting): n and mean ± SE of each metric of the experiment."""
    tidy = experiment.tidy(records, config) if experiment.tidy else records
    fields = experiment.group_fields
    groups: dict[tuple, list[dict]] = {}
    for r in tidy:
        if r.get("status", "ok") != "ok":
            continue
        groups.setdefault((r["method"], *(r.get(f) for f in fields)), []).append(r)
    rows = []
    for key, rs in groups.items():
        row = {"method": key[0], **dict(zip(fields, key[1:], strict=True)), "n": len(rs)}
        for name, _label, _scale in experiment.metrics:
            vals = [float(r[name]) for r in rs if isinstance(r.get(name), int | float | bool)]
            row[name] = mean_se(vals)
        rows.append(row)
    return rows


def paper_figure(experiment: Experiment, method: str, setting: dict) -> PaperFigure | None:
    """The paper's figure for ``method`` at ``setting`` (None where the paper prints none)."""
    return next((f for f in experiment.paper if f.matches(method, setting)), None)


def paper_text(experiment: Experiment, figure: PaperFigure) -> str:
    """A paper's figure as the report prints it: ``"recall % 99.4 / features kept 6.38"``."""
    labels = {name: label for name, label, _ in experiment.metrics}
    cells = []
    for name, value in figure.values.items():
        text = f"{labels.get(name, name)} {'< ' if figure.upper_bound else ''}{value:g}"
        if name in figure.spread:
            text += f" ± {figure.spread[name]:g}"
        cells.append(text)
    return " / ".join(cells)


def summary_table(experiment: Experiment, records: list[dict], config, fmt: str = "md") -> str:
    """The summary table (markdown or HTML) with the paper's column.

    Examples
    --------
    >>> from zeronorm_opt.experiments.linear_toy import EXPERIMENT, E1Config
    >>> recs = [{"method": "SVM", "n_train": 10, "trial": t, "error": e, "status": "ok"}
    ...         for t, e in enumerate([0.2, 0.3])]
    >>> print(summary_table(EXPERIMENT, recs, E1Config()).splitlines()[2])
    | SVM | 10 | 2 | 25.00 ± 5.00 | - | - |
    """
    fields = experiment.group_fields
    labels = [label for _, label, _ in experiment.metrics]
    head = ["method", *fields, "n", *labels, "paper", "paper reference"]
    body = []
    for row in summary_rows(experiment, records, config):
        cells = [str(row["method"]), *(str(row[f]) for f in fields), str(row["n"])]
        cells += [_cell(*row[name][:2], scale) for name, _, scale in experiment.metrics]
        figure = paper_figure(experiment, row["method"], {f: row[f] for f in fields})
        cells += [paper_text(experiment, figure), figure.ref] if figure else ["-", "-"]
        body.append(cells)
    note = (
        f"{SPREAD_NOTE} over the n trials that succeeded; paper: the figure the source prints "
        "(± its standard error where it gives one)."
    )
    if fmt == "html":
        th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        trs = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"
            for cells in body
        )
        return f"<table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>\n<p>{note}</p>"
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join([*lines, "", note])


# ---------------------------------------------------------------------------------------------
# Plots (matplotlib, Agg)
# ---------------------------------------------------------------------------------------------
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def paper_points(
    figures: Sequence[PaperFigure], metric: str, x_field: str, name=None
) -> list[tuple]:
    """The paper's figures of ``metric`` as plot points ``(curve, x, value, spread, ref,
    upper_bound)``; ``name(figure)`` names the curve a point belongs to (default: the method).
    """
    name = name or (lambda f: f.method)
    return [
        (name(f), f.setting[x_field], f.values[metric], f.spread.get(metric), f.ref, f.upper_bound)
        for f in figures
        if metric in f.values and x_field in f.setting
    ]


def _draw_curves(ax, records, x_field, metric, by, scale, paper) -> None:
    """Ours (lines, mean ± SE) and the paper's points (markers ± their spread) on ``ax``."""
    colours = {}
    for name in dict.fromkeys(r[by] for r in records):
        ok = [r for r in records if r[by] == name and r.get("status", "ok") == "ok"]
        xs = sorted({r[x_field] for r in ok if r.get(x_field) is not None})
        stats = [mean_se([r.get(metric) for r in ok if r[x_field] == x]) for x in xs]
        means = np.array([scale * s[0] for s in stats])
        ses = np.nan_to_num(np.array([scale * s[1] for s in stats]))
        if not np.isfinite(means).any():
            continue
        line = ax.errorbar(xs, means, yerr=ses, marker="o", capsize=3, label=f"{name} (ours)")
        colours[name] = line.lines[0].get_color()
    for name in dict.fromkeys(p[0] for p in paper):
        pts = [p for p in paper if p[0] == name]
        bound = pts[0][5]
        ax.errorbar(
            [p[1] for p in pts], [p[2] for p in pts],
            yerr=[p[3] or 0.0 for p in pts] if any(p[3] for p in pts) else None,
            ls="none", marker="v" if bound else "D", ms=7, mfc="none", mew=1.6, capsize=4,
            color=colours.get(name, "k"),
            label=f"{name} (paper{', upper bound' if bound else ''}: {pts[0][4]})",
        )  # fmt: skip


#: The panel of the test error in percent (:func:`plot_panels`).
ERROR_PANEL = ("error", "test error %", 100.0)


def plot_panels(
    records: list[dict],
    x_field: str,
    panels: Sequence[tuple[str, str, float]],
    path: Path,
    *,
    title: str,
    xlabel: str,
    by: str = "method",
    log: bool | str = False,
    paper: Sequence[PaperFigure] = (),
    paper_name=None,
    note: str = "",
) -> Path:
    """One panel per ``(metric, ylabel, scale)``: ours as mean ± standard error against
    ``x_field``, one line per ``by`` value, and the paper's figures of that metric as hollow
    markers (± the paper's standard error where it prints one) labelled "paper".

    ``log``: True for log–log axes, ``"x"`` for a logarithmic x axis only; ``paper_name``:
    see :func:`paper_points`; ``note``: a line under the panels (e.g. why the paper's figures are
    missing).
    """
    plt = _pyplot()
    width = 6.4 if len(panels) == 1 else 4.8 * len(panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(width, 4.4), squeeze=False)
    for ax, (metric, ylabel, scale) in zip(axes[0], panels, strict=True):
        points = paper_points(paper, metric, x_field, paper_name)
        _draw_curves(ax, records, x_field, metric, by, scale, points)
        if log:
            ax.set_xscale("log")
        if log is True:
            ax.set_yscale("log")
        ax.set(xlabel=xlabel, ylabel=f"{ylabel} (ours: mean ± SE)")
        ax.grid(True, alpha=0.3, which="both" if log else "major")
        ax.legend(fontsize="x-small")
    fig.suptitle(title)
    if note:
        lines = textwrap.wrap(note, int(14 * width))
        fig.text(0.5, 0.01, "\n".join(lines), ha="center", va="bottom", fontsize="small",
                 style="italic")  # fmt: skip
        fig.tight_layout(rect=(0, 0.05 * len(lines), 1, 1))
    return _save(fig, plt, path)


def plot_selection_frequency(
    records: list[dict], field: str, n_features: int, path: Path, *, title: str, first: int = 0
) -> Path:
    """Fraction of the trials in which each feature is selected, one bar group per method.

    ``first`` > 0 shows only the first ``first`` features and one bar for all the others.
    """
    plt = _pyplot()
    methods = [m for m in dict.fromkeys(r["method"] for r in records)
               if any(r.get(field) for r in records if r["method"] == m)]  # fmt: skip
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    width = 0.8 / max(1, len(methods))
    for k, method in enumerate(methods):
        sel = [r[field] for r in records if r["method"] == method and r.get(field) is not None]
        counts = np.bincount([j for s in sel for j in s], minlength=n_features)
        freq = counts / max(1, len(sel))
        if first:
            freq = np.append(freq[:first], freq[first:].sum() / max(1, n_features - first))
        x = np.arange(freq.size) + k * width
        ax.bar(x, freq, width=width, label=method)
    n = first + 1 if first else n_features
    ticks = [f"x{j + 1}" for j in range(n - 1 if first else n)] + (["rest (mean)"] if first else [])
    if n <= 60:  # a tick under the middle of each group of bars
        centre = (len(methods) - 1) * width / 2
        ax.set_xticks(np.arange(n) + centre, ticks, rotation=90, fontsize="small")
    ax.set(title=title, xlabel="feature", ylabel="fraction of trials selected", ylim=(0, 1.05))
    ax.legend(fontsize="small")
    return _save(fig, plt, path)


def plot_bars(values: dict[str, np.ndarray], path: Path, *, title: str, ylabel: str) -> Path:
    """Mean ± SE of vectors (e.g. scale factors) per label, as bars over their index."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    width = 0.8 / max(1, len(values))
    for k, (label, vectors) in enumerate(values.items()):
        V = np.asarray(vectors, dtype=float)
        mean = V.mean(axis=0)
        se = V.std(axis=0, ddof=1) / np.sqrt(V.shape[0]) if V.shape[0] > 1 else 0 * mean
        ax.bar(np.arange(1, mean.size + 1) + k * width, mean, width=width, yerr=se, label=label)
    ax.set(title=title, xlabel="feature k (x_k)", ylabel=f"{ylabel} (mean ± SE)")
    ax.legend(fontsize="small")
    return _save(fig, plt, path)


def _save(fig, plt, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not fig.texts:  # a note under the panels has laid the figure out already
        fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ---------------------------------------------------------------------------------------------
# A results file → report
# ---------------------------------------------------------------------------------------------
def read_results(path) -> tuple[list[dict], list[int]]:
    """Records of a results file and the numbers of its skipped (unreadable) lines."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(2, "No such file", str(path))
    store = ResultsStore(path, key_fields=RECORD_KEY)
    if not store.records:
        raise InputError(f"{path} holds no experiment records.")
    bad = [r for r in store.records if not all(k in r for k in (*RECORD_KEY, "settings"))]
    if bad:
        raise InputError(
            f"{path} is not a results file of zeronorm-opt run (a record lacks "
            f"{[k for k in (*RECORD_KEY, 'settings') if k not in bad[0]]})."
        )
    return store.records, store.skipped_lines


def report(
    path, *, fmt: str = "md", plots=None, experiments: dict[str, Experiment]
) -> tuple[str, list[Path]]:
    """The report of a results file: tables (text) and the paths of the plots written.

    ``experiments`` maps runner names (``"linear_toy"``) to :class:`Experiment` objects (their
    ``paper`` holds the paper's figures).
    """
    from .runner import collect

    records, _ = read_results(path)
    out, written = [], []
    seen = {}
    for r in records:  # the last settings written for each configuration
        seen[(r["experiment"], r.get("runner", ""), r["config"], r["seed"])] = r["settings"]
    for (eid, runner, _fp, seed), settings in seen.items():
        if runner not in experiments:
            raise InputError(f"{path}: records of unknown experiment runner {runner!r}.")
        experiment = experiments[runner]
        try:
            config = experiment.config_class(**settings)
        except (TypeError, ValueError) as exc:  # records of another version of the package
            raise InputError(
                f"{path}: the settings stored with the {eid} records do not fit this version of "
                f"zeronorm_opt ({exc}); rerun the experiment into a new results file."
            ) from None
        flat = collect(experiment, config, records, eid=eid)
        if not flat:
            continue
        heading = f"{eid} (seed {seed}): {len(flat)} records"
        table = experiment.summarise(flat, config)
        if fmt == "html":
            out += [f"<h2>{html.escape(heading)}</h2>", f"<pre>{html.escape(table)}</pre>"]
        else:
            out += [f"## {heading}", "", "```", table, "```", ""]
        out += [summary_table(experiment, flat, config, fmt), ""]
        if plots is not None and experiment.plots is not None:
            folder = Path(plots)
            written += [Path(p) for p in experiment.plots(flat, config, folder)]
    return "\n".join(out), written
