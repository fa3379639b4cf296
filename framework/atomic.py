"""A folder written all at once: readers see the old folder or the new one, never half of it.

It never replaces what macrocause did not write: the target must be missing,
empty, or a folder it wrote before, known by the marker file
:data:`MARKER` listing the files it wrote there.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from .errors import PipelineError

__all__ = ["atomic_folder", "MARKER"]

MARKER = "macrocause-output.json"


def _written(folder: Path) -> set[str] | None:
    """The files the marker in *folder* lists, or None without a readable marker."""
    marker = folder / MARKER
    try:
        if not marker.is_file() or marker.stat().st_size > 1_000_000:
            return None
        files = json.loads(marker.read_text()).get("files")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return {str(f) for f in files} | {MARKER} if isinstance(files, list) else None


def check_replaceable(out: Path, legacy: Sequence[str] = ()) -> None:
    """Raise unless *out* may be replaced: missing, an empty folder, or a folder holding only the
    files macrocause wrote there (its marker lists them; a folder without a marker that holds
    the file ``legacy[0]`` and whose every entry is a file matching a pattern of *legacy* counts
    as written by an older macrocause).
    The current folder and its parents are never replaced."""
    here = Path.cwd().resolve()
    target = out.resolve()
    if target == here or target in here.parents:
        raise PipelineError(f"{out} is the current folder or one of its parents; write into a new folder.")
    if not out.exists():
        return
    if not out.is_dir() or out.is_symlink():
        raise PipelineError(f"{out} exists and is not a folder.")
    entries = sorted(p.name for p in out.iterdir())
    listed = _written(out)
    if listed is None and legacy and legacy[0] in entries and all(
            (out / e).is_file() and any(fnmatch.fnmatchcase(e, p) for p in legacy) for e in entries):
        return
    foreign = [e for e in entries if listed is None or e not in listed or not (out / e).is_file()]
    if foreign:
        raise PipelineError(
            f"{out} holds {len(foreign)} entries macrocause did not write there (e.g. {foreign[0]!r}); "
            "refused, nothing was deleted: choose a new or empty folder."
        )


@contextmanager
def atomic_folder(out: Path, legacy: Sequence[str] = ()) -> Iterator[Path]:
    """Yield a temporary folder beside *out*; on success it replaces *out* by a rename,
    so *out* is never half-written. On error the temporary folder is removed.

    *out* must be replaceable (:func:`check_replaceable`, checked before and
    again before the rename); the new folder gets a marker listing its files.
    """
    out = Path(out)
    check_replaceable(out, legacy)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        tmp.chmod(0o755)
        yield tmp
        files = sorted(p.name for p in tmp.iterdir() if p.name != MARKER)
        (tmp / MARKER).write_text(json.dumps({"written_by": "macrocause", "files": files}, indent=1) + "\n")
        check_replaceable(out, legacy)
        old = out.parent / f".{out.name}-old-{os.getpid()}"
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
