"""Every registered plugin passes the conformance checks on its example."""

from macrocause.framework import registry
from macrocause.framework.testing.checks import parametrize_with_checks

PLUGINS = [registry.get(n) for n in registry.names() + registry.names("data")]


@parametrize_with_checks(PLUGINS)
def test_conformance(plugin, check):
    check(plugin)
