"""Metrics as evaluators: NMI, ARI, clustering accuracy, silhouette, SHD and edge F1."""

from framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .clustering import ARI, NMI, ClusteringAccuracy, Silhouette
    from .graphs import SHD, EdgeF1

    for cls in (NMI, ARI, ClusteringAccuracy, Silhouette, SHD, EdgeF1):
        register(cls)
