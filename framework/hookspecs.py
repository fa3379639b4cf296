"""The pluggy hook specifications of macrocause: the whole plugin interface.

A plugin package is a module with ``@hookimpl`` functions, declared under the
entry-point group ``macrocause``::

    [project.entry-points.macrocause]
    mymethod = "macrocause_mymethod"

Hooks use the register-callback shape (as in ``llm``): the framework hands a
``register`` function and keeps control of names, duplicates and origins.
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

hookspec = pluggy.HookspecMarker("macrocause")
hookimpl = pluggy.HookimplMarker("macrocause")


@hookspec
def macrocause_register_plugins(register: Callable[[type], None]) -> None:
    """Register Partitioner, Scorer, Searcher and Evaluator classes.

    :param register: call once per class; a name already taken raises
        :class:`~macrocause.framework.errors.DuplicatePluginError` naming both origins.
    """


@hookspec
def macrocause_register_data_sources(register: Callable[[type], None]) -> None:
    """Register data sources: loaders and simulators (:class:`~macrocause.framework.roles.DataSource`).

    :param register: call once per class; names share one namespace with plugins.
    """
