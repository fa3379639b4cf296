"""Reading a CSV file as data with its truth: the ``csv`` data source and the pipelines'
``data: {csv: FILE}`` shorthand (:func:`load_csv`).

Variables, effect states (``target``) and true classes (``labels``) are named by column; the
last two are factorised exactly and leave the variables. Errors name the file, the column and
the data row.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from .data import Dataset
from .errors import DataValidationError, say
from .partition import Partition
from .paths import find_data_path

__all__ = ["load_csv", "factorise"]


def load_csv(path: str | Path, target: str | None = None, labels: str | None = None,
             noise: str | float | None = None, columns: list[str] | None = None, discrete: bool | None = None,
             zscore: bool = False, max_samples: int | None = None, seed: int = 0) -> Dataset:
    """The dataset in a CSV file; see :class:`macrocause.plugins.datasets.loaders.CSVSource` for the parameters.

    A relative *path* is found by the rule of :mod:`macrocause.framework.paths`.
    """
    path = find_data_path(path, "csv")
    header = _header(path)
    taken = [c for c in dict.fromkeys((target, labels)) if c is not None]
    for role, col in (("target", target), ("labels", labels)):
        if col is not None and col not in header:
            raise DataValidationError(f"csv: {path.name} has no {role} column {col!r}; its columns are {header}.")
    keep = [h for h in header if h not in taken] if columns is None else list(columns)
    both = [c for c in keep if c in taken]
    if both:
        raise DataValidationError(f"csv: column {both[0]!r} of {path.name} is the target or the labels, "
                                  "so it cannot also be a variable.")
    ds = Dataset.from_csv(path, columns=keep)
    X, truth, y = ds.X, {}, None
    if labels is not None:
        codes, classes = factorise(_column(path, header, labels), path, labels, noise)
        if classes and all(isinstance(c, int) and c >= 0 for c in classes):  # whole numbers: their own codes
            codes = np.where(codes >= 0, np.asarray(classes, dtype=np.int64)[codes], -1)
        truth["labels"] = codes
    if target is not None:
        codes, classes = factorise(_column(path, header, target), path, target, None)
        y = np.asarray(classes)[codes]
    # column-major, as a pandas frame hands its values over: the z-scores of the former
    # labelled_csv source, bit for bit
    X, rows = np.asfortranarray(X), slice(None)
    if max_samples is not None and X.shape[0] > max_samples:
        rows = np.sort(np.random.default_rng(seed).choice(X.shape[0], max_samples, replace=False))
        X = X[rows]
    if zscore:
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    discrete = discrete if discrete is not None else (False if zscore else list(ds.discrete))
    if "labels" in truth:
        truth["labels"] = Partition(truth["labels"][rows])
    return Dataset(X, names=keep, target=None if y is None else y[rows], discrete=discrete,
                   truth=truth, name=path.stem)


def _header(path: Path) -> list[str]:
    with path.open(newline="") as fh:
        try:
            return [h.strip() for h in next(csv.reader(fh))]
        except (StopIteration, UnicodeDecodeError, csv.Error):
            return []  # Dataset.from_csv names the problem


def _column(path: Path, header: list[str], name: str) -> list[str]:
    i = header.index(name)
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        next(reader)
        return [row[i].strip() if i < len(row) else "" for row in reader if row]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def factorise(cells: list[str], path: Path, column: str, noise: str | float | None) -> tuple[np.ndarray, list]:
    """Codes 0..k-1 of the *cells* of one column (-1 where a cell is *noise*) and the k classes.

    Numbers are compared by value, text by text; classes in sorted order (numbers as int when
    every one is a whole number).
    """
    noise_num = None if noise is None else _number(str(noise))

    def is_noise(cell: str) -> bool:
        if noise is None:
            return False
        if cell == str(noise).strip():
            return True
        return noise_num is not None and cell != "" and _number(cell) == noise_num

    flags = [is_noise(c) for c in cells]
    empty = next((r for r, (c, f) in enumerate(zip(cells, flags)) if c == "" and not f), None)
    if empty is not None:
        advice = say("fill it in, or mark empty cells as noise with noise: ''",
                     "fill it in, or mark empty cells as noise with noise=''")
        raise DataValidationError(f"csv: {path.name}, column {column!r} has an empty cell at data row {empty + 1}; "
                                  f"{advice}.")
    values = [c for c, f in zip(cells, flags) if not f]
    numbers = [_number(c) for c in values]
    numeric = all(v is not None for v in numbers)
    if numeric and any(not np.isfinite(v) for v in numbers):
        r = next(r for r, c in enumerate(cells) if not flags[r] and not np.isfinite(_number(c)))
        raise DataValidationError(f"csv: {path.name}, column {column!r} holds a non-finite number at data row "
                                  f"{r + 1}; classes must be finite numbers or text.")
    keys = numbers if numeric else values
    classes = sorted(set(keys))
    index = {k: i for i, k in enumerate(classes)}
    codes = np.full(len(cells), -1, dtype=np.int64)
    it = iter(keys)
    for r, f in enumerate(flags):
        if not f:
            codes[r] = index[next(it)]
    if numeric and all(float(c).is_integer() for c in classes):
        classes = [int(c) for c in classes]
    return codes, classes
