"""Numba kernels for DISCO: the mutual-reachability MST (Boruvka over a KD-tree),
the single-linkage dendrogram, and the per-cluster passes that read DISCO off it.

All functions take and return plain arrays. Nodes of the dendrogram are numbered
``0..n-1`` (the points) and ``n..2n-2`` (merges, in order of height); a merge's
children always have smaller numbers than the merge itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _find(parent, i):
    root = i
    while parent[root] != root:
        root = parent[root]
    while parent[i] != root:
        nxt = parent[i]
        parent[i] = root
        i = nxt
    return root


@njit(cache=True)
def sqdist(X, a, b):
    """Squared Euclidean distance between rows a and b of X."""
    s = 0.0
    for k in range(X.shape[1]):
        diff = X[a, k] - X[b, k]
        s += diff * diff
    return s


@njit(cache=True)
def merge_best_edges(uf, comp, best_w, best_u, best_v, eu, ev, ew, n_edges):
    """One Boruvka round: join each component to the other end of its lightest edge
    (``best_*``, weight inf when it has none), appending the new edges; returns the count."""
    n = comp.shape[0]
    for c in range(n):
        if comp[c] != c or best_w[c] == np.inf:
            continue
        ru = _find(uf, best_u[c])
        rv = _find(uf, best_v[c])
        if ru == rv:
            continue
        uf[ru] = rv
        eu[n_edges] = best_u[c]
        ev[n_edges] = best_v[c]
        ew[n_edges] = best_w[c]
        n_edges += 1
    return n_edges


@njit(cache=True)
def boruvka_mst(X, core, idx_start, idx_end, is_leaf, lo, hi, knn):
    """Exact minimum spanning tree of mutual reachability ``max(core_i, core_j, |x_i - x_j|)``.

    Points must be in KD-tree order (each leaf holds ``idx_start..idx_end``);
    ``lo``/``hi`` are the node boxes, ``knn`` candidate neighbours (seed bounds).
    Returns edges ``(u, v, w)`` (n - 1 of each), in tree-order indices.
    """
    n, d = X.shape
    n_nodes = idx_start.shape[0]
    node_min_core = np.empty(n_nodes)
    for node in range(n_nodes - 1, -1, -1):
        if is_leaf[node]:
            m = np.inf
            for t in range(idx_start[node], idx_end[node]):
                if core[t] < m:
                    m = core[t]
            node_min_core[node] = m
        else:
            node_min_core[node] = min(node_min_core[2 * node + 1], node_min_core[2 * node + 2])
    uf = np.arange(n)
    comp = np.empty(n, np.int64)
    node_comp = np.empty(n_nodes, np.int64)
    best_w = np.empty(n)
    best_u = np.empty(n, np.int64)
    best_v = np.empty(n, np.int64)
    eu = np.empty(max(n - 1, 0), np.int64)
    ev = np.empty(max(n - 1, 0), np.int64)
    ew = np.empty(max(n - 1, 0))
    n_edges = 0
    stack = np.empty(256, np.int64)
    kk = knn.shape[1]
    while n_edges < n - 1:
        for i in range(n):
            comp[i] = _find(uf, i)
        for node in range(n_nodes - 1, -1, -1):
            if is_leaf[node]:
                c = comp[idx_start[node]]
                for t in range(idx_start[node] + 1, idx_end[node]):
                    if comp[t] != c:
                        c = -1
                        break
                node_comp[node] = c
            else:
                a = node_comp[2 * node + 1]
                node_comp[node] = a if a == node_comp[2 * node + 2] else -1
        for i in range(n):
            best_w[i] = np.inf
        # seed each component's bound with its candidate (k-NN) edges to other components
        for q in range(n):
            c = comp[q]
            for j in range(kk):
                p = knn[q, j]
                if comp[p] == c:
                    continue
                s = sqdist(X, q, p)
                w = max(core[q], core[p], np.sqrt(s))
                if w < best_w[c]:
                    best_w[c] = w
                    best_u[c] = q
                    best_v[c] = p
        for q in range(n):
            c = comp[q]
            cq = core[q]
            if cq >= best_w[c]:
                continue
            top = 0
            stack[0] = 0
            top = 1
            while top > 0:
                top -= 1
                node = stack[top]
                bound = best_w[c]
                if node_comp[node] == c or max(cq, node_min_core[node]) >= bound:
                    continue
                md = 0.0
                for k in range(d):
                    x = X[q, k]
                    if x < lo[node, k]:
                        diff = lo[node, k] - x
                        md += diff * diff
                    elif x > hi[node, k]:
                        diff = x - hi[node, k]
                        md += diff * diff
                if md >= bound * bound:
                    continue
                if is_leaf[node]:
                    for p in range(idx_start[node], idx_end[node]):
                        if comp[p] == c or core[p] >= bound:
                            continue
                        s = sqdist(X, q, p)
                        if s >= bound * bound:
                            continue
                        w = max(cq, core[p], np.sqrt(s))
                        if w < bound:
                            bound = w
                            best_w[c] = w
                            best_u[c] = q
                            best_v[c] = p
                else:
                    left = 2 * node + 1
                    right = left + 1
                    # visit the nearer child first: push it last
                    dl = 0.0
                    dr = 0.0
                    for k in range(d):
                        x = X[q, k]
                        if x < lo[left, k]:
                            dl += (lo[left, k] - x) ** 2
                        elif x > hi[left, k]:
                            dl += (x - hi[left, k]) ** 2
                        if x < lo[right, k]:
                            dr += (lo[right, k] - x) ** 2
                        elif x > hi[right, k]:
                            dr += (x - hi[right, k]) ** 2
                    if dl <= dr:
                        stack[top] = right
                        stack[top + 1] = left
                    else:
                        stack[top] = left
                        stack[top + 1] = right
                    top += 2
        before = n_edges
        n_edges = merge_best_edges(uf, comp, best_w, best_u, best_v, eu, ev, ew, n_edges)
        if n_edges == before:  # cannot happen for finite data; guards against an endless loop
            break
    return eu[:n_edges], ev[:n_edges], ew[:n_edges]


@njit(cache=True)
def prim_mst_dense(X, core):
    """Prim's O(n^2) MST of mutual reachability, computing distances on the fly (no matrix)."""
    n = X.shape[0]
    in_tree = np.zeros(n, np.bool_)
    dist = np.full(n, np.inf)
    par = np.zeros(n, np.int64)
    eu = np.empty(max(n - 1, 0), np.int64)
    ev = np.empty(max(n - 1, 0), np.int64)
    ew = np.empty(max(n - 1, 0))
    v = 0
    for e in range(n - 1):
        in_tree[v] = True
        best = np.inf
        nxt = -1
        for w in range(n):
            if in_tree[w]:
                continue
            s = sqdist(X, v, w)
            m = max(core[v], core[w], np.sqrt(s))
            if m < dist[w]:
                dist[w] = m
                par[w] = v
            if dist[w] < best or nxt < 0:
                best = dist[w]
                nxt = w
        eu[e] = par[nxt]
        ev[e] = nxt
        ew[e] = dist[nxt]
        v = nxt
    return eu, ev, ew


