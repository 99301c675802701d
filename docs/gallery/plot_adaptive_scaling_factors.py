"""
Scale factors of adaptive scaling
=================================

Grandvalet & Canu (2002) learn an SVM together with one scale factor per feature, under a
budget on the sum of the squared scales; irrelevant features end with a scale of zero. On the
non-linear problem of Weston et al. (2000) only ``x1`` and ``x2`` matter among 52 features
and the classes are not linearly separable, so a Gaussian kernel is needed. This script plots
the squared scale factors learnt on one draw of 100 points.

``zeronorm-opt run e6`` runs the experiment with dFSA and adaptive scaling over many draws.
"""

import matplotlib.pyplot as plt
import numpy as np

from zeronorm_opt import AdaptiveScaling
from zeronorm_opt.datasets import make_weston_nonlinear

X, y = make_weston_nonlinear(100, random_state=0)
model = AdaptiveScaling(kernel="rbf", C=0.1, sigma0=0.1).fit(X, y)
kept = model.get_support(indices=True)
print(f"features kept: {[f'x{j + 1}' for j in kept]}; outer loops: {model.n_iter_}")

fig, ax = plt.subplots(figsize=(8, 3.2))
features = np.arange(1, X.shape[1] + 1)
ax.stem(features, model.scale_, basefmt=" ")
ax.set_xlabel("feature")
ax.set_ylabel(r"squared scale $\sigma_k$")
ax.set_title(r"Adaptive scaling on the 52-feature problem ($x_1$, $x_2$ relevant), m = 100")
ax.set_xlim(0, X.shape[1] + 1)
fig.tight_layout()
plt.show()
