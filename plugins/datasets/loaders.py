"""A data source that reads a CSV file."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from framework import Dataset, DataSource, Params
from framework.roles import Example


class CSVParams(Params):
    path: str = Field(description="CSV file with a header row of variable names.")
    target: str | None = Field(None, description="Column of effect states, taken out of the variables.")


class CSVSource(DataSource):
    """Reads a numeric CSV file (header row = names); integer-valued columns count as discrete.

    A relative ``path`` is taken from the working directory.
    """

    name = "csv"
    Params = CSVParams

    def _load(self) -> Dataset:
        return Dataset.from_csv(Path(self.params.path), target=self.params.target)

    @classmethod
    def example(cls) -> Example:
        from .sachs import DATA_DIR

        return Example({"path": str(DATA_DIR / "sachs_cd3cd28_853.csv")}, Dataset([[0.0]]))
