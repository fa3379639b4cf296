"""pytest plugin shipped with macrocause (entry point ``pytest11``).

Fixture ``plugin_registry``: an empty registry installed as the process-wide one for
the duration of a test (autoload off), so a test registers exactly what it needs.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def plugin_registry():
    """An empty :class:`macrocause.framework.registry.Registry`, active for this test only."""
    from macrocause.framework import registry

    saved = registry._default
    reg = registry.Registry(autoload=False)
    registry.reset(reg)
    try:
        yield reg
    finally:
        registry.reset(saved)
