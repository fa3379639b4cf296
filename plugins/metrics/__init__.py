"""Metrics as evaluators: NMI, ARI, clustering accuracy, silhouette, SHD, edge F1 and cluster ARI."""

from macrocause.framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .clustering import ARI, NMI, ClusteringAccuracy, Silhouette
    from .graphs import SHD, ClusterARI, EdgeF1

    for cls in (NMI, ARI, ClusteringAccuracy, Silhouette, SHD, EdgeF1, ClusterARI):
        register(cls)
