"""Every example pipeline and grid under examples/ validates (plugins, parameters, wiring)."""

from pathlib import Path

import pytest

from framework.compare import Grid
from framework.pipeline import Pipeline

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_example_validates(path):
    if "pipelines:" in path.read_text():
        grid, base = Grid.from_yaml(path)
        assert grid.tasks(base)
    else:
        assert Pipeline.from_yaml(path).steps
