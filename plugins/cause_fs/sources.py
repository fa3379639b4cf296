"""Feature-selection data: MATLAB .mat files (X/Y or fea/gnd) and scikit-learn's digits."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, DataSource, Params, Partition
from macrocause.framework.errors import DataValidationError
from macrocause.framework.paths import find_data_path
from macrocause.framework.roles import Example


class MatFileParams(Params):
    path: str = Field(..., description="A MATLAB v5 .mat file with X/Y or fea/gnd (rows = samples).")
    n_samples: int | None = Field(None, ge=2, description="None = every sample; else a seeded draw of this "
                                  "many, stratified by class (each class in proportion).")
    seed: int = Field(0, description="Seed of the draw (with n_samples).")


def stratified_draw(y: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Sorted indices of *n* samples drawn without replacement, each class in proportion to its
    size (largest remainders round up), from one seeded permutation."""
    rng = np.random.default_rng(seed)
    classes, counts = np.unique(y, return_counts=True)
    share = n * counts / y.size
    take = np.floor(share).astype(np.int64)
    take[np.argsort(-(share - take), kind="stable")[: n - take.sum()]] += 1
    order = rng.permutation(y.size)
    return np.sort(np.concatenate([order[y[order] == c][:t] for c, t in zip(classes, take)]))


def subsample(ds: Dataset, n: int | None, seed: int, source: str) -> Dataset:
    """*ds* restricted to :func:`stratified_draw` of its labels (unchanged when n is None)."""
    if n is None:
        return ds
    y = ds.truth["labels"].labels
    if n > y.size:
        raise DataValidationError(f"The 'n_samples' parameter of {source} must be <= {y.size} (the samples of "
                                  f"{ds.name}). Got {n} instead.")
    idx = stratified_draw(y, n, seed)
    return Dataset(ds.X[idx], names=ds.names, discrete=False, truth={"labels": Partition(y[idx])},
                   name=f"{ds.name}_{n}")


class MatFile(DataSource):
    """A feature-selection data set from a MATLAB .mat file: ``X``/``Y`` or ``fea``/``gnd``.

    Rows are samples. ``truth["labels"]`` is the class of each sample (a Partition); the
    data set is named after the file. With ``n_samples``, a seeded class-stratified draw of
    that many samples (for runs that must stay short; say so where figures are reported).

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

        f = find_data_path(self.params.path, "mat")  # the rule of macrocause.framework.paths
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
        ds = Dataset(X, discrete=False, truth={"labels": Partition(codes)}, name=f.stem)
        return subsample(ds, self.params.n_samples, self.params.seed, self.name)


class DigitsParams(Params):
    n_samples: int | None = Field(None, ge=2, description="None = all 1797; else a seeded class-stratified draw.")
    seed: int = Field(0, description="Seed of the draw (with n_samples).")


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
        ds = Dataset(d.data, names=[f"px{i}" for i in range(d.data.shape[1])], discrete=False,
                     truth={"labels": Partition(d.target)}, name="digits")
        return subsample(ds, self.params.n_samples, self.params.seed, self.name)


class SyntheticFSParams(Params):
    n_samples: int = Field(200, ge=4, description="Number of samples.")
    n_features: int = Field(20000, ge=2, description="Number of features.")
    n_classes: int = Field(5, ge=2, description="Number of classes (equal sizes, up to one sample).")
    n_informative: int = Field(50, ge=1, description="The first n_informative features carry the classes.")
    shift: float = Field(2.0, gt=0, description="Mean shift of informative feature j in class j mod n_classes.")
    seed: int = Field(0, description="Random seed of the samples.")


class SyntheticFS(DataSource):
    """Synthetic feature-selection data: Gaussian noise, classes shifting a few features.

    Every entry is ``N(0, 1)``; informative feature j (one of the first ``n_informative``)
    is shifted by ``shift`` in the samples of class ``j mod n_classes`` (sample i is in
    class ``i mod n_classes``); every other feature is pure noise. ``truth["labels"]`` is the class of each sample. Meant
    for time and memory growth studies of the selectors (any n and d, including d >> n) and
    as a known answer (a good selector ranks the informative features first).
    """

    name = "fs_synthetic"
    Params = SyntheticFSParams
    paper = "ours (a Gaussian class-mean model for selector benchmarks)"

    @classmethod
    def example(cls) -> Example:
        return Example({"n_samples": 30, "n_features": 40, "n_classes": 3, "n_informative": 4},
                       Dataset(np.zeros((1, 1))))

    def _load(self) -> Dataset:
        p = self.params
        if p.n_informative > p.n_features:
            raise DataValidationError(
                f"The 'n_informative' parameter of fs_synthetic must be <= n_features ({p.n_features}). "
                f"Got {p.n_informative} instead.")
        rng = np.random.default_rng(p.seed)
        y = np.arange(p.n_samples) % p.n_classes
        X = rng.standard_normal((p.n_samples, p.n_features))
        X[:, : p.n_informative] += p.shift * (y[:, None] == np.arange(p.n_informative) % p.n_classes)
        return Dataset(X, discrete=False, truth={"labels": Partition(y)},
                       name=f"fs_synthetic_{p.n_samples}x{p.n_features}")
