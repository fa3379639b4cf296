import json
import re

import pytest
import toy_plugins
from click.testing import CliRunner

from macrocause.framework.cli import main


@pytest.fixture
def toys(plugin_registry):
    plugin_registry.register_module(toy_plugins, "toys", "toy-dist")
    return plugin_registry


def _run(*args):
    return CliRunner().invoke(main, list(args))


def test_plugins_json_lists_origin_and_summary(toys):
    res = _run("plugins", "--json")
    assert res.exit_code == 0
    data = json.loads(res.output)
    rows = {r["name"]: r for r in data["plugins"]}
    assert rows["toy_threshold"] == {
        "name": "toy_threshold", "role": "partitioner", "origin": "toys", "package": "toy-dist",
        "summary": "Group samples by the sign of one column.",
    }
    assert rows["toy_source"]["role"] == "data"


def test_describe_shows_params(toys):
    res = _run("describe", "toy_threshold")
    assert res.exit_code == 0
    assert "column: int, default 0 [minimum=0]" in res.output


def test_run_prints_and_stores(toys, tmp_path):
    (tmp_path / "p.yaml").write_text(
        "data: {source: toy_source}\nsteps:\n  - {id: s, partition: toy_threshold}\n"
        "  - {evaluate: toy_agreement, on: s}\n"
    )
    db = tmp_path / "r.db"
    res = _run("run", str(tmp_path / "p.yaml"), "--store", str(db), "--set", "s.column=1")
    assert res.exit_code == 0, res.output
    assert "toy_agreement" in res.output
    assert re.search(r"outputs:\n  s +2 clusters of sizes \[", res.output)
    res = _run("report", "--store", str(db), "--out", str(tmp_path / "rep"))
    assert res.exit_code == 0 and "### toy_agreement" in res.output
    assert (tmp_path / "rep" / "report.md").exists()


@pytest.mark.parametrize(
    "args, files, message",
    [
        (["run", "missing.yaml"], {}, "Error: Pipeline file not found: missing.yaml"),
        (["run", "p.yaml"], {"p.yaml": "steps: [\n"}, "Error: p.yaml: invalid YAML"),
        (["run", "p.yaml"], {"p.yaml": "data: {source: toy_source}\nsteps: [{partition: nope}]\n"},
         "Error: step 1 ('nope'): Unknown plugin 'nope'"),
        (["run", "p.yaml"],
         {"p.yaml": "data: {source: toy_source}\nsteps: [{partition: toy_threshold, params: {column: -2}}]\n"},
         "Error: step 1 ('toy_threshold'): The 'column' parameter of toy_threshold must be >= 0. Got -2 instead."),
        (["describe", "nope"], {}, "Error: Unknown plugin 'nope'."),
        (["compare", "g.yaml"], {"g.yaml": "data: [{source: toy_source}]\n"}, "Error: Invalid grid: pipelines: Field required."),
        (["report", "--store", "none.db"], {}, "Error: No results store at none.db"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(toys, tmp_path, monkeypatch, args, files, message):
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    res = _run(*args)
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert lines[-1].startswith(message), res.output
    assert "Traceback" not in res.output


def test_debug_shows_the_traceback(toys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = _run("--debug", "run", "missing.yaml")
    assert res.exit_code == 1 and res.exception is not None
