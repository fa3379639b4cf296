"""Plugin discovery and creation.

Plugins are found through the entry-point group ``macrocause`` (built-in ones
too, exactly as a third party registers). Each entry point names a module with
``@hookimpl`` functions (see :mod:`macrocause.framework.hookspecs`). When the package ships a
manifest (``registry.yaml``, :mod:`macrocause.framework.manifest`), its plugins are listed from
it and the module is imported when one of them is first used; otherwise the module
is imported at once. A module that fails to import or register is recorded as
*unavailable*, with its reason, and breaks nothing else; so is a plugin whose
``requires`` names a plugin that is missing (blocked, broken or not installed).

Examples
--------
>>> from macrocause.framework import registry
>>> "dbscan" in registry.names("partitioner")
True
>>> registry.create("dbscan", eps=-1.0)
Traceback (most recent call last):
...
macrocause.framework.errors.ConfigError: The 'eps' parameter of dbscan must be > 0. Got -1.0 instead.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from . import hookspecs
from .errors import DuplicatePluginError, PluginError, PluginNotFoundError
from .manifest import ManifestEntry, entry_of, find_manifest, import_object, manifest_differences
from .roles import DataSource, Plugin, Role, set_name_resolver

__all__ = [
    "PluginRecord", "Unavailable", "Registry", "get_registry", "reset",
    "create", "get", "names", "records", "unavailable", "load_data", "load_files", "import_object",
]

ENTRY_POINT_GROUP = "macrocause"


@dataclass(frozen=True)
class PluginRecord:
    """A registered plugin: what the catalogue says of it, and its class once imported."""

    name: str
    role: str
    origin: str  # entry-point (pluggy plugin) name
    package: str  # distribution name, or the module for plugins registered by hand
    summary: str
    paper: str | None = None
    axis: str | None = None
    requires: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    class_path: str = ""
    _cls: list = field(default_factory=list, repr=False, compare=False)  # [] until imported
    _load: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    @property
    def cls(self) -> type[Plugin]:
        """The plugin class (imports its module on first use)."""
        if not self._cls and self._load is not None:
            self._load()
        return self._cls[0]

    @property
    def loaded(self) -> bool:
        return bool(self._cls)

    @classmethod
    def of_class(cls, klass: type[Plugin], origin: str, package: str) -> PluginRecord:
        e = entry_of(klass, origin)
        return cls(e.name, e.role, origin, package, e.summary, e.paper, e.axis, tuple(e.requires),
                   tuple(e.needs), e.class_, [klass])

    @classmethod
    def of_entry(cls, e: ManifestEntry, package: str, load: Callable[[], None]) -> PluginRecord:
        return cls(e.name, e.role, e.entry_point, package, e.summary, e.paper, e.axis, tuple(e.requires),
                   tuple(e.needs), e.class_, [], load)


@dataclass(frozen=True)
class Unavailable:
    """A plugin module that could not be loaded, or plugins whose requirements are missing."""

    origin: str
    package: str
    reason: str
    names: tuple[str, ...] = ()  # the plugins it would have registered, when known


class Registry:
    """A pluggy plugin manager plus the table of registered plugins.

    Entry points with a manifest (:mod:`macrocause.framework.manifest`) are listed from it and
    imported when one of their plugins is first used; the others are imported at once.
    """

    def __init__(self, autoload: bool = True) -> None:
        self.pm = pluggy.PluginManager("macrocause")
        self.pm.add_hookspecs(hookspecs)
        self._records: dict[str, PluginRecord] = {}
        self._unavailable: list[Unavailable] = []
        self._pending: dict[str, Callable[[], None]] = {}
        self._lock = threading.RLock()  # one thread imports an entry point; the others wait for it
        self._failed: dict[str, str] = {}  # entry points whose import failed, with the error
        if autoload and not os.environ.get("MACROCAUSE_DISABLE_PLUGIN_AUTOLOAD"):
            self.load_entry_points()
        if autoload:
            self.load_modules(os.environ.get("MACROCAUSE_PLUGINS", ""))
        self._check_requires()

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
        """Register every entry point of the group: from its manifest when it has one
        (imported on first use), else by importing its module now."""
        blocked = {s.strip() for s in os.environ.get("MACROCAUSE_BLOCK_PLUGINS", "").split(",") if s.strip()}
        seen: set[str] = set()
        for ep in sorted(entry_points(group=group), key=lambda e: e.name):
            dist = ep.dist.name if ep.dist is not None else "?"
            if ep.name in seen:
                continue
            seen.add(ep.name)
            try:
                found = find_manifest(ep.module, ep.name)
            except PluginError as exc:
                self._unavailable.append(Unavailable(ep.name, dist, f'Plugin "{ep.name}": {exc}'))
                continue
            if ep.name in blocked:
                names = tuple(e.name for e in found[1]) if found else ()
                self._unavailable.append(Unavailable(ep.name, dist, "blocked by MACROCAUSE_BLOCK_PLUGINS", names))
                continue
            if found is not None:
                self._add_from_manifest(ep, dist, found[1])
                continue
            try:
                module = ep.load()
            except Exception as exc:  # a broken plugin must not break the others
                self._unavailable.append(
                    Unavailable(ep.name, dist, f'Error importing plugin "{ep.name}": {type(exc).__name__}: {exc}')
                )
                continue
            self.register_module(module, ep.name, dist)

    def _add_from_manifest(self, ep: EntryPoint, dist: str, entries: list[ManifestEntry]) -> None:
        for e in entries:
            other = self._records.get(e.name)
            if other is not None:
                raise DuplicatePluginError(
                    f"Plugin name {e.name!r} is registered twice: by {other.origin!r} "
                    f"({other.package}, {other.class_path}) and by {ep.name!r} ({dist}, {e.class_})."
                )
        self._pending[ep.name] = lambda: self._import_entry_point(ep, dist)
        for e in entries:
            self._records[e.name] = PluginRecord.of_entry(e, dist, self._pending[ep.name])

    def _import_entry_point(self, ep: EntryPoint, dist: str) -> None:
        """Import a manifest-listed entry point and give its records their classes."""
        with self._lock:
            if ep.name in self._failed:
                raise PluginError(self._failed[ep.name])
            if self._pending.pop(ep.name, None) is not None:
                try:
                    self._import_now(ep, dist)
                except PluginError as exc:
                    self._failed[ep.name] = str(exc)
                    raise

    def _import_now(self, ep: EntryPoint, dist: str) -> None:
        listed = {n: r for n, r in self._records.items() if r.origin == ep.name and not r.loaded}
        classes: dict[str, type] = {}
        try:
            module = ep.load()
            self.pm.register(module, name=ep.name)
            self._run_hooks(ep.name, lambda cls: classes.__setitem__(cls.name, cls))
        except Exception as exc:
            raise PluginError(f'Error importing plugin "{ep.name}": {type(exc).__name__}: {exc}') from exc
        for name, rec in listed.items():
            cls = classes.get(name)
            if cls is None or f"{cls.__module__}:{cls.__qualname__}" != rec.class_path:
                raise PluginError(
                    f"Entry point {ep.name!r} ({dist}) does not register {name!r} as its manifest says "
                    f"({rec.class_path}); run `macrocause plugins --check`."
                )
            rec._cls.append(cls)

    def _check_requires(self) -> None:
        """Drop the plugins whose required plugins are missing, naming what is missing and why."""
        why = {n: f"entry point {u.origin!r}: {u.reason}" for u in self._unavailable for n in u.names}
        changed = True
        while changed:
            changed = False
            for rec in list(self._records.values()):
                missing = [r for r in rec.requires if r not in self._records]
                if not missing:
                    continue
                del self._records[rec.name]
                parts = "; ".join(f"{m!r} ({why.get(m, 'not installed')})" for m in missing)
                why[rec.name] = f"needs {', '.join(map(repr, missing))}"
                self._unavailable.append(
                    Unavailable(rec.origin, rec.package, f"{rec.name} needs {parts}.", (rec.name,))
                )
                changed = True

    def register_module(self, module: ModuleType | object, origin: str, package: str | None = None) -> None:
        """Register a module (or object) holding hookimpls, as if found by entry point."""
        package = package or getattr(module, "__name__", origin)
        self.pm.register(module, name=origin)
        self.pm.check_pending()
        new: dict[str, PluginRecord] = {}

        def register(cls: type) -> None:
            other = self._records.get(cls.name) or new.get(cls.name)
            if other is not None:
                raise DuplicatePluginError(
                    f"Plugin name {cls.name!r} is registered twice: by {other.origin!r} "
                    f"({other.package}, {other.class_path.replace(':', '.')}) and by "
                    f"{origin!r} ({package}, {cls.__module__}.{cls.__qualname__})."
                )
            new[cls.name] = PluginRecord.of_class(cls, origin, package)

        try:
            self._run_hooks(origin, register)
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

    def _run_hooks(self, origin: str, register: Callable[[type], None]) -> None:
        """Call the registering hooks of plugin *origin*, checking each class it hands over."""

        def checked(cls: type) -> None:
            if not (isinstance(cls, type) and issubclass(cls, Plugin)):
                raise PluginError(f"plugin {origin!r} registered {cls!r}, which is not a Plugin class.")
            name = getattr(cls, "name", None)
            if not isinstance(name, str) or not name:
                raise PluginError(f"plugin {origin!r}: class {cls.__qualname__} has no 'name'.")
            if cls.role not in tuple(Role):
                raise PluginError(f"plugin {origin!r}: class {cls.__qualname__} has no known role.")
            register(cls)

        for hook in (self.pm.hook.macrocause_register_plugins, self.pm.hook.macrocause_register_data_sources):
            for impl in hook.get_hookimpls():
                if impl.plugin_name == origin:
                    impl.function(register=checked)

    def check_manifest(self, ep: EntryPoint) -> list[str]:
        """How entry point *ep*'s manifest differs from the classes its module registers
        (imports the module; empty when they agree or it has no manifest)."""
        found = find_manifest(ep.module, ep.name)
        if found is None:
            return []
        classes: list[type] = []
        probe = Registry(autoload=False)
        probe.pm.register(ep.load(), name=ep.name)
        probe._run_hooks(ep.name, classes.append)
        return [f"{found[0]}: {line}" for line in manifest_differences(found[1], classes, ep.name)]

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
        """The class registered as *name* (imports its module on first use)."""
        return self.record(name).cls

    def record(self, name: str) -> PluginRecord:
        """The catalogue entry of *name*, without importing it."""
        try:
            return self._records[name]
        except KeyError:
            pass
        close = difflib.get_close_matches(name, list(self._records), n=3)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        broken = [u.reason for u in self._unavailable if u.origin == name or name in u.names]
        extra = f" It failed to load: {broken[0]}" if broken else ""
        raise PluginNotFoundError(
            f"Unknown plugin {name!r}.{hint} Run `macrocause plugins` to list them.{extra}"
        )

    def check_manifests(self, group: str = ENTRY_POINT_GROUP) -> list[str]:
        """Every difference between an installed entry point's manifest and its classes
        (imports every plugin module; one line each)."""
        out: list[str] = []
        for ep in sorted(entry_points(group=group), key=lambda e: e.name):
            try:
                out += self.check_manifest(ep)
            except Exception as exc:
                out.append(f"entry point {ep.name!r}: {type(exc).__name__}: {exc}")
        return out

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

