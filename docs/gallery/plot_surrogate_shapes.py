"""
The surrogates of the zero-norm and their linearisations
========================================================

The zero-norm counts the non-zero entries: per coordinate it is the step
:math:`\\mathbb 1[t > 0]` of :math:`t = |w_j|`. The methods of the papers replace the step by
a concave, increasing :math:`\\varphi(t)` and minimise :math:`\\sum_j \\varphi(|w_j|)`:
:math:`\\ln(\\varepsilon + t)` (AROM), :math:`1 - e^{-\\alpha t}` (FSV), :math:`t^q` with
:math:`0 < q < 1` (bridge); :math:`t` itself gives the l1 norm, the convex relaxation. Left:
the shapes, each scaled to take the value 1 at :math:`t = 1` (:math:`\\ln` shifted to start at
0), with the step they approximate. Concave curves bend towards the step; the straight line
does not.

Right: why the successive-linearisation driver works. A concave :math:`\\varphi` lies below
each of its tangents, :math:`\\varphi(t) \\le \\varphi(t_k) + \\varphi'(t_k)(t - t_k)`, so the
tangent at the current iterate :math:`t_k` majorises it and touches it at :math:`t_k`.
Minimising the tangent, a weighted l1 norm with weight :math:`\\varphi'(t_k)`, can only lower
:math:`\\varphi`. Small coordinates get large weights and are pushed to zero.
See :doc:`/formulations/theory`.
"""

import matplotlib.pyplot as plt
import numpy as np

from zeronorm_opt import ExpSurrogate, LogSurrogate, PowerSurrogate

t = np.linspace(0.0, 1.5, 601)
eps = 0.05
shapes = {
    "step (zero-norm)": (t > 0).astype(float),
    r"$|t|$ (l1 norm)": t,
    rf"$\ln(\varepsilon + t)$, $\varepsilon = {eps}$": None,
    r"$1 - e^{-\alpha t}$, $\alpha = 5$": None,
    r"$t^q$, $q = 1/2$": None,
}
surrogates = {
    rf"$\ln(\varepsilon + t)$, $\varepsilon = {eps}$": LogSurrogate(eps=eps),
    r"$1 - e^{-\alpha t}$, $\alpha = 5$": ExpSurrogate(alpha=5.0),
    r"$t^q$, $q = 1/2$": PowerSurrogate(q=0.5),
}


def scaled(phi, t):
    """phi shifted to 0 at t = 0 and scaled to 1 at t = 1, to compare shapes."""
    at0, at1 = phi.value(np.array([0.0]))[0], phi.value(np.array([1.0]))[0]
    return (phi.value(t) - at0) / (at1 - at0)


fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
for label, values in shapes.items():
    if values is None:
        values = scaled(surrogates[label], t)
    style = {"color": "k", "lw": 2.5, "drawstyle": "steps-post"} if "step" in label else {}
    left.plot(t, values, label=label, **style)
left.set_xlabel(r"$t = |w_j|$")
left.set_ylabel(r"$\varphi(t)$, scaled to 1 at $t = 1$")
left.set_ylim(-0.05, 1.45)
left.set_title("Surrogates of the step")
left.legend(fontsize="small", loc="lower right")

# The log surrogate and its tangents at three iterates: each majorises the curve.
phi = LogSurrogate(eps=eps)
curve = phi.value(t + 1e-12)
right.plot(t, curve, "C2", lw=2.5, label=rf"$\ln({eps} + t)$")
for tk, colour in ((0.1, "C0"), (0.4, "C1"), (1.0, "C3")):
    value, slope = phi.value(np.array([tk]))[0], phi.derivative(np.array([tk]))[0]
    right.plot(t, value + slope * (t - tk), "--", color=colour,
               label=rf"tangent at $t_k = {tk}$, weight {slope:.1f}")
    right.plot([tk], [value], "o", color=colour)
right.set_ylim(curve.min() - 0.3, curve.max() + 0.8)
right.set_xlabel(r"$t = |w_j|$")
right.set_ylabel(r"$\varphi(t)$")
right.set_title("Tangents majorise a concave surrogate")
right.legend(fontsize="small", loc="lower right")
fig.tight_layout()
plt.show()
