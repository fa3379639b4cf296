"""Every hook is documented with its signature (as datasette does), and tested."""

import inspect
from pathlib import Path

from framework import hookspecs

REPO = Path(__file__).resolve().parents[2]


def _hooks():
    return {n: f for n, f in vars(hookspecs).items() if n.startswith("macrocause_") and callable(f)}


def test_every_hook_is_documented_with_its_signature():
    text = (REPO / "docs" / "hooks.md").read_text()
    for name, fn in _hooks().items():
        args = ", ".join(inspect.signature(fn).parameters)
        assert f"`{name}({args})`" in text, f"docs/hooks.md does not document {name}({args})"


def test_every_hook_is_exercised_by_a_test():
    tests = "".join(p.read_text() for p in (REPO / "tests").rglob("*.py"))
    for name in _hooks():
        assert f"def {name}" in tests or f'"{name}"' in tests, f"no test implements {name}"
