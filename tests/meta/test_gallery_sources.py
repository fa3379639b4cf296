"""The gallery prints no stray ``<Figure size ...>`` lines and shows a figure in each thumbnail."""

import re
from pathlib import Path

SOURCES = sorted((Path(__file__).resolve().parents[2] / "docs" / "gallery_src").glob("plot_*.py"))


def test_no_plotting_call_leaves_its_figure_to_be_printed():
    # mkdocs-gallery prints the value of a block's last bare expression: a Figure shows as
    # "<Figure size 400x400 with 1 Axes>"; a plotting call whose value is kept prints nothing
    bare = [f"{p.name}: {line}" for p in SOURCES for line in p.read_text().splitlines()
            if re.match(r"(plot|plot_graphs|plt\.figure|plt\.subplots)\(", line)]
    assert not bare, "bare plotting calls: " + "; ".join(bare)


def test_cic_and_clic_thumbnails_show_the_figure_that_carries_the_point():
    for name in ("plot_cic_cluster_dag.py", "plot_clic_confounder.py"):
        text = next(p for p in SOURCES if p.name == name).read_text()
        assert re.search(r"^# mkdocs_gallery_thumbnail_number = 2$", text, re.M), name
        assert text.count("fig = plot") >= 2, name  # the second figure exists
