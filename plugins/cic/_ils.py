"""CIC's climb over cluster DAGs: edge moves, cluster moves (move a variable, merge, split off) and
the perturbation search (iterated local search) that is ``cic_greedy``'s default strategy.

A state is a list of clusters (sorted tuples of variable indices) and a boolean adjacency matrix
between them. Family scores come from the engine's ``family(C, parent clusters)`` when it has one,
else from ``local(C, union of the parents' variables)`` (engines of Eq. 6 and of other scorers).
"""

from __future__ import annotations

import math

import numpy as np

from ._climb import merge, move_variable, sample_clustering, sample_edges
from ._kernels import dag_reach

Idx = tuple[int, ...]
TOL = 1e-9
FULL_NEIGHBOURHOOD = 1600  # clusters x variables up to which a clustering step tries every move


def family_score(eng, C: Idx, parents: tuple[Idx, ...]) -> float:
    fam = getattr(eng, "family", None)
    if fam is not None:
        return fam(C, parents)
    return eng.local(C, tuple(sorted(v for p in parents for v in p)))


def parents_of(clusters: list[Idx], adj: np.ndarray, b: int) -> tuple[Idx, ...]:
    return tuple(sorted(clusters[a] for a in np.flatnonzero(adj[:, b])))


def total_score(eng, clusters: list[Idx], adj: np.ndarray) -> float:
    s = sum(family_score(eng, clusters[b], parents_of(clusters, adj, b)) for b in range(len(clusters)))
    return s + eng.structure(len(clusters), int(adj.sum()))


def climb_edges(eng, clusters: list[Idx], adj: np.ndarray, max_steps: int) -> tuple[np.ndarray, float]:
    """Best-improvement hill climbing over add / delete / reverse of one cluster edge, clusters fixed.
    Per-node gain tables are refreshed only for nodes whose parents changed."""
    m = len(clusters)
    adj = adj.copy()
    cur = np.zeros(m)
    g_add = np.full((m, m), -np.inf)  # g_add[b, a]: gain at b of adding parent a
    g_del = np.full((m, m), -np.inf)  # g_del[b, a]: gain at b of removing parent a

    def refresh(b: int) -> None:
        pa = [int(a) for a in np.flatnonzero(adj[:, b])]
        cur[b] = family_score(eng, clusters[b], tuple(sorted(clusters[a] for a in pa)))
        g_add[b, :] = -np.inf
        g_del[b, :] = -np.inf
        for a in range(m):
            if a == b:
                continue
            new = [x for x in pa if x != a] if a in pa else pa + [a]
            val = family_score(eng, clusters[b], tuple(sorted(clusters[x] for x in new))) - cur[b]
            if a in pa:
                g_del[b, a] = val
            else:
                g_add[b, a] = val

    for b in range(m):
        refresh(b)
    eye = np.eye(m, dtype=bool)
    for _ in range(max_steps):
        if m < 2:
            break
        pen = eng.structure(m, int(adj.sum())) - eng.structure(m, int(adj.sum()) + 1)
        R, longer = dag_reach(adj)  # longer: a path a -> c ~> b besides a -> b
        free = ~adj & ~adj.T & ~eye & ~R.T
        d_add = np.where(free, g_add.T - pen, -np.inf)
        d_del = np.where(adj, g_del.T + pen, -np.inf)
        d_rev = np.where(adj & ~longer, g_del.T + g_add, -np.inf)
        moves = np.stack([d_add, d_del, d_rev])
        k = int(np.argmax(moves))
        if not moves.flat[k] > TOL:
            break
        kind, a, b = np.unravel_index(k, moves.shape)
        if kind == 0:
            adj[a, b] = True
        elif kind == 1:
            adj[a, b] = False
        else:
            adj[a, b], adj[b, a] = False, True
            refresh(a)
        refresh(b)
    return adj, float(cur.sum() + eng.structure(m, int(adj.sum())))


