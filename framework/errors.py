"""Exception hierarchy of macrocause.

Every error the framework raises on purpose derives from :class:`MacrocauseError`,
so the CLI can print it as one line. Errors about bad values also derive from
:class:`ValueError`, as scikit-learn users expect.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


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
    """A method would need more memory than the budget allows (see :mod:`macrocause.framework.memory`)."""


# -- the language of an error --------------------------------------------------------------
# A YAML run (``macrocause run`` / ``compare``) and a Python session name the same fix in
# different words: ``data: {csv: FILE, labels: COLUMN}`` against ``csv(path, labels=...)``.
_FORM: ContextVar[str] = ContextVar("macrocause_error_form", default="python")


def error_form() -> str:
    """``"yaml"`` inside a YAML run (see :func:`speaking`), else ``"python"``."""
    return _FORM.get()


@contextmanager
def speaking(form: str) -> Iterator[None]:
    """Errors raised inside give their advice in *form* (``"yaml"`` or ``"python"``)."""
    if form not in ("yaml", "python"):
        raise ValueError(f"error form must be 'yaml' or 'python', not {form!r}")
    token = _FORM.set(form)
    try:
        yield
    finally:
        _FORM.reset(token)


def say(yaml: str, python: str) -> str:
    """The advice *yaml* in a YAML run, *python* otherwise."""
    return yaml if _FORM.get() == "yaml" else python
