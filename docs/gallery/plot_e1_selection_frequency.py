"""
Which features do the methods pick? (linear toy problem)
========================================================

The linear toy problem of Weston et al. (2003): of 202 features only the first six carry
information, in two redundant groups (``x1``–``x3`` and ``x4``–``x6``); every method must
select **two**. Over 20 draws of 20 training points this script counts how often each
feature is selected by l1-AROM, FSV and the Fisher score, and the test error of a linear SVM
trained on the two selected features. A good pair holds one feature of each group.

``zeronorm-opt run e1`` runs the paper's full protocol (100 draws per training size, every
method of its table).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import SVC

from zeronorm_opt import AROM, FSV, FisherScore
from zeronorm_opt.datasets import make_weston_linear

n_draws, m_train, m_test, n_shown = 20, 20, 500, 12
methods = {
    "l1-AROM": lambda: AROM(n_features_to_select=2),
    "FSV": lambda: FSV(n_features_to_select=2),
    "Fisher score": lambda: FisherScore(n_features_to_select=2),
}
counts = {name: np.zeros(202, dtype=int) for name in methods}
errors = {name: [] for name in methods}
for draw in range(n_draws):
    X, y = make_weston_linear(m_train + m_test, random_state=draw)
    X_train, y_train, X_test, y_test = X[:m_train], y[:m_train], X[m_train:], y[m_train:]
    if len(np.unique(y_train)) < 2:
        continue
    for name, make in methods.items():
        support = make().fit(X_train, y_train).get_support()
        counts[name] += support
        svm = SVC(kernel="linear", C=1.0).fit(X_train[:, support], y_train)
        errors[name].append(1.0 - svm.score(X_test[:, support], y_test))

fig, ax = plt.subplots(figsize=(8, 3.6))
width = 0.8 / len(methods)
positions = np.arange(n_shown)
for k, name in enumerate(methods):
    label = f"{name} (test error {100 * np.mean(errors[name]):.1f} %)"
    ax.bar(positions + k * width, counts[name][:n_shown], width, label=label)
    print(f"{name:12s} error {100 * np.mean(errors[name]):5.1f} %, selections of x1..x6: "
          f"{counts[name][:6].tolist()}, of the 196 noise features: {counts[name][6:].sum()}")
ax.axvspan(-0.5, 5.5, color="0.92", zorder=0)
ax.set_xticks(positions + width)
ax.set_xticklabels([f"x{j + 1}" for j in range(n_shown)])
ax.set_ylabel(f"times selected (of {n_draws})")
ax.set_title("Selection frequency on the linear toy problem, m = 20 (shaded: relevant)")
ax.legend(fontsize="small")
fig.tight_layout()
plt.show()

# %%
# Test error against the training-set size
# ----------------------------------------
# The paper's table reports the error for 10, 20 and 30 training points. With more points the
# zero-norm methods find a good pair more often and the error of the SVM trained on the pair
# drops well below that of the SVM on all 202 features, which the 196 noise features hurt.

train_sizes = [10, 20, 30, 50]
curves = {"l1-AROM, 2 features": [], "SVM, all 202 features": []}
for m in train_sizes:
    per_draw = {name: [] for name in curves}
    for draw in range(n_draws):
        X, y = make_weston_linear(m + m_test, random_state=1000 * m + draw)
        X_train, y_train, X_test, y_test = X[:m], y[:m], X[m:], y[m:]
        if len(np.unique(y_train)) < 2:
            continue
        support = AROM(n_features_to_select=2).fit(X_train, y_train).get_support()
        for name, columns in (("l1-AROM, 2 features", support), ("SVM, all 202 features", ...)):
            svm = SVC(kernel="linear", C=1.0).fit(X_train[:, columns], y_train)
            per_draw[name].append(1.0 - svm.score(X_test[:, columns], y_test))
    for name in curves:
        errs = np.array(per_draw[name])
        curves[name].append((100 * errs.mean(), 100 * errs.std(ddof=1) / np.sqrt(errs.size)))

fig, ax = plt.subplots(figsize=(5.5, 3.6))
for name, points in curves.items():
    mean, stderr = np.array(points).T
    ax.errorbar(train_sizes, mean, yerr=stderr, marker="o", capsize=3, label=name)
ax.set_xlabel("training points m")
ax.set_ylabel("test error % (mean ± standard error)")
ax.set_title(f"Linear toy problem, {n_draws} draws per size")
ax.legend()
fig.tight_layout()
plt.show()
