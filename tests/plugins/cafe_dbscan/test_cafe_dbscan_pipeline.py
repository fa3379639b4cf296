"""Composition: the CAFE partition becomes a macro-variable Z and PC learns a graph that includes it."""

from pathlib import Path

import pytest

pipeline = pytest.importorskip("macrocause.framework.pipeline")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "cafe_dbscan_macro.yaml"


def test_macro_variable_pipeline():
    text = EXAMPLE.read_text().replace("params: {seed: 0}", "params: {seed: 0, n_per_class: 200, n_noise: 60}")
    text = text.replace("eps: 0.27, min_points: 50", "eps: 0.35, min_points: 20")
    res = pipeline.Pipeline.from_yaml(text).run()
    assert res.outputs["quality"]["nmi"].value > 0.8
    ds = res.outputs["macro"]
    assert ds.names[-1] == "Z" and ds.discrete[-1]
    graph = res.outputs["graph"]
    assert "Z" in graph.variables
    edges = {frozenset(e) for e in graph.edge_names()} | graph.undirected_names()
    assert any("Z" in e for e in edges), f"Z is isolated in {graph}"


def test_automatic_mode_pipeline():
    path = EXAMPLE.parent / "cafe_dbscan_auto.yaml"
    text = path.read_text().replace("params: {seed: 0}", "params: {seed: 0, n_per_class: 150, n_noise: 60}")
    res = pipeline.Pipeline.from_yaml(text).run()
    assert res.outputs["quality"]["nmi"].value > 0.75
    assert res.outputs["parts"].info["refined"] is True
    graph = res.outputs["graph"]
    edges = {frozenset(e) for e in graph.edge_names()} | graph.undirected_names()
    assert any("Z" in e for e in edges), f"Z is isolated in {graph}"
