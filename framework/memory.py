"""Memory budget: methods whose memory grows faster than the data refuse before allocating.

A plugin whose peak memory grows faster than linearly in the number of samples or
variables overrides :meth:`macrocause.framework.roles.Plugin.memory_estimate` with an honest
estimate (measured peak, bytes); the role's verb checks it against the budget before
any work and raises :class:`MemoryBudgetError` with one line that says what to do.

The budget is ``MACROCAUSE_MEMORY_LIMIT`` (bytes, or with a unit: ``"4GB"``,
``"512MB"``, ``"0"`` = no limit) if set, else half the memory the system reports
as available when the check runs.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .errors import MemoryBudgetError

__all__ = ["MemoryEstimate", "budget_bytes", "check_budget", "format_bytes"]

_UNITS = {"": 1, "B": 1, "KB": 2**10, "K": 2**10, "MB": 2**20, "M": 2**20, "GB": 2**30, "G": 2**30,
          "TB": 2**40, "T": 2**40, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}
DEFAULT_FRACTION = 0.5


@dataclass(frozen=True)
class MemoryEstimate:
    """A plugin's peak-memory estimate for one input.

    Attributes
    ----------
    bytes : float
        Estimated peak bytes beyond the input itself.
    growth : str
        The growth law, e.g. ``"62 n^2 bytes"`` (shown in the error and the docs).
    advice : str
        What to do instead, e.g. ``"subsample to n <= 5000 or use rank_method='lowrank'"``.
    limit : float or None
        The plugin's own budget in bytes (a parameter such as ``memory_gb``), in place of
        the framework's; None = the framework's budget.
    """

    bytes: float
    growth: str
    advice: str
    limit: float | None = None


def format_bytes(n: float) -> str:
    """``1536`` -> ``"1.5 KiB"``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"  # pragma: no cover


def _available_bytes() -> float | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return None


def parse_size(text: str) -> float:
    """``"4GB"`` -> ``4 * 2**30``; a bare number is bytes."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).upper() not in _UNITS:
        raise MemoryBudgetError(
            f"MACROCAUSE_MEMORY_LIMIT={text!r} is not a size; use bytes or a unit, e.g. '4GB', '512MB', '0' (no limit)."
        )
    return float(m.group(1)) * _UNITS[m.group(2).upper()]


def budget_bytes() -> float | None:
    """The memory budget in bytes, or None for no limit."""
    env = os.environ.get("MACROCAUSE_MEMORY_LIMIT")
    if env is not None and env.strip():
        value = parse_size(env)
        return None if value == 0 else value
    avail = _available_bytes()
    return None if avail is None else DEFAULT_FRACTION * avail


def check_budget(name: str, estimate: MemoryEstimate | None) -> None:
    """Raise :class:`MemoryBudgetError` if *estimate* exceeds the budget (the estimate's own
    ``limit`` when it has one)."""
    if estimate is None:
        return
    budget = estimate.limit if estimate.limit is not None else budget_bytes()
    if budget is not None and estimate.bytes > budget:
        if estimate.limit is not None:
            source = "the plugin's memory_gb"
        elif os.environ.get("MACROCAUSE_MEMORY_LIMIT"):
            source = "MACROCAUSE_MEMORY_LIMIT"
        else:
            source = "half the available memory"
        raise MemoryBudgetError(
            f"{name} would need about {format_bytes(estimate.bytes)} ({estimate.growth}), over the budget of "
            f"{format_bytes(budget)} ({source}): {estimate.advice}, or raise MACROCAUSE_MEMORY_LIMIT."
        )