@njit(cache=True)
def single_linkage(n, eu, ev, ew_sorted_order, ew):
    """Dendrogram of the MST edges taken in the given order (ascending weight).

    Returns ``left, right, height`` of the n - 1 merges (node ``n + i``).
    """
    uf = np.arange(n)
    node_of = np.arange(n)
    m = ew_sorted_order.shape[0]
    left = np.empty(m, np.int64)
    right = np.empty(m, np.int64)
    height = np.empty(m)
    for i in range(m):
        e = ew_sorted_order[i]
        ru = _find(uf, eu[e])
        rv = _find(uf, ev[e])
        left[i] = node_of[ru]
        right[i] = node_of[rv]
        height[i] = ew[e]
        uf[ru] = rv
        node_of[rv] = n + i
    return left, right, height


@njit(cache=True)
def _set_pass(n, left, right, height, inset, cnt, S, M):
    """For the point set ``inset``: per node, the sum of dc-distances to the set (S) and
    the smallest dc-distance to a set point other than itself (M), from the root down."""
    m = left.shape[0]
    for i in range(n):
        cnt[i] = 1 if inset[i] else 0
    for i in range(m):
        cnt[n + i] = cnt[left[i]] + cnt[right[i]]
    root = n + m - 1
    S[root] = 0.0
    M[root] = np.inf
    for i in range(m - 1, -1, -1):
        v = n + i
        h = height[i]
        a = left[i]
        b = right[i]
        S[a] = S[v] + h * cnt[b]
        S[b] = S[v] + h * cnt[a]
        M[a] = h if cnt[b] > 0 else M[v]
        M[b] = h if cnt[a] > 0 else M[v]


