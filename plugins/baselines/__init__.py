"""Baselines: PC, FCI, Hill-Climb, GES, greedy_dag, GRaSP, BOSS, DirectLiNGAM, the bic scorer and the BIC of a
graph, DBSCAN, HDBSCAN,
k-means, Gaussian mixtures, agglomerative (Ward) and spectral clustering, variable clusters."""

from macrocause.framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .bic import BIC
    from .clustering import DBSCAN, HDBSCAN, Agglomerative, GaussianMixtureEM, KMeans, Spectral
    from .fci import FCI
    from .ges import GES, BICScore
    from .greedy import GreedyDAG
    from .lingam import DirectLiNGAM
    from .permutation import BOSS, GRaSP
    from .search import PC, HillClimb
    from .variables import CorrelationClusters

    for cls in (DBSCAN, HDBSCAN, KMeans, GaussianMixtureEM, Agglomerative, Spectral, CorrelationClusters, PC, HillClimb, GES,
                BICScore, BIC, GreedyDAG, FCI, GRaSP, BOSS, DirectLiNGAM):
        register(cls)
