"""Baselines: PC, Hill-Climb, DBSCAN, HDBSCAN, k-means, Gaussian-mixture EM, correlation clusters."""

from framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .clustering import DBSCAN, HDBSCAN, GaussianMixtureEM, KMeans
    from .search import PC, HillClimb
    from .variables import CorrelationClusters

    for cls in (DBSCAN, HDBSCAN, KMeans, GaussianMixtureEM, CorrelationClusters, PC, HillClimb):
        register(cls)
