from macrocause_hello.balance import BinBalance
from macrocause_hello.bins import QuantileBins

from macrocause.framework.testing.checks import parametrize_with_checks
from macrocause.framework.testing.manifest import check_manifest


@parametrize_with_checks([QuantileBins(), QuantileBins(n_bins=3), BinBalance()])
def test_conformance(plugin, check):
    check(plugin)


def test_bins_split_at_the_median():
    part = QuantileBins().partition([[1.0], [2.0], [3.0], [4.0]])
    assert part.labels.tolist() == [0, 0, 1, 1]


def test_balance_of_three_and_one():
    ev = BinBalance().evaluate([[0.0]] * 4, [0, 0, 0, 1])
    assert ev.value == 1 / 3 and ev.metrics["size_cv"] == 0.5 and ev.metrics["n_groups"] == 2


def test_manifest_equals_the_classes():
    check_manifest("hello")
