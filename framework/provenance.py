"""Provenance of a run: package versions, the git commit of the checkout, host, cores, load.

Read without subprocesses (the commit from ``.git`` files), once per process where it
cannot change.
"""

from __future__ import annotations

import os
import socket
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["git_commit", "package_versions", "provenance"]


@cache
def package_versions() -> dict[str, str]:
    """Versions of macrocause and the libraries whose behaviour shapes results."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("macrocause", "numpy", "scipy", "scikit-learn", "numba", "pgmpy", "causal-learn", "networkx"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            pass
    return out


@cache
def git_commit(start: str | None = None) -> str | None:
    """The commit checked out in the git repository holding *start* (default: this package).

    Read from ``.git`` directly (``HEAD``, loose refs, ``packed-refs``; worktrees
    included), without running git. ``None`` outside a repository.
    """
    here = Path(start or __file__).resolve()
    for folder in (here, *here.parents):
        dot = folder / ".git"
        if dot.is_dir():
            gitdir = dot
            break
        if dot.is_file():  # a worktree or submodule: "gitdir: <path>"
            text = dot.read_text().strip()
            if not text.startswith("gitdir:"):
                return None
            gitdir = (folder / text[7:].strip()).resolve()
            break
    else:
        return None
    try:
        head = (gitdir / "HEAD").read_text().strip()
        if not head.startswith("ref:"):
            return head or None
        ref = head[4:].strip()
        common = gitdir
        if (gitdir / "commondir").is_file():
            common = (gitdir / (gitdir / "commondir").read_text().strip()).resolve()
        for root in (gitdir, common):
            if (root / ref).is_file():
                return (root / ref).read_text().strip() or None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                sha, _, name = line.partition(" ")
                if name == ref:
                    return sha
    except OSError:
        return None
    return None


def provenance() -> dict[str, Any]:
    """Where and on what a run is computed: host, cores, 1-minute load, git commit, versions."""
    try:
        load1 = round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        load1 = None
    return {"host": socket.gethostname(), "cores": os.cpu_count(), "load1": load1,
            "git_commit": git_commit(), "versions": package_versions()}
