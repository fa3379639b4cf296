"""Wall time and peak memory of a block of code.

The peak memory is the block's own: how far the process's resident set size
(RSS) rose above its level at the start of the block. On Linux the kernel's
high-water mark is reset at the start (``/proc/self/clear_refs``) and read at
the end (``VmHWM``), so no short peak is missed; elsewhere RSS is sampled.
Memory the process already held (from imports or an earlier step) and reused
is not counted; memory of other threads running at the same time is. With
*base* (an earlier RSS level, e.g. the process's before the block first ran in
it) the peak is counted from there instead, so freed memory the block reuses is
counted too (grids' ``isolate: true``).
"""

from __future__ import annotations

import os
import resource
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_mb() -> float:
    """Current resident set size in MiB (Linux /proc; peak RSS elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_high_water() -> bool:
    """Reset the kernel's peak-RSS mark of this process (Linux >= 4.0); False if not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


def _high_water_mb() -> float | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


@dataclass
class Measurement:
    seconds: float = 0.0
    peak_mb: float = 0.0  # the block's own peak: RSS increase over the start (or the base), in MiB
    start_mb: float = 0.0  # RSS at the start of the block, in MiB


@contextmanager
def measure(interval: float = 0.01, base: float | None = None):
    """Measure wall time and peak memory (RSS increase over the start, MiB) of the block.

    *interval* is the RSS sampling period where the kernel's high-water mark is unavailable.
    *base* (MiB of RSS, e.g. an earlier :attr:`Measurement.start_mb`) replaces the start as
    the level the peak is counted from.

    >>> import numpy as np
    >>> with measure() as m:
    ...     a = np.ones(2**23)  # 64 MiB
    >>> m.seconds >= 0 and 60 < m.peak_mb < 80
    True
    """
    m = Measurement()
    start = m.start_mb = rss_mb()
    exact = _reset_high_water() and _high_water_mb() is not None
    stop = threading.Event()
    peak = start

    def sample() -> None:
        nonlocal peak
        while not stop.wait(interval):
            peak = max(peak, rss_mb())

    t = None
    if not exact:
        t = threading.Thread(target=sample, daemon=True)
        t.start()
    t0 = time.perf_counter()
    try:
        yield m
    finally:
        m.seconds = time.perf_counter() - t0
        if t is not None:
            stop.set()
            t.join()
        top = _high_water_mb() if exact else None
        peak = max(peak, rss_mb(), top or 0.0)
        m.peak_mb = max(0.0, peak - (start if base is None else base))
