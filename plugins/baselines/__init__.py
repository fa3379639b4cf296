"""Baselines: PC, Hill-Climb, DBSCAN, HDBSCAN, k-means, Gaussian-mixture EM, correlation clusters."""

from framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .clustering import DBSCAN

    for cls in (DBSCAN,):
        register(cls)
