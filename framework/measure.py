"""Wall time and peak resident memory of a block of code."""

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


@dataclass
class Measurement:
    seconds: float = 0.0
    peak_mb: float = 0.0


@contextmanager
def measure(interval: float = 0.01):
    """Measure wall time and peak RSS (sampled every *interval* seconds) of the block.

    >>> with measure() as m:
    ...     _ = sum(range(1000))
    >>> m.seconds >= 0 and m.peak_mb > 0
    True
    """
    m = Measurement(peak_mb=rss_mb())
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(interval):
            m.peak_mb = max(m.peak_mb, rss_mb())

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    t0 = time.perf_counter()
    try:
        yield m
    finally:
        m.seconds = time.perf_counter() - t0
        stop.set()
        t.join()
        m.peak_mb = max(m.peak_mb, rss_mb())
