"""Feature-selection data: MATLAB .mat files (X/Y or fea/gnd) and scikit-learn's digits."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import numpy as np
from pydantic import Field

from framework import Dataset, DataSource, Params, Partition
from framework.errors import DataValidationError
from framework.roles import Example


class MatFileParams(Params):
    path: str = Field(..., description="A MATLAB v5 .mat file with X/Y or fea/gnd (rows = samples).")


class MatFile(DataSource):
    """A feature-selection data set from a MATLAB .mat file: ``X``/``Y`` or ``fea``/``gnd``.

    Rows are samples. ``truth["labels"]`` is the class of each sample (a Partition); the
    data set is named after the file.

    References
    ----------
    Li et al. Feature selection: a data perspective (scikit-feature repository format), 2017.
    """

    name = "mat"
    Params = MatFileParams
    paper = "Li et al., ACM Computing Surveys 2017 (scikit-feature data format)"

    @classmethod
    def example(cls) -> Example:
        from scipy.io import savemat

        # a fresh private folder (mkdtemp: unpredictable name, mode 0700), never a fixed
        # name in /tmp that someone else could have planted a symlink at
        folder = Path(tempfile.mkdtemp(prefix="macrocause_mat_"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        f = folder / "example.mat"
        rng = np.random.default_rng(0)
        savemat(f, {"X": rng.random((12, 4)), "Y": np.repeat([1, 2], 6)[:, None]})
        return Example({"path": str(f)}, Dataset(np.zeros((1, 1))))

    def _load(self) -> Dataset:
        from scipy.io import loadmat

        f = Path(self.params.path)
        if not f.is_file():
            raise DataValidationError(f"mat: file not found: {f}")
        m = loadmat(f)
        for xk, yk in (("X", "Y"), ("fea", "gnd")):
            if xk in m and yk in m:
                X = np.asarray(m[xk], dtype=np.float64)
                y = np.asarray(m[yk]).ravel()
                break
        else:
            keys = sorted(k for k in m if not k.startswith("__"))
            raise DataValidationError(f"mat: {f.name} needs keys X/Y or fea/gnd; it has {keys}.")
        if y.size != X.shape[0]:
            raise DataValidationError(f"mat: {y.size} labels for {X.shape[0]} samples in {f.name}.")
        _, codes = np.unique(y, return_inverse=True)
        return Dataset(X, discrete=False, truth={"labels": Partition(codes)}, name=f.stem)


class DigitsParams(Params):
    pass


class Digits(DataSource):
    """scikit-learn's bundled handwritten digits (1797 x 64, 8x8 images, 10 classes; no download).

    ``truth["labels"]`` is the digit of each sample.

    References
    ----------
    Alpaydin, Kaynak. Optical recognition of handwritten digits. UCI, 1998.
    """

    name = "digits"
    Params = DigitsParams
    paper = "Alpaydin & Kaynak 1998 (UCI optical digits, scikit-learn copy)"

    def _load(self) -> Dataset:
        from sklearn.datasets import load_digits

        d = load_digits()
        return Dataset(d.data, names=[f"px{i}" for i in range(d.data.shape[1])], discrete=False,
                       truth={"labels": Partition(d.target)}, name="digits")
