"""The notebook display of the result types: valid, balanced HTML naming what matters."""

import base64
from html.parser import HTMLParser

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, Partition
from macrocause.framework.roles import Evaluation

VOID = {"img", "br", "hr", "meta", "input", "col"}


class _Balance(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.text, self.imgs = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.imgs.append(dict(attrs))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        if tag == "img":
            self.imgs.append(dict(attrs))

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> _Balance:
    p = _Balance()
    p.feed(html)
    p.close()
    assert p.stack == [], f"unclosed tags {p.stack}"
    return p


def test_the_checker_rejects_unbalanced_html():
    with pytest.raises(AssertionError):
        parse("<div><table></div>")
    with pytest.raises(AssertionError):
        parse("<div><p>x</p>")


def test_cluster_graph_html_names_clusters_edges_and_embeds_a_picture():
    g = CausalGraph([["a", "b"], ["c"], ["d"]], directed=[(0, 1)], undirected=[(1, 2)])
    p = parse(g._repr_html_())
    text = " ".join(p.text)
    assert "3 nodes over 4 variables" in text and "1 directed and 1 undirected" in text
    assert "a, b" in text and "->" in text and "--" in text
    (img,) = p.imgs
    svg = base64.b64decode(img["src"].split(",", 1)[1]).decode()
    assert img["src"].startswith("data:image/svg+xml;base64,") and "<svg" in svg


def test_graph_html_escapes_names():
    g = CausalGraph.from_edges(["<x>", "y&z"], directed=[("<x>", "y&z")])
    html = g._repr_html_()
    assert "<x>" not in html and "&lt;x&gt;" in html
    assert "y&amp;z" in html and "y&z" in " ".join(parse(html).text)


def test_partition_html_sizes_noise_and_variables():
    p = Partition([0, 0, 0, 1, -1], axis="variables", names=["a", "b", "c", "d", "e"])
    out = parse(p._repr_html_())
    text = " ".join(out.text)
    assert "2 clusters, 1 noise (20.0%)" in text
    assert "a, b, c" in text and "60.0%" in text  # cluster 0: 3 of 5


def test_selection_html_lists_selected_features_best_first():
    p = Partition([1, 0, 1, 0], axis="variables", names=["p", "q", "r", "s"],
                  info={"selected": np.array([3, 1])})
    text = " ".join(parse(p._repr_html_()).text)
    assert "2 selected features, best first: s, q" in text


def test_evaluation_html_is_a_table_of_metrics():
    ev = Evaluation(0.5, {"disco": 0.5, "disco_noise": 0.25})
    text = " ".join(parse(ev._repr_html_()).text)
    assert "disco" in text and "disco_noise" in text and "0.25" in text and "value 0.5" in text


def test_dataset_html_shape_kinds_states_and_truth():
    ds = Dataset([[0, 1.5], [1, 2.5], [1, 0.5]], names=["u", "v"], target=["lo", "hi", "hi"],
                 truth={"labels": Partition([0, 1, 1])}, name="toy")
    text = " ".join(parse(ds._repr_html_()).text)
    assert "toy: 3 samples x 2 variables" in text
    assert "u discrete 0 .. 1" in text and "v continuous 0.5 .. 2.5" in text
    assert "hi" in text and "lo" in text and "labels" in text and "Partition(3 samples" in text


def test_long_tables_are_cut():
    ds = Dataset(np.zeros((2, 50)) + np.arange(50))
    text = " ".join(parse(ds._repr_html_()).text)
    assert "x19" in text and "x20" not in text and "30 more rows" in text
