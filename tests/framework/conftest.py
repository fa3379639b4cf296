"""Fixtures shared by the framework tests."""

import os
from pathlib import Path

import pytest
import toy_plugins

from macrocause.framework.compare import Grid

HERE = Path(__file__).resolve().parent


@pytest.fixture
def toys(plugin_registry, monkeypatch):
    """The toy plugins, registered here and visible to worker processes and subprocesses."""
    plugin_registry.register_module(toy_plugins, "toys")
    monkeypatch.setenv("MACROCAUSE_PLUGINS", "toy_plugins")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    return plugin_registry


TOY_PIPELINE = """
name: toy
steps:
  - {id: groups, partition: toy_threshold}
  - {evaluate: toy_agreement, on: groups}
"""


@pytest.fixture
def toy_grid(tmp_path):
    """``toy_grid(seeds=2, pipeline=TOY_PIPELINE)``: grid ``g``, the pipeline on toy_source with
    n = 20 and n = 40, written to *tmp_path*; returns ``(grid, base)``."""

    def make(seeds: int = 2, pipeline: str = TOY_PIPELINE):
        (tmp_path / "toy.yaml").write_text(pipeline)
        (tmp_path / "grid.yaml").write_text(
            "name: g\ndata:\n  - {source: toy_source, params: {n: 20}}\n  - {source: toy_source, params: {n: 40}}\n"
            f"pipelines: [toy.yaml]\nseeds: {seeds}\n")
        return Grid.from_yaml(tmp_path / "grid.yaml")

    return make
