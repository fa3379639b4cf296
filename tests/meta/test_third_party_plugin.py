"""The example plugin under docs/examples is discovered through real entry-point metadata."""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from macrocause.framework import ConfigError, DataValidationError

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "macrocause-hello"


def _tree(root: Path) -> set[Path]:
    return {p.relative_to(root) for p in root.rglob("*")}


def _install(tmp_path: Path) -> tuple[Path, dict]:
    """The example built from a copy (a build leaves build/ and *.egg-info next to the sources)
    and installed into a folder of its own; the environment that sees it."""
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = tmp_path / "site"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(src)],
        capture_output=True, text=True,
    )
    assert pip.returncode == 0, pip.stderr
    assert list(target.glob("macrocause_hello-*.dist-info/entry_points.txt"))
    # this checkout first (not whichever one is installed), then the plugin
    return src, {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(target),
                                                              os.environ.get("PYTHONPATH", "")])}


def test_installed_example_plugin_is_listed_and_runs(tmp_path):
    before = _tree(EXAMPLE)
    src, env = _install(tmp_path)
    out = subprocess.run([sys.executable, "-m", "macrocause.framework.cli", "plugins", "--json"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    rows = {r["name"]: r for r in json.loads(out.stdout)["plugins"]}
    assert rows["quantile_bins"]["package"] == "macrocause-hello"
    assert rows["quantile_bins"]["origin"] == "hello"
    lazy = ("import sys; from macrocause.framework import registry; names = registry.names(); "
            "print('quantile_bins' in names, 'macrocause_hello' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", lazy], capture_output=True, text=True, env=env)
    assert run.stdout.split() == ["True", "False"], run.stderr  # listed from its registry.yaml
    check = subprocess.run([sys.executable, "-m", "macrocause.framework.cli", "plugins", "--check"],
                           capture_output=True, text=True, env=env)
    assert check.returncode == 0, check.stdout + check.stderr
    code = ("from macrocause.framework import registry; "
            "print(registry.create('quantile_bins').partition([[1.0], [2.0], [3.0], [4.0]]).labels.tolist())")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.stdout.strip() == "[0, 0, 1, 1]", run.stderr
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            str(src / "tests")], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert tests.returncode == 0, tests.stdout[-2000:]
    assert _tree(EXAMPLE) == before  # nothing written into docs/examples


def test_a_third_party_sub_metric_is_ranked_by_its_declared_direction(tmp_path):
    """bin_balance declares size_cv lower-is-better: a grid run through the CLI and reported
    ranks the method with the smaller size_cv first, with no edit of the framework."""
    _, env = _install(tmp_path)
    (tmp_path / "p.yaml").write_text(
        "name: bins\nsteps:\n  - {id: two, partition: quantile_bins, params: {n_bins: 2}}\n"
        "  - {id: three, partition: quantile_bins, params: {n_bins: 3}}\n"
        "  - {evaluate: bin_balance, on: two}\n  - {evaluate: bin_balance, on: three}\n")
    (tmp_path / "g.yaml").write_text(
        "name: g\ndata: [{source: linear_gaussian, params: {n_variables: 2, n_samples: 10}}]\n"
        "pipelines: [p.yaml]\nseeds: 1\n")
    cli = [sys.executable, "-m", "macrocause.framework.cli"]
    run = subprocess.run([*cli, "compare", "g.yaml", "--store", "s.db"], capture_output=True, text=True,
                         env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    run = subprocess.run([*cli, "report", "--store", "s.db", "--metrics", "bin_balance,size_cv", "--out", "rep"],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "### size_cv (lower is better)" in run.stdout and "n_groups (descriptive" in run.stdout
    cells = {(r["metric"], r["method"].split(" ")[0]): float(r["mean"])
             for r in csv.DictReader((tmp_path / "rep" / "report.csv").open())}
    assert cells["size_cv", "two"] == 0.0 < cells["size_cv", "three"]  # 5 + 5 against 4 + 3 + 3
    ranks = [(r["method"].split(" ")[0], r["mean_rank"]) for r in csv.DictReader((tmp_path / "rep" / "ranks.csv").open())
             if r["metric"] == "size_cv"]
    assert ranks == [("two", "1.0"), ("three", "2.0")]


GUIDE = REPO / "docs" / "writing-a-plugin.md"
_BLOCK = re.compile(r"```(?:python|toml|yaml)\n# (\S+)\n(.*?)```", re.S)


def _code_lines(text: str) -> list[str]:
    """Lines of code without comments or blank lines (the guide annotates the shipped files)."""
    lines = (re.sub(r"\s+# .*$", "", line).rstrip() for line in text.splitlines())
    return [line for line in lines if line and not line.lstrip().startswith("# ")]


def _guide_files() -> dict[str, str]:
    return {path: body for path, body in _BLOCK.findall(GUIDE.read_text())}


def test_the_guide_shows_the_shipped_files_whole():
    files = _guide_files()
    assert set(files) == {"macrocause_hello/bins.py", "macrocause_hello/balance.py", "macrocause_hello/__init__.py",
                          "pyproject.toml", "macrocause_hello/registry.yaml"}
    for path, body in files.items():
        assert _code_lines(body) == _code_lines((EXAMPLE / path).read_text()), path
    toml = tomllib.loads(files["pyproject.toml"])
    assert {"build-system", "project"} <= set(toml)
    assert toml["project"]["entry-points"]["macrocause"] == {"hello": "macrocause_hello"}


def test_the_guide_snippet_checks_its_input():
    namespace: dict = {}
    exec(compile(_guide_files()["macrocause_hello/bins.py"], str(GUIDE), "exec"), namespace)
    bins = namespace["QuantileBins"]
    assert bins().partition([[1.0], [2.0], [3.0], [4.0]]).labels.tolist() == [0, 0, 1, 1]
    with pytest.raises(DataValidationError) as err:  # was an IndexError inside NumPy
        bins(variable=3).partition([[1.0, 5.0], [2.0, 6.0]])
    assert str(err.value) == "quantile_bins: variable 3 does not exist; the data has 2 variables."
    with pytest.raises(ConfigError, match=r"^The 'n_bins' parameter of quantile_bins must be >= 2\. Got 1 instead\.$"):
        bins(n_bins=1)
