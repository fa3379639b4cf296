"""Readers of the bnlearn network files that pgmpy's wheel bundles (BIF for discrete networks,
pgmpy's JSON for linear-Gaussian ones), into plain arrays.

The files live in ``site-packages/pgmpy/utils/example_models/`` (pgmpy 1.1: 24 ``*.bif.gz`` and
4 ``*.json``), copies of the bnlearn Bayesian network repository (Scutari,
https://www.bnlearn.com/bnrepository/). Nothing is downloaded.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import numpy as np

from macrocause.framework.errors import DataValidationError

_VARIABLE = re.compile(r"variable\s+(\S+)\s*\{\s*type\s+discrete\s*\[\s*(\d+)\s*\]\s*\{([^}]*)\}", re.S)
_PROBABILITY = re.compile(r"probability\s*\(\s*([^|)]+?)\s*(?:\|\s*([^)]*?))?\s*\)\s*\{([^}]*)\}", re.S)
_ROW = re.compile(r"\(([^)]*)\)\s*([^;]*);")
_TABLE = re.compile(r"table\s+([^;]*);")


def models_dir() -> Path:
    """The folder of pgmpy's bundled example models."""
    return Path(str(files("pgmpy") / "utils" / "example_models"))


@dataclass(frozen=True)
class DiscreteNetwork:
    """A discrete Bayesian network: ``cpts[j][c, s] = P(X_j = s | parents in configuration c)``,
    configurations in mixed radix over ``parents[j]`` (first parent most significant)."""

    names: list[str]
    states: list[list[str]]
    parents: list[list[int]]
    cpts: list[np.ndarray]


@dataclass(frozen=True)
class GaussianNetwork:
    """A linear-Gaussian network: ``X_j = intercept[j] + sum_k coef[j][k] X_parents[j][k] + N(0, variance[j])``."""

    names: list[str]
    parents: list[list[int]]
    coef: list[np.ndarray]
    intercept: np.ndarray
    variance: np.ndarray


def _split(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def parse_bif(text: str) -> DiscreteNetwork:
    """Parse a BIF file (the subset bnlearn's files use: discrete variables, ``table`` or one row per
    parent configuration)."""
    names, states = [], []
    for m in _VARIABLE.finditer(text):
        st = _split(m.group(3))
        if len(st) != int(m.group(2)):
            raise DataValidationError(f"BIF: variable {m.group(1)} declares {m.group(2)} states, lists {len(st)}.")
        names.append(m.group(1))
        states.append(st)
    index = {v: i for i, v in enumerate(names)}
    state_index = [{s: k for k, s in enumerate(st)} for st in states]
    parents: list[list[int] | None] = [None] * len(names)
    cpts: list[np.ndarray | None] = [None] * len(names)
    for m in _PROBABILITY.finditer(text):
        j = index[m.group(1).strip()]
        pa = [index[p] for p in _split(m.group(2) or "")]
        card = [len(states[p]) for p in pa]
        radix = np.cumprod([1, *card[::-1]])[:-1][::-1] if pa else np.zeros(0, int)
        table = np.full((int(np.prod(card)) if pa else 1, len(states[j])), np.nan)
        body = m.group(3)
        t = _TABLE.search(body)
        if t is not None:
            table[:] = np.asarray(_split(t.group(1)), float).reshape(table.shape)
        for row in _ROW.finditer(body):
            cfg = [state_index[p][s] for p, s in zip(pa, _split(row.group(1)))]
            table[int(np.dot(cfg, radix))] = np.asarray(_split(row.group(2)), float)
        if np.isnan(table).any():
            raise DataValidationError(f"BIF: the table of {names[j]} misses parent configurations.")
        parents[j], cpts[j] = pa, table / table.sum(axis=1, keepdims=True)
    missing = [names[j] for j, c in enumerate(cpts) if c is None]
    if missing:
        raise DataValidationError(f"BIF: no probability table for {missing[:5]}.")
    return DiscreteNetwork(names, states, parents, cpts)


def parse_gaussian_json(text: str) -> GaussianNetwork:
    """Parse pgmpy's JSON form of a bnlearn linear-Gaussian network (nodes, arcs, cpds)."""
    d = json.loads(text)
    names = list(d["nodes"])
    index = {v: i for i, v in enumerate(names)}
    parents, coef, icpt, var = [], [], [], []
    for v in names:
        cpd = d["cpds"][v]
        pa = list(cpd["parents"])
        parents.append([index[p] for p in pa])
        coef.append(np.asarray([cpd["coefficients"][p][0] for p in pa], float))
        icpt.append(cpd["coefficients"]["(Intercept)"][0])
        var.append(cpd["variance"][0])
    return GaussianNetwork(names, parents, coef, np.asarray(icpt), np.asarray(var))


def read_network(name: str) -> DiscreteNetwork | GaussianNetwork:
    """The bundled network *name* (``asia``, ``alarm``, ``ecoli70``, ...)."""
    folder = models_dir()
    bif, js = folder / f"{name}.bif.gz", folder / f"{name}.json"
    if bif.exists():
        with gzip.open(bif, "rt", encoding="utf-8") as f:
            return parse_bif(f.read())
    if js.exists():
        return parse_gaussian_json(js.read_text(encoding="utf-8"))
    raise DataValidationError(f"bnlearn: no bundled network {name!r} in {folder}.")


def topological_order(parents: list[list[int]]) -> list[int]:
    """Kahn's order of a DAG given as parent lists (ties by index)."""
    indeg = [len(p) for p in parents]
    children: list[list[int]] = [[] for _ in parents]
    for j, pa in enumerate(parents):
        for p in pa:
            children[p].append(j)
    ready = sorted(j for j, k in enumerate(indeg) if k == 0)
    order = []
    while ready:
        v = ready.pop(0)
        order.append(v)
        for c in children[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    if len(order) != len(parents):
        raise DataValidationError("bnlearn: the network's parent sets form a cycle.")
    return order
