"""Exception hierarchy of macrocause.

Every error the framework raises on purpose derives from :class:`MacrocauseError`,
so the CLI can print it as one line. Errors about bad values also derive from
:class:`ValueError`, as scikit-learn users expect.
"""

from __future__ import annotations


class MacrocauseError(Exception):
    """Root of every error raised on purpose by macrocause."""


class PluginError(MacrocauseError):
    """A plugin cannot be found, loaded or registered."""


class PluginNotFoundError(PluginError, LookupError, ValueError):
    """No plugin of that name is registered.

    Both a :class:`LookupError` (a name that is not there) and a :class:`ValueError`
    (a bad value for a plugin name), so either ``except`` clause catches it.
    """


class PluginLoadError(PluginError):
    """A plugin was found but its code failed to import or register."""


class DuplicatePluginError(PluginError):
    """Two plugins register the same name."""


class ConfigError(MacrocauseError, ValueError):
    """A plugin parameter is invalid."""


class DataValidationError(MacrocauseError, ValueError):
    """Input data is not acceptable (shape, NaN/inf, too few samples, ...)."""


class PipelineError(MacrocauseError, ValueError):
    """A pipeline or grid specification is invalid."""


class MemoryBudgetError(MacrocauseError, MemoryError):
    """A method would need more memory than the budget allows (see :mod:`framework.memory`)."""
