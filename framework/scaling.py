"""Extreme magnitudes: rescale exactly for scale-invariant methods, refuse for the others.

Values beyond about 1e120 (or a continuous column whose magnitudes all lie below
about 1e-120) overflow or underflow the squares and products inside distance,
kernel and covariance computations. A method whose answer does not change when
the data are multiplied by a constant declares it with
:attr:`macrocause.framework.roles.Plugin.scale_invariance`: ``"global"`` (one factor for all
columns: distances, kernels with data-driven bandwidths) or ``"column"`` (each
column its own factor: correlations, likelihood scores). Such data are then
multiplied by powers of two, which is exact in floating point, so the method
answers on ``1e-300 * X`` as on ``X``. Every other method refuses such data with
one line.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .errors import DataValidationError

__all__ = ["SAFE_MAX", "SAFE_MIN", "extreme_columns", "rescale_for"]

SAFE_MAX = 2.0**400  # about 2.6e120: sums of squares of such values stay finite
SAFE_MIN = 2.0**-400  # about 3.9e-121: their squares stay normal numbers

ScaleInvariance = Literal["global", "column"] | None


def _magnitudes(X: np.ndarray, cont: np.ndarray) -> np.ndarray:
    return np.max(np.abs(X[:, cont]), axis=0) if cont.any() else np.zeros(0)


def extreme_columns(X: np.ndarray, discrete: tuple[bool, ...]) -> list[int]:
    """Indices of continuous columns whose largest magnitude is outside [SAFE_MIN, SAFE_MAX]
    (all-zero columns excluded)."""
    cont = ~np.asarray(discrete, dtype=bool)
    mags = _magnitudes(X, cont)
    idx = np.flatnonzero(cont)
    return [int(j) for j, m in zip(idx, mags) if m > SAFE_MAX or 0 < m < SAFE_MIN]


def _power_of_two_scale(m: np.ndarray) -> np.ndarray:
    """Exponents e such that m * 2**e lies in [0.5, 1) (0 for zero magnitudes)."""
    e = -np.frexp(m)[1]
    return np.where(m > 0, e, 0)


def rescale_for(data, who: str, invariance: ScaleInvariance):
    """Return *data* unchanged, or rescaled by powers of two, or raise a one-line error.

    Parameters
    ----------
    data : Dataset
    who : str
        The plugin name, for the message.
    invariance : {"global", "column", None}
        The plugin's :attr:`scale_invariance`.
    """
    bad = extreme_columns(data.X, data.discrete)
    if not bad:
        return data
    if invariance is None:
        j = bad[0]
        mag = float(np.max(np.abs(data.X[:, j])))
        raise DataValidationError(
            f"{who}: column {data.names[j]!r} has magnitudes around {mag:.1e}, outside what {who} handles "
            f"(|x| between {SAFE_MIN:.0e} and {SAFE_MAX:.0e}; its parameters are in data units): "
            "rescale the data first, e.g. Dataset.standardized()."
        )
    cont = ~np.asarray(data.discrete, dtype=bool)
    mags = _magnitudes(data.X, cont)
    X = data.X.copy()
    if invariance == "global":
        top = np.max(mags)
        e = int(_power_of_two_scale(np.array([top]))[0])
        X[:, cont] = np.ldexp(X[:, cont], e)
    else:
        X[:, cont] = np.ldexp(X[:, cont], _power_of_two_scale(mags).astype(np.int64))
    return data._replace(X=X)
