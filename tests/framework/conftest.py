"""Fixtures shared by the framework tests."""

import os
from pathlib import Path

import pytest
import toy_plugins

HERE = Path(__file__).resolve().parent


@pytest.fixture
def toys(plugin_registry, monkeypatch):
    """The toy plugins, registered here and visible to worker processes and subprocesses."""
    plugin_registry.register_module(toy_plugins, "toys")
    monkeypatch.setenv("MACROCAUSE_PLUGINS", "toy_plugins")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    return plugin_registry
