"""cic_greedy's memory estimate (docs/limits.md): counted from its allocations, and the guard refuses in one line
before the engine or any cache is built."""

import numpy as np
import pytest

from macrocause.framework import Dataset, registry
from macrocause.framework.errors import MemoryBudgetError


def binary(n, d, seed=0):
    return Dataset(np.random.default_rng(seed).integers(0, 2, (n, d)), discrete=True)


def test_estimate_counts_arrays_features_and_caches():
    est = registry.create("cic_greedy").memory_estimate
    # d = 10, n = 1,000: 21 n d + n * 3 d^2 + 220 d^3 / 2 + 150 d^3 / 7
    assert est(binary(1000, 10)).bytes == pytest.approx(21 * 1000 * 10 + 1000 * 300 + 110_000 + 150_000 / 7)
    # d = 200: the features (2,048) and both caches (10^5 entries) at their bounds
    assert est(binary(100, 200)).bytes == pytest.approx(21 * 100 * 200 + 100 * 2048 + 220e5 + 150e5)


def test_guard_refuses_in_one_line_before_allocating(monkeypatch):
    from macrocause.plugins.cic import family

    def no_engine(*args, **kwargs):
        raise AssertionError("the engine was built before the memory check")

    monkeypatch.setattr(family.FamilyEngine, "__init__", no_engine)
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "20MB")  # the estimate at d = 100, n = 4,000: about 51 MiB
    with pytest.raises(MemoryBudgetError) as exc:
        registry.create("cic_greedy").search(binary(4000, 100), scorer=registry.create("cic"))
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith("cic_greedy would need about 51.1 MiB") and "20.0 MiB" in msg
