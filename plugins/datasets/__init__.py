"""Built-in data sources: the Sachs data, the bnlearn networks, a linear-Gaussian and a discrete-BN simulator,
a CSV loader."""

from macrocause.framework import hookimpl


@hookimpl
def macrocause_register_data_sources(register):
    from .loaders import CSVSource
    from .networks import BNLearn
    from .sachs import Sachs
    from .simulate import DiscreteBN, LinearGaussian

    for cls in (Sachs, BNLearn, LinearGaussian, DiscreteBN, CSVSource):
        register(cls)
