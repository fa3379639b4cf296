"""A grid's ``isolate: true``: each run in a fresh process that hands freed memory back to the OS
before every step, so that a timed run reusing what its warm-up freed is not under-reported."""

from __future__ import annotations

import mmap
import sys
import time

import pytest

from macrocause.framework.compare import Grid, compare
from macrocause.framework.store import ResultStore

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="exact peaks need Linux /proc")

MIB = 200  # what the plugin allocates and touches, in 64 KiB blocks
PAGE = mmap.PAGESIZE
# a page that holds a kept block stays resident after the blocks around it are freed and is reused
# uncounted: at most one per kept block (one per 64 KiB block here, the worst case)
RESIDUAL = MIB * 16 * PAGE / 2**20

HOG_FILE = f'''
import os
import signal

import numpy as np
from macrocause.framework import DataSource, Partition, Partitioner, hookimpl

_kept = []  # small blocks that outlive each call, among the big ones: the heap cannot shrink


class Hog(Partitioner):
    """Allocates {MIB} MiB in 64 KiB blocks, touched, then frees them; all samples in group 0."""

    name = "hog"

    def _partition(self, data):
        blocks = []
        for _ in range({MIB} * 16):
            blocks.append(np.ones(8192))
            _kept.append(bytearray(600))
        assert sum(b[-1] for b in blocks) == {MIB} * 16
        return Partition(np.zeros(data.n_samples, dtype=int))


class Crash(Partitioner):
    """Kills its own process."""

    name = "crash"

    def _partition(self, data):
        os.kill(os.getpid(), signal.SIGKILL)


class Broken(DataSource):
    """Fails to load."""

    name = "broken_source"

    def _load(self):
        raise ValueError("no data here")


@hookimpl
def macrocause_register_plugins(register):
    register(Hog)
    register(Crash)
    register(Broken)
'''


def _run(tmp_path, extra: str, step: str = "hog", source: str = "toy_source") -> list[dict]:
    (tmp_path / "hog.py").write_text(HOG_FILE)
    (tmp_path / "grid.yaml").write_text(
        f"name: g\ndata: [{{source: {source}}}]\nplugins: [hog.py]\nseeds: 1\nwarmup: true\n{extra}"
        f"pipelines:\n  - {{name: p, steps: [{{id: s, partition: {step}}}]}}\n")
    grid, base = Grid.from_yaml(tmp_path / "grid.yaml")
    with ResultStore(tmp_path / f"{step}-{source}-{len(extra)}.db") as store:
        compare(grid, store, base=base, progress=False)
        return store.rows()


def test_an_isolated_run_counts_the_memory_its_warmup_freed(toys, tmp_path):
    # in one process the timed execution reuses the blocks the warm-up freed: its RSS barely rises
    shared = _run(tmp_path, "")
    assert shared[0]["status"] == "done" and shared[0]["peak_mb"] < MIB / 2
    isolated = _run(tmp_path, "isolate: true\n")
    assert isolated[0]["status"] == "done" and isolated[0]["extra"]["isolated"] is True
    assert MIB - RESIDUAL <= isolated[0]["peak_mb"] < MIB + 50
    # the whole process's peak holds the step's rise, and the interpreter and data besides
    assert isolated[0]["extra"]["process_peak_mb"] > isolated[0]["peak_mb"] + 20
    assert isolated[0]["extra"]["data_hash"] == shared[0]["extra"]["data_hash"]


def test_an_isolated_run_that_fails_or_dies_is_a_failed_record(toys, tmp_path):
    died = _run(tmp_path, "isolate: true\n", step="crash")
    assert [(r["status"], r["error"]) for r in died] == [("failed", "its fresh process died (killed by SIGKILL)")]
    # a failure before the pipeline runs reads as it does in one process
    errors = [_run(tmp_path, extra, source="broken_source")[0]["error"] for extra in ("", "isolate: true\n")]
    assert errors[0] == errors[1] and errors[0].endswith("no data here")


def test_isolate_must_be_a_boolean(toys, tmp_path):
    from macrocause.framework.errors import PipelineError

    (tmp_path / "grid.yaml").write_text("name: g\ndata: [{source: toy_source}]\npipelines: [p.yaml]\nisolate: 1\n")
    with pytest.raises(PipelineError, match="valid boolean"):
        Grid.from_yaml(tmp_path / "grid.yaml")


def _isolated_children(mark: str) -> list[int]:
    """Live processes started by run_isolated with *mark* in their environment."""
    from pathlib import Path

    out = []
    for p in Path("/proc").iterdir():
        try:
            cmd, env = (p / "cmdline").read_bytes(), (p / "environ").read_bytes()
        except OSError:
            continue
        if b"macrocause.framework.isolated" in cmd and f"ISOLATE_TEST={mark}".encode() in env.split(b"\0"):
            out.append(int(p.name))
    return out


def test_an_isolated_run_past_its_timeout_is_stopped_with_its_process(toys, tmp_path, monkeypatch):
    monkeypatch.setenv("ISOLATE_TEST", str(tmp_path))
    (tmp_path / "grid.yaml").write_text(
        "name: g\ndata: [{source: toy_source}]\nseeds: 1\nisolate: true\ntimeout: 3\n"
        "pipelines:\n  - {name: p, steps: [{id: s, partition: toy_threshold, params: {sleep: 60}}]}\n")
    grid, base = Grid.from_yaml(tmp_path / "grid.yaml")
    with ResultStore(tmp_path / "t.db") as store:
        compare(grid, store, base=base, progress=False)
        rows = store.rows()
    assert [r["status"] for r in rows] == ["timeout"]
    for _ in range(50):  # the fresh process dies with its killed worker
        if not _isolated_children(str(tmp_path)):
            break
        time.sleep(0.1)
    assert not _isolated_children(str(tmp_path))
