"""greedy_dag's climbs with their numba kernels (used from n d^2 >= NUMBA_WORK or once numba is loaded:
the bic engine's whole climb in numba, _bic_climb_kernels) and with the NumPy path: the same moves, ties and random draws, so the same graphs and
scores, step for step, on random data and bnlearn networks."""

import numpy as np
import pytest

from macrocause import registry
from macrocause.framework import dag_climb
from macrocause.framework.dag_climb import climb_edges, closure


def _run(monkeypatch, data, kernel: bool, **params):
    """greedy_dag's full trace with every climb forced onto one path."""
    def forced(*args, **kwargs):
        calls.append(kernel)
        kwargs.pop("kernel", None)
        if len(args) > 7:
            args = args[:7]
        return climb_edges(*args, kernel=kernel, **kwargs)

    calls: list[bool] = []
    monkeypatch.setattr(dag_climb, "climb_edges", forced)
    search = registry.create("greedy_dag", **params)
    out = search.run(data, registry.create("bic"))
    monkeypatch.undo()
    assert len(calls) == 1 + search.params.restarts + (out["pc_start_score"] is not None) + len(out["kick_scores"])
    return out


@pytest.mark.parametrize("source,kw,params", [
    ("bnlearn", {"network": "sachs", "n_samples": 1000, "seed": 1}, {"seed": 1}),
    ("bnlearn", {"network": "child", "n_samples": 1000, "seed": 2}, {"seed": 2, "restarts": 3}),
    ("bnlearn", {"network": "alarm", "n_samples": 1000, "seed": 3}, {"seed": 3, "restarts": 2, "stale": 10}),
    ("discrete_bn", {"n_variables": 9, "n_samples": 400, "seed": 4}, {"seed": 4, "patience": 5, "tabu_length": 5}),
    ("discrete_bn", {"n_variables": 12, "n_samples": 300, "seed": 5}, {"seed": 5, "patience": 0, "pc_start": False}),
])
def test_kernel_and_numpy_paths_give_the_same_search(monkeypatch, source, kw, params):
    data = registry.load_data(source, **kw)
    a = _run(monkeypatch, data, True, **params)
    b = _run(monkeypatch, data, False, **params)
    assert a["graph"].edge_names() == b["graph"].edge_names()
    assert a["score"] == b["score"]
    assert a["climb_scores"] == b["climb_scores"] and a["kick_scores"] == b["kick_scores"]
    assert a["pc_start_score"] == b["pc_start_score"]
    assert len(a["kick_scores"]) > 0  # the kicks ran: their random starts and tie draws matched too


def test_kernel_reachability_is_the_closure():
    """The kernels' reachability (depth-first, and the update after an add) against repeated squaring."""
    from macrocause.framework.dag_climb_kernels import add_reach, reach

    rng = np.random.default_rng(0)
    for m in (1, 2, 5, 17, 40):
        order = rng.permutation(m)
        adj = np.zeros((m, m), dtype=bool)
        for _ in range(2 * m):
            i, j = sorted(rng.choice(m, 2)) if m > 1 else (0, 0)
            if i < j:
                adj[order[i], order[j]] = True
        R = np.empty((m, m), dtype=bool)
        reach(adj, R)
        np.testing.assert_array_equal(R, closure(adj))
        if m > 2:  # add an edge along the order that is not there yet
            i, j = next((i, j) for i in range(m) for j in range(i + 1, m) if not adj[order[i], order[j]])
            adj[order[i], order[j]] = True
            add_reach(R, order[i], order[j])
            np.testing.assert_array_equal(R, closure(adj))
