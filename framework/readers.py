"""Reading data into a :class:`~macrocause.framework.data.Dataset` from CSV files and pandas DataFrames, and back.

``Dataset.from_csv``, ``Dataset.from_pandas`` and ``Dataset.to_pandas`` delegate here.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .data import Dataset
from .errors import DataValidationError, say


def read_csv(
    path: str | Path,
    target: str | None = None,
    discrete: bool | Sequence[bool] | None = None,
    columns: Sequence[str] | None = None,
) -> Dataset:
    """A Dataset from a CSV file whose header row holds the variable names.

    See :meth:`macrocause.framework.data.Dataset.from_csv`. Errors name the file, the column and the
    row, never the offending value. The rows are counted first (constant memory) and the
    read is checked against the memory budget (:func:`csv_memory`); then each row is parsed
    into a preallocated matrix, in time linear in the file.
    """
    from .memory import check_budget

    path = Path(path)
    if not path.is_file():
        raise DataValidationError(f"CSV file not found: {path}")
    lines = _count_lines(path)
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise DataValidationError(f"CSV file {path} is empty.") from None
        except (UnicodeDecodeError, csv.Error) as exc:
            raise DataValidationError(f"CSV file {path.name} is {_what(exc, reader)}.") from None
        position: dict[str, int] = {}
        for i, h in enumerate(header):
            position.setdefault(h, i)
        if target is not None and target not in position:
            raise DataValidationError(f"Target column {target!r} is not in {path.name}; columns are {_few(header)}.")
        keep = [h for h in header if h != target] if columns is None else list(columns)
        missing = [c for c in keep if c not in position]
        if missing:
            raise DataValidationError(f"Columns {_few(missing)} are not in {path.name}; columns are {_few(header)}.")
        idx = [position[h] for h in keep]
        check_budget(f"reading {path.name}", csv_memory(lines, len(header), len(idx)))
        X = np.empty((lines + 1, len(idx)), dtype=np.float64)
        t = position.get(target) if target is not None else None
        raw: list[str] = []
        n = 0
        try:
            for row in reader:
                if not row:
                    continue
                if len(row) < len(header):
                    raise DataValidationError(
                        f"CSV file {path.name}: data row {n + 1} has {len(row)} values for "
                        f"{len(header)} columns; every row needs one value per column.")
                values = [row[i] for i in idx]
                try:
                    X[n] = values
                except ValueError:
                    _bad_value(path, keep, values, n)
                if t is not None:
                    raw.append(row[t])
                n += 1
        except (UnicodeDecodeError, csv.Error) as exc:  # their messages would quote the file
            raise DataValidationError(f"CSV file {path.name} is {_what(exc, reader)}.") from None
    X = X[:n]
    y = None
    if target is not None:
        try:
            y = np.array([float(v) for v in raw])
            if np.all(y == np.round(y)):
                y = y.astype(np.int64)
        except ValueError:
            y = np.array(raw)
    return Dataset(X, names=keep, target=y, discrete=discrete, name=path.stem)


def csv_memory(lines: int, width: int, kept: int):
    """Peak bytes of reading a CSV of *lines* rows and *width* columns keeping *kept* of them:
    the matrix, the Dataset's copy and its checks (17 bytes a value kept), the header, its
    index and one row of strings (about 380 bytes a column); measured (docs: Limits)."""
    from .memory import MemoryEstimate

    return MemoryEstimate(17.0 * lines * kept + 380.0 * width,
                          "17 bytes a value and 380 a column",
                          "read fewer columns (columns=[...]) or a sample of the rows")


def _count_lines(path: Path) -> int:
    """Newlines in the file, counted in 1 MiB blocks (an upper bound on its rows)."""
    count = 0
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            count += block.count(b"\n")
    return count


def _what(exc: Exception, reader: Any) -> str:
    return "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else f"not valid CSV (line {reader.line_num})"


def _few(names: Sequence[str], shown: int = 20) -> str:
    """A list of names, at most *shown* of them."""
    names = list(names)
    return str(names) if len(names) <= shown else f"{names[:shown]} and {len(names) - shown:,} more"


def _bad_value(path: Path, names: Sequence[str], values: Sequence[str], row: int) -> None:
    for name, v in zip(names, values):
        try:
            float(v)
        except ValueError:
            what = "has an empty value" if not v.strip() else "is non-numeric (it holds text)"
            fix = "fill it in" if not v.strip() else "encode it as numbers"
            leave = say(f"leave it out with data: {{source: csv, params: {{path: {path.name}, columns: [...]}}}}, "
                        f"or name it as the classes with labels: {name} (or target: {name})",
                        f"leave it out with registry.load_data('csv', path=..., columns=[...]), or name it as the classes with "
                        f"labels={name!r} (or target={name!r})")
            raise DataValidationError(
                f"CSV file {path.name}: column {name!r} {what} at data row {row + 1}; variables must be "
                f"numbers: {fix}, {leave}."
            ) from None


def from_pandas(frame: Any, target: str | None = None, discrete: Any = None,
                missing: str = "error") -> Dataset:
    """A Dataset from a pandas DataFrame; see :meth:`macrocause.framework.data.Dataset.from_pandas`."""
    import pandas as pd

    if missing not in ("error", "state"):
        raise DataValidationError(f"from_pandas: missing={missing!r}; use 'error' or 'state'.")
    cols = [c for c in frame.columns if c != target]
    values = []
    disc: list[bool] = []
    for c in cols:
        s = frame[c]
        kind = getattr(s.dtype, "kind", "O")
        if kind in "mM" or isinstance(s.dtype, pd.PeriodDtype | pd.DatetimeTZDtype):
            raise DataValidationError(
                f"from_pandas: column {str(c)!r} holds dates or durations ({s.dtype}), not numeric data; "
                "convert them explicitly first (e.g. days since a reference date).")
        if kind == "c":
            raise DataValidationError(f"from_pandas: column {str(c)!r} is complex; use real numbers.")
        if str(s.dtype) in ("category", "object", "bool", "string", "str"):
            values.append(_codes(s, str(c), missing))
            disc.append(True)
        else:
            v = s.to_numpy(dtype=np.float64)
            values.append(v)
            disc.append(bool(np.all(np.isfinite(v)) and np.all(v == np.round(v))))
    X = np.column_stack(values) if values else np.empty((len(frame), 0))
    y = frame[target].to_numpy() if target is not None else None
    return Dataset(X, names=[str(c) for c in cols], target=y, discrete=disc if discrete is None else discrete)


def _codes(s: Any, name: str, missing: str) -> np.ndarray:
    """Integer codes of a text, boolean or categorical column, refusing what would be read wrong:
    missing values (unless *missing* = "state": their own last code), numbers written as text."""
    import pandas as pd

    cat = s.astype("category")
    labels = [v for v in cat.cat.categories if isinstance(v, str)]
    if labels and pd.to_numeric(pd.Series(labels), errors="coerce").notna().all():
        raise DataValidationError(
            f"from_pandas: column {name!r} holds numbers written as text; they would be ordered as text "
            f"(\"10\" before \"9\"): convert it with pd.to_numeric(frame[{name!r}]) first.")
    codes = cat.cat.codes.to_numpy(dtype=np.float64)
    gaps = codes < 0
    if gaps.any():
        if missing != "state":
            row = int(np.flatnonzero(gaps)[0])
            raise DataValidationError(
                f"from_pandas: column {name!r} has {int(gaps.sum())} missing value(s) (first at row {row}); "
                "drop or fill them, or pass missing='state' to make 'missing' a state of its own.")
        codes[gaps] = len(cat.cat.categories)
    return codes


def to_pandas(ds: Dataset, categorical: bool = True):
    """A pandas DataFrame of a Dataset; see :meth:`macrocause.framework.data.Dataset.to_pandas`."""
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
