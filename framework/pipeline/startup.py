"""One-off start-up time inside a step: first imports of modules and numba compilation.

How it is measured: while a step runs, two clocks feed one thread-local counter.

* Imports: ``builtins.__import__`` is wrapped; an outermost import statement that adds
  modules to ``sys.modules`` counts its whole duration (modules imported before, and
  ``importlib.import_module`` calls outside an import statement, cost nothing here).
* numba: a listener on numba's ``numba:compiler_lock`` event counts the time the
  compiler lock is held: compiling a kernel, or loading it from numba's cache.

Nested spans (an import during a compilation, a kernel compiled while a module is
imported) are counted once.

A step that compiles numba kernels (numba's ``numba:compile`` event: a kernel not in numba's
cache) says so on stderr before the first one compiles and again when the step ends, with the
seconds spent, unless progress output is off (:func:`macrocause.framework.progress.is_quiet`): a one-off
wait of seconds on a fresh cache is then explained, not silent. Nothing runs twice: the step's own time is its wall time
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

    class _NoticeListener(event.Listener):
        def on_start(self, ev):
            notice = getattr(_local, "notice", None)
            if notice is None:
                return
            depth = notice.get("depth", 0)
            notice["depth"] = depth + 1
            if depth == 0:
                notice["t0"] = time.perf_counter()
                if not notice.get("said"):
                    notice["said"] = True
                    _say(f"{notice['label']}: compiling numba kernels, once (numba caches them for later "
                         "runs) ...")

        def on_end(self, ev):
            notice = getattr(_local, "notice", None)
            if notice is None or notice.get("depth", 0) == 0:
                return
            notice["depth"] -= 1
            if notice["depth"] == 0:
                notice["seconds"] = notice.get("seconds", 0.0) + time.perf_counter() - notice["t0"]

    _numba_listener = _CompileListener()
    event.register("numba:compiler_lock", _numba_listener)
    event.register("numba:compile", _NoticeListener())


def _say(text: str) -> None:
    from ..progress import is_quiet

    if not is_quiet():
        print(text, file=sys.stderr, flush=True)


@dataclass
class StartupClock:
    """Seconds of start-up counted so far in the ``with startup_clock()`` block."""

    start: float = 0.0
    seconds: float = 0.0


@contextmanager
def startup_clock(label: str | None = None) -> Iterator[StartupClock]:
    """Count the start-up time (new imports, numba compilation) of the block on this thread;
    with *label* (e.g. ``"step 'pc' (pc)"``), say on stderr when the block compiles numba kernels."""
    global _active
    with _lock:
        if _active == 0:
            builtins.__import__ = _timed_import
        _active += 1
    if _numba_listener is None and "numba.core.event" in sys.modules:
        _listen_to_numba()
    clock = StartupClock(getattr(_local, "total", 0.0))
    was, notice_was = getattr(_local, "measuring", False), getattr(_local, "notice", None)
    _local.measuring = True
    if label is not None:
        _local.notice = {"label": label}
    try:
        yield clock
    finally:
        _local.measuring = was
        if label is not None:
            if _local.notice.get("said"):
                _say(f"{label}: numba kernels compiled in {_local.notice.get('seconds', 0.0):.1f} s, "
                     "cached for later runs.")
            _local.notice = notice_was
        clock.seconds = getattr(_local, "total", 0.0) - clock.start
        with _lock:
            _active -= 1
            if _active == 0 and builtins.__import__ is _timed_import:
                builtins.__import__ = _original_import
