"""Plugin parameters: one pydantic model per plugin, with scikit-learn-style errors."""

from __future__ import annotations

from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import ConfigError

__all__ = ["Params", "validate_params", "param_table"]


class Params(BaseModel):
    """Base of every plugin's parameter model: unknown keys are refused, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


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
