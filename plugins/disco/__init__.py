"""DISCO: exact density-based internal score with noise, the DBCV baseline, and
automatic parameters for density partitioners chosen by DISCO, and density benchmark data."""

from macrocause.framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .auto import DiscoAuto
    from .evaluator import DBCV, Disco
    from .sources import DensityBlobs

    for cls in (Disco, DBCV, DiscoAuto, DensityBlobs):
        register(cls)
