"""The simulators' CPDAG truth, computed without pgmpy: equal to pgmpy's DAG.to_pdag."""

import subprocess
import sys
from pathlib import Path

import numpy as np

from macrocause.framework import CausalGraph
from macrocause.framework.cpdag import cpdag_adjacency

REPO = Path(__file__).resolve().parents[3]


def _cpdag(A, names):
    return CausalGraph.from_adjacency(cpdag_adjacency(np.array(A)), names)


def test_hand_cases():
    names = ["a", "b", "c", "d"]
    chain = [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]]  # a -> b -> c: all undirected
    assert _cpdag(chain, names) == CausalGraph.from_edges(names, [], [("a", "b"), ("b", "c")])
    collider = [[0, 0, 1, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]]  # a -> c <- b, c -> d (rule 1)
    assert _cpdag(collider, names) == CausalGraph.from_edges(names, [("a", "c"), ("b", "c"), ("c", "d")], [])


def test_equal_to_pgmpy_on_random_dags():
    rng = np.random.default_rng(1)
    for _ in range(150):
        d = int(rng.integers(2, 10))
        order = rng.permutation(d)
        A = np.zeros((d, d), dtype=np.int8)
        for a in range(d):
            for b in range(a + 1, d):
                A[order[a], order[b]] = rng.random() < rng.choice([0.2, 0.4, 0.7])
        names = [f"x{i}" for i in range(d)]
        dag = CausalGraph.from_adjacency(A, names)
        assert _cpdag(A, names) == CausalGraph.from_pgmpy(dag.to_pgmpy().to_pdag(), names), A


def test_simulators_load_without_importing_pgmpy():
    code = ("import sys; from macrocause.framework import registry; registry.load_data('discrete_bn'); "
            "registry.load_data('linear_gaussian'); print('pgmpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "False", out.stderr
