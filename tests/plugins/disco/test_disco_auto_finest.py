"""disco_auto's default rule 'finest': the most clusters among admitted labellings near the best DISCO."""

import numpy as np

from macrocause.plugins.disco.auto import is_degenerate, largest_fraction, select


def _rec(disco, labels):
    labels = np.asarray(labels, np.int64)
    k = len(set(labels[labels >= 0].tolist()))
    noise = int((labels < 0).sum())
    return {"disco": disco, "n_clusters": k, "n_noise": noise, "degenerate": is_degenerate(k, noise, labels.size),
            "labels": labels}


def test_largest_fraction():
    assert largest_fraction(np.array([0, 0, 0, 1, -1])) == 0.6
    assert largest_fraction(np.array([-1, -1])) == 0.0


def test_finest_rule_by_hand():
    ten = np.arange(20) // 2  # 10 clusters of 2
    records = [
        _rec(0.95, [0] * 19 + [1]),  # 2 clusters but one holds 95%: not admitted
        _rec(0.60, np.arange(20) // 10),  # 2 clusters: the best admitted DISCO
        _rec(0.52, np.arange(20) // 5),  # 4 clusters, within 0.1 of 0.60: chosen
        _rec(0.45, ten),  # 10 clusters, but 0.15 below the best: too far
        _rec(0.99, [0] * 20),  # one cluster: degenerate
    ]
    assert select(records, "finest") == 2
    assert select(records, "structured") == 0
    assert select(records, "disco") == 4
    records[2]["disco"] = 0.49  # now outside the tolerance: the best admitted one wins
    assert select(records, "finest") == 1


def test_finest_falls_back_when_nothing_is_admitted():
    records = [_rec(0.3, [0] * 19 + [1]), _rec(0.9, [0] * 20)]
    assert select(records, "finest") == select(records, "structured") == 0
