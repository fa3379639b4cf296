"""CAUSE-FS: causally-aware unsupervised feature selection, baselines (Laplacian score, all
features, SOGFS), the paper's evaluation protocol and feature-selection data loaders."""

from macrocause.framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .protocol import FSProtocol
    from .selector import AllFeatures, CauseFS, LaplacianScore
    from .sogfs import SOGFS

    for cls in (CauseFS, LaplacianScore, AllFeatures, SOGFS, FSProtocol):
        register(cls)


@hookimpl
def macrocause_register_data_sources(register):
    from .sources import Digits, MatFile, SyntheticFS

    for cls in (MatFile, Digits, SyntheticFS):
        register(cls)
