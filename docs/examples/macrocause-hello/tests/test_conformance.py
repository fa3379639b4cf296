from macrocause_hello.bins import QuantileBins

from framework.testing.checks import parametrize_with_checks
from framework.testing.manifest import check_manifest


@parametrize_with_checks([QuantileBins(), QuantileBins(n_bins=3)])
def test_conformance(plugin, check):
    check(plugin)


def test_bins_split_at_the_median():
    part = QuantileBins().partition([[1.0], [2.0], [3.0], [4.0]])
    assert part.labels.tolist() == [0, 0, 1, 1]


def test_manifest_equals_the_classes():
    check_manifest("hello")
