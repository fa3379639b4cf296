"""Quantile bins of one variable: the simplest macro-variable."""

import numpy as np
from pydantic import Field

from macrocause import Dataset, DataValidationError, Params, Partition, Partitioner


class QuantileBinsParams(Params):
    variable: int = Field(0, ge=0, description="Index of the variable to bin.")
    n_bins: int = Field(2, ge=2, description="Number of equal-frequency bins.")


class QuantileBins(Partitioner):
    """Groups samples into equal-frequency bins of one variable."""

    name = "quantile_bins"
    axis = "samples"
    Params = QuantileBinsParams

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=self.params.n_bins)
        if self.params.variable >= data.n_variables:
            raise DataValidationError(
                f"quantile_bins: variable {self.params.variable} does not exist; "
                f"the data has {data.n_variables} variables."
            )

    def _partition(self, data: Dataset) -> Partition:
        x = data.X[:, self.params.variable]
        edges = np.quantile(x, np.linspace(0, 1, self.params.n_bins + 1)[1:-1])
        return Partition(np.searchsorted(edges, x, side="right"))
