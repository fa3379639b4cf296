"""The example plugin under docs/examples is discovered through real entry-point metadata."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "macrocause-hello"


def _tree(root: Path) -> set[Path]:
    return {p.relative_to(root) for p in root.rglob("*")}


def test_installed_example_plugin_is_listed_and_runs(tmp_path):
    before = _tree(EXAMPLE)
    # built from a copy: a build leaves build/ and *.egg-info next to the sources
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
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-m", "framework.cli", "plugins", "--json"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    rows = {r["name"]: r for r in json.loads(out.stdout)["plugins"]}
    assert rows["quantile_bins"]["package"] == "macrocause-hello"
    assert rows["quantile_bins"]["origin"] == "hello"
    code = ("from framework import registry; "
            "print(registry.create('quantile_bins').partition([[1.0], [2.0], [3.0], [4.0]]).labels.tolist())")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.stdout.strip() == "[0, 0, 1, 1]", run.stderr
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            str(src / "tests")], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert tests.returncode == 0, tests.stdout[-2000:]
    assert _tree(EXAMPLE) == before  # nothing written into docs/examples
