"""registry.yaml and the entry points must agree; CONTRACT.md names must exist."""

from pathlib import Path

import pytest

from framework.manifest import Manifest, load_manifest
from framework.registry import Registry, import_object

REPO = Path(__file__).resolve().parents[2]

CONTRACT = {
    "partitioner": {"cafe_dbscan", "cause_fs", "clic", "dbscan", "hdbscan", "kmeans", "cfl_two_step",
                    "gmm_em", "laplacian_score"},
    "scorer": {"cic", "bic"},
    "searcher": {"cic_greedy", "pc", "hill_climb"},
    "evaluator": {"disco", "dbcv", "silhouette", "nmi", "ari", "clustering_accuracy", "shd", "edge_f1"},
}


@pytest.fixture(scope="module")
def builtin():
    reg = Registry()
    return {r.name: r for r in reg._records.values() if r.package == "macrocause"}, reg


def test_manifest_validates():
    m = load_manifest(REPO / "registry.yaml")
    assert isinstance(m, Manifest) and m.plugins


def test_manifest_equals_entry_points(builtin):
    records, reg = builtin
    assert not [u for u in reg.unavailable() if u.package == "macrocause"], reg.unavailable()
    m = load_manifest(REPO / "registry.yaml")
    listed = {e.name: e for e in m.plugins}
    assert set(listed) == set(records), (
        f"in registry.yaml only: {sorted(set(listed) - set(records))}; "
        f"registered only: {sorted(set(records) - set(listed))}"
    )
    for name, e in listed.items():
        rec = records[name]
        assert e.role == rec.role, name
        assert e.entry_point == rec.origin, name
        assert import_object(e.class_) is rec.cls, name
        assert e.summary == rec.summary, name
        assert e.axis == (rec.cls.axis if rec.role == "partitioner" else None), name


def test_contract_names_exist(builtin):
    _, reg = builtin
    for role, names in CONTRACT.items():
        missing = names - set(reg.names(role))
        assert not missing, f"{role}s missing: {sorted(missing)}"


def test_manifest_errors_are_clear(tmp_path):
    from framework.errors import PluginError

    bad = tmp_path / "r.yaml"
    bad.write_text("schema_version: 1\nplugins:\n  - {name: x, role: partitioner, entry_point: e, "
                   "class: 'a:B', summary: abc}\n")
    with pytest.raises(PluginError, match="partitioner 'x' needs an axis"):
        load_manifest(bad)
    bad.write_text("plugins: [\n")
    with pytest.raises(PluginError, match="invalid YAML"):
        load_manifest(bad)
