"""Strict numbers in every plugin's parameters (issue 12.6) and bounds that match the
libraries (issue 16.4): no bool for an int or a float, no float for an int, finite floats,
seeds in 0 .. 2**32 - 1."""

import math
from typing import Literal

import numpy as np
import pytest
from pydantic import Field

from macrocause.framework import ConfigError, Params, registry
from macrocause.framework.params import SEED_MAX, _arms, param_table, validate_params


@pytest.mark.parametrize(
    "name, kw, message",
    [
        ("kmeans", {"n_clusters": True}, "The 'n_clusters' parameter of kmeans must be an int. Got True instead."),
        ("kmeans", {"n_clusters": np.True_}, "The 'n_clusters' parameter of kmeans must be an int. Got np.True_ instead."),
        ("kmeans", {"n_clusters": 2.5}, "The 'n_clusters' parameter of kmeans must be an int. Got 2.5 instead."),
        ("kmeans", {"n_clusters": 2.0}, "The 'n_clusters' parameter of kmeans must be an int. Got 2.0 instead."),
        ("kmeans", {"n_clusters": "3"}, "The 'n_clusters' parameter of kmeans must be an int. Got '3' instead."),
        ("kmeans", {"seed": 2**70}, f"The 'seed' parameter of kmeans must be <= {2**32 - 1}. Got {2**70} instead."),
        ("kmeans", {"seed": -1}, "The 'seed' parameter of kmeans must be >= 0. Got -1 instead."),
        ("dbscan", {"eps": math.inf}, "The 'eps' parameter of dbscan must be a finite float. Got inf instead."),
        ("dbscan", {"eps": math.nan}, "The 'eps' parameter of dbscan must be a finite float. Got nan instead."),
        ("dbscan", {"eps": False}, "The 'eps' parameter of dbscan must be a finite float. Got False instead."),
        ("dbscan", {"eps": "0.5"}, "The 'eps' parameter of dbscan must be a finite float. Got '0.5' instead."),
        ("dbscan", {"eps": -1}, "The 'eps' parameter of dbscan must be > 0. Got -1 instead."),
        ("pc", {"max_k": True}, "The 'max_k' parameter of pc must be an int. Got True instead."),
        ("clic", {"n_components": "3"}, "The 'n_components' parameter of clic must be an int or one of ['auto']. Got '3' instead."),
        ("clic", {"n_components": True}, "The 'n_components' parameter of clic must be an int or one of ['auto']. Got True instead."),
        ("fs_protocol", {"n_features": (10, True)}, "The 'n_features' parameter of fs_protocol must hold ints only. Got (10, True) instead."),
        ("fs_protocol", {"n_features": [10, 20.0]}, "The 'n_features' parameter of fs_protocol must hold ints only. Got [10, 20.0] instead."),
    ],
)
def test_strict_numbers_are_refused_with_one_line(name, kw, message):
    with pytest.raises(ConfigError) as err:
        registry.create(name, **kw)
    assert str(err.value) == message


@pytest.mark.parametrize(
    "name, kw, expected",
    [
        ("dbscan", {"eps": 1}, {"eps": 1.0}),  # an int is a fine float
        ("dbscan", {"eps": np.float32(0.25)}, {"eps": 0.25}),
        ("kmeans", {"n_clusters": np.int64(4), "seed": SEED_MAX}, {"n_clusters": 4, "seed": SEED_MAX}),
        ("clic", {"n_components": "auto"}, {"n_components": "auto"}),
        ("clic", {"n_components": 2}, {"n_components": 2}),
        ("pc", {"max_k": None, "stable": False}, {"max_k": None, "stable": False}),
        ("fs_protocol", {"n_features": [10, np.int64(20)]}, {"n_features": (10, 20)}),
    ],
)
def test_good_numbers_are_kept(name, kw, expected):
    params = registry.create(name, **kw).get_params()
    assert {k: params[k] for k in expected} == expected
    assert all(type(params[k]) is type(v) for k, v in expected.items())


def _plugin_fields():
    """(plugin, field, kind) for every int or float parameter of every registered plugin."""
    out = []
    for role in ("partitioner", "scorer", "searcher", "evaluator", "data"):
        for rec in registry.records(role):
            for field, info in rec.cls.Params.model_fields.items():
                arms = _arms(info.annotation)
                if int in arms or float in arms:
                    out.append((rec.name, field, "int" if float not in arms else "float"))
    return out


FIELDS = _plugin_fields()


def test_the_sweep_covers_every_role():
    names = {n for n, _, _ in FIELDS}
    assert {"kmeans", "dbscan", "pc", "cic", "disco", "linear_gaussian"} <= names
    assert len(FIELDS) > 50


@pytest.mark.parametrize("name, field, kind", FIELDS, ids=[f"{n}.{f}" for n, f, _ in FIELDS])
def test_every_number_parameter_refuses_a_bool(name, field, kind):
    cls = registry.get(name)
    what = "an int" if kind == "int" else "a finite float"
    with pytest.raises(ConfigError) as err:
        validate_params(cls.Params, name, {field: True})
    assert f"The {field!r} parameter of {name} must be {what}" in str(err.value)
    if kind == "float":
        with pytest.raises(ConfigError, match=f"The {field!r} parameter of {name} must be a finite float. Got inf"):
            validate_params(cls.Params, name, {field: math.inf})
    else:
        with pytest.raises(ConfigError, match=f"The {field!r} parameter of {name} must be an int"):
            validate_params(cls.Params, name, {field: 1.5})


SEEDED = sorted({n for n, f, _ in FIELDS if f == "seed"})


@pytest.mark.parametrize("name", SEEDED)
def test_every_seed_is_bounded_as_numpy_and_sklearn_need(name):
    cls = registry.get(name)
    with pytest.raises(ConfigError, match=f"The 'seed' parameter of {name} must be <= {SEED_MAX}"):
        validate_params(cls.Params, name, {"seed": SEED_MAX + 1})
    row = next(r for r in param_table(cls.Params) if r["name"] == "seed")
    assert row["bounds"] == {"minimum": 0, "maximum": SEED_MAX}


def test_the_seed_bound_is_the_one_sklearn_enforces():
    from sklearn.utils import check_random_state

    check_random_state(SEED_MAX)
    with pytest.raises(ValueError):
        check_random_state(SEED_MAX + 1)
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    labels = registry.create("kmeans", n_clusters=2, n_init=1, seed=SEED_MAX).partition(X).labels
    assert labels[0] == labels[1] != labels[2] == labels[3]


class _Own(Params):
    """A third party's parameters get the same rules without doing anything."""

    k: int = Field(3, ge=1)
    scale: float | None = None
    how: Literal["x", "y"] | float = "x"
    flag: bool = False


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"k": True}, "The 'k' parameter of own must be an int. Got True instead."),
        ({"scale": True}, "The 'scale' parameter of own must be a finite float. Got True instead."),
        ({"scale": -math.inf}, "The 'scale' parameter of own must be a finite float. Got -inf instead."),
        ({"how": "z"}, "The 'how' parameter of own must be a finite float or one of ['x', 'y']. Got 'z' instead."),
        ({"flag": 2}, "The 'flag' parameter of own must be a bool. Got 2 instead."),
    ],
)
def test_third_party_params_are_strict_too(kw, message):
    with pytest.raises(ConfigError) as err:
        validate_params(_Own, "own", kw)
    assert str(err.value) == message
    assert validate_params(_Own, "own", {"scale": 2, "how": 0.5, "flag": True}).scale == 2.0
