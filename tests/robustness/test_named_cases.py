"""The extreme inputs named in the store/executors/extreme-inputs issue, one test each."""

from __future__ import annotations

import numpy as np
import pytest

from macrocause.framework import Dataset, Partition, registry
from macrocause.framework.errors import DataValidationError, MemoryBudgetError
from macrocause.framework.memory import (
    MemoryEstimate,
    budget_bytes,
    check_budget,
    format_bytes,
    parse_size,
)


def test_standardized_survives_the_largest_floats():
    z = Dataset([[1e300, 1.0], [-1e300, 2.0]]).standardized().X
    assert np.allclose(z, [[1.0, -1.0], [-1.0, 1.0]])


@pytest.mark.parametrize("labels, words", [
    (np.array([np.iinfo(np.uint64).max, 0], dtype=np.uint64), "signed 64-bit"),
    ([1e20, 0.0], r"below 2\*\*53"),
])
def test_partition_refuses_labels_it_cannot_hold(labels, words):
    with pytest.raises(DataValidationError, match=words):
        Partition(labels)


def test_take_and_select_name_the_problem():
    ds = Dataset(np.arange(12.0).reshape(6, 2))
    with pytest.raises(DataValidationError, match="at least one row"):
        ds.take([])
    with pytest.raises(DataValidationError, match="out of range"):
        ds.select([5])
    with pytest.raises(DataValidationError, match="0..5"):
        ds.take([6])
    assert ds.take([1, 2]).n_samples == 2


def test_dates_are_not_silently_numbers():
    with pytest.raises(DataValidationError, match="dates and durations"):
        Dataset(np.array([["2020-01-01"], ["2020-01-02"]], dtype="datetime64[D]"))


def _chain(n=400, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n)
    b = a + 0.5 * rng.standard_normal(n)
    c = b + 0.5 * rng.standard_normal(n)
    return np.column_stack([a, b, c])


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_pc_answers_on_extreme_scales_as_on_the_original(scale):
    pc = registry.create("pc", alpha=0.01)
    X = _chain()
    assert pc.search(Dataset(X * scale)) == pc.search(Dataset(X))


def test_a_method_with_a_distance_parameter_refuses_extreme_data_in_one_line():
    X = np.random.default_rng(0).standard_normal((50, 2)) * 1e300
    with pytest.raises(DataValidationError, match="rescale the data first") as exc:
        registry.create("dbscan", eps=0.5).partition(Dataset(X))
    assert "\n" not in str(exc.value)


def test_hdbscan_on_huge_values_gives_the_unscaled_answer():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 0.2, (40, 2)), rng.normal(3, 0.2, (40, 2))])
    hd = registry.create("hdbscan")
    assert np.array_equal(hd.partition(Dataset(X * 1e300)).labels, hd.partition(Dataset(X)).labels)


def test_memory_budget_parsing_and_message(monkeypatch):
    assert parse_size("4GB") == 4 * 2**30 and parse_size("512 MB") == 512 * 2**20 and parse_size("100") == 100
    with pytest.raises(MemoryBudgetError, match="is not a size"):
        parse_size("lots")
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "0")
    assert budget_bytes() is None
    check_budget("x", MemoryEstimate(1e30, "huge", "do less"))  # no limit: no refusal
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "1MB")
    with pytest.raises(MemoryBudgetError) as exc:
        check_budget("x", MemoryEstimate(2 * 2**20, "about 2 n bytes", "do less"))
    assert str(exc.value) == (
        "x would need about 2.0 MiB (about 2 n bytes), over the budget of 1.0 MiB "
        "(MACROCAUSE_MEMORY_LIMIT): do less, or raise MACROCAUSE_MEMORY_LIMIT."
    )
    assert format_bytes(1536) == "1.5 KiB"


def test_kernel_rank_refuses_200k_samples_before_allocating(monkeypatch):
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "16GB")
    X = np.random.default_rng(0).standard_normal((200_000, 3))
    with pytest.raises(MemoryBudgetError, match=r"kernel_rank would need about 2.3 TiB .*low_rank") as exc:
        registry.create("kernel_rank", kernel="exact").evaluate(Dataset(X))
    assert "\n" not in str(exc.value)
    assert registry.create("kernel_rank").memory_estimate(Dataset(X)) is None  # auto: low-rank, linear


def test_hill_climb_refuses_ten_thousand_variables(monkeypatch):
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "4GB")
    X = np.random.default_rng(0).standard_normal((20, 10_000))
    with pytest.raises(MemoryBudgetError, match="hill_climb would need about 10.2 GiB .*use pc"):
        registry.create("hill_climb").search(Dataset(X))


@pytest.mark.parametrize("name, params, shape, words", [
    ("pc", {"indep_test": "kci"}, (50_000, 3), r"pc would need about 223.5 GiB \(about 96 n\^2 bytes, KCI"),
    ("correlation_clusters", {}, (10, 10_000), r"correlation_clusters would need about 1.9 GiB"),
    ("greedy_dag", {}, (10, 1_000), r"greedy_dag would need about 1.9 GiB"),
    ("agglomerative", {}, (20_000, 2), r"agglomerative would need about 3.0 GiB \(about 8 n\^2 bytes"),
])
def test_quadratic_plugins_refuse_past_the_budget(monkeypatch, name, params, shape, words):
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "1GB")
    plugin = registry.create(name, **params)
    data = Dataset(np.random.default_rng(0).standard_normal(shape))
    with pytest.raises(MemoryBudgetError, match=words):
        plugin.search(data) if plugin.role == "searcher" else plugin.partition(data)



def test_pc_without_kci_is_linear_in_samples():
    pc = registry.create("pc")
    small, large = (pc.memory_estimate(Dataset(np.random.default_rng(0).standard_normal((n, 3)))).bytes
                    for n in (100, 200))
    assert large - small == 16 * 100 * 3  # the n d term; the rest grows with d^2 only
