"""How much of the effect a sample partition explains: the macro-variables' effect information."""

from __future__ import annotations

import numpy as np

from macrocause.framework import Dataset, Evaluation, Evaluator, Metric, Params, Partition


class EffectInformation(Evaluator):
    """Share of the effect's entropy a sample partition explains, I(Y; Z) / H(Y), with its size figures.

    Z is the partition (noise, -1, one more value), Y the data's target (the effect
    state). 1: the macro-variable determines the effect; 0: it tells nothing about it.
    Needs no ground truth. ``metrics`` also hold ``n_clusters``, ``noise_fraction``,
    ``top5_share`` (share of all points in the five largest clusters), ``purity``
    (mean, over clustered points, of their cluster's largest effect-state probability) and,
    per effect state s, ``purity_<s>``: the largest P(Y = s | cluster) over the clusters
    (whether some macro-variable stands for state s, as the lamps of the paper's Fig. 1):
    few, large, state-pure macro-variables have small ``n_clusters``, a large
    ``top5_share`` and a high ``effect_information``.

    References
    ----------
    Theil. Economics and Information Theory, 1967 (uncertainty coefficient); Weber et al.,
    CAFE DBSCAN, ICDM 2023 (macro-variables as clusters of P(Y | X)).
    """

    name = "effect_information"
    declares = {"effect_information": Metric.higher(0, 1), "purity": Metric.higher(0, 1),
                "purity_*": Metric.higher(0, 1), "n_clusters": Metric.descriptive(0), "noise_fraction": Metric.descriptive(0, 1),
                "top5_share": Metric.descriptive(0, 1)}
    accepts = ("partition",)
    scale_invariant = "column"
    Params = Params
    paper = "Theil 1967 (uncertainty coefficient)"

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, need_target=True, min_states=2)

    def _evaluate(self, data: Dataset, result: Partition, truth) -> Evaluation:
        y = data.target_codes
        m = len(data.target_states)
        z = np.unique(result.labels, return_inverse=True)[1]
        joint = np.zeros((int(z.max()) + 1, m))
        np.add.at(joint, (z, y), 1.0)
        joint /= joint.sum()
        py, pz = joint.sum(axis=0), joint.sum(axis=1)
        nz = joint > 0
        mi = float(np.sum(joint[nz] * np.log(joint[nz] / np.outer(pz, py)[nz])))
        hy = float(-np.sum(py[py > 0] * np.log(py[py > 0])))
        lab = result.labels
        ok = lab >= 0
        sizes = np.sort(np.bincount(lab[ok]))[::-1] if ok.any() else np.zeros(0, dtype=int)
        purity, per_state = 0.0, np.zeros(m)
        if ok.any():
            counts = np.zeros((int(lab.max()) + 1, m))
            np.add.at(counts, (lab[ok], y[ok]), 1.0)
            purity = float(counts.max(axis=1).sum() / counts.sum())
            sizes_k = counts.sum(axis=1, keepdims=True)
            per_state = (counts / np.maximum(sizes_k, 1.0))[sizes_k[:, 0] > 0].max(axis=0)
        value = mi / hy if hy > 0 else 0.0
        return Evaluation(value, {
            "n_clusters": float(np.count_nonzero(sizes)), "noise_fraction": float(np.mean(~ok)),
            "top5_share": float(sizes[:5].sum() / lab.size), "purity": purity,
            **{f"purity_{s}": float(v) for s, v in zip(data.target_states, per_state)},
        })
