"""macrocause: causal discovery at the level of groups.

The public API: the shared types, the four roles, the plugin registry and
pipelines.
"""

from __future__ import annotations

from . import (
    display,  # noqa: F401  (registers the notebook HTML of the shared types)
    registry,
)
from .data import Dataset, as_dataset
from .errors import (
    ConfigError,
    DataValidationError,
    DuplicatePluginError,
    MacrocauseError,
    PipelineError,
    PluginError,
    PluginLoadError,
    PluginNotFoundError,
)
from .graph import CausalGraph
from .hookspecs import hookimpl
from .params import Params
from .partition import Partition
from .roles import (
    DataSource,
    DecomposableScorer,
    Evaluation,
    Evaluator,
    Metric,
    Partitioner,
    Plugin,
    Role,
    Scorer,
    Searcher,
)

__version__ = "0.1.0"

__all__ = [
    "Dataset", "Partition", "CausalGraph", "Evaluation", "registry", "hookimpl", "Params",
    "Plugin", "Partitioner", "Scorer", "DecomposableScorer", "Searcher", "Role", "Evaluator", "Metric", "DataSource", "as_dataset",
    "Pipeline", "MacrocauseError", "PluginError", "PluginNotFoundError", "PluginLoadError",
    "DuplicatePluginError", "ConfigError", "DataValidationError", "PipelineError", "__version__",
]


def __getattr__(name: str):
    # Pipeline pulls in yaml; import it on first use so `import framework` stays light.
    if name == "Pipeline":
        from .pipeline import Pipeline

        return Pipeline
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
