"""Baselines: PC, Hill-Climb, GES, the BIC of a graph, DBSCAN, HDBSCAN, k-means, Gaussian mixtures, variable clusters."""

from framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .clustering import DBSCAN, HDBSCAN, GaussianMixtureEM, KMeans
    from .ges import GES, BICScore
    from .search import PC, HillClimb
    from .variables import CorrelationClusters

    for cls in (DBSCAN, HDBSCAN, KMeans, GaussianMixtureEM, CorrelationClusters, PC, HillClimb, GES,
                BICScore):
        register(cls)
