"""Plug-in entropies of discrete columns and the two conditional-independence tests built on them,
shared by the score engines of several plugins (CIC's ``cic``, the baselines' ``bic``).

``DiscreteEntropies`` caches the joint entropy of each column subset (numba kernels);
``NumpyEntropies`` gives the same values bit for bit without starting numba.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .numeric import DENSE_COUNT_LIMIT, KEY_RANK_LIMIT

Idx = tuple[int, ...]
NUMBA_WORK = 200_000  # n d^2 from which NumpyEntropies.H_plus counts in a numba kernel (pc's threshold)


def encode_columns(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column integer codes 0..s_j-1 (C-contiguous int64) and the observed alphabet sizes s_j."""
    codes = np.empty(X.shape, dtype=np.int64)
    cards = np.empty(X.shape[1], dtype=np.int64)
    for j in range(X.shape[1]):
        u, inv = np.unique(X[:, j], return_inverse=True)
        codes[:, j] = inv
        cards[j] = u.size
    return np.ascontiguousarray(codes), cards


class DiscreteEntropies:
    """Plug-in joint entropies of column subsets, cached (numba kernels)."""

    def __init__(self, X: np.ndarray) -> None:
        self.codes, self.cards = encode_columns(X)
        self.n = X.shape[0]
        self._h: dict[Idx, float] = {}

    def H(self, cols: Idx) -> float:
        h = self._h.get(cols)
        if h is None:
            h = self._h[cols] = self._entropy(cols)
        return h

    def _entropy(self, cols: Idx) -> float:
        from .numeric_kernels import joint_entropy

        return float(joint_entropy(self.codes, np.asarray(cols, dtype=np.int64), self.cards))

    def mi(self, a: Idx, b: Idx) -> float:
        return self.H(a) + self.H(b) - self.H(tuple(sorted(a + b)))

    def cmi(self, a: Idx, b: Idx, c: Idx) -> float:
        """I(A; B | C) = H(AC) + H(BC) - H(ABC) - H(C)."""
        ac, bc = tuple(sorted(a + c)), tuple(sorted(b + c))
        return self.H(ac) + self.H(bc) - self.H(tuple(sorted(a + b + c))) - self.H(c)


