"""The API reference turns Sphinx roles into cross-references (docs/griffe_roles.py, issue 12.7)."""

import atexit
import importlib.util
import shutil
import tempfile
from pathlib import Path

import pytest

griffe = pytest.importorskip("griffe")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def roles():
    spec = importlib.util.spec_from_file_location("griffe_roles", REPO / "docs" / "griffe_roles.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def framework(roles):
    ext = griffe.load_extensions(roles.SphinxRoles())
    return griffe.load("macrocause.framework", search_paths=[_import_name_path()], extensions=ext, resolve_aliases=False)


def _docstrings(obj):
    if obj.docstring is not None:
        yield obj.path, obj.docstring.value
    for member in obj.members.values():
        if not member.is_alias:
            yield from _docstrings(member)


def test_no_role_is_left_in_any_docstring(framework, roles):
    docs = dict(_docstrings(framework))
    assert len(docs) > 100
    left = {path: roles.ROLE.findall(text) for path, text in docs.items() if roles.ROLE.search(text)}
    assert left == {}


def test_roles_resolve_through_the_scope_of_the_object(framework):
    graph = framework["graph"]["CausalGraph"]
    text = graph.docstring.value + "".join(m.docstring.value for m in graph.members.values()
                                           if not m.is_alias and m.docstring)
    # :meth:`from_causallearn` in a method of CausalGraph resolves to a member of the class
    assert '<autoref identifier="macrocause.framework.graph.CausalGraph.from_causallearn" optional>' in text


@pytest.mark.parametrize(
    "text, expected",
    [
        (":class:`Dataset`", '<autoref identifier="macrocause.framework.data.Dataset" optional><code>Dataset</code></autoref>'),
        (":meth:`~macrocause.framework.roles.Plugin.example`",
         '<autoref identifier="macrocause.framework.roles.Plugin.example" optional><code>example</code></autoref>'),
        (":meth:`Dataset.select`",
         '<autoref identifier="macrocause.framework.data.Dataset.select" optional><code>Dataset.select</code></autoref>'),
        (":class:`ValueError`", '<autoref identifier="ValueError" optional><code>ValueError</code></autoref>'),
        ("no role, `code` and a: colon", "no role, `code` and a: colon"),
    ],
)
def test_convert(framework, roles, text, expected):
    assert roles.convert(framework["roles"]["Plugin"], text) == expected


def _import_name_path() -> str:
    """A folder holding a link named macrocause to the repository root (the package's import name)."""
    tmp = Path(tempfile.mkdtemp(prefix="macrocause-griffe-"))
    (tmp / "macrocause").symlink_to(REPO, target_is_directory=True)
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    return str(tmp)