@njit(cache=True)
def _ratio(x, c):
    top = max(x, c)
    if top == 0.0:
        return 0.0
    return (x - c) / top


@njit(cache=True)
def _preorder(n, left, right):
    """Parent, preorder position and subtree size (in nodes) of every dendrogram node."""
    m = left.shape[0]
    n_nodes = n + m
    parent = np.full(n_nodes, -1, np.int64)
    size = np.ones(n_nodes, np.int64)
    for i in range(m):
        parent[left[i]] = n + i
        parent[right[i]] = n + i
        size[n + i] = 1 + size[left[i]] + size[right[i]]
    order = np.empty(n_nodes, np.int64)
    pos = np.empty(n_nodes, np.int64)
    stack = np.empty(n_nodes, np.int64)
    stack[0] = n_nodes - 1
    top = 1
    t = 0
    while top > 0:
        top -= 1
        u = stack[top]
        order[t] = u
        pos[u] = t
        t += 1
        if u >= n:
            stack[top] = right[u - n]
            stack[top + 1] = left[u - n]
            top += 2
    return parent, order, pos, size


@njit(cache=True)
def disco_from_dendrogram(left, right, height, codes, k, core, one_cluster_noise):
    """Per-point DISCO from the dendrogram; ``codes`` are 0..k-1 for clusters, -1 for noise.

    Cluster points get the silhouette on dc-distances over cluster points (noise points
    as singleton clusters when ``one_cluster_noise``); noise points get
    ``min(p_sparse, p_far)``. Needs k >= 1.

    Each cluster C is handled inside the subtree of its lowest common ancestor v_C only:
    a point outside that subtree is at the same dc-distance from every point of C (the
    height where its path meets v_C), so those contributions come from one top-down
    pass for all clusters at once. Cost O(n + sum over C of |subtree(v_C)|).
    """
    n = codes.shape[0]
    m = left.shape[0]
    n_nodes = n + m
    parent, order, pos, sub = _preorder(n, left, right)
    size = np.zeros(k, np.int64)
    kappa_c = np.zeros(k)
    lo = np.full(k, n_nodes, np.int64)
    hi = np.full(k, -1, np.int64)
    rep = np.zeros(k, np.int64)
    for i in range(n):
        c = codes[i]
        if c >= 0:
            size[c] += 1
            rep[c] = i
            if core[i] > kappa_c[c]:
                kappa_c[c] = core[i]
            if pos[i] < lo[c]:
                lo[c] = pos[i]
            if pos[i] > hi[c]:
                hi[c] = pos[i]
    # v_C: climb from a member until the subtree covers all of C's preorder positions
    top_c = np.empty(k, np.int64)
    has = np.zeros(n_nodes, np.bool_)
    maxkap = np.full(n_nodes, -1.0)
    for c in range(k):
        u = rep[c]
        while not (pos[u] <= lo[c] and hi[c] < pos[u] + sub[u]):
            u = parent[u]
        top_c[c] = u
        has[u] = True
        if kappa_c[c] > maxkap[u]:
            maxkap[u] = kappa_c[c]
    for i in range(m):
        v = n + i
        for ch in (left[i], right[i]):
            if has[ch]:
                has[v] = True
                if maxkap[ch] > maxkap[v]:
                    maxkap[v] = maxkap[ch]
    # clusters lying wholly on the other side of an ancestor: b and p_far from above
    b_out = np.empty(n_nodes)
    far_out = np.empty(n_nodes)
    b_out[n_nodes - 1] = np.inf
    far_out[n_nodes - 1] = np.inf
    for i in range(m - 1, -1, -1):
        v = n + i
        h = height[i]
        a = left[i]
        b = right[i]
        b_out[a] = b_out[v]
        far_out[a] = far_out[v]
        b_out[b] = b_out[v]
        far_out[b] = far_out[v]
        if has[b]:
            b_out[a] = min(b_out[a], h)
            far_out[a] = min(far_out[a], _ratio(h, maxkap[b]))
        if has[a]:
            b_out[b] = min(b_out[b], h)
            far_out[b] = min(far_out[b], _ratio(h, maxkap[a]))
    # the per-cluster passes run over preorder positions: a subtree is a contiguous range
    pcode = np.full(n_nodes, -2, np.int64)
    ppar = np.full(n_nodes, -1, np.int64)
    psib = np.full(n_nodes, -1, np.int64)
    ph = np.zeros(n_nodes)
    pright = np.full(n_nodes, -1, np.int64)
    for t in range(n_nodes):
        u = order[t]
        if u < n:
            pcode[t] = codes[u]
        else:
            pright[t] = pos[right[u - n]]
        p = parent[u]
        if p >= 0:
            ppar[t] = pos[p]
            ph[t] = height[p - n]
            psib[t] = pos[right[p - n]] if left[p - n] == u else pos[left[p - n]]
    intra = np.zeros(n)
    inter = np.full(n, np.inf)
    p_far = np.full(n, np.inf)
    cnt = np.zeros(n_nodes, np.int64)
    S = np.empty(n_nodes)
    M = np.empty(n_nodes)
    for c in range(k):
        start = pos[top_c[c]]
        stop = start + sub[top_c[c]]
        for t in range(stop - 1, start - 1, -1):
            if pcode[t] != -2:
                cnt[t] = 1 if pcode[t] == c else 0
            else:
                cnt[t] = cnt[t + 1] + cnt[pright[t]]
        S[start] = 0.0
        M[start] = np.inf
        kc = kappa_c[c]
        sc = size[c]
        for t in range(start + 1, stop):
            p = ppar[t]
            h = ph[t]
            cs = cnt[psib[t]]
            S[t] = S[p] + h * cs
            M[t] = h if cs > 0 else M[p]
            cu = pcode[t]
            if cu == -2:
                continue
            u = order[t]
            if cu == c:
                intra[u] = S[t]
            elif cu >= 0:
                val = S[t] / sc
                if val < inter[u]:
                    inter[u] = val
            else:
                r = _ratio(M[t], kc)
                if r < p_far[u]:
                    p_far[u] = r
    kappa_max = 0.0
    for c in range(k):
        if kappa_c[c] > kappa_max:
            kappa_max = kappa_c[c]
    if one_cluster_noise:
        inset = np.empty(n, np.bool_)
        for i in range(n):
            inset[i] = codes[i] < 0
        _set_pass(n, left, right, height, inset, cnt, S, M)
        for i in range(n):
            if codes[i] >= 0:
                inter[i] = M[i]
    out = np.empty(n)
    for i in range(n):
        c = codes[i]
        if c < 0:
            out[i] = min(_ratio(core[i], kappa_max), min(p_far[i], far_out[i]))
        elif size[c] == 1:
            out[i] = 0.0
        else:
            a = intra[i] / (size[c] - 1)
            b = inter[i] if one_cluster_noise else min(inter[i], b_out[i])
            out[i] = _ratio(b, a)
    return out
