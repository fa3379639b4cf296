from typing import Literal

import pytest
from pydantic import Field

from macrocause.framework import ConfigError, Params, Partition, Partitioner


class _P(Params):
    eps: float = Field(0.5, gt=0)
    k: int = Field(3, ge=1, le=10)
    mode: Literal["a", "b"] = "a"


class Toy(Partitioner):
    """A toy partitioner (everything in one cluster)."""

    name = "toy"
    Params = _P

    def _partition(self, data):
        return Partition([0] * data.n_samples)


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"eps": -1.0}, "The 'eps' parameter of toy must be > 0. Got -1.0 instead."),
        ({"k": 11}, "The 'k' parameter of toy must be <= 10. Got 11 instead."),
        ({"k": "many"}, "The 'k' parameter of toy must be an int. Got 'many' instead."),
        ({"mode": "c"}, "The 'mode' parameter of toy must be one of 'a' or 'b'. Got 'c' instead."),
        ({"epsilon": 1}, "toy got an unexpected parameter 'epsilon'. Allowed: eps, k, mode."),
    ],
)
def test_sklearn_style_messages(kw, message):
    with pytest.raises(ConfigError) as err:
        Toy(**kw)
    assert str(err.value).startswith(message)


def test_repr_and_equality():
    assert repr(Toy()) == "Toy()"
    assert repr(Toy(k=4, eps=0.5)) == "Toy(k=4)"
    assert Toy(k=4) == Toy(k=4) != Toy(k=5)
    assert Toy(k=4).with_params(mode="b").get_params() == {"eps": 0.5, "k": 4, "mode": "b"}
