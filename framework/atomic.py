"""A folder written all at once: readers see the old folder or the new one, never half of it."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import PipelineError

__all__ = ["atomic_folder"]


@contextmanager
def atomic_folder(out: Path) -> Iterator[Path]:
    """Yield a temporary folder beside *out*; on success it replaces *out* by a rename,
    so *out* is never half-written. On error the temporary folder is removed."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise PipelineError(f"{out} exists and is not a folder.")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        tmp.chmod(0o755)
        yield tmp
        old = out.parent / f".{out.name}-old-{os.getpid()}"
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
