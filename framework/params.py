"""Plugin parameters: one pydantic model per plugin, with scikit-learn-style errors.

Numbers are typed strictly, whatever the plugin declares:

- an ``int`` parameter takes a Python or NumPy integer, never a bool (``True`` is not
  1 cluster), a float (not even ``2.0``: a count written as a float is a slip, as in
  scikit-learn) or a string;
- a ``float`` parameter takes any finite real number, integers included (``eps=1``),
  but not a bool, a string, ``inf`` or ``nan``;
- a parameter named ``seed`` is a seed of NumPy and scikit-learn: an int in
  ``0 .. 2**32 - 1``.
"""

from __future__ import annotations

import numbers
import os
import types
from pathlib import PurePath
from typing import Any, Literal, Union, get_args, get_origin

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError, PydanticKnownError

from .errors import ConfigError

__all__ = ["Params", "validate_params", "param_table", "SEED_MAX"]

SEED_MAX = 2**32 - 1
"""Largest seed: ``numpy.random.RandomState`` and scikit-learn's ``random_state`` take ``0 .. 2**32 - 1``."""


class Params(BaseModel):
    """Base of every plugin's parameter model: unknown keys are refused, values are frozen,
    numbers are strict (no bool for an int or a float, no float for an int, finite floats,
    seeds in ``0 .. 2**32 - 1``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _strict_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        ann = cls.model_fields[info.field_name].annotation
        _check_number(ann, value, items=False)
        if _container_item_type(ann) is not None and isinstance(value, list | tuple | set | frozenset):
            item = _container_item_type(ann)
            for v in value:
                _check_number(item, v, items=True)
        if info.field_name == "seed" and _is_int(value) and int in _arms(ann):
            if value < 0:
                raise PydanticKnownError("greater_than_equal", {"ge": 0})
            if value > SEED_MAX:
                raise PydanticKnownError("less_than_equal", {"le": SEED_MAX})
        return value


def _arms(ann: Any) -> set[Any]:
    """The alternatives of an annotation: the members of a Union/Optional, the values of a Literal."""
    origin = get_origin(ann)
    if origin in (Union, types.UnionType):
        return set().union(*(_arms(a) for a in get_args(ann)))
    if origin is Literal:
        return {("literal", a) for a in get_args(ann)}
    return {ann}


def _container_item_type(ann: Any) -> Any:
    """The item type of ``list[X]``, ``tuple[X, ...]``, ``set[X]`` (None for anything else)."""
    origin, args = get_origin(ann), get_args(ann)
    if origin in (list, set, frozenset) and len(args) == 1:
        return args[0]
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return args[0]
    return None


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool | np.bool_)


def _takes_str(arm: Any, value: str) -> bool:
    if isinstance(arm, tuple):  # a Literal value
        return arm[1] == value
    return isinstance(arm, type) and issubclass(arm, str | bytes | os.PathLike | PurePath)


def _check_number(ann: Any, value: Any, items: bool) -> None:
    arms = _arms(ann)
    if Any in arms or (int not in arms and float not in arms):
        return
    kind = "int" if float not in arms else "float"
    if isinstance(value, bool | np.bool_):
        bad = bool not in arms and ("literal", bool(value)) not in arms
    elif isinstance(value, str):
        bad = not any(_takes_str(a, value) for a in arms)
    elif kind == "int":
        bad = isinstance(value, numbers.Real) and not _is_int(value)
    else:
        bad = False
    if bad and items:
        raise PydanticCustomError(f"{kind}_items", f"must hold {kind}s only")
    literals = sorted((a[1] for a in arms if isinstance(a, tuple)), key=repr)
    if bad and literals:
        what = "an int" if kind == "int" else "a finite float"
        raise PydanticCustomError("number_or_literal", f"must be {what} or one of {literals}")
    if bad:
        raise PydanticKnownError(f"{kind}_type")


_BOUNDS = {
    "greater_than": ("gt", ">"),
    "greater_than_equal": ("ge", ">="),
    "less_than": ("lt", "<"),
    "less_than_equal": ("le", "<="),
}


def _describe(err: dict[str, Any]) -> str:
    t = err["type"]
    ctx = err.get("ctx", {}) or {}
    if t in _BOUNDS:
        key, sym = _BOUNDS[t]
        bound = ctx.get(key)
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)
        return f"must be {sym} {bound}"
    if t == "literal_error":
        return f"must be one of {ctx.get('expected')}"
    if t in ("int_type", "int_parsing", "int_from_float"):
        return "must be an int"
    if t in ("float_type", "float_parsing", "finite_number"):
        return "must be a finite float"
    if t in ("bool_type", "bool_parsing"):
        return "must be a bool"
    if t in ("string_type",):
        return "must be a str"
    if t == "missing":
        return "is required"
    msg = str(err.get("msg", "is invalid"))
    return msg[0].lower() + msg[1:] if msg else "is invalid"


def validate_params(model: type[Params], owner: str, values: dict[str, Any]) -> Params:
    """Validate *values* against *model*; raise :class:`ConfigError` in scikit-learn phrasing.

    Examples of messages: ``The 'eps' parameter of dbscan must be > 0. Got -1.0 instead.``
    and ``dbscan got an unexpected parameter 'foo'. Allowed: eps, min_samples.``
    """
    try:
        return model(**values)
    except ValidationError as exc:
        errs = exc.errors()
        allowed = ", ".join(model.model_fields) or "(none)"
        lines = []
        for err in errs:
            loc = ".".join(str(p) for p in err["loc"]) or "?"
            if err["type"] == "extra_forbidden":
                lines.append(
                    f"{owner} got an unexpected parameter {loc!r}. Allowed: {allowed}. "
                    f"See `macrocause describe {owner}`."
                )
            elif err["type"] in ("value_error", "assertion_error") and not err["loc"]:
                lines.append(f"Invalid parameters for {owner}: {err['msg'].removeprefix('Value error, ')}")
            else:
                top = str(err["loc"][0]) if err["loc"] else loc
                got = values.get(top, err.get("input"))
                lines.append(f"The {loc!r} parameter of {owner} {_describe(err)}. Got {got!r} instead.")
        raise ConfigError(" ".join(lines)) from None


def param_table(model: type[Params]) -> list[dict[str, Any]]:
    """One dict per parameter: name, type, default, bounds and description (for `describe`)."""
    schema = model.model_json_schema()
    props = schema.get("properties", {})
    rows = []
    for name, field in model.model_fields.items():
        p = props.get(name, {})
        bounds = {k: p[k] for k in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum") if k in p}
        for meta in field.metadata:
            for attr, key in (("gt", "exclusiveMinimum"), ("ge", "minimum"), ("lt", "exclusiveMaximum"), ("le", "maximum")):
                if getattr(meta, attr, None) is not None:
                    bounds[key] = getattr(meta, attr)
        ann = field.annotation
        if name == "seed" and int in _arms(ann):
            bounds = {"minimum": max(bounds.get("minimum", 0), 0), "maximum": min(bounds.get("maximum", SEED_MAX), SEED_MAX)}
        if get_origin(ann) is Literal:
            type_name = "one of " + ", ".join(repr(a) for a in get_args(ann))
        else:
            type_name = getattr(ann, "__name__", None) or str(ann).replace("typing.", "")
        rows.append(
            {
                "name": name,
                "type": type_name,
                "default": None if field.is_required() else field.get_default(call_default_factory=True),
                "required": field.is_required(),
                "bounds": bounds,
                "description": field.description or "",
            }
        )
    return rows
