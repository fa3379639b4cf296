"""Progress bars for long steps: tqdm on stderr, on a terminal only, never when quiet.

Every loop that can run for more than a few seconds (PC with KCI, CLIC iterations,
the kernel rank estimate's splits, CAUSE-FS iterations, ``disco_auto``'s grid,
CAFE DBSCAN's automatic mode, a ``compare`` grid) wraps its iterable in
:func:`progress`. A bar appears only after :data:`DELAY` seconds, so short steps
print nothing, and it is erased when the loop ends.

Switches, in order of precedence:

- ``MACROCAUSE_QUIET=1`` (set by ``macrocause run --quiet`` / ``compare --quiet``,
  or by :func:`set_quiet`): no bar at all. It is an environment variable so that
  worker processes started afterwards inherit it.
- a ``file=`` argument: the bar is written there (a log file, a test's buffer).
- ``MACROCAUSE_PROGRESS=1``: bars on stderr even when it is not a terminal (logs).
- otherwise: bars on stderr when stderr is a terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import IO, Any

__all__ = ["progress", "enabled", "set_quiet", "is_quiet", "QUIET_ENV", "FORCE_ENV", "DELAY"]

QUIET_ENV = "MACROCAUSE_QUIET"
FORCE_ENV = "MACROCAUSE_PROGRESS"
DELAY = 0.5
"""Seconds before a bar first appears."""

_OFF = ("", "0", "false", "no")


def is_quiet() -> bool:
    """True when progress bars are switched off (``MACROCAUSE_QUIET``)."""
    return os.environ.get(QUIET_ENV, "").strip().lower() not in _OFF


def set_quiet(quiet: bool = True) -> None:
    """Switch progress bars off (or back on) in this process and the workers it starts."""
    os.environ[QUIET_ENV] = "1" if quiet else "0"


def enabled(file: IO[str] | None = None) -> bool:
    """Whether a bar would be shown (see the module docstring for the rules)."""
    if is_quiet():
        return False
    if file is not None:
        return True
    if os.environ.get(FORCE_ENV, "").strip().lower() not in _OFF:
        return True
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def progress(
    iterable: Iterable[Any] | None = None,
    desc: str | None = None,
    *,
    total: int | None = None,
    file: IO[str] | None = None,
    delay: float | None = None,
    leave: bool = False,
):
    """Wrap *iterable* in a tqdm bar labelled *desc* (a no-op bar when disabled).

    Also usable without an iterable, as ``with progress(total=n, desc=...) as bar:
    bar.update()``.
    """
    from tqdm import tqdm

    return tqdm(
        iterable, desc=desc, total=total, file=sys.stderr if file is None else file,
        disable=not enabled(file), delay=DELAY if delay is None else delay, leave=leave,
        dynamic_ncols=True,
    )
