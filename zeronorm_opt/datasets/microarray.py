"""Loaders of the microarray data sets of the experiments (colon, lymphoma, leukemia, yeast).

The ``.npz`` files are not shipped with the package. They are looked up, in order, in the
``data_dir`` argument, the ``ZERONORM_OPT_DATA`` environment variable, the cache folder
``~/.cache/zeronorm_opt``, and the ``shared/data`` folder beside a source checkout. A
``data_dir`` or ``ZERONORM_OPT_DATA`` that names no existing folder is an
:class:`~zeronorm_opt.InputError` naming it (a typo must not silently read other files).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..exceptions import DataNotFoundError, InputError

MICROARRAY_SETS = ("colon", "lymphoma", "leukemia", "brown_yeast")
_ENV_VAR = "ZERONORM_OPT_DATA"


@dataclass
class Microarray:
    """A loaded microarray set: data, labels and names."""

    X: np.ndarray
    y: np.ndarray
    feature_names: np.ndarray
    name: str
    n_missing: int


def candidate_data_dirs(data_dir: str | os.PathLike | None = None) -> list[Path]:
    """Folders searched for the ``.npz`` files, in order.

    Raises
    ------
    InputError
        When ``data_dir`` or the ``ZERONORM_OPT_DATA`` variable names no existing folder.
    """
    dirs: list[Path] = []
    named = [("data_dir", data_dir)] if data_dir is not None else []
    if os.environ.get(_ENV_VAR):
        named.append((_ENV_VAR, os.environ[_ENV_VAR]))
    for what, folder in named:
        if not Path(folder).is_dir():
            raise InputError(
                f"{what}={str(folder)!r} is not an existing folder; point it at the folder "
                "holding the microarray .npz files"
                + (", or unset it to search the default folders." if what == _ENV_VAR else ".")
            )
        dirs.append(Path(folder))
    dirs.append(Path.home() / ".cache" / "zeronorm_opt")
    # Source checkout: <parent of repo>/shared/data (how the development machines lay it out).
    repo = Path(__file__).resolve().parents[2]
    dirs.extend([repo.parent / "shared" / "data", repo / "shared" / "data"])
    return dirs


def find_microarray_file(name: str, data_dir=None) -> Path:
    """Path of ``<name>.npz``; raises :class:`~zeronorm_opt.exceptions.DataNotFoundError` (a
    :class:`FileNotFoundError`) listing the folders tried."""
    if name not in MICROARRAY_SETS:
        raise InputError(f"unknown data set {name!r}; choose one of {MICROARRAY_SETS}.")
    tried = candidate_data_dirs(data_dir)
    for folder in tried:
        path = folder / f"{name}.npz"
        if path.is_file():
            return path
    raise DataNotFoundError(
        f"{name}.npz not found in {[str(d) for d in tried]}; pass data_dir= or set "
        f"{_ENV_VAR} to the folder holding the microarray .npz files."
    )


def load_microarray(name: str, data_dir=None, *, impute: str | None = "mean") -> Microarray:
    """Load one of the microarray sets.

    Parameters
    ----------
    name : {"colon", "lymphoma", "leukemia", "brown_yeast"}
    data_dir : path-like or None
        Folder holding ``<name>.npz`` (see the module docstring for the search order).
    impute : {"mean", "zero", None}, default="mean"
        How missing values (NaN, present in lymphoma and brown_yeast) are filled: by the
        feature's mean over the samples, by zero, or left as NaN (``None``).

    Returns
    -------
    Microarray
        ``X`` float64 (samples × features), ``y`` (±1 for binary sets, 0..K−1 for yeast).

    Examples
    --------
    >>> data = load_microarray("colon")  # doctest: +SKIP
    >>> data.X.shape  # doctest: +SKIP
    (62, 2000)
    """
    path = find_microarray_file(name, data_dir)
    with np.load(path, allow_pickle=False) as d:
        X = np.array(d["X"], dtype=np.float64)
        y = np.array(d["y"])
        names = (
            np.array(d["feature_names"])
            if "feature_names" in d
            else np.array([f"x{j}" for j in range(X.shape[1])])
        )
    missing = np.isnan(X)
    n_missing = int(missing.sum())
    if n_missing and impute is not None:
        if impute == "mean":
            col_mean = np.nanmean(np.where(missing.all(axis=0), 0.0, X), axis=0)
            X = np.where(missing, col_mean[None, :], X)
        elif impute == "zero":
            X = np.where(missing, 0.0, X)
        else:
            raise InputError(f"impute must be 'mean', 'zero' or None; got {impute!r}.")
    return Microarray(X=X, y=y, feature_names=names, name=name, n_missing=n_missing)
