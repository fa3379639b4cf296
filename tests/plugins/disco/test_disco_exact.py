"""DISCO equals the authors' reference values (raw and z-scored features)."""

import json
from pathlib import Path

import numpy as np
import pytest

from macrocause.framework import registry

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data"
REFS = [("clustering", SHARED / "clustering" / "disco_gt_reference.jsonl"),
        ("dbcv_reference", SHARED / "dbcv_reference" / "disco_gt_reference.jsonl")]


def _cases():
    out = []
    for folder, path in REFS:
        if path.exists():
            for line in path.read_text().splitlines():
                if line.strip():
                    r = json.loads(line)
                    out.append(pytest.param(folder, r, id=r["file"]))
    return out


def _load(folder, name):
    A = np.loadtxt(SHARED / folder / name, delimiter=",", skiprows=1)
    return A[:, :-1], A[:, -1].astype(int)


def _zscore(X):
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0  # a constant column is only centred
    return (X - X.mean(axis=0)) / sd


@pytest.mark.skipif(not SHARED.exists(), reason="shared data not present")
@pytest.mark.parametrize("folder, ref", _cases())
def test_disco_equals_reference(folder, ref):
    X, y = _load(folder, ref["file"])
    disco = registry.create("disco")
    raw = disco.evaluate(X, y)
    assert raw.value == pytest.approx(ref["disco_gt_raw"], abs=1e-9, rel=0)
    z = disco.evaluate(_zscore(X), y)
    assert z.value == pytest.approx(ref["disco_gt_zscore"], abs=1e-9, rel=0)
    if "disco_gt_raw_clusters_only" in ref:
        assert raw.metrics["disco_clusters"] == pytest.approx(ref["disco_gt_raw_clusters_only"], abs=1e-9)
        assert raw.metrics["disco_noise"] == pytest.approx(ref["disco_gt_raw_noise_only"], abs=1e-9)
        assert z.metrics["disco_clusters"] == pytest.approx(ref["disco_gt_zscore_clusters_only"], abs=1e-9)
        assert z.metrics["disco_noise"] == pytest.approx(ref["disco_gt_zscore_noise_only"], abs=1e-9)
    if "disco_random_k_raw_seed0" in ref:
        k = len(np.unique(y[y >= 0]))
        rand = np.random.default_rng(0).integers(0, k, len(y))
        got = disco.evaluate(X, rand).value
        assert got == pytest.approx(ref["disco_random_k_raw_seed0"], abs=1e-9, rel=0)
