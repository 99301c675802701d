"""The papers' figures beside ours: one place per experiment, read by the console table, the
report's summary table and the plots; console and report state and use the same spread."""

from __future__ import annotations

import numpy as np
import pytest

from zeronorm_opt.experiments import report as report_module
from zeronorm_opt.experiments.alignment_polynomials import EXPERIMENT as E7
from zeronorm_opt.experiments.greedy_rls_scaling import EXPERIMENT as E9
from zeronorm_opt.experiments.greedy_rls_scaling import E9Config, plot_e9, summarise_e9
from zeronorm_opt.experiments.linear_toy import EXPERIMENT as E1
from zeronorm_opt.experiments.linear_toy import E1Config, plot_e1, summarise_e1
from zeronorm_opt.experiments.nonlinear_52d import EXPERIMENT as E6
from zeronorm_opt.experiments.nonlinear_52d import E6Config, plot_e6, summarise_e6
from zeronorm_opt.experiments.report import format_mean_se, summary_table

#: The published figures, typed in from the papers (Català & Martin Table 4 and Table 5 at
#: sparseness 0.97; Pahikkala et al. §4.1, "a bit less than twelve minutes" at m = 50 000).
TABLE_4 = {50: (99.4, 6.38, 38.6), 100: (100.0, 2.40, 95.9), 150: (100.0, 2.00, 100.0)}
TABLE_5_SP097 = {25: (90.87, 17.42), 100: (95.56, 14.50), 300: (100.00, 10.06)}


@pytest.fixture
def figures(monkeypatch):
    """The matplotlib figures the report's plot functions draw, kept open for inspection."""
    drawn = []

    def keep(fig, plt, path):
        drawn.append(fig)
        return path

    monkeypatch.setattr(report_module, "_save", keep)
    yield drawn
    import matplotlib.pyplot as plt

    for fig in drawn:
        plt.close(fig)


def _series(ax):
    """Legend label → the data line of each series (an error-bar container) of the axes."""
    return {c.get_label(): c.lines[0] for c in ax.containers}


def _paper_lines(ax):
    """The (x, y) data of the axes' series whose legend label says "paper"."""
    return {
        label: (list(line.get_xdata()), list(line.get_ydata()))
        for label, line in _series(ax).items()
        if "paper" in label
    }


# ---------------------------------------------------------------------------------------------
# One place: the experiment's definition
# ---------------------------------------------------------------------------------------------
def test_published_figures_live_in_the_experiments():
    table_4 = {f.setting["n_train"]: f for f in E6.paper}
    assert set(table_4) == set(TABLE_4)
    for n, (recall, kept, exact) in TABLE_4.items():
        assert table_4[n].method == "dFSA" and "Table 4" in table_4[n].ref
        assert table_4[n].values == {"recall": recall, "n_kept": kept, "exact": exact}
    sp097 = {f.setting["n_train"]: f for f in E7.paper if f.setting["target"] == "sp0.97"}
    for n, (recall, kept) in TABLE_5_SP097.items():
        assert sp097[n].values == {"recall": recall, "n_kept": kept}
    assert len(E7.paper) == 35  # 5 targets × 7 sizes of Table 5
    (e9,) = E9.paper
    assert e9.setting == {"m": 50_000} and e9.values == {"seconds": 720} and e9.upper_bound
    # every figure names a metric the experiment's tables and plots know
    for experiment in (E6, E7, E9):
        metrics = {name for name, _, _ in experiment.metrics}
        assert all(set(f.values) <= metrics for f in experiment.paper)


def test_console_and_report_print_the_same_paper_figure():
    records = [
        {"run": r, "n_train": 50, "method": "dFSA", "recall": 1.0, "n_kept": 3, "kept": [0, 1, 5],
         "exact": False, "error": 0.1 + 0.01 * r, "status": "ok"}
        for r in range(3)
    ]  # fmt: skip
    config = E6Config(train_sizes=[50], n_runs=3, methods=["dFSA"])
    console = summarise_e6(records, config)
    row = next(line for line in console.splitlines() if line.startswith("dFSA"))
    assert row.rstrip().endswith("99.4 / 6.38 / 38.6")
    table = summary_table(E6, records, config)
    row = next(line for line in table.splitlines() if line.startswith("| dFSA | 50 |"))
    assert "recall % 99.4 / features kept 6.38 / exact {x1, x2} % 38.6" in row


