"""CAUSE-FS: causally-aware unsupervised feature selection, baselines (Laplacian score, all
features), the paper's evaluation protocol and feature-selection data loaders."""

from framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .protocol import FSProtocol
    from .selector import AllFeatures, CauseFS, LaplacianScore

    for cls in (CauseFS, LaplacianScore, AllFeatures, FSProtocol):
        register(cls)


@hookimpl
def macrocause_register_data_sources(register):
    from .sources import Digits, MatFile

    for cls in (MatFile, Digits):
        register(cls)
