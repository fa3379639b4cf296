"""Pipelines: a list of steps over one dataset, in YAML or Python, validated before any compute.

The package, one job per module:

``spec``
    the schema: :class:`DataSpec` and one class per step kind (``partition``,
    ``search``, ``evaluate``, ``augment``, ``select``), each checking itself
    against what earlier steps produce and running on a context;
``core``
    :class:`Pipeline`, the immutable validated pipeline (YAML and dict forms,
    overrides, sweeps);
``run``
    the runner: records with timing, memory and failures;
``startup``
    the start-up clock (imports, numba compilation) inside a step;
``yaml_io``
    YAML loading, ``--set`` overrides, one-line error messages;
``summary``
    what ``macrocause run`` prints.
"""

from __future__ import annotations

from .core import NO_DATA, Pipeline, data_option, load_dataset, parse_data
from .run import PipelineResult, RunContext, StepRecord, params_hash
from .spec import (
    STEP_KINDS,
    AugmentStep,
    CheckContext,
    DataSpec,
    EvaluateStep,
    PartitionStep,
    Produced,
    SearchStep,
    SelectStep,
    Step,
)
from .summary import describe_output

__all__ = [
    "Pipeline", "Step", "DataSpec", "PipelineResult", "StepRecord", "RunContext", "CheckContext", "Produced",
    "STEP_KINDS", "PartitionStep", "SearchStep", "EvaluateStep", "AugmentStep", "SelectStep",
    "load_dataset", "parse_data", "data_option", "NO_DATA", "params_hash", "describe_output",
]
