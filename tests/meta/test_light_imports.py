"""The first run stays light: the CLI and the quickstart import none of the heavy libraries they do
not need (each costs from a few tenths of a second to seconds on a cold start), and the
quickstart compiles no numba kernel. Properties of the imports, not timings."""

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("pgmpy", "sklearn", "pandas", "matplotlib", "networkx", "statsmodels", "causallearn", "jinja2")


def _modules_after(code: str, tmp_path, env_extra=None) -> set[str]:
    import os

    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), **(env_extra or {})}
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _top(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_importing_the_cli_imports_no_science_library(tmp_path):
    loaded = _top(_modules_after("import macrocause.framework.cli", tmp_path))
    assert not loaded & {*HEAVY, "scipy", "numba"}, sorted(loaded & {*HEAVY, "scipy", "numba"})


def test_the_quickstart_imports_no_heavy_library_and_compiles_nothing(tmp_path):
    code = (
        "import sys\n"
        "from macrocause.framework.cli import main\n"
        f"sys.argv = ['macrocause', 'run', {str(REPO / 'examples' / 'quickstart.yaml')!r}, '--store', 'r.db']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
    )
    loaded = _modules_after(code, tmp_path)
    assert "macrocause.plugins.baselines._hc" in loaded  # the run did reach hill_climb and kmeans
    assert "macrocause.plugins.baselines._kmeans" in loaded
    assert not _top(loaded) & {*HEAVY, "numba"}, sorted(_top(loaded) & {*HEAVY, "numba"})
    assert "unittest.mock" not in loaded  # pulls asyncio and ssl
    compiled = [p.name for p in (tmp_path / "numba").rglob("*") if p.is_file()]
    assert compiled == [], compiled