def cluster_step(eng, clusters: list[Idx], adj: np.ndarray, lo: int, hi: int):
    """The best improving clustering move (a variable to another or a new cluster, or two clusters merged,
    the number of clusters kept in lo..hi), scored on the families it changes only; None at a local optimum.
    Edges stay with their clusters (a merged cluster takes both clusters' edges; merges that would close a
    cycle are skipped). Beyond FULL_NEIGHBOURHOOD (clusters x variables) a variable moves only to a new
    cluster or to a cluster adjacent to its own, and only adjacent clusters merge: the kicks of the
    perturbation search make the moves between distant clusters."""
    m = len(clusters)
    E = int(adj.sum())
    pa = [np.flatnonzero(adj[:, b]).tolist() for b in range(m)]
    ch = [np.flatnonzero(adj[b]).tolist() for b in range(m)]

    def fam(x: int, content: dict, parents) -> float:
        got = (content.get(p, clusters[p]) for p in parents)
        return family_score(eng, content.get(x, clusters[x]), tuple(sorted(c for c in got if c)))

    cur = [fam(b, {}, pa[b]) for b in range(m)]
    s0 = eng.structure(m, E)
    best, top = None, TOL
    every = m * sum(len(c) for c in clusters) <= FULL_NEIGHBOURHOOD
    near = [set(pa[b]) | set(ch[b]) for b in range(m)]
    for a in range(m):
        alone = len(clusters[a]) == 1
        for v in clusters[a]:
            rest = tuple(x for x in clusters[a] if x != v)
            for b in range(m + (0 if alone else 1)):
                if b == a or (b == m and m + 1 > hi) or (alone and m - 1 < lo):
                    continue
                if not every and b < m and b not in near[a]:
                    continue
                content = {a: rest}
                kids = set(ch[a])
                gain = -cur[a] + (fam(a, content, pa[a]) if rest else 0.0)
                if b < m:
                    content[b] = tuple(sorted(clusters[b] + (v,)))
                    kids |= set(ch[b])
                    gain += fam(b, content, pa[b]) - cur[b]
                else:
                    gain += family_score(eng, (v,), ())
                for c in kids - {a, b}:
                    gain += fam(c, content, pa[c]) - cur[c]
                m2 = m - alone + (b == m)
                gain += eng.structure(m2, E - (len(pa[a]) + len(ch[a]) if alone else 0)) - s0
                if gain > top:
                    best, top = ("move", v, a, b), gain
    if m - 1 >= lo:
        longer = dag_reach(adj)[1]
        for a in range(m):
            for b in range(a + 1, m):
                if longer[a, b] or longer[b, a] or not every and b not in near[a]:
                    continue
                merged = tuple(sorted(clusters[a] + clusters[b]))
                content = {a: merged, b: ()}
                new_pa = (set(pa[a]) | set(pa[b])) - {a, b}
                kids = (set(ch[a]) | set(ch[b])) - {a, b}
                gain = fam(a, content, new_pa) - cur[a] - cur[b]
                for c in kids:
                    gain += fam(c, content, pa[c]) - cur[c]
                inc = len(pa[a]) + len(ch[a]) + len(pa[b]) + len(ch[b]) - int(adj[a, b]) - int(adj[b, a])
                gain += eng.structure(m - 1, E - inc + len(new_pa) + len(kids)) - s0
                if gain > top:
                    best, top = ("merge", a, b), gain
    if best is None:
        return None
    if best[0] == "move":
        return move_variable(clusters, adj, *best[1:])
    return merge(clusters, adj, *best[1:])


def local_search(eng, clusters: list[Idx], adj: np.ndarray, max_steps: int, cluster_moves: bool,
                 lo: int, hi: int):
    """Edge climb, then (with *cluster_moves*) the best improving clustering move and the edge climb again,
    until neither improves."""
    adj, score = climb_edges(eng, clusters, adj, max_steps)
    while cluster_moves:
        step = cluster_step(eng, clusters, adj, lo, hi)
        if step is None:
            break
        new_adj, new_score = climb_edges(eng, step[0], step[1], max_steps)
        if new_score <= score + TOL:  # a move whose climbed score does not improve could cycle
            break
        clusters, adj, score = step[0], new_adj, new_score
    return score, clusters, adj


def _from_labels(lab: np.ndarray, adj: np.ndarray) -> tuple[list[Idx], np.ndarray]:
    """Clusters of a label array whose labels index *adj* (labels beyond it: new clusters without edges)."""
    used = np.unique(lab)
    big = np.zeros((max(int(used.max()) + 1, adj.shape[0]),) * 2, dtype=bool)
    big[:adj.shape[0], :adj.shape[0]] = adj
    return [tuple(np.flatnonzero(lab == u).tolist()) for u in used], big[np.ix_(used, used)]


def kick(clusters: list[Idx], adj: np.ndarray, rng: np.random.Generator, lo: int, hi: int,
         cluster_moves: bool = True):
    """A random perturbation: move one to three variables, merge two clusters (adjacent ones half of the
    time), split a cluster in two at random, gather two to six random variables into a new cluster, or
    redraw the edges (Erdos-Renyi at the current density along a random order; the only kick without
    *cluster_moves*)."""
    m = len(clusters)
    lab = np.empty(sum(len(c) for c in clusters), dtype=np.int64)
    for i, c in enumerate(clusters):
        lab[list(c)] = i
    for _ in range(20):
        kind = int(rng.integers(5)) if cluster_moves else 4
        new = lab.copy()
        if kind == 4:
            if m < 2:
                continue
            return list(clusters), sample_edges(m, float(adj.sum()) / max(m * (m - 1) / 2, 1), rng)
        if kind == 0:
            for v in rng.choice(lab.size, int(rng.integers(1, 4)), replace=False):
                new[v] = rng.integers(m + 1)
        elif kind == 1:
            if m < 2:
                continue
            sk = np.argwhere(adj | adj.T)
            a, b = sk[int(rng.integers(len(sk)))] if len(sk) and rng.random() < 0.5 else rng.choice(m, 2, False)
            got = merge(clusters, adj, int(min(a, b)), int(max(a, b)))
            if got is not None and len(got[0]) >= lo:
                return got
            continue
        elif kind == 2:
            big = [i for i in range(m) if len(clusters[i]) > 1]
            if not big:
                continue
            members = np.array(clusters[int(rng.choice(big))])
            out = members[rng.permutation(members.size)[:int(rng.integers(1, members.size))]]
            new[out] = m
        else:
            new[rng.choice(lab.size, min(int(rng.integers(2, 7)), lab.size), replace=False)] = m
        cl, A = _from_labels(new, adj)
        if lo <= len(cl) <= hi and cl != clusters:
            return cl, A
    return clusters, adj


