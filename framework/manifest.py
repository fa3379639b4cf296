"""Plugin manifests: the catalogue read at run time (after napari's npe2).

A package that registers plugins through the entry-point group ``macrocause``
ships a ``registry.yaml`` listing them (name, role, class, summary, paper, what
each needs and which other plugins it creates by name). The file sits in the
entry point's package or in a package above it (the built-in one at the top of
``macrocause``); it is found and read without importing the plugin modules, so
listing and describing plugins costs no import, and a plugin's module is
imported when the plugin is first used. A package without a manifest still
works: its module is imported at start-up, as before.

:func:`manifest_differences` holds a manifest equal to what its classes declare
(``macrocause plugins --check``, :func:`macrocause.framework.testing.manifest.check_manifest`).
"""

from __future__ import annotations

import importlib
import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .errors import PluginError

__all__ = ["ManifestEntry", "Manifest", "MANIFEST_FILE", "load_manifest", "find_manifest",
           "entry_of", "manifest_differences", "import_object"]

MANIFEST_FILE = "registry.yaml"

Need = Literal["target", "discrete", "continuous", "truth", "scorer", "init", "graph", "partition"]
# the needs a class of each role declares; the others (the kind of data, what a scorer
# scores) are the manifest's word
DECLARED_NEEDS = {"partitioner": ("target",), "searcher": ("scorer", "init"), "evaluator": ("truth", "graph")}


class ManifestEntry(BaseModel):
    """One plugin of the catalogue."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    name: str = Field(description="Flat plugin name, as given to registry.create.")
    role: Literal["partitioner", "scorer", "searcher", "evaluator", "data"]
    entry_point: str = Field(description="Entry point (in group 'macrocause') that registers it.")
    class_: str = Field(alias="class", description="'module:Class' of the implementation.")
    summary: str = Field(min_length=3, description="One line.")
    paper: str | None = Field(None, description="Citation of the method's paper, if any.")
    needs: list[Need] = Field(default_factory=list, description="Inputs the plugin requires.")
    requires: list[str] = Field(
        default_factory=list, description="Plugins it creates by name (checked when plugins load)."
    )
    axis: Literal["samples", "variables"] | None = Field(
        None, description="For partitioners: what they partition."
    )

    @field_validator("class_")
    @classmethod
    def _class_path(cls, v: str) -> str:
        if ":" not in v:
            raise ValueError("class must be 'package.module:ClassName'")
        return v

    @model_validator(mode="after")
    def _axis_for_partitioners(self):
        if self.role == "partitioner" and self.axis is None:
            raise ValueError(f"partitioner {self.name!r} needs an axis (samples or variables)")
        if self.role != "partitioner" and self.axis is not None:
            raise ValueError(f"{self.role} {self.name!r} has no axis")
        return self


class Manifest(BaseModel):
    """A whole ``registry.yaml``."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    plugins: list[ManifestEntry]

    @model_validator(mode="after")
    def _unique(self):
        seen: set[str] = set()
        for e in self.plugins:
            if e.name in seen:
                raise ValueError(f"plugin {e.name!r} is listed twice")
            seen.add(e.name)
        return self

    def of(self, entry_point: str) -> list[ManifestEntry]:
        """The entries registered by one entry point."""
        return [e for e in self.plugins if e.entry_point == entry_point]


def load_manifest(path: str | Path) -> Manifest:
    """Read and validate a manifest file.

    Raises
    ------
    PluginError
        If the file is not valid YAML or not a valid manifest (naming the first bad field).
    """
    path = Path(path).resolve()
    return _load(path, path.stat().st_mtime_ns)


@lru_cache(maxsize=32)
def _load(path: Path, _mtime: int) -> Manifest:
    import yaml
    from pydantic import ValidationError

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 8x faster on registry.yaml
    try:
        raw = yaml.load(path.read_text(), Loader=loader)
    except yaml.YAMLError as exc:
        raise PluginError(f"{path}: invalid YAML: {exc}") from None
    try:
        return Manifest.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise PluginError(f"{path}: invalid manifest at {loc}: {first['msg']}") from None


