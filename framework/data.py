"""The :class:`Dataset` type: a validated n x d numeric matrix with names.

A Dataset is an immutable value: its arrays are read-only copies, and every
transformation (:meth:`Dataset.with_column`, :meth:`Dataset.select`) returns a
new Dataset.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import richrepr
from .columns import as_discrete, as_matrix, as_target
from .errors import DataValidationError, say

__all__ = ["Dataset", "as_dataset"]


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a



class Dataset:
    """A validated data matrix: n samples x d variables.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_variables)
        Finite numeric values.
    names : sequence of str, optional
        Unique variable names; defaults to ``"x0" .. "x{d-1}"``.
    target : array-like of shape (n_samples,), optional
        Effect states (any hashable labels), e.g. for CAFE DBSCAN. Mapped to
        codes ``0..m-1`` in :attr:`target_codes`, in sorted order of the labels.
    discrete : None, bool or sequence of bool, optional
        Which columns are discrete. ``None`` infers it: integer-valued columns
        are discrete.
    truth : mapping, optional
        Ground truth shipped with the data (``"graph"`` -> CausalGraph,
        ``"labels"`` -> Partition, ...), used by evaluators in pipelines.
    name : str, optional
        A label for reports.

    Raises
    ------
    DataValidationError
        If X is not 2-D, not numeric, contains NaN or inf, is empty, or if
        names/target/discrete do not match its shape.

    Examples
    --------
    >>> ds = Dataset([[0.0, 1.0], [1.0, 0.5]], names=["a", "b"])
    >>> ds.n_samples, ds.n_variables, ds.discrete
    (2, 2, (True, False))
    """

    __slots__ = ("X", "names", "target", "discrete", "truth", "name", "_states", "_codes")

    def __init__(
        self,
        X: Any,
        names: Sequence[str] | None = None,
        target: Any = None,
        discrete: bool | Sequence[bool] | None = None,
        truth: Mapping[str, Any] | None = None,
        name: str | None = None,
    ) -> None:
        if isinstance(X, Dataset):
            raise DataValidationError("Dataset(X): X is already a Dataset; use it as it is.")
        arr = as_matrix(X)
        n, d = arr.shape
        if names is None:
            names = [f"x{j}" for j in range(d)]
        names = tuple(str(s) for s in names)
        if len(names) != d:
            raise DataValidationError(
                f"Dataset: got {len(names)} names for {d} variables; give exactly one name per column."
            )
        if len(set(names)) != d:
            seen: set[str] = set()
            dup = sorted({s for s in names if s in seen or seen.add(s)})
            shown = dup if len(dup) <= 10 else [*dup[:10], f"... {len(dup) - 10:,} more"]
            raise DataValidationError(f"Dataset: variable names must be unique; repeated: {shown}.")
        disc = as_discrete(discrete, arr)
        tgt, states, codes = as_target(target, n)
        self.X = _readonly(arr)
        self.names = names
        self.target = tgt
        self.discrete = disc
        self.truth = dict(truth) if truth else {}
        self.name = name
        self._states = states
        self._codes = codes

    # -- basic properties -------------------------------------------------
    @property
    def n_samples(self) -> int:
        """Number of samples (rows)."""
        return int(self.X.shape[0])

    @property
    def n_variables(self) -> int:
        """Number of variables (columns)."""
        return int(self.X.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        return self.n_samples, self.n_variables

    @property
    def target_states(self) -> tuple[Hashable, ...]:
        """The distinct effect states, in the order of their codes."""
        return self._states

    @property
    def target_codes(self) -> np.ndarray | None:
        """Effect states as integer codes ``0..m-1`` (None without a target)."""
        return self._codes

    @property
    def is_discrete(self) -> bool:
        """True when every column is discrete."""
        return all(self.discrete)

    @property
    def is_continuous(self) -> bool:
        """True when no column is discrete."""
        return not any(self.discrete)

    def column(self, name: str) -> np.ndarray:
        """The values of one variable."""
        return self.X[:, self.index(name)]

    def index(self, name: str) -> int:
        """Column index of a variable name."""
        try:
            return self.names.index(name)
        except ValueError:
            raise DataValidationError(
                f"Unknown variable {name!r}; the dataset has {list(self.names)}."
            ) from None

    def __repr__(self) -> str:
        extra = f", target with {len(self._states)} states" if self.target is not None else ""
        label = f"{self.name!r}, " if self.name else ""
        return f"Dataset({label}{self.n_samples} x {self.n_variables}{extra})"

    def _repr_html_(self) -> str:
        return richrepr.html("dataset", self)

    def __reduce__(self):
        return (
            _rebuild,
            (self.X, self.names, self.target, self.discrete, self.truth, self.name),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dataset):
            return NotImplemented
        same_target = (self.target is None and other.target is None) or (
            self.target is not None
            and other.target is not None
            and np.array_equal(self.target, other.target)
        )
        return (
            self.names == other.names
            and self.discrete == other.discrete
            and np.array_equal(self.X, other.X)
            and same_target
        )

    __hash__ = None  # type: ignore[assignment]

    # -- checks used by plugins -------------------------------------------
    def check(
        self,
        who: str,
        *,
        min_samples: int = 1,
        min_variables: int = 1,
        need_target: bool = False,
        min_states: int = 2,
        reject_constant: bool = False,
    ) -> None:
        """Raise a clear :class:`DataValidationError` when this data is unfit for *who*.

        Parameters
        ----------
        who : str
            The plugin name, used in the message.
        min_samples, min_variables : int
            Smallest acceptable shape.
        need_target : bool
            Whether the effect-state target must be present (with at least
            ``min_states`` distinct states).
        reject_constant : bool
            Whether a constant column is an error.
        """
        if self.n_samples < min_samples:
            raise DataValidationError(
                f"{who} needs at least {min_samples} samples, got {self.n_samples}."
            )
        if self.n_variables < min_variables:
            raise DataValidationError(
                f"{who} needs at least {min_variables} variables, got {self.n_variables}."
            )
        if need_target:
            if self.target is None:
                raise DataValidationError(f"{who} needs a target of effect states: " + say(
                    "name the column that holds them, data: {csv: FILE, target: COLUMN}.",
                    "build the Dataset with target=... (or a CSV column via Dataset.from_csv(path, "
                    "target='column'))."))
            if len(self._states) < min_states:
                raise DataValidationError(
                    f"{who} needs at least {min_states} distinct effect states in the target, "
                    f"got {len(self._states)}."
                )
        if reject_constant:
            const = [self.names[j] for j in range(self.n_variables) if np.ptp(self.X[:, j]) == 0]
            if const:
                raise DataValidationError(
                    f"{who} cannot use constant columns: {const}. Drop them first."
                )

    # -- constructors ------------------------------------------------------
    @classmethod
    def from_csv(
        cls,
        path: str | Path,
        target: str | None = None,
        discrete: bool | Sequence[bool] | None = None,
        columns: Sequence[str] | None = None,
    ) -> Dataset:
        """Read a CSV file whose header row holds the variable names.

        Parameters
        ----------
        path : str or Path
            The file.
        target : str, optional
            Name of the column holding effect states; it is removed from X.
        discrete : see :class:`Dataset`
        columns : sequence of str, optional
            Keep only these variables (in this order).
        """
        from .readers import read_csv  # the readers build Datasets: they import this module

        return read_csv(path, target, discrete, columns)

    @classmethod
    def from_pandas(cls, frame: Any, target: str | None = None, discrete: Any = None,
                    missing: str = "error") -> Dataset:
        """Build from a pandas DataFrame (column names become variable names).

        Categorical, text and boolean columns are encoded as integer codes (in the
        categories' order) and marked discrete. Refused, as :class:`Dataset` refuses
        them: missing values in such a column (``missing="state"`` makes them a state
        of their own, the last code), numbers written as text (convert them with
        ``pd.to_numeric``), dates, durations and complex numbers; NaN in a numeric
        column is refused by :class:`Dataset`.
        """
        from .readers import from_pandas

        return from_pandas(frame, target, discrete, missing)

    def to_pandas(self, categorical: bool = True):
        """A pandas DataFrame; discrete columns become categoricals when *categorical*."""
        from .readers import to_pandas

        return to_pandas(self, categorical)

    # -- transformations ----------------------------------------------------
    def _replace(self, **changes: Any) -> Dataset:
        kw = dict(
            X=self.X, names=self.names, target=self.target, discrete=self.discrete,
            truth=self.truth, name=self.name,
        )
        kw.update(changes)
        return Dataset(**kw)

    def select(self, columns: Iterable[str | int]) -> Dataset:
        """A new Dataset with only the given variables (names or indices), in that order."""
        idx = [c if isinstance(c, int | np.integer) else self.index(c) for c in columns]
        if not idx:
            raise DataValidationError("Dataset.select: select at least one variable.")
        out = [i for i in idx if not -self.n_variables <= i < self.n_variables]
        if out:
            raise DataValidationError(
                f"Dataset.select: column index {out[0]} is out of range; the data has "
                f"{self.n_variables} variables (0..{self.n_variables - 1})."
            )
        return self._replace(
            X=self.X[:, idx],
            names=[self.names[i] for i in idx],
            discrete=[self.discrete[i] for i in idx],
        )

    def take(self, rows: Any) -> Dataset:
        """A new Dataset with only the given rows (indices or boolean mask)."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            if rows.shape != (self.n_samples,):
                raise DataValidationError(
                    f"Dataset.take: a boolean mask needs {self.n_samples} entries, got shape {rows.shape}."
                )
        elif rows.size and (not np.issubdtype(rows.dtype, np.integer)
                            or rows.max() >= self.n_samples or rows.min() < -self.n_samples):
            raise DataValidationError(
                f"Dataset.take: rows must be integer indices in 0..{self.n_samples - 1} or a boolean mask."
            )
        if rows.size == 0 or (rows.dtype == bool and not rows.any()):
            raise DataValidationError("Dataset.take: select at least one row.")
        return self._replace(
            X=self.X[rows], target=None if self.target is None else self.target[rows], truth={}
        )

    def with_column(self, name: str, values: Any, discrete: bool = True) -> Dataset:
        """A new Dataset with one more variable (e.g. a macro-variable from a partition)."""
        v = np.asarray(values, dtype=np.float64).reshape(-1)
        if v.shape[0] != self.n_samples:
            raise DataValidationError(
                f"with_column: {name!r} has {v.shape[0]} values for {self.n_samples} samples."
            )
        if name in self.names:
            raise DataValidationError(f"with_column: a variable named {name!r} exists already.")
        return self._replace(
            X=np.column_stack([self.X, v]),
            names=[*self.names, name],
            discrete=[*self.discrete, discrete],
        )

    def with_partition(self, partition: Any, name: str, noise: str = "state") -> Dataset:
        """A new Dataset with a sample partition as one more discrete variable (a macro-variable).

        Parameters
        ----------
        partition : Partition
            A partition of the samples of this dataset.
        name : str
            Name of the new variable.
        noise : {"state", "drop", "error"}
            What the noise samples (label -1) become: one more state of the variable,
            labelled -1 (``"state"``, the default), removed from the data (``"drop"``,
            with the target; the ground truth is dropped as it no longer fits), or a
            :class:`DataValidationError` (``"error"``).
        """
        from .partition import Partition

        if not isinstance(partition, Partition) or partition.axis != "samples":
            raise DataValidationError(f"with_partition: {name!r} needs a partition of the samples, got {partition!r}.")
        if len(partition) != self.n_samples:
            raise DataValidationError(
                f"with_partition: the partition has {len(partition)} labels for {self.n_samples} samples."
            )
        if noise not in ("state", "drop", "error"):
            raise DataValidationError(f"with_partition: noise must be 'state', 'drop' or 'error', got {noise!r}.")
        n_noise = int(partition.noise.sum())
        if noise == "error" and n_noise:
            raise DataValidationError(
                f"with_partition: {n_noise} samples are noise (-1); use noise='state' or 'drop' to keep or drop them."
            )
        new = self.with_column(name, partition.labels, discrete=True)
        if noise == "drop" and n_noise:
            new = new.take(~partition.noise)
        return new

    def standardized(self) -> Dataset:
        """Columns z-scored (population std; a constant column is only centred).

        Each column is first multiplied by a power of two (exact) so that magnitudes up
        to the largest float neither overflow nor underflow."""
        mag = np.max(np.abs(self.X), axis=0)
        X = np.ldexp(self.X, np.where(mag > 0, -np.frexp(mag)[1], 0))
        mu = X.mean(axis=0)
        sd = X.std(axis=0)
        sd[sd == 0] = 1.0
        return self._replace(X=(X - mu) / sd, discrete=[False] * self.n_variables)


def _rebuild(X, names, target, discrete, truth, name):
    return Dataset(X, names=names, target=target, discrete=discrete, truth=truth, name=name)


def as_dataset(data: Any, who: str = "this plugin") -> Dataset:
    """Return *data* as a :class:`Dataset`, converting arrays and DataFrames."""
    if isinstance(data, Dataset):
        return data
    if data is None:
        raise DataValidationError(f"{who} needs data, got None.")
    if hasattr(data, "columns") and hasattr(data, "dtypes"):
        return Dataset.from_pandas(data)
    return Dataset(data)

