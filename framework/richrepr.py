"""Notebook HTML of the shared types, without an upward import.

The types' ``_repr_html_`` ask this registry; :mod:`macrocause.framework.display` fills it when
the package is imported, so the types never import the display code above them.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

__all__ = ["register", "html"]

_RENDERERS: dict[str, Callable[[Any], str]] = {}


def register(kind: str, render: Callable[[Any], str]) -> None:
    """Use *render* for the HTML of objects of *kind* (``"graph"``, ``"partition"``, ...)."""
    _RENDERERS[kind] = render


def html(kind: str, obj: Any) -> str:
    """The HTML of *obj*: its registered renderer, or its repr in a ``<pre>`` block."""
    render = _RENDERERS.get(kind)
    return render(obj) if render is not None else f"<pre>{escape(repr(obj))}</pre>"
