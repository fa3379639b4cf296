"""Only `macrocause` is installed at the top level, and a script beside a user's own plugins/
and framework/ folders still gets the built-in plugins (issue 29.7)."""

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    src = out / "src"  # built from a copy: a build writes build/ and *.egg-info beside the sources
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", "benchmarks", "tests", "docs", "site", "*.db"))
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                          "--wheel-dir", str(out), str(src)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (whl,) = out.glob("macrocause-*.whl")
    return whl


def test_only_macrocause_is_at_the_top_level(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    version = PYPROJECT["project"]["version"]
    assert {n.split("/")[0] for n in names} == {"macrocause", f"macrocause-{version}.dist-info"}
    assert "macrocause/registry.yaml" in names  # the catalogue is read at run time
    assert "macrocause/framework/__init__.py" in names and "macrocause/plugins/cic/__init__.py" in names
    shipped = {str(p.relative_to(REPO)) for p in (REPO / "plugins" / "datasets" / "data").rglob("*.csv")}
    assert shipped and {f"macrocause/{p}" for p in shipped} <= set(names)
    entry_points = zipfile.ZipFile(wheel).read(f"macrocause-{version}.dist-info/entry_points.txt").decode()
    values = [line.split("=", 1)[1].strip() for line in entry_points.splitlines() if "=" in line]
    assert values and all(v.startswith("macrocause.") for v in values), values


def test_the_package_list_names_every_folder():
    """Every folder under framework/ and plugins/ holding a .py file or package data is listed."""
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    suffixes = {".py", *(p.lstrip("*") for p in PYPROJECT["tool"]["setuptools"]["package-data"]["*"])}
    found = {"macrocause"}
    for top in ("framework", "plugins"):
        for d in [REPO / top, *(p for p in (REPO / top).rglob("*") if p.is_dir())]:
            rel = d.relative_to(REPO)
            if "__pycache__" in rel.parts or any(part.endswith(".egg-info") for part in rel.parts):
                continue
            if any(f.is_file() and f.suffix in suffixes for f in d.iterdir()):
                found.add("macrocause." + ".".join(rel.parts))
    assert found == listed, f"not listed: {sorted(found - listed)}; listed, no folder: {sorted(listed - found)}"


SCRIPT = """
import sys
from macrocause import CausalGraph, Dataset, Evaluation, Partition, registry

ds = registry.load_data("sachs")
print(type(ds) is Dataset, sorted({c.__module__.split(".")[0] for c in (Dataset, Partition, CausalGraph, Evaluation)}))
print("kmeans" in registry.names("partitioner"), [u.reason for u in registry.unavailable()])
print(registry.create("kmeans", n_clusters=2, seed=0).partition(ds).n_clusters)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("plugins", "framework")))
"""


def test_a_script_beside_plugins_and_framework_folders_gets_the_builtin_plugins(wheel, tmp_path):
    site = tmp_path / "site"
    run = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target",
                          str(site), str(wheel)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    work = tmp_path / "work"
    for folder in ("plugins", "framework"):  # the user's own, as a new user would name them
        (work / folder).mkdir(parents=True)
        (work / folder / "__init__.py").write_text("raise ImportError('the user folder was imported')\n")
    (work / "script.py").write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run([sys.executable, "script.py"], cwd=work, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "True ['macrocause']"
    assert lines[1:] == ["True []", "2", "[]"]
