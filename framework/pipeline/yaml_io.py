"""YAML in and out of pipelines and grids: reading, ``--set`` overrides, one-line errors.

Public: :func:`read_yaml_source`, :func:`load_yaml`, :func:`format_validation_error`,
:func:`unknown_key_message`, :func:`parse_sets` (used by ``macrocause.framework.compare`` and the CLI).
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import PipelineError, say

__all__ = ["read_yaml_source", "load_yaml", "format_validation_error", "unknown_key_message", "parse_sets",
           "MAX_YAML_BYTES", "MAX_ALIAS_VALUES", "MAX_DEPTH"]

MAX_YAML_BYTES = 8 * 2**20  # a pipeline or grid file, at most
MAX_ALIAS_VALUES = 10_000  # values that aliases (*name) may add to a document
MAX_DEPTH = 100  # levels of nesting


def read_yaml_source(source: str | Path, kind: str = "Pipeline") -> tuple[str, Path | None, str]:
    """``(text, folder of the file or None, name for messages)`` of a YAML path or YAML text; a
    missing file is "*kind* file not found"."""
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source
                                    and source.endswith((".yaml", ".yml"))):
        path = Path(source)
        if not path.is_file():
            raise PipelineError(f"{kind} file not found: {path}")
        if path.stat().st_size > MAX_YAML_BYTES:
            raise PipelineError(f"{path}: {path.stat().st_size:,} bytes; a {kind.lower()} file may hold at most "
                                f"{MAX_YAML_BYTES:,}.")
        return path.read_text(), path.resolve().parent, str(path)
    return str(source), None, "<text>"


class _TooDeep(Exception):
    pass


def _loader():
    """A safe YAML loader where only true/false are booleans (YAML 1.1 reads ``on:`` as True)."""
    import re

    import yaml

    class Loader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent, index):  # refuse deep nesting before reading all of it
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    raise _TooDeep
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def fetch_flow_collection_start(self, token_class):  # the scanner reads ahead over [[[...
            if self.flow_level >= MAX_DEPTH:
                raise _TooDeep
            super().fetch_flow_collection_start(token_class)

    Loader.yaml_implicit_resolvers = {
        k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
        for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    return Loader


def _measure(root, name: str) -> None:
    """Refuse a composed YAML node graph whose aliases would add more than
    :data:`MAX_ALIAS_VALUES` values, that refers to itself, or that nests deeper than
    :data:`MAX_DEPTH`; linear in the number of distinct nodes (each is sized once)."""
    import yaml

    sizes: dict[int, int] = {}
    open_: set[int] = set()
    distinct = 0

    def size(node, depth: int) -> int:
        nonlocal distinct
        if depth > MAX_DEPTH:
            raise PipelineError(f"{name}: YAML nested deeper than {MAX_DEPTH} levels; refused.")
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_:
            raise PipelineError(f"{name}: a YAML alias refers to a value that contains it; refused.")
        distinct += 1
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        open_.add(key)
        total = 1 + sum(size(c, depth + 1) for c in children)
        open_.discard(key)
        sizes[key] = total
        if total - distinct > MAX_ALIAS_VALUES:
            raise PipelineError(f"{name}: YAML aliases (*name) expand to more than {MAX_ALIAS_VALUES:,} "
                                "extra values; refused.")
        return total

    size(root, 0)


def _bounded_load(text: str, name: str) -> Any:
    """Safe YAML, measured before it is built (:func:`_measure`)."""
    if len(text) > MAX_YAML_BYTES:
        raise PipelineError(f"{name}: {len(text):,} characters of YAML; at most {MAX_YAML_BYTES:,}.")
    loader = _loader()(text)
    try:
        try:
            root = loader.get_single_node()
        except (_TooDeep, RecursionError):
            raise PipelineError(f"{name}: YAML nested deeper than {MAX_DEPTH} levels; refused.") from None
        if root is None:
            return None
        _measure(root, name)
        return loader.construct_document(root)
    finally:
        loader.dispose()


def load_yaml(text: str, name: str) -> Any:
    """Parse YAML *text*; a syntax error becomes a one-line :class:`PipelineError` with its line.

    Bounded: more than :data:`MAX_YAML_BYTES`, aliases adding more than
    :data:`MAX_ALIAS_VALUES` values, a recursive alias or nesting deeper than
    :data:`MAX_DEPTH` are refused in one line that quotes nothing of the document.
    """
    import yaml

    try:
        return _bounded_load(text, name)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        problem = problem if len(problem) <= 200 else problem[:200] + " ..."
        raise PipelineError(f"{name}: invalid YAML{at}: {problem}.") from None


def parse_sets(values: Iterable[str]) -> dict[str, Any]:
    """``["step.param=value", ...]`` (values read as YAML) -> ``{"step.param": value}``."""
    out: dict[str, Any] = {}
    for item in values:
        key, eq, val = item.partition("=")
        if not eq or not key.strip():
            raise PipelineError(f"{item!r}: use KEY=VALUE (--set STEP_ID.PARAM=VALUE, --data SOURCE:PARAM=VALUE).")
        out[key.strip()] = load_yaml(val, f"--set {key.strip()}")
    return out


def unknown_key_message(key: str, allowed: Iterable[str], what: str) -> str:
    """``unknown key 'parms'; a partition step takes id, params, partition. Did you mean 'params'?``"""
    import reprlib

    allowed = list(allowed)
    close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    short = reprlib.Repr()  # a key may be anything a file holds
    short.maxstring = short.maxother = 60
    return f"unknown key {short.repr(key)}; {what} takes {', '.join(allowed)}.{hint}"


def _model_at(model: type[BaseModel] | None, loc: tuple) -> type[BaseModel] | None:
    """The model class that holds the field at *loc* (through nested models, lists, optionals)."""
    for part in loc:
        if model is None or isinstance(part, int):
            continue
        field = model.model_fields.get(str(part))
        if field is None:
            return None
        model = _first_model(field.annotation)
    return model


def _first_model(tp: Any) -> type[BaseModel] | None:
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp
    if typing.get_origin(tp) in (typing.Union, types.UnionType, list, tuple):
        for arg in typing.get_args(tp):
            found = _first_model(arg)
            if found is not None:
                return found
    return None


def format_validation_error(exc: ValidationError, where: str, model: type[BaseModel] | None = None) -> str:
    """One line from a pydantic error: ``Invalid pipeline: data: unknown key 'sorce'; ...``.

    An unknown key is reported before a missing one (a misspelt key causes both); with
    *model* (the validated class) the message lists the allowed keys and the close one.
    """
    errors = exc.errors()
    err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = tuple(err["loc"])
    parts = []
    for j, p in enumerate(loc):
        if isinstance(p, int) and j > 0 and loc[j - 1] == "steps":
            parts[-1] = f"step {p + 1}"
        elif isinstance(p, int):
            parts[-1] = f"{parts[-1]} {p + 1}" if parts else f"item {p + 1}"
        else:
            parts.append(str(p))
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        holder = _model_at(model, loc[:-1]) if model is not None else None
        parts = parts[:-1]
        if holder is not None:
            label = parts[-1] if parts else where
            msg = unknown_key_message(loc[-1], list(holder.model_fields), label)
        else:
            msg = f"unknown key {loc[-1]!r}"
    at = ": ".join(parts) if parts else where
    return f"Invalid {where}: {at}: {msg.rstrip('.')}."


def check_kind(d: Any, name: str, expected: str) -> None:
    """Refuse a grid read as a pipeline (*expected* ``"pipeline"``) or a pipeline read as a grid
    (``"grid"``), naming what the file is and the command (or call) that runs it."""
    if not isinstance(d, dict):
        return
    is_grid = "pipelines" in d and "steps" not in d
    is_pipeline = "steps" in d and "pipelines" not in d
    if expected == "pipeline" and is_grid:
        raise PipelineError(f"{name} is a grid (it has pipelines:), not a pipeline: " + say(
            f"run it with `macrocause compare {name}`.", f"load it with Grid.from_yaml({name!r})."))
    if expected == "grid" and is_pipeline:
        raise PipelineError(f"{name} is a pipeline (it has steps:), not a grid: " + say(
            f"run it with `macrocause run {name}`, or name it under pipelines: in a grid file.",
            f"load it with Pipeline.from_yaml({name!r})."))