class NumpyEntropies(DiscreteEntropies):
    """:class:`DiscreteEntropies` computed in NumPy, with no numba start-up (about 0.4 s per process).

    The values are bit for bit those of the numba kernels: the same mixed-radix keys
    (re-ranked in order before they could overflow), the counts in increasing key order,
    ``c log c`` from ``math.log`` (the C library's log, as numba's; NumPy's own log can
    differ in the last bit) and summed one after the other. The BIC engine uses it: a
    greedy search over 20 discrete variables needs about 2,000 entropies, fewer than
    numba's start-up is worth.
    """

    def __init__(self, X: np.ndarray) -> None:
        super().__init__(X)
        self._clogc = np.full(self.n + 1, np.nan)  # c log c, filled for the counts met
        self._clogc[0] = 0.0
        self._log_n = math.log(self.n)
        self._rows = np.ascontiguousarray(self.codes.T)  # one contiguous row per column
        self._clogc_full = False
        self._bits: np.ndarray | None = None  # the columns as bit sets per code (bits)
        self._plus: dict[Idx, np.ndarray] = {}  # H(base + (a,)) by base, NaN where not asked yet

    def _entropy(self, cols: Idx) -> float:
        if not cols:
            return 0.0
        keys, total = self._joint_keys(cols)
        if total <= DENSE_COUNT_LIMIT:
            counts = np.bincount(keys, minlength=total)
            counts = counts[counts > 0]
        else:
            counts = np.unique(keys, return_counts=True)[1]
        tab = self._clogc
        todo = counts[np.isnan(tab[counts])]
        if todo.size:
            for c in np.unique(todo).tolist():
                tab[c] = c * math.log(c)
        acc = float(np.cumsum(tab[counts])[-1])  # in order, as the kernels' loop
        return self._log_n - acc / self.n

    def H_plus(self, base: Idx, cands: Sequence[int]) -> np.ndarray:
        """``H(base + (a,))`` for each column *a* of *cands* (none of them in *base*), cached as
        :meth:`H`. The missing ones are counted together, in one dense count per block of
        candidates (key: rank of the base's joint value, then the candidate's code), which is
        several times faster than one count each. The sum runs in that key order, so a value
        can differ from :meth:`H`'s in the last bits; whichever is computed first is kept. From
        ``n d^2 >= NUMBA_WORK`` (where pc compiles its tests too) the counts run in a numba kernel."""
        row = self._plus.get(base)
        if row is None:
            row = self._plus[base] = np.full(self.cards.size, np.nan)
        out = row[cands]  # the values of :meth:`H`'s cache met before, by this base
        todo: list[tuple[int, int, Idx]] = []
        for j in np.flatnonzero(np.isnan(out)).tolist():
            a = cands[j]
            key = tuple(sorted(base + (a,)))
            h = self._h.get(key)
            if h is None:
                todo.append((j, a, key))
            else:
                out[j] = row[a] = h
        if not todo:
            return out
        clogc = self.clogc()
        base_keys, K = self._ranked_keys(base)
        A = np.array([a for _, a, _ in todo], dtype=np.int64)
        if self.counts_in_numba:
            from .numeric_kernels import clogc_sums_plus

            hs = self._log_n - clogc_sums_plus(self._rows, base_keys, K, A, self.cards, clogc, self.bits()) / self.n
            for (j, a, key), h in zip(todo, hs.tolist()):
                out[j] = row[a] = self._h[key] = h
            return out
        cmax = int(self.cards[A].max())
        step = K * cmax
        chunk = max(1, (16 * DENSE_COUNT_LIMIT) // step)
        hs = np.empty(len(A))
        shifted = base_keys * cmax
        for s in range(0, len(A), chunk):
            Ac = A[s:s + chunk]
            keys = shifted[None, :] + self._rows[Ac] + (np.arange(Ac.size, dtype=np.int64) * step)[:, None]
            counts = np.bincount(keys.ravel(), minlength=Ac.size * step).reshape(Ac.size, step)
            hs[s:s + chunk] = self._log_n - clogc[counts].sum(axis=1) / self.n
        for (j, a, key), h in zip(todo, hs.tolist()):
            out[j] = row[a] = self._h[key] = h
        return out

    @property
    def counts_in_numba(self) -> bool:
        """Whether :meth:`H_plus` counts in a numba kernel: from ``n d^2 >= NUMBA_WORK``."""
        return self.n * self.cards.size ** 2 >= NUMBA_WORK

    def bits(self) -> np.ndarray:
        """Each column's samples per code as bit sets (:func:`~.numeric_kernels.one_hot_bits`), built on
        first use by the numba count."""
        if self._bits is None:
            from .numeric_kernels import one_hot_bits

            self._bits = one_hot_bits(self._rows, self.cards)
        return self._bits

    def clogc(self) -> np.ndarray:
        """c log c for every count c = 0..n (math.log's logs, as :meth:`_entropy` fills it)."""
        if not self._clogc_full:
            logs = np.fromiter(map(math.log, range(1, self.n + 1)), float, self.n)
            self._clogc = np.concatenate(([0.0], np.arange(1, self.n + 1) * logs))
            self._clogc_full = True
        return self._clogc

    def _joint_keys(self, cols: Idx) -> tuple[np.ndarray, int]:
        """Mixed-radix keys of the joint value of the (non-empty) *cols*, re-ranked in order before
        they could overflow, and their range."""
        rows, cards = self._rows, self.cards
        keys = rows[cols[0]]
        total = int(cards[cols[0]])
        for c in cols[1:]:
            s = int(cards[c])
            if total * s > KEY_RANK_LIMIT:
                u, keys = np.unique(keys, return_inverse=True)
                total = u.size
            keys = keys * s + rows[c]
            total *= s
        return keys, total

    def _ranked_keys(self, cols: Idx) -> tuple[np.ndarray, int]:
        """Codes 0..K-1 of the joint value of *cols* (mixed radix, ranked when above n) and K."""
        if not cols:
            return np.zeros(self.n, dtype=np.int64), 1
        keys, total = self._joint_keys(cols)
        if total > self.n:
            u, keys = np.unique(keys, return_inverse=True)
            total = u.size
        return keys, total


def g_test(ent: DiscreteEntropies, A: Idx, B: Idx, S: Idx) -> float:
    """G-test of A _||_ B | S: G = 2 N I(A; B | S), degrees of freedom summed over the observed
    strata of S as (levels of A - 1)(levels of B - 1) observed in each stratum."""
    from scipy.stats import chi2

    from .numeric_kernels import joint_keys

    stat = 2.0 * ent.n * ent.cmi(A, B, S)
    ka, _ = joint_keys(ent.codes, np.asarray(A, dtype=np.int64), ent.cards)
    kb, _ = joint_keys(ent.codes, np.asarray(B, dtype=np.int64), ent.cards)
    ks, _ = joint_keys(ent.codes, np.asarray(S, dtype=np.int64), ent.cards)
    dof = 0
    for s in np.unique(ks):
        sel = ks == s
        dof += max(np.unique(ka[sel]).size - 1, 0) * max(np.unique(kb[sel]).size - 1, 0)
    if dof == 0:
        return 1.0
    return float(chi2.sf(max(stat, 0.0), dof))


def partial_correlation_pvalue(S: np.ndarray, n: int, A: Idx, B: Idx, C: Idx) -> float:
    """Gaussian CI test between sets: log-likelihood ratio -n log(det terms), chi-square |A||B| dof."""
    from scipy.stats import chi2

    def logdet(idx: Sequence[int]) -> float:
        if not idx:
            return 0.0
        return float(np.linalg.slogdet(S[np.ix_(list(idx), list(idx))] / n)[1])

    a, b, c = list(A), list(B), list(C)
    cmi = 0.5 * (logdet(a + c) + logdet(b + c) - logdet(a + b + c) - logdet(c))
    return float(chi2.sf(max(2.0 * n * cmi, 0.0), len(a) * len(b)))
