"""
Scale factors of adaptive scaling
=================================

Grandvalet & Canu (2002) learn an SVM together with one scale factor per feature, under a
budget on the sum of the squared scales; irrelevant features end with a scale of zero. On the
non-linear problem of Weston et al. (2000) only ``x1`` and ``x2`` matter among 52 features
and the classes are not linearly separable, so a Gaussian kernel is needed. This script fits
adaptive scaling on one draw of 100 points, then plots the learnt classifier in the plane of
the two relevant features and the squared scale factor of every feature.

``zeronorm-opt run e6`` runs the experiment with dFSA and adaptive scaling over many draws.
"""

import matplotlib.pyplot as plt
import numpy as np

from zeronorm_opt import AdaptiveScaling
from zeronorm_opt.datasets import make_weston_nonlinear

X, y = make_weston_nonlinear(100, random_state=0)
model = AdaptiveScaling(kernel="rbf", C=0.1, sigma0=0.1).fit(X, y)
kept = model.get_support(indices=True)
print(
    f"features kept: {[f'x{j + 1}' for j in kept]}; outer loops: {model.n_iter_}"
)

# %%
# Left: the training points in the plane of ``x1`` and ``x2`` and the sign of the learnt
# decision function there. The 50 noise features have a scale of zero, so the classifier
# ignores them: it is evaluated on a grid of ``(x1, x2)`` with every other feature at 0.
# Right: the squared scale factors; the two relevant features take the whole budget.

fig, (ax_plane, ax_scales) = plt.subplots(
    1, 2, figsize=(9, 4), gridspec_kw={"width_ratios": [1.2, 1]}
)
g1, g2 = np.meshgrid(np.linspace(-2.5, 2.5, 200), np.linspace(-2.5, 2.5, 200))
grid = np.zeros((g1.size, X.shape[1]))
grid[:, 0], grid[:, 1] = g1.ravel(), g2.ravel()
score = model.decision_function(grid).reshape(g1.shape)
ax_plane.contourf(
    g1, g2, score > 0, levels=[-0.5, 0.5, 1.5], colors=["#fde0c5", "#c6dbef"]
)
ax_plane.contour(g1, g2, score, levels=[0], colors="k", linewidths=1)
for label, colour, marker in [(-1, "tab:orange", "o"), (1, "tab:blue", "s")]:
    at = y == label
    ax_plane.scatter(
        X[at, 0],
        X[at, 1],
        c=colour,
        marker=marker,
        s=18,
        label=f"y = {label:+d}",
    )
ax_plane.set_xlabel("$x_1$ (standardised)")
ax_plane.set_ylabel("$x_2$ (standardised)")
ax_plane.set_title("learnt classifier in the relevant plane")
ax_plane.legend(loc="lower right", fontsize=8)

features = np.arange(1, X.shape[1] + 1)
relevant = np.isin(features, [1, 2])
ax_scales.bar(
    features[~relevant], model.scale_[~relevant], color="0.6", label="noise"
)
ax_scales.bar(
    features[relevant],
    model.scale_[relevant],
    color="tab:red",
    label="$x_1$, $x_2$",
)
ax_scales.set_xlabel("feature")
ax_scales.set_ylabel(r"squared scale $\sigma_k$")
ax_scales.set_title("squared scale factors, m = 100")
ax_scales.set_xlim(0, X.shape[1] + 1)
ax_scales.legend(fontsize=8)
n_zero = int(np.sum(model.scale_[~relevant] == 0))
ax_scales.text(
    27,
    0.5 * model.scale_.max(),
    f"{n_zero} of {(~relevant).sum()} noise\nfeatures at 0",
    ha="center",
    fontsize=9,
)
fig.tight_layout()
plt.show()
