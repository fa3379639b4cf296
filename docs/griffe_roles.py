"""Griffe extension for the API reference: Sphinx roles in docstrings become links.

The docstrings use Sphinx cross-reference roles (``:class:`Dataset```,
``:meth:`~macrocause.framework.roles.Plugin.example```), which mkdocstrings would print as
raw text. Once a package is loaded, every role is replaced by an *optional*
mkdocs-autorefs reference to the full path of its target (resolved in the scope
of the documented object, imports included): a link when the target is rendered
in the docs, plain code otherwise (a builtin such as ``ValueError``, a private
helper). ``~`` shows the last component only, as in Sphinx.

Loaded from ``mkdocs.yml`` (``plugins.mkdocstrings.handlers.python.options.extensions``).
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|attr|func|meth|mod|data|exc|obj|const):`(~?)\.?([\w.]+?)(?:\(\))?`")


def resolve(obj: griffe.Object, target: str) -> str:
    """The full path of *target* seen from *obj* (its first component through *obj*'s scope)."""
    head, _, rest = target.partition(".")
    try:
        base = obj.resolve(head)
    except (griffe.NameResolutionError, KeyError, AttributeError):
        base = head  # already a full path, or a builtin
    return f"{base}.{rest}" if rest else base


def convert(obj: griffe.Object, text: str) -> str:
    """Replace every Sphinx role of *text* by an optional autorefs reference."""

    def ref(m: re.Match) -> str:
        short, target = m.group(1) == "~", m.group(2)
        title = target.rsplit(".", 1)[-1] if short else target
        ident = html.escape(resolve(obj, target), quote=True)
        return f'<autoref identifier="{ident}" optional><code>{html.escape(title)}</code></autoref>'

    return ROLE.sub(ref, text)


def _walk(obj: griffe.Object):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)


class SphinxRoles(griffe.Extension):
    """Converts the Sphinx roles of every docstring of a loaded package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _walk(pkg):
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = convert(obj, obj.docstring.value)
