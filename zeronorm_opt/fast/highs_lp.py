"""l1-AROM and FSV on HiGHS directly: the margin LP held in one warm-started model.

There is no loop here: :class:`~zeronorm_opt.fast.highs_model.SplitMarginLP` (the
split-variable margin LP held in one ``highspy.Highs`` model; only its costs change between
steps, pruned features' columns are deleted) implements the driver's
:class:`~zeronorm_opt.formulations.contract.Linearisable` protocol, and
:func:`~zeronorm_opt.driver.successive_linearisation` drives it — same weights, weight bound,
normalisation, pruning, objective, stopping rule, feature budget and error reports as on the
cvxpy formulations. The ``"highs"`` backend (:mod:`zeronorm_opt.backends`, with the papers'
references) builds it from :class:`~zeronorm_opt.formulations.MarginFormulation`
(``penalty="l1"``) and :class:`~zeronorm_opt.formulations.FSVFormulation` for
:class:`~zeronorm_opt.AROM` and :class:`~zeronorm_opt.FSV`; the tests compare the two paths.
"""

from __future__ import annotations

from .highs_model import HighsStepResult, SplitMarginLP

__all__ = ["HighsStepResult", "SplitMarginLP"]
