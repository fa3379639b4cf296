"""registry.yaml is the catalogue read at run time: it equals what the classes declare,
it is read without importing plugins, its `requires:` are complete and enforced;
CONTRACT.md names must exist."""

import ast
import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from macrocause import plugins
from macrocause.framework.manifest import Manifest, load_manifest, manifest_differences
from macrocause.framework.registry import Registry
from macrocause.framework.testing.manifest import check_manifest

REPO = Path(__file__).resolve().parents[2]

CONTRACT = {
    "partitioner": {"cafe_dbscan", "cause_fs", "clic", "dbscan", "hdbscan", "kmeans", "cfl_two_step",
                    "gmm_em", "laplacian_score"},
    "scorer": {"cic", "bic"},
    "searcher": {"cic_greedy", "pc", "hill_climb"},
    "evaluator": {"disco", "dbcv", "silhouette", "nmi", "ari", "clustering_accuracy", "shd", "edge_f1"},
}
PLUGINS = plugins.__name__  # the package of the built-in plugins, under whichever import name
BUILTIN = sorted(ep.name for ep in entry_points(group="macrocause") if ep.module.startswith(PLUGINS + "."))


def _run(code: str, **env: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO), **env})
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_manifest_validates():
    m = load_manifest(REPO / "registry.yaml")
    assert isinstance(m, Manifest) and {e.entry_point for e in m.plugins} == set(BUILTIN)


@pytest.mark.parametrize("entry_point", BUILTIN)
def test_manifest_equals_the_classes(entry_point):
    check_manifest(entry_point)


def test_the_check_sees_a_difference():
    from macrocause.plugins.clic.clustering import CLIC

    (entry,) = [e for e in load_manifest(REPO / "registry.yaml").plugins if e.name == "clic"]
    changed = entry.model_copy(update={"requires": ["kmeans"], "summary": "Other."})
    assert manifest_differences([changed], [CLIC], "clic") == [
        f"clic: summary is 'Other.' in the manifest, {CLIC.summary()!r} in the class",
        "clic: requires is ['kmeans'] in the manifest, ['gmm_em', 'kmeans'] in the class",
    ]


def test_listing_imports_no_plugin_module_and_creating_imports_one_package():
    code = ("import sys; from macrocause.framework import registry; "
            "n = len(registry.names()) + len(registry.names('data')); "
            f"before = sorted(m for m in sys.modules if m.startswith('{PLUGINS}.')); "
            "registry.create('kmeans'); "
            f"after = sorted({{m[{len(PLUGINS) + 1}:].split('.')[0] for m in sys.modules "
            f"if m.startswith('{PLUGINS}.')}}); "
            "print(n, before, after)")
    n, rest = _run(code).split(" ", 1)
    assert int(n) == len(load_manifest(REPO / "registry.yaml").plugins)
    assert rest.strip() == "[] ['baselines']"


def _by_name_uses(tree: ast.Module) -> set[str]:
    """Plugin names a module creates by name: registry.create/get("x"), default_scorer = "x",
    and the string defaults of fields named scorer/partitioner."""
    found = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("create", "get") and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "registry" and node.args
                and isinstance(node.args[0], ast.Constant)):
            found.add(node.args[0].value)
        targets = ([node.target] if isinstance(node, ast.AnnAssign)
                   else node.targets if isinstance(node, ast.Assign) else [])
        value = getattr(node, "value", None)
        names = {t.id for t in targets if isinstance(t, ast.Name)}
        if names & {"default_scorer", "scorer", "partitioner"}:
            if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Constant):
                value = value.args[0]  # Field("cic", ...)
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found.add(value.value)
    return found


def test_every_by_name_use_is_declared_in_requires():
    """Each name a plugin module creates by name is in the requires of a class of that module."""
    catalogue = {e.name: e for e in load_manifest(REPO / "registry.yaml").plugins}
    declared: dict[str, set[str]] = {}
    for e in catalogue.values():
        declared.setdefault(e.class_.split(":")[0], set()).update(e.requires)
    missing = []
    for path in sorted(Path(plugins.__file__).parent.rglob("*.py")):
        module = PLUGINS + "." + ".".join(path.relative_to(Path(plugins.__file__).parent).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        for name in sorted(_by_name_uses(ast.parse(path.read_text())) & set(catalogue)):
            if name not in declared.get(module, set()) and catalogue[name].class_.split(":")[0] != module:
                missing.append(f"{module} creates {name!r}")
    assert not missing, missing
    assert {"kmeans", "gmm_em"} <= set(catalogue["clic"].requires) and catalogue["bic_score"].requires == ["bic"]


def test_blocking_a_plugin_names_the_ones_that_need_it():
    code = ("import json; from macrocause.framework import registry\n"
            "try:\n    registry.create('clic')\nexcept Exception as e:\n    err = str(e)\n"
            "print(json.dumps({'names': registry.names(), 'err': err, "
            "'unavailable': {u.origin: u.reason for u in registry.unavailable()}}))")
    out = json.loads(_run(code, MACROCAUSE_BLOCK_PLUGINS="baselines"))
    assert "clic" not in out["names"] and "kmeans" not in out["names"]
    assert out["unavailable"]["baselines"] == "blocked by MACROCAUSE_BLOCK_PLUGINS"
    blocked = "(entry point 'baselines': blocked by MACROCAUSE_BLOCK_PLUGINS)"
    assert out["unavailable"]["clic"] == f"clic needs 'kmeans' {blocked}; 'gmm_em' {blocked}."
    assert f"It failed to load: clic needs 'kmeans' {blocked}" in out["err"]


def test_contract_names_exist():
    reg = Registry()
    for role, names in CONTRACT.items():
        missing = names - set(reg.names(role))
        assert not missing, f"{role}s missing: {sorted(missing)}"


def test_manifest_errors_are_clear(tmp_path):
    from macrocause.framework.errors import PluginError

    bad = tmp_path / "r.yaml"
    bad.write_text("schema_version: 1\nplugins:\n  - {name: x, role: partitioner, entry_point: e, "
                   "class: 'a:B', summary: abc}\n")
    with pytest.raises(PluginError, match="partitioner 'x' needs an axis"):
        load_manifest(bad)
    bad.write_text("plugins: [\n")
    with pytest.raises(PluginError, match="invalid YAML"):
        load_manifest(bad)
