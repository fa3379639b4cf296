"""macrocause.framework.plotting: one plot() for every result type, drawn off-screen with matplotlib only."""

import subprocess
import sys

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, Partition
from macrocause.framework.errors import DataValidationError
from macrocause.framework.plotting import _layout, image_shape, plot, plot_graphs
from macrocause.framework.roles import Evaluation

pytest.importorskip("matplotlib")


def _labels(ax):
    return sorted(t.get_text() for t in ax.texts if type(t).__name__ == "Text")


def _arrows(ax):
    return sorted(a.arrow_patch.get_arrowstyle().__class__.__name__ for a in ax.texts
                  if type(a).__name__ == "Annotation")


def test_importing_plotting_does_not_import_matplotlib():
    code = "import sys, macrocause.framework.plotting, macrocause.framework.display; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_layout_puts_every_directed_edge_downwards():
    g = CausalGraph.from_edges(list("abcd"), directed=[("a", "b"), ("b", "c"), ("a", "d")])
    pos = _layout(g)
    assert all(pos[i][1] > pos[j][1] for i, j in g.directed)
    assert len({pos[i] for i in range(4)}) == 4


def test_cluster_graph_is_drawn_beside_its_expansion(tmp_path):
    g = CausalGraph([["a", "b"], ["c"]], directed=[(0, 1)])
    fig = plot(g, path=tmp_path / "g.png")
    assert [ax.get_title() for ax in fig.axes] == ["cluster graph", "variables"]
    assert _labels(fig.axes[0]) == ["a, b", "c"] and _labels(fig.axes[1]) == ["a", "b", "c"]
    # one arrow in the cluster graph, two (a->c, b->c) in the expansion
    assert [len(_arrows(ax)) for ax in fig.axes] == [1, 2]
    assert (tmp_path / "g.png").stat().st_size > 1000


def test_plain_dag_and_undirected_edges_on_one_axes():
    g = CausalGraph.from_edges(["x", "y", "z"], directed=[("x", "y")], undirected=[("y", "z")])
    fig = plot(g)
    (ax,) = fig.axes
    assert _arrows(ax) == ["Curve", "CurveFilledB"]  # y - z plain, x -> y with a head
    assert _labels(ax) == ["x", "y", "z"]


def test_sample_partition_scatter_one_collection_per_cluster_plus_noise():
    ds = Dataset(np.array([[0, 0], [0, 1], [5, 5], [6, 5], [9, 0.5]]), names=["u", "v"])
    fig = plot(Partition([0, 0, 1, 1, -1]), ds)
    ax = fig.axes[0]
    sizes = [len(c.get_offsets()) for c in ax.collections]
    assert sizes == [1, 2, 2]  # noise first, then clusters 0 and 1
    assert ax.get_xlabel() == "u" and "2 clusters, 1 noise" in ax.get_title()


def test_sample_partition_without_data_shows_sizes():
    ax = plot(Partition([0, 0, 0, 1, -1])).axes[0]
    assert [p.get_height() for p in ax.patches] == [3, 1]


def test_partition_length_must_match_data():
    with pytest.raises(DataValidationError, match="3 labels for 2 samples"):
        plot(Partition([0, 1, 1]), Dataset([[0.0, 1.0], [1.0, 0.0]]))


def test_image_shape_is_inferred_from_pixel_names_only():
    assert image_shape(Dataset(np.zeros((2, 16)) + np.arange(16), names=[f"px{i}" for i in range(16)])) == (4, 4)
    assert image_shape(Dataset(np.zeros((2, 16)) + np.arange(16))) is None
    assert image_shape(Dataset(np.zeros((2, 15)) + np.arange(15), names=[f"px{i}" for i in range(15)])) is None


def test_selection_on_the_image_grid_marks_exactly_the_selected_pixels():
    names = [f"px{i}" for i in range(16)]
    ds = Dataset(np.arange(32.0).reshape(2, 16), names=names)
    sel = Partition(np.ones(16, dtype=int), axis="variables", names=names, info={"selected": [0, 5, 15]})
    ax = plot(sel, ds).axes[0]
    overlay = ax.images[-1].get_array()
    assert overlay.shape == (4, 4)
    assert sorted(np.flatnonzero(~np.ma.getmaskarray(overlay)).tolist()) == [0, 5, 15]
    assert np.allclose(ax.images[0].get_array(), ds.X.mean(axis=0).reshape(4, 4))


def test_selection_without_image_shape_highlights_selected_scores():
    sel = Partition([1, 0, 1], axis="variables", names=["a", "b", "c"],
                    info={"selected": [1], "scores": [0.1, 0.9, 0.3]})
    ax = plot(sel).axes[0]
    heights = [p.get_height() for p in ax.patches]
    assert heights == pytest.approx([0.1, 0.9, 0.3])
    reds = [i for i, p in enumerate(ax.patches) if p.get_facecolor()[0] > 0.8 and p.get_facecolor()[1] < 0.3]
    assert reds == [1]


def test_variable_partition_is_drawn_as_boxes():
    p = Partition([0, 0, 1, -1], axis="variables", names=["a", "b", "c", "d"])
    ax = plot(p).axes[0]
    assert _labels(ax) == ["a, b", "c"] and "1 noise" in ax.get_title()


def test_evaluation_bars_one_per_metric():
    ax = plot(Evaluation(0.7, {"ari": 0.7, "nmi": 0.4})).axes[0]
    assert [p.get_width() for p in ax.patches] == pytest.approx([0.7, 0.4])


def test_plot_on_given_axes_and_side_by_side():
    from macrocause.framework.plotting import pyplot

    fig, ax = pyplot().subplots()
    g = CausalGraph([["a", "b"], ["c"]], directed=[(0, 1)])
    assert plot(g, ax=ax) is fig and len(fig.axes) == 1
    assert len(plot_graphs({"one": g, "two": g.expand()}).axes) == 2


def test_unknown_result_type_is_refused():
    with pytest.raises(DataValidationError, match="got dict"):
        plot({})
