"""The example plugin under docs/examples is discovered through real entry-point metadata."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "macrocause-hello"


def test_installed_example_plugin_is_listed_and_runs(tmp_path):
    target = tmp_path / "site"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(EXAMPLE)],
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
                            str(EXAMPLE / "tests")], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert tests.returncode == 0, tests.stdout[-2000:]
