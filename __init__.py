"""macrocause: causal discovery at the level of groups.

The public surface, ``from macrocause import Dataset, Partition, CausalGraph,
Evaluation, registry`` (everything in :mod:`macrocause.framework`'s ``__all__``);
the plugins are in :mod:`macrocause.plugins`.
"""

from __future__ import annotations

from . import framework as _framework
from .framework import __all__, __version__  # noqa: F401


def __getattr__(name: str):
    # the names of macrocause.framework, each imported as that package imports it
    if name in __all__:
        return getattr(_framework, name)
    raise AttributeError(f"module 'macrocause' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
