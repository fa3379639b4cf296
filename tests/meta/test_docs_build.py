"""CI's docs command fails when the docs are broken.

The command is read from ``.ci/run`` as written and run on a small copy of the docs that
keeps the project's validation settings and markdown extensions: the copy builds, and the same
copy with one broken link fails. (``--quiet`` once hid the warnings that ``--strict`` counts, so
a broken link passed CI.)
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


def _ci_docs_command():
    lines = [ln for ln in (REPO / ".ci" / "run").read_text().splitlines() if re.search(r"\bmkdocs build\b", ln)]
    assert len(lines) == 1, f".ci/run should build the docs once, found {lines}"
    return lines[0]


def _project_config():
    text = (REPO / "mkdocs.yml").read_text()
    return yaml.safe_load(text)


def _small_copy(root: Path, link: str) -> None:
    config = _project_config()
    small = {
        "site_name": "copy",
        "theme": config["theme"],
        "markdown_extensions": config["markdown_extensions"],
        "validation": config["validation"],
        "plugins": ["search"],
        "nav": [{"Home": "index.md"}, {"Other": "other.md"}],
    }
    (root / "docs").mkdir()
    (root / "mkdocs.yml").write_text(yaml.safe_dump(small, sort_keys=False))
    (root / "docs" / "index.md").write_text(f"# Home\n\nSee [the other page]({link}).\n")
    (root / "docs" / "other.md").write_text("# Other\n\n$x^2$\n")


def _run_ci_command(root: Path):
    command = _ci_docs_command()
    env_words, words = {}, shlex.split(command.replace('"$(mktemp -d)/site"', str(root / "site")))
    while "=" in words[0]:
        key, value = words.pop(0).split("=", 1)
        env_words[key] = value
    assert words[:2] == ["mkdocs", "build"], command
    mkdocs = Path(sys.executable).with_name("mkdocs")
    return subprocess.run(
        [str(mkdocs), *words[1:]], cwd=root, env={**os.environ, **env_words}, capture_output=True, text=True, timeout=120
    )


def test_ci_docs_command_hides_no_warnings():
    words = shlex.split(_ci_docs_command())
    assert "--strict" in words
    assert not {"-q", "--quiet"} & set(words), "--quiet hides the warnings --strict counts"


@pytest.mark.skipif(not (Path(sys.executable).with_name("mkdocs")).exists(), reason="mkdocs not installed")
def test_ci_docs_command_fails_on_a_broken_link(tmp_path):
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir()
    bad.mkdir()
    _small_copy(good, "other.md")
    _small_copy(bad, "missing-page.md")
    ok = _run_ci_command(good)
    assert ok.returncode == 0, ok.stderr
    broken = _run_ci_command(bad)
    assert broken.returncode != 0
    assert "missing-page.md" in broken.stderr


def test_the_gallery_is_in_the_nav_and_its_timing_page_excluded_on_purpose():
    config = _project_config()
    assert {"Gallery": "gallery"} in config["nav"]
    assert "mg_execution_times.md" in config["not_in_nav"]
