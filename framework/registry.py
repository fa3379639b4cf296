"""Plugin discovery and creation.

Plugins are found through the entry-point group ``macrocause`` (built-in ones
too, exactly as a third party registers). Each entry point names a module with
``@hookimpl`` functions (see :mod:`framework.hookspecs`). A module that fails to
import or register is recorded as *unavailable*, with its reason, and breaks
nothing else.

Examples
--------
>>> from framework import registry
>>> "dbscan" in registry.names("partitioner")
True
>>> registry.create("dbscan", eps=-1.0)
Traceback (most recent call last):
...
framework.errors.ConfigError: The 'eps' parameter of dbscan must be > 0. Got -1.0 instead.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from . import hookspecs
from .errors import DuplicatePluginError, PluginError, PluginNotFoundError
from .roles import DataSource, Plugin, Role, set_name_resolver

__all__ = [
    "PluginRecord", "Unavailable", "Registry", "get_registry", "reset",
    "create", "get", "names", "records", "unavailable", "load_data", "load_files",
]

ENTRY_POINT_GROUP = "macrocause"


@dataclass(frozen=True)
class PluginRecord:
    """Where a registered plugin class came from."""

    name: str
    role: str
    cls: type[Plugin]
    origin: str  # entry-point (pluggy plugin) name
    package: str  # distribution name, or the module for plugins registered by hand

    @property
    def summary(self) -> str:
        return self.cls.summary()


@dataclass(frozen=True)
class Unavailable:
    """A plugin module that could not be loaded."""

    origin: str
    package: str
    reason: str


class Registry:
    """A pluggy plugin manager plus the table of registered plugin classes."""

    def __init__(self, autoload: bool = True) -> None:
        self.pm = pluggy.PluginManager("macrocause")
        self.pm.add_hookspecs(hookspecs)
        self._records: dict[str, PluginRecord] = {}
        self._unavailable: list[Unavailable] = []
        if autoload and not os.environ.get("MACROCAUSE_DISABLE_PLUGIN_AUTOLOAD"):
            self.load_entry_points()
        if autoload:
            self.load_modules(os.environ.get("MACROCAUSE_PLUGINS", ""))

    def load_modules(self, modules: str) -> None:
        """Register plugin modules named in a comma-separated list (``MACROCAUSE_PLUGINS``),
        for plugins that are not installed as packages (as ``pytest -p``)."""
        for name in (m.strip() for m in modules.split(",")):
            if not name:
                continue
            try:
                module = importlib.import_module(name)
            except Exception as exc:
                self._unavailable.append(
                    Unavailable(name, name, f'Error importing plugin "{name}": {type(exc).__name__}: {exc}')
                )
                continue
            self.register_module(module, name, name)

    def load_files(self, paths: Iterable[str | os.PathLike]) -> None:
        """Register plugin modules given as Python files (a grid's ``plugins:``), each once.

        Raises
        ------
        PluginError
            If a file does not exist or fails to import or register.
        """
        for path in paths:
            path = Path(path).resolve()
            origin = f"file:{path}"
            if self.pm.get_plugin(origin) is not None:
                continue
            if not path.is_file():
                raise PluginError(f"Plugin file {path} does not exist; give a .py file (relative to the grid file).")
            name = "macrocause_file_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as exc:
                del sys.modules[name]
                raise PluginError(f"Plugin file {path} failed to import: {type(exc).__name__}: {exc}") from exc
            try:
                self.register_module(module, origin, path.name)
            except Exception as exc:
                if self.pm.get_plugin(origin) is not None:
                    self.pm.unregister(name=origin)
                raise PluginError(f"Plugin file {path} failed to register: {exc}") from exc

    # -- loading -------------------------------------------------------------
    def load_entry_points(self, group: str = ENTRY_POINT_GROUP) -> None:
        """Import and register every module of the entry-point group."""
        blocked = {s.strip() for s in os.environ.get("MACROCAUSE_BLOCK_PLUGINS", "").split(",") if s.strip()}
        seen: set[str] = set()
        for ep in sorted(entry_points(group=group), key=lambda e: e.name):
            dist = ep.dist.name if ep.dist is not None else "?"
            if ep.name in blocked or ep.name in seen:
                continue
            seen.add(ep.name)
            try:
                module = ep.load()
            except Exception as exc:  # a broken plugin must not break the others
                self._unavailable.append(
                    Unavailable(ep.name, dist, f'Error importing plugin "{ep.name}": {type(exc).__name__}: {exc}')
                )
                continue
            self.register_module(module, ep.name, dist)

    def register_module(self, module: ModuleType | object, origin: str, package: str | None = None) -> None:
        """Register a module (or object) holding hookimpls, as if found by entry point."""
        package = package or getattr(module, "__name__", origin)
        self.pm.register(module, name=origin)
        self.pm.check_pending()
        new: dict[str, PluginRecord] = {}

        def register(cls: type) -> None:
            if not (isinstance(cls, type) and issubclass(cls, Plugin)):
                raise PluginError(f"plugin {origin!r} registered {cls!r}, which is not a Plugin class.")
            name = getattr(cls, "name", None)
            if not isinstance(name, str) or not name:
                raise PluginError(f"plugin {origin!r}: class {cls.__qualname__} has no 'name'.")
            if cls.role not in tuple(Role):
                raise PluginError(f"plugin {origin!r}: class {cls.__qualname__} has no known role.")
            other = self._records.get(name) or new.get(name)
            if other is not None:
                raise DuplicatePluginError(
                    f"Plugin name {name!r} is registered twice: by {other.origin!r} "
                    f"({other.package}, {other.cls.__module__}.{other.cls.__qualname__}) and by "
                    f"{origin!r} ({package}, {cls.__module__}.{cls.__qualname__})."
                )
            new[name] = PluginRecord(name, cls.role, cls, origin, package)

        try:
            for hook in (self.pm.hook.macrocause_register_plugins, self.pm.hook.macrocause_register_data_sources):
                for impl in hook.get_hookimpls():
                    if impl.plugin_name == origin:
                        impl.function(register=register)
        except DuplicatePluginError:
            self.pm.unregister(name=origin)
            raise
        except Exception as exc:
            self.pm.unregister(name=origin)
            self._unavailable.append(
                Unavailable(origin, package, f'Error registering plugin "{origin}": {type(exc).__name__}: {exc}')
            )
            return
        self._records.update(new)

    # -- queries -------------------------------------------------------------
    def records(self, role: str | None = None) -> list[PluginRecord]:
        if role is not None and role not in tuple(Role):
            raise PluginError(f"Unknown role {role!r}; choose one of {', '.join(Role)}.")
        return sorted(
            (r for r in self._records.values() if (r.role == role if role else r.role != Role.DATA)),
            key=lambda r: (r.role, r.name),
        )

    def names(self, role: str | None = None) -> list[str]:
        return sorted(r.name for r in self.records(role))

    def unavailable(self) -> list[Unavailable]:
        return list(self._unavailable)

    def get(self, name: str) -> type[Plugin]:
        try:
            return self._records[name].cls
        except KeyError:
            pass
        close = difflib.get_close_matches(name, list(self._records), n=3)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        broken = [u.reason for u in self._unavailable if u.origin == name]
        extra = f" It failed to load: {broken[0]}" if broken else ""
        raise PluginNotFoundError(
            f"Unknown plugin {name!r}.{hint} Run `macrocause plugins` to list them.{extra}"
        )

    def record(self, name: str) -> PluginRecord:
        self.get(name)
        return self._records[name]

    def create(self, name: str, **params: Any) -> Plugin:
        return self.get(name)(**params)


_default: Registry | None = None


def get_registry() -> Registry:
    """The process-wide registry, built on first use."""
    global _default
    if _default is None:
        _default = Registry()
    return _default


def reset(registry: Registry | None = None) -> None:
    """Replace the process-wide registry (tests), or forget it so it reloads."""
    global _default
    _default = registry


def create(name: str, **params: Any) -> Plugin:
    """Create the plugin *name* with validated parameters.

    Raises
    ------
    PluginNotFoundError
        If no plugin of that name is registered (with close matches).
    ConfigError
        If a parameter is unknown or out of bounds (a ValueError).
    """
    return get_registry().create(name, **params)


def get(name: str) -> type[Plugin]:
    """The class registered as *name*."""
    return get_registry().get(name)


def names(role: str | None = None) -> list[str]:
    """Registered plugin names, optionally of one role
    (``"partitioner"``, ``"scorer"``, ``"searcher"``, ``"evaluator"``, or ``"data"``)."""
    return get_registry().names(role)


def records(role: str | None = None) -> list[PluginRecord]:
    """Registered plugins with their origins."""
    return get_registry().records(role)


def unavailable() -> list[Unavailable]:
    """Plugin modules that failed to import or register, with reasons."""
    return get_registry().unavailable()


set_name_resolver(create)


def load_files(paths: Iterable[str | os.PathLike]) -> None:
    """Register the plugin modules in these Python files (each file once per process)."""
    if paths:
        get_registry().load_files(paths)


def load_data(source: str, **params: Any):
    """Load a dataset from the registered data source *source*."""
    src = create(source, **params)
    if not isinstance(src, DataSource):
        raise PluginError(f"{source!r} is a {src.role}, not a data source.")
    return src.load()


def import_object(path: str) -> Any:
    """Resolve ``"package.module:Attr"``."""
    mod, _, attr = path.partition(":")
    obj = importlib.import_module(mod)
    for part in attr.split(".") if attr else []:
        obj = getattr(obj, part)
    return obj
