"""A data source that reads a CSV file: variables, effect states and true classes by column name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pydantic import Field, field_validator

from macrocause.framework import Dataset, DataSource, Params
from macrocause.framework.csv_data import load_csv
from macrocause.framework.roles import Example


class CSVParams(Params):
    path: str = Field(description="CSV file with a header row of variable names (where it is looked for: "
                      "the YAML file's folder, the working directory, then MACROCAUSE_DATA).")
    target: str | None = Field(None, description="Column of effect states, taken out of the variables.")
    labels: str | None = Field(None, description="Column of true classes: truth['labels'], taken out of the variables.")
    noise: str | None = Field(None, description="The value in the labels column that marks noise "
                              "(label -1), e.g. -1 or '' for empty cells (a number matches by value); None: "
                              "every cell is a class.")
    columns: list[str] | None = Field(None, description="Keep only these variables, in this order.")
    discrete: bool | None = Field(None, description="Every variable discrete (True) or continuous (False); "
                                  "None: integer-valued columns are discrete (continuous when zscore).")
    zscore: bool = Field(False, description="Standardise every variable (mean 0, sd 1; constant columns kept).")
    max_samples: int | None = Field(None, ge=2, description="Draw this many rows without replacement (seeded, "
                                    "kept in file order) when the file has more.")
    seed: int = Field(0, description="Seed of the draw.")

    @field_validator("noise", mode="before")
    @classmethod
    def _number_as_text(cls, v):
        """A number names its cells as its text does (compared by value when read)."""
        return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


class CSVSource(DataSource):
    """Reads a numeric CSV file (header row = names); integer-valued columns count as discrete.

    ``target`` names the column of effect states and ``labels`` the column of true classes
    (``truth["labels"]``, a :class:`~framework.Partition` of the samples); both leave the
    variables. Their values are factorised exactly: numbers by value (-0.05 and 0.05 are two
    classes, 1 and 1.0 one), text by its text. Whole non-negative numbers stay the class codes;
    other classes are numbered 0, 1, ... in sorted order. A label
    cell equal to ``noise`` becomes noise (-1); an empty label cell is an error unless
    ``noise=""``. Every error names the file, the column and the data row.

    A relative ``path`` is looked for in the YAML file's folder (in a YAML run), then in the
    working directory, then in the folder ``MACROCAUSE_DATA`` names (:mod:`macrocause.framework.paths`).
    """

    name = "csv"
    Params = CSVParams

    def _load(self) -> Dataset:
        return load_csv(**self.params.model_dump())

    @classmethod
    def example(cls) -> Example:
        import atexit
        import shutil
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="macrocause_csv_"))  # private, unpredictable name
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        f = folder / "example.csv"
        rng = np.random.default_rng(0)
        labels = [0.05] * 6 + [-0.05] * 5 + [-1]
        rows = ["x,y,label"] + [f"{a:.4f},{b:.4f},{c}" for (a, b), c in zip(rng.random((12, 2)), labels)]
        f.write_text("\n".join(rows) + "\n")
        return Example({"path": str(f), "labels": "label", "noise": -1}, Dataset(np.zeros((1, 1))))
