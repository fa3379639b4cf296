"""Reading data into a :class:`~framework.data.Dataset` from CSV files and pandas DataFrames, and back.

``Dataset.from_csv``, ``Dataset.from_pandas`` and ``Dataset.to_pandas`` delegate here.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .data import Dataset
from .errors import DataValidationError


def read_csv(
    path: str | Path,
    target: str | None = None,
    discrete: bool | Sequence[bool] | None = None,
    columns: Sequence[str] | None = None,
) -> Dataset:
    """A Dataset from a CSV file whose header row holds the variable names.

    See :meth:`framework.data.Dataset.from_csv`. Errors name the file, the column and the
    row, never the offending value.
    """
    path = Path(path)
    if not path.is_file():
        raise DataValidationError(f"CSV file not found: {path}")
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = [h.strip() for h in next(reader)]
            rows = [r for r in reader if r]
        except StopIteration:
            raise DataValidationError(f"CSV file {path} is empty.") from None
        except (UnicodeDecodeError, csv.Error) as exc:  # their messages would quote the file
            what = "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else f"not valid CSV (line {reader.line_num})"
            raise DataValidationError(f"CSV file {path.name} is {what}.") from None
    if target is not None and target not in header:
        raise DataValidationError(
            f"Target column {target!r} is not in {path.name}; columns are {header}."
        )
    keep = [h for h in header if h != target] if columns is None else list(columns)
    missing = [c for c in keep if c not in header]
    if missing:
        raise DataValidationError(f"Columns {missing} are not in {path.name}; columns are {header}.")
    short = next((r for r, row in enumerate(rows) if len(row) < len(header)), None)
    if short is not None:
        raise DataValidationError(
            f"CSV file {path.name}: data row {short + 1} has {len(rows[short])} values for "
            f"{len(header)} columns; every row needs one value per column."
        )
    idx = [header.index(h) for h in keep]
    X = np.empty((len(rows), len(idx)), dtype=np.float64)
    for c, i in enumerate(idx):
        X[:, c] = _numeric_column(path, header[i], [r[i] for r in rows])
    y = None
    if target is not None:
        t = header.index(target)
        raw = [r[t] for r in rows]
        try:
            y = np.array([float(v) for v in raw])
            if np.all(y == np.round(y)):
                y = y.astype(np.int64)
        except ValueError:
            y = np.array(raw)
    return Dataset(X, names=keep, target=y, discrete=discrete, name=path.stem)


def _numeric_column(path: Path, name: str, values: list[str]) -> np.ndarray:
    out = np.empty(len(values), dtype=np.float64)
    for r, v in enumerate(values):
        try:
            out[r] = float(v)
        except ValueError:
            what = "has an empty value" if not v.strip() else "is non-numeric (it holds text)"
            raise DataValidationError(
                f"CSV file {path.name}: column {name!r} {what} at data row {r + 1}; variables must be "
                "numbers: encode it as numbers, leave it out with columns=[...], or make it the target."
            ) from None
    return out


def from_pandas(frame: Any, target: str | None = None, discrete: Any = None) -> Dataset:
    """A Dataset from a pandas DataFrame; see :meth:`framework.data.Dataset.from_pandas`."""
    cols = [c for c in frame.columns if c != target]
    values = []
    disc: list[bool] = []
    for c in cols:
        s = frame[c]
        if str(s.dtype) in ("category", "object", "bool", "string", "str"):
            values.append(s.astype("category").cat.codes.to_numpy(dtype=np.float64))
            disc.append(True)
        else:
            v = s.to_numpy(dtype=np.float64)
            values.append(v)
            disc.append(bool(np.all(np.isfinite(v)) and np.all(v == np.round(v))))
    X = np.column_stack(values) if values else np.empty((len(frame), 0))
    y = frame[target].to_numpy() if target is not None else None
    return Dataset(X, names=[str(c) for c in cols], target=y, discrete=disc if discrete is None else discrete)


def to_pandas(ds: Dataset, categorical: bool = True):
    """A pandas DataFrame of a Dataset; see :meth:`framework.data.Dataset.to_pandas`."""
    import pandas as pd

    data = {}
    for j, name in enumerate(ds.names):
        col = ds.X[:, j]
        if ds.discrete[j]:
            col = col.astype(np.int64)
            data[name] = pd.Categorical(col) if categorical else col
        else:
            data[name] = col
    return pd.DataFrame(data)
