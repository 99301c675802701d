"""Timing helpers, data sets and the result rows shared by the benchmark workloads."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Row:
    """One line of the result table: a package call timed against a reference call."""

    group: str
    workload: str
    data: str
    package: str
    reference: str
    package_s: float
    reference_s: float
    runs: int
    notes: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        return self.package_s / self.reference_s if self.reference_s > 0 else float("nan")

    def as_dict(self) -> dict:
        out = asdict(self)
        out["ratio"] = self.ratio
        return out


def timed(fn):
    """``(seconds, output)`` of one call."""
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def median_time(fn, repeats: int, budget: float = 120.0):
    """Median wall time of ``repeats`` calls and the last output.

    The first call is included (every workload that compiles or allocates on first use has
    its cold cost measured separately, in a fresh process: :func:`cold_time`). Once the calls
    have taken ``budget`` seconds no more are started, so a fit of many minutes is timed once.
    """
    times, out = [], None
    for _ in range(max(1, repeats)):
        t, out = timed(fn)
        times.append(t)
        if sum(times) >= budget:
            break
    return statistics.median(times), out


def cold_time(case: str, timeout: float = 1800.0) -> tuple[float, float]:
    """Wall and CPU seconds of the first call of ``case`` (:mod:`benchmarks.cold`), fresh process.

    The data are prepared before the clock starts; imports of zeronorm_opt and the first
    allocation of big temporaries are inside the measurement, as a user meets them.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.cold", case],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
        check=True,
    )
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return float(out["seconds"]), float(out["cpu_seconds"])


# ------------------------------------------------------------------------------- data sets


def _standardise(X: np.ndarray) -> np.ndarray:
    std = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)


def colon() -> tuple[np.ndarray, np.ndarray]:
    """Colon cancer, 62 × 2000: log10 of the expression levels, standardised."""
    from zeronorm_opt.datasets import load_microarray

    data = load_microarray("colon")
    return _standardise(np.log10(data.X)), data.y


def lymphoma() -> tuple[np.ndarray, np.ndarray]:
    """Lymphoma, 96 × 4026: missing values filled with gene means, standardised."""
    from zeronorm_opt.datasets import load_microarray

    data = load_microarray("lymphoma", impute="mean")
    return _standardise(data.X), data.y


def brown_yeast() -> tuple[np.ndarray, np.ndarray]:
    """Brown yeast, 208 × 79, 5 classes: mean-imputed, standardised."""
    from zeronorm_opt.datasets import load_microarray

    data = load_microarray("brown_yeast", impute="mean")
    return _standardise(data.X), data.y


def sparse_linear(m: int, n: int, seed: int = 0, informative: int = 5):
    """``y = sign(x_1 + … + x_5)`` with Gaussian features (separable by construction)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X[:, :informative].sum(axis=1) >= 0, 1, -1)
    return X, y


def two_gaussians(m: int, n: int, seed: int = 0):
    """The greedy RLS data of Pahikkala et al. (§4.1): ``x ~ N(0.5·y·μ, I)``, ``y = ±1``."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], size=m)
    X = rng.standard_normal(size=(m, n))
    X[:, : max(1, n // 10)] += 0.5 * y[:, None]
    return X, y


def bandwidth_pass(X: np.ndarray, repeats: int = 5) -> float:
    """Median time of one ``Xᵀ v`` pass: the memory-bandwidth yardstick of greedy RLS."""
    v = np.ones(X.shape[0], dtype=X.dtype)
    return median_time(lambda: X.T @ v, repeats)[0]
