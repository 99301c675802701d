"""Record the supports and coefficients of AROM / FSV / MulticlassAROM before estimators v2.

Run once on the code *before* the estimators were rebuilt over ZeroNormSelector (commit
9d4db40); the output ``estimators_before_v2.json`` is the reference of
``tests/estimators/test_selector.py::test_same_results_as_before``. Kept so the reference can be
audited; do not re-run it on newer code (it would record the new results as the reference).
Parameter names are those of the old API (``norm=``, ``method=``).
"""

import json
from pathlib import Path

import numpy as np

from zeronorm_opt import AROM, FSV, MulticlassAROM
from zeronorm_opt.datasets import load_microarray, make_weston_linear

# Name -> (dataset, class, old keyword arguments).
CASES = {
    "arom_l1": ("e1", "AROM", {"norm": "l1"}),
    "arom_l1_r5": ("e1", "AROM", {"norm": "l1", "n_features_to_select": 5}),
    "arom_l2": ("e1", "AROM", {"norm": "l2", "method": "cvxpy"}),
    "arom_l2_r5": ("e1", "AROM", {"norm": "l2", "n_features_to_select": 5, "method": "cvxpy"}),
    "arom_l2_fast": ("e1", "AROM", {"norm": "l2"}),
    "arom_l2_fast_r5": ("e1", "AROM", {"norm": "l2", "n_features_to_select": 5}),
    "arom_l1_soft": ("e1", "AROM", {"norm": "l1", "C": 1.0}),
    "fsv": ("e1", "FSV", {}),
    "fsv_r5": ("e1", "FSV", {"n_features_to_select": 5}),
    "fsv_soft": ("e1", "FSV", {"C": 1.0}),
    "mc_ww_l1": ("e1", "MulticlassAROM", {"scheme": "ww", "norm": "l1", "C": 1.0}),
    "mc_ovr_l2_r5": (
        "e1", "MulticlassAROM", {"scheme": "ovr", "norm": "l2", "n_features_to_select": 5}
    ),
    "mc3_ww_l1": ("three", "MulticlassAROM", {"scheme": "ww", "norm": "l1", "C": 1.0}),
    "mc3_ovr_l2": ("three", "MulticlassAROM", {"scheme": "ovr", "norm": "l2", "C": 1.0}),
    "mc3_ww_l2_r3": (
        "three", "MulticlassAROM",
        {"scheme": "ww", "norm": "l2", "C": 1.0, "n_features_to_select": 3, "method": "cvxpy"},
    ),
    "colon_arom_l1": ("colon", "AROM", {"norm": "l1"}),
    "colon_arom_l1_r10": ("colon", "AROM", {"norm": "l1", "n_features_to_select": 10}),
    "colon_arom_l2": ("colon", "AROM", {"norm": "l2"}),
    "colon_arom_l2_r10": ("colon", "AROM", {"norm": "l2", "n_features_to_select": 10}),
    "colon_fsv": ("colon", "FSV", {}),
    "colon_fsv_r10": ("colon", "FSV", {"n_features_to_select": 10}),
    "colon_mc_ww_l1": ("colon", "MulticlassAROM", {"scheme": "ww", "norm": "l1", "C": 1.0}),
}


def datasets(data_dir=None):
    """The data of the reference: E1 (30 samples), a 3-class toy set, colon (every 20th gene)."""
    X1, y1 = make_weston_linear(30, random_state=0)
    rng = np.random.default_rng(0)
    y3 = np.repeat([0, 1, 2], 15)
    X3 = rng.normal(size=(45, 12))
    X3[:, 0] += 3 * (y3 == 0)
    X3[:, 1] += 3 * (y3 == 1)
    colon = load_microarray("colon", data_dir)
    Xc = colon.X[:, ::20]
    Xc = (Xc - Xc.mean(axis=0)) / Xc.std(axis=0)
    return {"e1": (X1, y1), "three": (X3, y3), "colon": (Xc, colon.y)}


def main():
    data = datasets()
    classes = {"AROM": AROM, "FSV": FSV, "MulticlassAROM": MulticlassAROM}
    out = {}
    for name, (ds, cls, kwargs) in CASES.items():
        X, y = data[ds]
        est = classes[cls](**kwargs).fit(X, y)
        out[name] = {
            "dataset": ds,
            "estimator": cls,
            "old_params": kwargs,
            "support": np.flatnonzero(est.support_).tolist(),
            "coef": est.coef_.tolist(),
            "intercept": np.atleast_1d(est.intercept_).tolist(),
            "n_iter": int(est.n_iter_),
        }
        print(name, len(out[name]["support"]), est.n_iter_)
    path = Path(__file__).with_name("estimators_before_v2.json")
    path.write_text(json.dumps(out))


if __name__ == "__main__":
    main()
