"""``registry.yaml``: the validated manifest of the built-in plugins (after napari's npe2).

The entry points are the runtime truth; the manifest is the curated catalogue
(summary, paper, what a plugin needs). A test holds the two equal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .errors import PluginError

Need = Literal["target", "discrete", "continuous", "truth", "scorer", "init", "graph", "partition"]


class ManifestEntry(BaseModel):
    """One plugin of the catalogue."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(description="Flat plugin name, as given to registry.create.")
    role: Literal["partitioner", "scorer", "searcher", "evaluator", "data"]
    entry_point: str = Field(description="Entry point (in group 'macrocause') that registers it.")
    class_: str = Field(alias="class", description="'module:Class' of the implementation.")
    summary: str = Field(min_length=3, description="One line.")
    paper: str | None = Field(None, description="Citation of the method's paper, if any.")
    needs: list[Need] = Field(default_factory=list, description="Inputs the plugin requires.")
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
    """The whole ``registry.yaml``."""

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


def load_manifest(path: str | Path) -> Manifest:
    """Read and validate a manifest file."""
    import yaml
    from pydantic import ValidationError

    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise PluginError(f"{path}: invalid YAML: {exc}") from None
    try:
        return Manifest.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise PluginError(f"{path}: invalid manifest at {loc}: {first['msg']}") from None
