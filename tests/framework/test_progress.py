"""Progress bars (issue 12.5): on stderr, on a terminal only, never when quiet; every long
loop of the shipped plugins goes through macrocause.framework.progress."""

import io

import numpy as np
import pytest
from click.testing import CliRunner

from macrocause.framework import progress as P
from macrocause.framework import registry
from macrocause.framework.testing.examples import example_of


@pytest.fixture
def clean_env(monkeypatch):
    monkeypatch.delenv(P.QUIET_ENV, raising=False)
    monkeypatch.delenv(P.FORCE_ENV, raising=False)
    return monkeypatch


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def _loop(**kw):
    return list(P.progress(range(3), "counting", delay=0, **kw))


def test_silent_when_stderr_is_not_a_terminal(clean_env, capsys):
    assert _loop() == [0, 1, 2]
    assert capsys.readouterr().err == ""
    assert not P.enabled()


def test_shown_on_a_terminal(clean_env):
    term = _Terminal()
    clean_env.setattr("sys.stderr", term)
    assert P.enabled() and _loop() == [0, 1, 2]
    assert "counting:" in term.getvalue() and "0/3" in term.getvalue()


def test_quiet_wins_over_terminal_file_and_force(clean_env):
    term = _Terminal()
    clean_env.setattr("sys.stderr", term)
    clean_env.setenv(P.FORCE_ENV, "1")
    P.set_quiet(True)
    buf = io.StringIO()
    assert _loop() == [0, 1, 2] and _loop(file=buf) == [0, 1, 2]
    assert term.getvalue() == "" and buf.getvalue() == ""
    P.set_quiet(False)
    assert not P.is_quiet() and _loop(file=buf) == [0, 1, 2]
    assert "counting" in buf.getvalue()


def test_forced_by_a_file_or_the_environment(clean_env, capsys):
    buf = io.StringIO()
    _loop(file=buf)
    assert "counting" in buf.getvalue()
    clean_env.setenv(P.FORCE_ENV, "1")
    _loop()
    assert "counting" in capsys.readouterr().err


def test_short_loops_print_nothing(clean_env):
    buf = io.StringIO()
    assert list(P.progress(range(3), "short", file=buf, delay=60)) == [0, 1, 2]
    assert buf.getvalue() == ""


@pytest.mark.parametrize("command", ["run", "compare"])
def test_cli_quiet_flag_switches_bars_off(clean_env, monkeypatch, command, tmp_path):
    calls = []
    monkeypatch.setattr(P, "set_quiet", lambda quiet=True: calls.append(quiet))
    from macrocause.framework.cli import main

    res = CliRunner().invoke(main, [command, "--quiet", str(tmp_path / "missing.yaml")])
    assert res.exit_code == 1 and "not found" in res.output
    assert calls == [True]
    res = CliRunner().invoke(main, [command, str(tmp_path / "missing.yaml")])
    assert calls == [True]


def _pc_kci():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(30)
    b = np.tanh(a) + 0.3 * rng.standard_normal(30)
    registry.create("pc", indep_test="kci").search(np.column_stack([a, b]))


def _example(name):
    def run():
        ex = example_of(registry.get(name))
        registry.create(name, **ex.params).partition(ex.data)
    return run


def _rank():
    from macrocause.plugins.clic.rank import estimate_rank

    estimate_rank(np.random.default_rng(0).standard_normal((40, 3)))


def _cafe_auto():
    from macrocause.framework.testing.examples import blobs

    registry.create("cafe_dbscan").partition(blobs(20)[0])


@pytest.mark.parametrize(
    "run, label",
    [
        (_pc_kci, "Depth="),  # causal-learn's own bar, switched on through show_progress
        (_example("clic"), "clic iterations"),
        (_rank, "kernel rank splits"),
        (_example("cause_fs"), "cause_fs iterations"),
        (_example("disco_auto"), "disco_auto grid (dbscan)"),
        (_cafe_auto, "cafe_dbscan automatic grid"),
    ],
    ids=["pc_kci", "clic", "kernel_rank", "cause_fs", "disco_auto", "cafe_dbscan"],
)
def test_long_loops_of_the_plugins_show_progress(clean_env, capsys, run, label):
    clean_env.setattr(P, "DELAY", 0)
    clean_env.setenv(P.FORCE_ENV, "1")
    run()
    assert label in capsys.readouterr().err


def test_quiet_plugins_print_nothing(clean_env, capsys):
    clean_env.setattr(P, "DELAY", 0)
    clean_env.setenv(P.FORCE_ENV, "1")
    clean_env.setenv(P.QUIET_ENV, "1")
    _example("disco_auto")()
    _rank()
    _pc_kci()
    assert capsys.readouterr().err == ""
