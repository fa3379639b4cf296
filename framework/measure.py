"""Wall time and peak memory of a block of code.

The peak memory is the block's own: how far the process's resident set size
(RSS) rose above its level at the start of the block. On Linux the kernel's
high-water mark is reset at the start (``/proc/self/clear_refs``) and read at
the end (``VmHWM``), so no short peak is missed; elsewhere RSS is sampled.
Memory the process already held (from imports or an earlier step) and reused
is not counted; memory of other threads running at the same time is.
:func:`release_free_memory` before a block hands freed memory back to the OS, so
that the block counts what it reuses (grids' ``isolate: true``).
"""

from __future__ import annotations

import ctypes
import gc
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


def release_free_memory() -> bool:
    """Collect garbage and return the C allocator's free memory to the OS (glibc's
    ``malloc_trim``), so that a block measured next must map again, and so counts, memory
    that earlier code freed; False where ``malloc_trim`` is unavailable (not glibc).

    >>> import numpy as np
    >>> blocks = [np.ones(8192) for _ in range(1600)]  # 100 MiB in 64 KiB blocks
    >>> kept = [bytearray(600) for _ in range(1600)]   # small blocks above them: no shrinking
    >>> del blocks
    >>> with measure() as m:
    ...     blocks = [np.ones(8192) for _ in range(1600)]
    >>> reused = m.peak_mb
    >>> del blocks
    >>> if release_free_memory():
    ...     with measure() as m:
    ...         blocks = [np.ones(8192) for _ in range(1600)]
    ...     assert m.peak_mb > 90, (reused, m.peak_mb)
    """
    gc.collect()
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    trim(0)
    return True


@dataclass
class Measurement:
    seconds: float = 0.0
    peak_mb: float = 0.0  # the block's own peak: RSS increase over the start, in MiB


@contextmanager
def measure(interval: float = 0.01):
    """Measure wall time and peak memory (RSS increase over the start, MiB) of the block.

    *interval* is the RSS sampling period where the kernel's high-water mark is unavailable.

    >>> import numpy as np
    >>> with measure() as m:
    ...     a = np.ones(2**23)  # 64 MiB
    >>> m.seconds >= 0 and 60 < m.peak_mb < 80
    True
    """
    m = Measurement()
    start = rss_mb()
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
        m.peak_mb = max(0.0, peak - start)
