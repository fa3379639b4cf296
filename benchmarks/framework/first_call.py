"""First call against warm call of every plugin, each in a fresh process with an empty numba cache.

Loaded by ``first_call.yaml``'s ``plugins:`` key (not registered for users). The partitioner
``first_call_probe`` starts a fresh Python process for ``method``; that process points numba's
cache at a new empty folder, imports macrocause, builds the plugin on its own example
(:func:`macrocause.framework.testing.examples.example_of`) and runs its verb twice on that input
(:func:`macrocause.framework.testing.checks.run_verb`): the first call pays every lazy import and numba
compilation, the second is warm. It prints the CPU and wall seconds of each part as JSON; the
probe's partition (all samples in one cluster) carries them in ``info`` and the evaluator
``first_call_cost`` reports them:

``setup_cpu_s``  importing macrocause, the example and the plugin's module, creating it;
``first_cpu_s``  the first call; ``warm_cpu_s`` the second; ``one_off_cpu_s`` their difference;
``first_wall_s``, ``warm_wall_s`` the same in wall seconds.

Run as a script (``python first_call.py METHOD``), it is the child process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from pydantic import Field

from macrocause.framework import Evaluation, Evaluator, Params, Partition, Partitioner, hookimpl

KEYS = ("setup_cpu_s", "first_cpu_s", "warm_cpu_s", "first_wall_s", "warm_wall_s")


class ProbeParams(Params):
    method: str = Field(description="Registered plugin to measure on its own example.")
    timeout: float = Field(900.0, gt=0, description="Seconds allowed for the child process.")


class FirstCallProbe(Partitioner):
    """Runs ``method`` in a fresh process with an empty numba cache; timings in ``info``."""

    name = "first_call_probe"
    axis = "samples"
    Params = ProbeParams

    def _partition(self, data):
        with tempfile.TemporaryDirectory(prefix="macrocause_first_call_") as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache, "MACROCAUSE_QUIET": "1"}
            done = subprocess.run([sys.executable, __file__, self.params.method], env=env, capture_output=True,
                                  text=True, timeout=self.params.timeout)
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"first call of {self.params.method} failed: {tail}")
        info = json.loads(done.stdout.strip().splitlines()[-1])
        return Partition(np.zeros(data.n_samples, dtype=np.int64), info=info)


class FirstCallCost(Evaluator):
    """The timings a ``first_call_probe`` step measured (value: ``one_off_cpu_s``)."""

    name = "first_call_cost"
    accepts = ("partition",)
    higher_is_better = False

    def _evaluate(self, data, result, truth):
        m = {k: float(result.info[k]) for k in KEYS}
        m["one_off_cpu_s"] = m["first_cpu_s"] - m["warm_cpu_s"]
        return Evaluation(m["one_off_cpu_s"], m)


@hookimpl
def macrocause_register_plugins(register):
    register(FirstCallProbe)
    register(FirstCallCost)


def _child(method: str) -> dict[str, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    from macrocause.framework import registry
    from macrocause.framework.testing.checks import run_verb
    from macrocause.framework.testing.examples import example_of

    cls = registry.get(method)
    plugin = cls(**example_of(cls).params)
    out = {"setup_cpu_s": time.process_time() - cpu}
    for part in ("first", "warm"):
        cpu, wall = time.process_time(), time.perf_counter()
        run_verb(plugin)
        out[f"{part}_cpu_s"], out[f"{part}_wall_s"] = time.process_time() - cpu, time.perf_counter() - wall
    return out


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1])))
