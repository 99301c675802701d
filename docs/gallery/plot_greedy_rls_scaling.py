"""
Greedy RLS runs in linear time
==============================

Pahikkala, Airola & Salakoski (2010) select features for regularised least squares by
leave-one-out error in :math:`O(kmn)` time (``k`` features chosen from ``n`` on ``m``
examples), where the textbook wrapper needs a matrix inversion per candidate. This script
times :func:`zeronorm_opt.fast.greedy_rls.greedy_rls` for growing ``m`` and fits the slope
of the log–log curve: 1 means linear in the number of examples.

``zeronorm-opt run e9`` runs the paper's scaling experiment with its sizes.
"""

import time

import matplotlib.pyplot as plt
import numpy as np

from zeronorm_opt.fast.greedy_rls import greedy_rls

n_features, k = 200, 10
sizes = np.array([1000, 2000, 4000, 8000, 16000])
rng = np.random.default_rng(0)
seconds = []
for m in sizes:
    X = rng.normal(size=(m, n_features))
    y = X[:, :5] @ rng.normal(size=5) + 0.1 * rng.normal(size=m)
    greedy_rls(X[:200], y[:200], k)  # warm the code paths: time the algorithm, not the import
    start = time.perf_counter()
    greedy_rls(X, y, k, alpha=1.0)
    seconds.append(time.perf_counter() - start)
seconds = np.array(seconds)
slope = np.polyfit(np.log(sizes), np.log(seconds), 1)[0]
print(f"seconds: {np.round(seconds, 3).tolist()}; log-log slope {slope:.2f}")

fig, ax = plt.subplots(figsize=(5, 3.8))
ax.loglog(sizes, seconds, "o-", label=f"greedy RLS (slope {slope:.2f})")
ax.loglog(sizes, seconds[0] * sizes / sizes[0], "k--", lw=1, label="linear growth")
ax.set_xlabel("training examples m")
ax.set_ylabel("seconds")
ax.set_title(f"Greedy RLS, n = {n_features}, k = {k}")
ax.legend()
fig.tight_layout()
plt.show()
