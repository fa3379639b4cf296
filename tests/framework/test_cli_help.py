"""Help a user can act on (issue 12.7): examples in every help text that parse and name files
that exist; a header row in `macrocause plugins`."""

import shlex
import shutil
from pathlib import Path

import pytest
import toy_plugins
from click.testing import CliRunner

from macrocause.framework import progress
from macrocause.framework.cli import main

REPO = Path(__file__).resolve().parents[2]
COMMANDS = sorted(main.commands)


def _examples(help_text: str) -> list[list[str]]:
    """The example command lines of a help text, split into argument lists."""
    lines = help_text.split("Examples:", 1)[1].split("\n\n", 1)[0].strip().splitlines()
    out = []
    for line in lines:
        for part in line.split("#", 1)[0].split("&&"):
            args = shlex.split(part)
            assert args[0] == "macrocause", line
            out.append(args[1:])
    return out


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_gives_examples_that_parse(command, monkeypatch):
    monkeypatch.setattr(progress, "set_quiet", lambda quiet=True: None)  # `--quiet` in an example
    res = CliRunner().invoke(main, ([command] if command else []) + ["--help"])
    assert res.exit_code == 0
    examples = _examples(res.output)
    assert 1 <= len(examples) <= (5 if command is None else 2)
    for args in examples:
        assert command is None or args[0] == command
        ctx = main.make_context("macrocause", list(args))
        sub = main.get_command(ctx, args[0])
        sub.make_context(args[0], args[1:], parent=ctx)  # raises on an unknown option or a bad value
        for a in args:
            if a.endswith(".yaml"):
                assert (REPO / a).is_file(), a


def test_main_help_shows_each_command_once_in_its_examples():
    res = CliRunner().invoke(main, ["--help"])
    used = {args[0] for args in _examples(res.output)}
    assert used == set(COMMANDS)


def test_plugins_prints_a_header_row(plugin_registry):
    plugin_registry.register_module(toy_plugins, "toys", "toy-dist")
    res = CliRunner().invoke(main, ["plugins", "--role", "partitioner"])
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert lines[0].split() == ["name", "role", "origin", "summary"]
    row = next(line for line in lines if line.startswith("toy_threshold"))
    assert row.split()[:3] == ["toy_threshold", "partitioner", "toy-dist:toys"]
    # the columns line up under their headings
    for heading, value in (("role", "partitioner"), ("origin", "toy-dist:toys"), ("summary", "Group")):
        assert lines[0].index(heading) == row.index(value)


def test_plugins_json_has_no_header(plugin_registry):
    import json

    plugin_registry.register_module(toy_plugins, "toys", "toy-dist")
    res = CliRunner().invoke(main, ["plugins", "--json"])
    assert set(json.loads(res.output)) == {"plugins", "unavailable"}


def test_the_cli_outputs_are_git_ignored():
    """The default store and `report --out report/` stay out of `git status`."""
    import subprocess

    from macrocause.framework.store import DEFAULT_STORE

    if not (REPO / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    paths = [DEFAULT_STORE, f"{DEFAULT_STORE}-journal", "report/report.md", "examples/report/a.png"]
    res = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=REPO, capture_output=True, text=True)
    assert res.stdout.split() == paths
    # a benchmark's report folder keeps its tables (even one named report/); its pages and figures
    # are generated output
    tables = ["benchmarks/baselines/report/report.csv", "benchmarks/cic/report_growth/results.csv"]
    kept = subprocess.run(["git", "check-ignore", "--no-index", *tables], cwd=REPO, capture_output=True, text=True)
    assert kept.stdout == "" and kept.returncode == 1
    made = ["benchmarks/baselines/report/report.md", "benchmarks/cic/report_growth/report.html",
            "benchmarks/cic/report_growth/growth_cpu.png"]
    res = subprocess.run(["git", "check-ignore", "--no-index", *made], cwd=REPO, capture_output=True, text=True)
    assert res.stdout.split() == made
