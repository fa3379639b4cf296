"""One-off start-up time inside a step: first imports of modules and numba compilation.

How it is measured: while a step runs, two clocks feed one thread-local counter.

* Imports: ``builtins.__import__`` is wrapped; an outermost import statement that adds
  modules to ``sys.modules`` counts its whole duration (modules imported before, and
  ``importlib.import_module`` calls outside an import statement, cost nothing here).
* numba: a listener on numba's ``numba:compiler_lock`` event counts the time the
  compiler lock is held: compiling a kernel, or loading it from numba's cache.

Nested spans (an import during a compilation, a kernel compiled while a module is
imported) are counted once. Nothing runs twice: the step's own time is its wall time
minus this start-up time. Start-up in worker processes a plugin starts is not seen.
"""

from __future__ import annotations

import builtins
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["startup_clock", "StartupClock"]

_local = threading.local()
_lock = threading.Lock()
_active = 0
_original_import = builtins.__import__
_numba_listener = None


def _enter() -> None:
    depth = getattr(_local, "depth", 0)
    if depth == 0:
        _local.t0 = time.perf_counter()
    _local.depth = depth + 1


def _leave(count: bool = True) -> None:
    _local.depth -= 1
    if _local.depth == 0 and count:
        _local.total = getattr(_local, "total", 0.0) + time.perf_counter() - _local.t0


def _timed_import(name, globals=None, locals=None, fromlist=(), level=0):
    if getattr(_local, "depth", 0) == 0 and name in sys.modules and not fromlist:
        return _original_import(name, globals, locals, fromlist, level)
    before = len(sys.modules)
    outer = getattr(_local, "depth", 0) == 0
    _enter()
    try:
        return _original_import(name, globals, locals, fromlist, level)
    finally:
        loaded = len(sys.modules) != before
        if outer and not loaded:  # nothing new: not start-up
            _local.depth -= 1
        else:
            _leave()
        if loaded and _numba_listener is None and "numba.core.event" in sys.modules:
            _listen_to_numba()


def _listen_to_numba() -> None:
    global _numba_listener
    from numba.core import event

    class _CompileListener(event.Listener):
        def on_start(self, ev):
            if getattr(_local, "measuring", False):
                _enter()

        def on_end(self, ev):
            if getattr(_local, "measuring", False) and getattr(_local, "depth", 0) > 0:
                _leave()

    _numba_listener = _CompileListener()
    event.register("numba:compiler_lock", _numba_listener)


@dataclass
class StartupClock:
    """Seconds of start-up counted so far in the ``with startup_clock()`` block."""

    start: float = 0.0
    seconds: float = 0.0


@contextmanager
def startup_clock() -> Iterator[StartupClock]:
    """Count the start-up time (new imports, numba compilation) of the block on this thread."""
    global _active
    with _lock:
        if _active == 0:
            builtins.__import__ = _timed_import
        _active += 1
    if _numba_listener is None and "numba.core.event" in sys.modules:
        _listen_to_numba()
    clock = StartupClock(getattr(_local, "total", 0.0))
    was = getattr(_local, "measuring", False)
    _local.measuring = True
    try:
        yield clock
    finally:
        _local.measuring = was
        clock.seconds = getattr(_local, "total", 0.0) - clock.start
        with _lock:
            _active -= 1
            if _active == 0 and builtins.__import__ is _timed_import:
                builtins.__import__ = _original_import