def find_manifest(module: str, entry_point: str) -> tuple[Path, list[ManifestEntry]] | None:
    """The manifest listing *entry_point*, found from its *module* without importing it.

    The folders searched: the module's package, then each package above it, then
    the folder holding the top-level package; the first ``registry.yaml`` that
    lists the entry point wins. ``None`` when there is none (the module is then
    imported at start-up).

    Raises
    ------
    PluginError
        If a manifest found in the module's own packages is invalid.
    """
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin in (None, "built-in", "frozen"):
        return None
    folder = Path(spec.origin).parent
    for depth in range(module.count(".") + 2):
        path = folder / MANIFEST_FILE
        if path.is_file():
            try:
                entries = load_manifest(path).of(entry_point)
            except PluginError:
                if depth <= module.count("."):
                    raise
                entries = []  # beside site-packages, a stray file is not ours
            if entries and all(e.class_.split(":")[0].startswith(_root(module)) for e in entries):
                return path, entries
        folder = folder.parent
    return None


def _root(module: str) -> str:
    return module.split(".")[0]


def entry_of(cls: type, entry_point: str) -> ManifestEntry:
    """The manifest entry a plugin class declares (what ``macrocause plugins --check`` compares)."""
    needs: list[str] = []
    if getattr(cls, "needs_target", False):
        needs.append("target")
    if getattr(cls, "needs_truth", False):
        needs.append("truth")
    if getattr(cls, "uses_scorer", False):
        needs.append("scorer")
    if getattr(cls, "init_accepts", ()) or getattr(cls, "uses_init", False):
        needs.append("init")
    if str(cls.role) == "evaluator" and "graph" in cls.accepts:
        needs.append("graph")
    return ManifestEntry(
        name=cls.name, role=str(cls.role), entry_point=entry_point,
        class_=f"{cls.__module__}:{cls.__qualname__}", summary=cls.summary(), paper=cls.paper,
        needs=needs, requires=sorted(getattr(cls, "requires", ())),
        axis=cls.axis if str(cls.role) == "partitioner" else None,
    )


def manifest_differences(entries: list[ManifestEntry], classes: list[type], entry_point: str) -> list[str]:
    """How a manifest's *entries* for one entry point differ from the *classes* it registers
    (one line each; empty when they agree). ``needs`` of the kind of data (``continuous``,
    ``discrete``) are the manifest's own word; the others must match the class."""
    listed = {e.name: e for e in entries}
    declared = {cls.name: entry_of(cls, entry_point) for cls in classes}
    out = [f"{name}: registered by entry point {entry_point!r} but not in the manifest"
           for name in sorted(set(declared) - set(listed))]
    out += [f"{name}: in the manifest but not registered by entry point {entry_point!r}"
            for name in sorted(set(listed) - set(declared))]
    for name in sorted(set(listed) & set(declared)):
        have, want = listed[name], declared[name]
        for field in ("role", "class_", "summary", "paper", "axis"):
            if getattr(have, field) != getattr(want, field):
                out.append(f"{name}: {field.rstrip('_')} is {getattr(have, field)!r} in the manifest, "
                           f"{getattr(want, field)!r} in the class")
        if sorted(have.requires) != want.requires:
            out.append(f"{name}: requires is {sorted(have.requires)} in the manifest, {want.requires} in the class")
        have_needs = sorted(n for n in have.needs if n in DECLARED_NEEDS.get(have.role, ()))
        if have_needs != sorted(want.needs):
            out.append(f"{name}: needs {have_needs} in the manifest, {sorted(want.needs)} in the class")
    return out


def import_object(path: str) -> Any:
    """Resolve ``"package.module:Attr"``."""
    mod, _, attr = path.partition(":")
    obj = importlib.import_module(mod)
    for part in attr.split(".") if attr else []:
        obj = getattr(obj, part)
    return obj
