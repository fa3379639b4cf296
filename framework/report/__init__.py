"""Reports of a results store: tables, ranks, paired tests, figures, one HTML page.

``write_report(store, out, grid=None)`` writes them all; :func:`build_report`
computes the content from store rows; :func:`report_frames` gives its tables as
pandas DataFrames in Python; :func:`collect` deduplicates the rows into results
(one per method, dataset, seed and metric).
"""

from .build import BASELINES, Report, build_report, to_markdown
from .frames import report_frames, report_tables
from .metrics import KNOWN, MetricInfo, metric_info
from .results import Collection, Result, collect
from .write import write_report

__all__ = [
    "write_report", "report_frames", "report_tables", "build_report", "to_markdown", "collect", "Report",
    "Collection", "Result", "MetricInfo", "metric_info", "KNOWN", "BASELINES",
]
