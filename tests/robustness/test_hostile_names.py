"""Names are data: a column named like Python code never runs (issue 25, point 1).

Every registered partitioner, scorer, searcher and evaluator runs on its
example with each column renamed to ``__import__('os').system('touch .../PWNED<i>')``;
no marker file may appear. pgmpy's Gaussian BIC used to build a patsy formula
from the names, which evaluated them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from macrocause.framework import CausalGraph, Dataset, Partition, registry
from macrocause.framework.cli import main
from macrocause.framework.roles import Evaluator, Partitioner, Scorer, Searcher
from macrocause.framework.testing.examples import example_of

ROLES = ("partitioner", "scorer", "searcher", "evaluator")
PLUGINS = sorted({n for role in ROLES for n in registry.names(role)})


def hostile(folder: Path, i: int) -> str:
    return f"__import__('os').system('touch {folder}/PWNED{i}')"


def rename(obj, names: dict[str, str]):
    """*obj* with every variable name mapped through *names* (datasets, graphs, partitions)."""
    if isinstance(obj, Dataset):
        return Dataset(obj.X, names=[names[n] for n in obj.names], target=obj.target,
                       discrete=obj.discrete, truth=rename(obj.truth, names), name=obj.name)
    if isinstance(obj, CausalGraph):
        return CausalGraph([[names.get(v, v) for v in c] for c in obj.clusters],
                           obj.directed, obj.undirected, obj.bidirected, obj.partially_directed, obj.nondirected)
    if isinstance(obj, Partition) and obj.names is not None:
        return Partition(obj.labels, axis=obj.axis, info=obj.info,
                         names=[names.get(v, v) for v in obj.names])
    if isinstance(obj, dict):
        return {k: rename(v, names) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return type(obj)(rename(v, names) for v in obj)
    if isinstance(obj, str):
        return names.get(obj, obj)
    return obj


def run_renamed(name: str, folder: Path):
    cls = registry.get(name)
    ex = example_of(cls)
    names = {n: hostile(folder, i) for i, n in enumerate(ex.data.names)}
    plugin = cls(**ex.params)
    data = rename(ex.data, names)
    if isinstance(plugin, Partitioner):
        return plugin.partition(data)
    if isinstance(plugin, Searcher):
        return plugin.search(data, scorer=ex.scorer, init=rename(ex.init, names))
    if isinstance(plugin, Scorer):
        graph = ex.graph if ex.graph is not None else CausalGraph.empty(ex.data.names)
        return plugin.score(data, rename(graph, names))
    assert isinstance(plugin, Evaluator)
    return plugin.evaluate(data, rename(ex.result, names), rename(ex.truth, names))


@pytest.mark.parametrize("name", PLUGINS)
def test_every_plugin_treats_a_hostile_column_name_as_data(name, tmp_path):
    run_renamed(name, tmp_path)
    assert not list(tmp_path.glob("PWNED*")), f"{name} ran a column name as code"


def _gaussian_chain(n=300, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n)
    b = a + 0.5 * rng.standard_normal(n)
    c = b + 0.5 * rng.standard_normal(n)
    return np.column_stack([a, b, c])


@pytest.mark.parametrize("name", sorted(registry.names("searcher")))
def test_every_searcher_on_continuous_data_with_hostile_names(name, tmp_path):
    X = _gaussian_chain()
    names = [hostile(tmp_path, i) for i in range(3)]
    plain = registry.create(name).search(Dataset(X))
    graph = registry.create(name).search(Dataset(X, names=names))
    assert not list(tmp_path.glob("PWNED*"))
    # the same graph as under plain names, mapped by position
    back = dict(zip(names, ["x0", "x1", "x2"]))
    assert rename(graph, back) == plain


@pytest.mark.parametrize("scoring", ["bic-g", "bic-cg"])
def test_hill_climb_gaussian_scores_keep_names_out_of_formulas(scoring, tmp_path):
    X = _gaussian_chain()
    names = [hostile(tmp_path, 0), "b", hostile(tmp_path, 2)]
    graph = registry.create("hill_climb", scoring=scoring, return_type="dag").search(
        Dataset(X, names=names, discrete=False))
    assert not list(tmp_path.glob("PWNED*"))
    assert {frozenset(e) for e in graph.edge_names()} == {frozenset(names[:2]), frozenset(names[1:])}


def test_a_hostile_csv_header_through_macrocause_run(tmp_path):
    X = _gaussian_chain(200)
    header = ",".join('"' + hostile(tmp_path, i).replace('"', '""') + '"' for i in range(3))
    rows = "\n".join(",".join(f"{v:.6f}" for v in r) for r in X)
    (tmp_path / "d.csv").write_text(header + "\n" + rows + "\n")
    (tmp_path / "p.yaml").write_text(
        f"data: {{source: csv, params: {{path: '{tmp_path / 'd.csv'}'}}}}\n"
        "steps:\n  - {id: hc, search: hill_climb, params: {return_type: dag}}\n"
    )
    res = CliRunner().invoke(main, ["run", str(tmp_path / "p.yaml"), "--no-store"])
    assert res.exit_code == 0, res.output
    assert "->" in res.output or " - " in res.output
    assert not list(tmp_path.glob("PWNED*"))


@pytest.mark.parametrize("discrete", [True, False])
def test_hill_climb_with_internal_names_finds_pgmpys_graph_under_the_real_names(discrete):
    from pgmpy.structure_score import get_scoring_method

    from macrocause.plugins.baselines._pgmpy_hc import OrderedHillClimbSearch, safe_names

    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 400) if discrete else rng.standard_normal(400)
    noise = (lambda: rng.random(400) < 0.2) if discrete else (lambda: 0.6 * rng.standard_normal(400))
    b = (a ^ noise()) if discrete else a + noise()
    c = (b ^ noise()) if discrete else b + noise()
    d = (a ^ noise()) if discrete else a + noise()
    names = ["x10", "b", "x9", "a"]  # not in sorted order
    ds = Dataset(np.column_stack([a, b, c, d]), names=names, discrete=discrete)
    assert safe_names(names) == {"a": "v0", "b": "v1", "x10": "v2", "x9": "v3"}
    ours = registry.create("hill_climb", return_type="dag").search(ds)
    frame = ds.to_pandas(categorical=True)
    score = get_scoring_method("bic-d" if discrete else "bic-g", frame)
    dag = OrderedHillClimbSearch(scoring_method=score, return_type="dag", show_progress=False).fit(frame).causal_graph_
    assert ours.edge_names() == {(str(x), str(y)) for x, y in dag.edges()}
    assert len(ours.edge_names()) >= 3
