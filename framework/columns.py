"""The checks of :class:`~macrocause.framework.data.Dataset`'s arguments: the matrix, the column kinds, the target.

Each turns what a user passes into the validated array or tuple, or raises a one-line
:class:`~macrocause.framework.errors.DataValidationError` saying what is wrong and what is allowed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import DataValidationError


def as_matrix(X: Any) -> np.ndarray:
    """*X* as a 2-D float64 array of finite numbers, or a one-line :class:`DataValidationError`
    saying what is wrong (shape, dtype, NaN/inf, emptiness)."""
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise DataValidationError(f"Dataset(X): X could not be read as an array: {exc}") from None
    if arr.ndim == 1:
        raise DataValidationError(
            f"Expected a 2-D array (n_samples x n_variables), got a 1-D array of length "
            f"{arr.shape[0]} instead. Reshape with X.reshape(-1, 1) for one variable "
            "or X.reshape(1, -1) for one sample."
        )
    if arr.ndim != 2:
        raise DataValidationError(
            f"Expected a 2-D array (n_samples x n_variables), got {arr.ndim} dimensions "
            f"(shape {arr.shape}) instead."
        )
    if arr.dtype.kind in "mM":
        raise DataValidationError(
            f"Dataset(X): dates and durations ({arr.dtype}) are not numeric data; convert them "
            "explicitly first (e.g. days since a reference date)."
        )
    if arr.dtype == bool:
        arr = arr.astype(np.float64)
    if not (np.issubdtype(arr.dtype, np.number)):
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise DataValidationError(
                f"Dataset(X): values must be numeric, got dtype {arr.dtype}. "
                "Encode categorical columns as integers first."
            ) from None
    if np.iscomplexobj(arr):
        raise DataValidationError("Dataset(X): complex values are not allowed; use real numbers.")
    arr = arr.astype(np.float64, copy=False)
    if arr.size == 0:
        raise DataValidationError(
            f"Dataset(X): X must have at least one sample and one variable, got shape {arr.shape}."
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        rows, cols = np.nonzero(bad)
        kind = "NaN" if np.isnan(arr[rows[0], cols[0]]) else "inf"
        raise DataValidationError(
            f"Dataset(X): X contains {int(bad.sum())} non-finite value(s) "
            f"(first: {kind} at row {rows[0]}, column {cols[0]}). "
            "Only finite numbers are allowed: impute or drop them first."
        )
    return arr


def _infer_discrete(X: np.ndarray) -> tuple[bool, ...]:
    """Integer-valued columns are discrete; beyond 2**53 every float is an integer, so such
    magnitudes are continuous."""
    return tuple(
        bool(np.all(X[:, j] == np.round(X[:, j])) and np.max(np.abs(X[:, j])) < 2.0**53)
        for j in range(X.shape[1])
    )


def as_discrete(discrete: Any, arr: np.ndarray) -> tuple[bool, ...]:
    """The column kinds of :class:`~macrocause.framework.data.Dataset`: inferred (None), one bool, or one per column."""
    d = arr.shape[1]
    if discrete is None:
        return _infer_discrete(arr)
    if isinstance(discrete, bool | np.bool_):
        return (bool(discrete),) * d
    disc = tuple(bool(b) for b in discrete)
    if len(disc) != d:
        raise DataValidationError(
            f"Dataset: 'discrete' has {len(disc)} entries for {d} variables; "
            "give None, one bool, or one bool per column."
        )
    return disc


def as_target(target: Any, n: int) -> tuple[np.ndarray | None, tuple, np.ndarray | None]:
    """A validated target of effect states: (read-only labels, sorted states, read-only codes)."""
    if target is None:
        return None, (), None
    tgt = np.asarray(target)
    if tgt.ndim != 1:
        tgt = tgt.reshape(-1) if tgt.ndim == 2 and 1 in tgt.shape else tgt
    if tgt.ndim != 1 or tgt.shape[0] != n:
        raise DataValidationError(
            f"Dataset: target must be 1-D with one effect state per sample (length {n}), "
            f"got shape {np.shape(target)}."
        )
    if tgt.dtype.kind == "f" and not np.all(np.isfinite(tgt)):
        raise DataValidationError("Dataset: target contains NaN or inf; effect states must be labels.")
    try:
        states_arr, codes = np.unique(tgt, return_inverse=True)
    except TypeError:
        raise DataValidationError(
            "Dataset: target labels must be mutually comparable (all numbers or all strings)."
        ) from None
    states = tuple(s.item() if hasattr(s, "item") else s for s in states_arr)
    tgt = np.array(tgt, copy=True)
    tgt.setflags(write=False)
    codes = codes.astype(np.int64)
    codes.setflags(write=False)
    return tgt, states, codes