def perturbation_search(eng, d: int, start, rng: np.random.Generator, stale: int, max_steps: int,
                        cluster_moves: bool, lo: int, hi: int, climbed=None):
    """Iterated local search: climb from *start* (or take *climbed*, a local optimum (score, clusters, adj)),
    then kick the best state and climb again until *stale* kicks in a row found nothing better. Returns
    (score, clusters, adj, kicks)."""
    best = climbed if climbed is not None else local_search(eng, *start, max_steps, cluster_moves, lo, hi)
    fails = kicks = 0
    while fails < stale:
        cl, A = kick(best[1], best[2], rng, lo, hi, cluster_moves)
        cand = local_search(eng, cl, A, max_steps, cluster_moves, lo, hi)
        kicks += 1
        if cand[0] > best[0] + TOL:
            best, fails = cand, 0
        else:
            fails += 1
    return (*best, kicks)


def affordable_indegree(n: int) -> int:
    """The most parent clusters a family of the ``family`` score can pay for at n samples: k parents cost
    2^k (log n)/2 nats, a binary family gains at most n log 2, so k_max is the largest k with
    2^k (log n)/2 < n log 2 (9 at n = 4,000; 6 at n = 400)."""
    return max(1, math.ceil(math.log2(2.0 * n * math.log(2.0) / math.log(n))) - 1)


def start_density(m: int, cfg: dict) -> float:
    """Edge probability of a start's random edges over m clusters: ``rho``, capped (with
    ``cfg["max_indegree"]``, the perturbation search) so that the expected in-degree rho (m - 1) / 2 is at
    most that many parents. Denser starts only cost climbing: at m = 95 and rho = 0.5 the climb first
    deletes some 2,000 edges no family can pay for. The draws are the same whatever the density."""
    k = cfg.get("max_indegree")
    return cfg["rho"] if k is None or m < 2 else min(cfg["rho"], 2.0 * k / (m - 1))


def random_start(d: int, rng: np.random.Generator, cfg: dict):
    labels = sample_clustering(d, cfg["max_clusters"] or d, rng, cfg["min_clusters"], cfg["m_distribution"],
                               cfg["m_decay"])
    clusters = [tuple(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)]
    return clusters, sample_edges(len(clusters), start_density(len(clusters), cfg), rng)


def run_start(eng, d: int, cfg: dict, seed: np.random.SeedSequence, start) -> tuple[float, list[Idx], np.ndarray]:
    """One start of either strategy: ``restarts`` (Algorithm 1: a random clustering and random edges, then
    climb) or ``perturbation`` (the same start, then iterated local search). *start*: None (random) or
    (clusters, adjacency or None, fixed): a given clustering, kept within 1..d clusters when fixed (an
    ``init``), else within the bounds. A start that is not fixed and has edges (the relation start) is
    climbed from random edges and from its own, the perturbation going on from the better; one without
    edges (no relation between its groups) only from no edge: at d = 200 climbing 1,800 random edges away
    between singletons took 140 s CPU for the same empty graph."""
    rng = np.random.default_rng(seed)
    clusters, adj = random_start(d, rng, cfg)
    fixed = start is not None and start[0] is not None and start[2]
    edges = [adj]
    if start is not None and start[0] is not None:
        clusters, edges = start[0], []
        if start[1] is None or not fixed and start[1].any():  # random edges over the given clusters
            edges.append(sample_edges(len(clusters), start_density(len(clusters), cfg), rng))
        if start[1] is not None:  # the given edges (a relation start with edges tries both, the better goes on)
            edges.append(start[1])
    lo, hi = (1, d) if fixed else (cfg["min_clusters"], min(cfg["max_clusters"] or d, d))
    args = (cfg["max_steps"], cfg["cluster_moves"], lo, hi)
    climbed = None
    for A in edges:
        got = local_search(eng, clusters, A, *args)
        if climbed is None or got[0] > climbed[0] + TOL:
            climbed = got
    if cfg["strategy"] == "restarts":
        return climbed
    return perturbation_search(eng, d, None, rng, cfg["stale"], *args, climbed=climbed)[:3]


def run_chunk(task) -> list[tuple[int, float, list[Idx], np.ndarray]]:
    """Run a list of starts on one engine (picklable entry point for the executors)."""
    eng, d, cfg, jobs = task
    return [(i, *run_start(eng, d, cfg, ent, start)) for i, ent, start in jobs]
