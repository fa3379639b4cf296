"""A third-party macrocause plugin, registered through its own entry point."""

from macrocause import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .balance import BinBalance
    from .bins import QuantileBins

    register(QuantileBins)
    register(BinBalance)
