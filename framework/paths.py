"""Where a data source finds a file: one rule for every source that reads one.

A relative path is looked for in the folder of the YAML file being run (when one is), then in
the working directory, then in the folder named by the environment variable
``MACROCAUSE_DATA`` (when set). The first that holds it wins; an error names every folder
looked in.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from .errors import DataValidationError

__all__ = ["find_data_path", "data_folders", "yaml_folder"]

_YAML_FOLDER: ContextVar[Path | None] = ContextVar("macrocause_yaml_folder", default=None)


@contextmanager
def yaml_folder(folder: Path | None) -> Iterator[None]:
    """Relative data paths met inside are looked for first in *folder* (the YAML file's)."""
    token = _YAML_FOLDER.set(None if folder is None else Path(folder))
    try:
        yield
    finally:
        _YAML_FOLDER.reset(token)


def data_folders() -> list[Path]:
    """The folders a relative path is looked for in, in order."""
    folders = [f for f in (_YAML_FOLDER.get(), Path.cwd()) if f is not None]
    env = os.environ.get("MACROCAUSE_DATA")
    if env:
        folders.append(Path(env))
    out: list[Path] = []
    for f in folders:
        if f.resolve() not in [o.resolve() for o in out]:
            out.append(f)
    return out


def find_data_path(path: str | Path, source: str, folder: bool = False) -> Path:
    """The file (or, with *folder*, the directory) *path* names, by the rule of this module.

    Raises
    ------
    DataValidationError
        Naming the source, the path and every folder looked in.
    """
    p = Path(path).expanduser()
    exists = Path.is_dir if folder else Path.is_file
    kind = "folder" if folder else "file"
    if p.is_absolute():
        if exists(p):
            return p
        raise DataValidationError(f"{source}: {kind} not found: {p}.")
    looked = data_folders()
    for base in looked:
        if exists(base / p):
            return base / p
    where = ", ".join(str(f.resolve()) for f in looked)
    hint = "" if os.environ.get("MACROCAUSE_DATA") else "; set MACROCAUSE_DATA to the folder that holds it"
    raise DataValidationError(f"{source}: {kind} {str(path)!r} not found; looked in {where}{hint}.")
