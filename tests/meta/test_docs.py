"""Every hook is documented with its signature (as datasette does), and tested."""

import inspect
import re
from pathlib import Path

from macrocause.framework import hookspecs

REPO = Path(__file__).resolve().parents[2]


def _hooks():
    return {n: f for n, f in vars(hookspecs).items() if n.startswith("macrocause_") and callable(f)}


def test_every_hook_is_documented_with_its_signature():
    text = (REPO / "docs" / "hooks.md").read_text()
    for name, fn in _hooks().items():
        args = ", ".join(inspect.signature(fn).parameters)
        assert f"`{name}({args})`" in text, f"docs/hooks.md does not document {name}({args})"


def test_every_hook_is_exercised_by_a_test():
    tests = "".join(p.read_text() for p in (REPO / "tests").rglob("*.py"))
    for name in _hooks():
        assert f"def {name}" in tests or f'"{name}"' in tests, f"no test implements {name}"


_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def _doc_links():
    docs = REPO / "docs"
    for page in docs.rglob("*.md"):
        if {"examples", "gallery"} & set(page.relative_to(docs).parts):
            continue  # the plugin example's README; the gallery that mkdocs-gallery generates
        for m in _LINK.finditer(page.read_text()):
            target = (m.group(1) or m.group(2)).split("#")[0]
            if not target or re.match(r"^[a-z]+:", target):
                continue  # same-page anchor or an absolute URL
            yield page, target


def test_every_relative_link_in_the_docs_resolves_inside_docs():
    """mkdocs only publishes docs/: a link that leaves it breaks ``mkdocs build --strict``."""
    docs = (REPO / "docs").resolve()
    bad = []
    for page, target in _doc_links():
        path = (page.parent / target).resolve()
        if path.is_relative_to(docs / "gallery"):  # generated at build time from docs/gallery_src/
            rel = path.relative_to(docs / "gallery")
            path = docs / "gallery_src" / ("README.md" if rel.name == "index.md" else rel.with_suffix(".py"))
        if not path.is_relative_to(docs) or not path.exists():
            bad.append(f"{page.relative_to(REPO)} -> {target}")
    assert not bad, "links mkdocs cannot resolve:\n" + "\n".join(bad)


def test_the_link_check_sees_links():
    assert sum(1 for _ in _doc_links()) > 10