# ---------------------------------------------------------------------------------------------
# Same spread, stated
# ---------------------------------------------------------------------------------------------
def test_console_and_report_use_the_same_spread_and_say_which():
    errors = [0.1, 0.2, 0.6]  # SD (ddof 0) 21.6 %, SE 15.3 %: the two spreads differ
    records = [
        {"trial": t, "n_train": 10, "method": "SVM", "error": e, "selected": None,
         "relevant_pair": None, "status": "ok"}
        for t, e in enumerate(errors)
    ]  # fmt: skip
    config = E1Config(train_sizes=[10], n_trials=3, methods=["SVM"])
    se = np.std(errors, ddof=1) / np.sqrt(3)
    cell = f"{100 * np.mean(errors):.2f} ± {100 * se:.2f}"
    assert format_mean_se(errors, 100) == cell
    console = summarise_e1(records, config)
    report = summary_table(E1, records, config)
    assert cell in console and cell in report
    for text in (console, report):
        assert "standard error of the mean" in text


def test_e9_console_is_mean_and_standard_error():
    records = [
        {"trial": t, "m": 500, "method": "greedy-rls", "seconds": s, "ns_per_kmn": 1.0,
         "n_informative_selected": 50}
        for t, s in enumerate([1.0, 2.0, 6.0])
    ]  # fmt: skip
    config = E9Config(train_sizes=[500], n_trials=3, methods=["greedy-rls"])
    console = summarise_e9(records, config)
    assert format_mean_se([1.0, 2.0, 6.0]) in console  # 3.00 ± 1.53, not the median 2.0
    assert "standard error" in console and "< 720 s" in console
    assert format_mean_se([1.0, 2.0, 6.0]) in summary_table(E9, records, config)


# ---------------------------------------------------------------------------------------------
# Plots: the paper's markers beside ours
# ---------------------------------------------------------------------------------------------
def _e6_records():
    rng = np.random.default_rng(0)
    out = []
    for n in (50, 100, 150):
        for r in range(4):
            kept = [0, 1] + ([7] if r == 0 and n == 50 else [])
            out.append({"run": r, "n_train": n, "method": "dFSA", "recall": 1.0, "kept": kept,
                        "n_kept": len(kept), "exact": len(kept) == 2,
                        "error": float(rng.uniform(0, 0.1)), "status": "ok"})  # fmt: skip
    return out


def test_e6_plot_draws_table_4_beside_ours(figures, tmp_path):
    plot_e6(_e6_records(), E6Config(train_sizes=[50, 100, 150], n_runs=4), tmp_path)
    table = figures[0]
    recall, kept, exact = table.axes
    for ax, column in ((recall, 0), (kept, 1), (exact, 2)):
        lines = _paper_lines(ax)
        assert len(lines) == 1, ax.get_ylabel()
        (label, (xs, ys)), = lines.items()  # fmt: skip
        assert "Table 4" in label
        assert xs == [50, 100, 150]
        assert ys == pytest.approx([TABLE_4[n][column] for n in xs])
        assert "dFSA (ours)" in _series(ax)
    assert list(_series(kept)["dFSA (ours)"].get_ydata()) == pytest.approx([2.25, 2.0, 2.0])


def test_e9_plot_marks_the_papers_upper_bound(figures, tmp_path):
    records = [
        {"trial": 0, "m": m, "method": "greedy-rls", "seconds": m / 1000, "status": "ok"}
        for m in (500, 5000, 50_000)
    ]
    plot_e9(records, E9Config(train_sizes=[500, 5000, 50_000]), tmp_path)
    (ax,) = figures[0].axes
    (label, (xs, ys)), = _paper_lines(ax).items()  # fmt: skip
    assert xs == [50_000] and ys == [720] and "upper bound" in label
    assert _series(ax)[label].get_marker() == "v"  # pointing down: an upper bound


def test_e1_plot_says_why_it_has_no_paper_markers(figures, tmp_path):
    records = [
        {"trial": t, "n_train": n, "method": "l1-AROM", "error": 0.1, "selected": [0, 3],
         "relevant_pair": True, "status": "ok"}
        for n in (10, 20) for t in range(2)
    ]  # fmt: skip
    plot_e1(records, E1Config(train_sizes=[10, 20], n_trials=2), tmp_path)
    curves = figures[0]
    assert not _paper_lines(curves.axes[0])
    assert any("'123'" in text.get_text() for text in curves.texts)


def test_a_papers_standard_error_is_drawn_as_its_error_bar(figures, tmp_path):
    from zeronorm_opt.experiments.pipeline import PaperFigure
    from zeronorm_opt.experiments.report import plot_panels

    records = [{"method": "A", "n": n, "error": 0.1, "status": "ok"} for n in (10, 20)]
    paper = [PaperFigure("Table 9", "A", {"n": 20}, {"error": 12.0}, spread={"error": 1.5})]
    plot_panels(records, "n", [("error", "error %", 100.0)], tmp_path / "x.png", title="t",
                xlabel="n", paper=paper)  # fmt: skip
    (ax,) = figures[0].axes
    container = next(c for c in ax.containers if "paper" in c.get_label())
    (segment,) = container.lines[2][0].get_segments()
    assert segment[:, 0].tolist() == [20, 20] and sorted(segment[:, 1]) == [10.5, 13.5]
