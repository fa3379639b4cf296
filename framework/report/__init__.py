"""Reports of a results store: tables, ranks, paired tests, figures, one HTML page.

The flow is straight: :func:`~macrocause.framework.report.frame.tidy` makes one DataFrame of the
store's values (what each means read from the store), :mod:`~macrocause.framework.report.analyses`
are functions from frame to frame, :func:`~macrocause.framework.report.document.document` builds one
document that :mod:`~macrocause.framework.report.render` writes as markdown and HTML.
``write_report(store, out)`` does it all; :func:`report_frames` gives the tables in Python.
"""

from .write import (
    Report,
    build_report,
    markdown,
    report_document,
    report_frames,
    write_files,
    write_report,
)

__all__ = ["write_report", "write_files", "report_frames", "build_report", "report_document", "markdown", "Report"]
