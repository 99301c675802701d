"""The progress line of long fits: each step with the limits that will stop the run."""

import io

import numpy as np

from zeronorm_opt.driver import IterationRecord
from zeronorm_opt.fast.progress import FitProgress


def _record(step: int) -> IterationRecord:
    return IterationRecord(
        step, 10.0 / step, 9 - step, np.zeros(3), np.ones(3), "optimal", "X", 0.0
    )


def test_every_step_is_a_line_with_its_limits():
    out = io.StringIO()
    progress = FitProgress(after=0.0, stream=out, max_iter=20, time_limit=30.0)
    for step in (1, 2, 3):
        progress(_record(step))
    progress.close()
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == ["step 1/20", "step 2/20", "step 3/20"]
    assert all(line.endswith("of a 30 s limit)") for line in lines)
    assert "6 active features, objective 3.33333" in lines[-1]


def test_a_fit_shorter_than_after_stays_silent():
    out = io.StringIO()
    records = []
    progress = FitProgress(after=60.0, stream=out, then=records.append)
    progress(_record(1))
    progress.close()
    assert out.getvalue() == "" and len(records) == 1


def test_without_limits_the_line_names_none():
    out = io.StringIO()
    FitProgress(after=0.0, stream=out)(_record(2))
    assert out.getvalue().strip() == "step 2: 7 active features, objective 5 (0 s)"


def test_an_estimator_shows_its_own_limits(caplog, monkeypatch):
    """AROM's progress lines carry its max_iter and time_limit (here reported at once)."""
    from functools import partial

    from zeronorm_opt import AROM
    from zeronorm_opt.datasets import make_weston_linear
    from zeronorm_opt.estimators import selector

    monkeypatch.setattr(selector, "FitProgress", partial(FitProgress, after=0.0))
    X, y = make_weston_linear(40, random_state=0)
    with caplog.at_level("INFO", logger="zeronorm_opt"):
        model = AROM(C=1.0, max_iter=7, time_limit=100.0).fit(X, y)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("step ")]
    assert len(lines) == model.n_iter_
    assert all("/7:" in line and line.endswith("of a 100 s limit)") for line in lines)
