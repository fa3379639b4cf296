"""A step that compiles numba kernels says so before it waits (and how long it took); a step
whose kernels are in numba's cache says nothing."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PLUGIN = '''
import numpy as np
from numba import njit

from macrocause.framework import Partition, Partitioner, hookimpl


@njit(cache=True)
def _sign(x):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = 1 if x[i] > 0 else 0
    return out


class Signs(Partitioner):
    """Samples by the sign of the first variable, through a numba kernel."""

    name = "jit_signs"
    axis = "samples"

    def _partition(self, data):
        return Partition(_sign(np.ascontiguousarray(data.X[:, 0])))


@hookimpl
def macrocause_register_plugins(register):
    register(Signs)
'''

PIPELINE = """
data: {source: linear_gaussian, params: {n_variables: 3, n_samples: 50}}
steps:
  - {id: signs, partition: jit_signs}
"""


def _run(tmp_path, cache):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "MACROCAUSE_PLUGINS": "jit_notice_plugin",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)]), "MACROCAUSE_QUIET": "0"}
    return subprocess.run([sys.executable, "-m", "macrocause.framework.cli", "run", str(tmp_path / "p.yaml"), "--no-store"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)


def test_first_compile_is_announced_and_a_cached_run_is_silent(tmp_path):
    (tmp_path / "jit_notice_plugin.py").write_text(PLUGIN)
    (tmp_path / "p.yaml").write_text(PIPELINE)
    cache = tmp_path / "numba_cache"
    cache.mkdir()
    first = _run(tmp_path, cache)
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    start = lines.index("step 'signs' (jit_signs): compiling numba kernels, once (numba caches them for later runs) ...")
    end = next(i for i, line in enumerate(lines) if line.startswith("step 'signs' (jit_signs): numba kernels compiled in"))
    assert start < end and lines[end].endswith(" s, cached for later runs.")
    second = _run(tmp_path, cache)
    assert second.returncode == 0, second.stderr
    assert "compiling numba kernels" not in second.stderr and "compiled in" not in second.stderr
