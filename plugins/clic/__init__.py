"""CLIC: kernel tensor rank, clustering with an independence criterion, finite confounders;
npEM baseline; matched MMD; the paper's simulators and the WDBC data."""

from macrocause.framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .clustering import CLIC
    from .evaluators import KernelRank, MMDMatching
    from .npem import NPEM

    for cls in (CLIC, NPEM, KernelRank, MMDMatching):
        register(cls)


@hookimpl
def macrocause_register_data_sources(register):
    from .simulate import WDBC, AdditiveNoiseTriple, DirectLink, ProductMixture

    for cls in (ProductMixture, DirectLink, WDBC, AdditiveNoiseTriple):
        register(cls)
