"""Every method page starts with use: what it answers, then a ``## Use`` section with a Python
example and the same as a YAML pipeline; every block of that section runs."""

import re
from pathlib import Path

import pytest

from macrocause.framework import Pipeline

PAGES = sorted((Path(__file__).resolve().parents[2] / "docs" / "plugins").glob("*.md"))
_BLOCK = re.compile(r"^```(python|yaml)\n(.*?)^```", re.M | re.S)


def _use_section(text: str) -> str:
    m = re.search(r"^## Use\n(.*?)(?=^## )", text, re.M | re.S)
    return m.group(1) if m else ""


def _blocks():
    for page in PAGES:
        for i, m in enumerate(_BLOCK.finditer(_use_section(page.read_text()))):
            yield pytest.param(m.group(1), m.group(2), id=f"{page.stem}-{i}-{m.group(1)}")


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_page_opens_with_what_it_answers_and_a_use_section(page):
    text = page.read_text()
    body = [line for line in text.splitlines()[1:] if line.strip()]
    assert body[0].startswith("**What it answers:**"), f"{page.name} does not open with what it answers"
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings and headings[0] == "Use", f"{page.name}: the first section is not '## Use'"
    kinds = [m.group(1) for m in _BLOCK.finditer(_use_section(text))]
    assert "python" in kinds and "yaml" in kinds, f"{page.name}: Use needs a Python example and its YAML pipeline"


def test_a_page_without_use_fails_the_check(tmp_path):
    page = tmp_path / "bare.md"
    page.write_text("# Bare\n\nA research log.\n\n## Sweeps\n")
    with pytest.raises(AssertionError, match="does not open with what it answers"):
        test_page_opens_with_what_it_answers_and_a_use_section(page)


@pytest.mark.parametrize("kind, code", list(_blocks()))
def test_every_use_block_runs(kind, code):
    if kind == "python":
        exec(compile(code, "<docs>", "exec"), {"__name__": "docs_example"})
    else:
        result = Pipeline.from_yaml(code).run()
        assert result.ok, [(r.step, r.error) for r in result.records if r.status != "done"]
