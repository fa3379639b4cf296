"""ResultStore.to_pandas: one row per run and step, metrics as columns, round-tripping the store."""

import json
import math

import pytest

from macrocause.framework.compare import compare
from macrocause.framework.store import ResultStore

pd = pytest.importorskip("pandas")


def test_grid_round_trips_through_the_frame(toys, toy_grid, tmp_path):
    grid, base = toy_grid()
    with ResultStore(tmp_path / "r.db") as store:
        compare(grid, store, base=base, progress=False)
        rows, df = store.rows(), store.to_pandas()
    assert len(df) == len(rows) == 8  # 2 data x 2 seeds x 2 steps
    assert list(df.columns[-1:]) == ["toy_agreement"]
    for (_, got), want in zip(df.iterrows(), rows):
        assert (got["run_key"], got["step"], got["kind"], got["seed"]) == \
            (want["run_key"], want["step"], want["kind"], want["seed"])
        assert json.loads(got["params"]) == want["params"]
        assert json.loads(got["source_params"]) == want["source_params"]
        value = want["metrics"].get("toy_agreement")
        assert math.isnan(got["toy_agreement"]) if value is None else got["toy_agreement"] == value
    ev = df[df["kind"] == "evaluate"]
    assert ev.groupby("data_label")["toy_agreement"].mean().tolist() == [1.0, 1.0]
    assert df["toy_agreement"].isna().sum() == 4  # the partition steps have no metric


def test_metrics_are_columns_nan_where_missing_and_clashes_prefixed(tmp_path):
    with ResultStore(tmp_path / "s.db") as store:
        store.write_run("k1", [{"step": "a", "kind": "evaluate", "metrics": {"ari": 0.5, "seed": 3.0}}],
                        pipeline="p", seed=0, data_label="d")
        store.write_run("k2", [{"step": "a", "kind": "evaluate", "metrics": {"nmi": 0.25}}],
                        pipeline="p", seed=1, data_label="d")
        df = store.to_pandas()
        only = store.to_pandas("seed = ?", (1,))
    assert list(df.columns[-3:]) == ["ari", "nmi", "metric_seed"]
    assert df["ari"].tolist()[0] == 0.5 and math.isnan(df["ari"].tolist()[1])
    assert df["metric_seed"].tolist()[0] == 3.0 and df["seed"].tolist() == [0, 1]
    assert only["run_key"].tolist() == ["k2"] and only["nmi"].tolist() == [0.25]


def test_empty_store_gives_an_empty_frame_with_the_columns(tmp_path):
    with ResultStore(tmp_path / "e.db") as store:
        df = store.to_pandas()
    assert len(df) == 0 and "run_key" in df.columns and "params" in df.columns
