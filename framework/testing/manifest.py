"""A test that a package's ``registry.yaml`` equals what its classes declare.

Example
-------
>>> from macrocause.framework.testing.manifest import check_manifest
>>> check_manifest("baselines")  # the entry point's name, as in pyproject.toml
"""

from __future__ import annotations

from importlib.metadata import entry_points

__all__ = ["check_manifest"]


def check_manifest(entry_point: str, group: str = "macrocause") -> None:
    """Assert that the installed entry point *entry_point* ships a manifest equal to its classes.

    Raises
    ------
    AssertionError
        If the entry point is not installed, has no manifest, or its manifest differs
        from what its classes declare (every difference listed).
    """
    from macrocause.framework.manifest import find_manifest
    from macrocause.framework.registry import Registry

    found = [ep for ep in entry_points(group=group) if ep.name == entry_point]
    assert found, f"No entry point {entry_point!r} in group {group!r} is installed."
    ep = found[0]
    assert find_manifest(ep.module, ep.name) is not None, (
        f"Entry point {entry_point!r} ({ep.module}) ships no registry.yaml listing it."
    )
    problems = Registry(autoload=False).check_manifest(ep)
    assert not problems, "The manifest differs from the classes:\n" + "\n".join(problems)
