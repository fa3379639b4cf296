import types

import pytest

from macrocause.framework import (
    ConfigError,
    DuplicatePluginError,
    Partition,
    Partitioner,
    PluginNotFoundError,
    hookimpl,
    registry,
)


class One(Partitioner):
    """Everything in one cluster."""

    name = "one"

    def _partition(self, data):
        return Partition([0] * data.n_samples)


def _module(*classes, hook="macrocause_register_plugins"):
    mod = types.ModuleType("fake_plugin")

    def impl(register):
        for c in classes:
            register(c)

    setattr(mod, hook, hookimpl(impl))
    return mod


def test_register_create_and_names(plugin_registry):
    plugin_registry.register_module(_module(One), "fake", "fake-dist")
    assert registry.names() == ["one"]
    assert registry.names("partitioner") == ["one"]
    assert registry.names("scorer") == []
    assert registry.records()[0].package == "fake-dist"
    assert registry.create("one").partition([[0.0], [1.0]]).n_clusters == 1


def test_duplicate_names_raise_naming_both_origins(plugin_registry):
    plugin_registry.register_module(_module(One), "first", "dist-a")
    with pytest.raises(DuplicatePluginError, match="by 'first' \\(dist-a.*by 'second' \\(dist-b"):
        plugin_registry.register_module(_module(One), "second", "dist-b")
    assert registry.names() == ["one"]


def test_failing_plugin_is_unavailable_and_breaks_nothing(plugin_registry):
    mod = types.ModuleType("broken")

    @hookimpl
    def macrocause_register_plugins(register):
        raise ImportError("No module named 'exotic_dependency'")

    mod.macrocause_register_plugins = macrocause_register_plugins
    plugin_registry.register_module(mod, "broken", "broken-dist")
    plugin_registry.register_module(_module(One), "fine", "fine-dist")
    assert registry.names() == ["one"]
    (u,) = registry.unavailable()
    assert u.origin == "broken" and "exotic_dependency" in u.reason
    with pytest.raises(PluginNotFoundError, match="It failed to load.*exotic_dependency"):
        registry.create("broken")


def test_unknown_plugin_suggests(plugin_registry):
    plugin_registry.register_module(_module(One), "fake")
    with pytest.raises(PluginNotFoundError, match="Did you mean 'one'"):
        registry.create("onee")
    # a wrong name is also a bad value and a failed lookup, as callers may expect either
    with pytest.raises(ValueError):
        registry.create("onee")
    with pytest.raises(LookupError):
        registry.create("onee")


def test_bad_role_query(plugin_registry):
    with pytest.raises(Exception, match="Unknown role 'widget'"):
        registry.names("widget")


def test_builtin_entry_points_register_contract_names():
    from macrocause.framework.registry import Registry

    reg = Registry()
    contract = {
        "partitioner": {"dbscan"},
    }
    for role, names in contract.items():
        assert names <= set(reg.names(role))
    with pytest.raises(ConfigError, match="The 'eps' parameter of dbscan must be > 0. Got -1.0 instead."):
        reg.create("dbscan", eps=-1.0)


def test_load_data_refuses_a_plugin_that_is_not_a_data_source():
    from macrocause.framework import PluginError

    with pytest.raises(PluginError, match="'dbscan' is a partitioner, not a data source"):
        registry.load_data("dbscan")


# -- entry points with a manifest: listed without import, imported on first use ------------

_PKG = '''
from macrocause.framework import Partition, Partitioner, hookimpl


class Half(Partitioner):
    """First half and second half."""

    name = "half"
    requires = ("{needed}",)

    def _partition(self, data):
        n = data.n_samples
        return Partition([0] * (n // 2) + [1] * (n - n // 2))


@hookimpl
def macrocause_register_plugins(register):
    register(Half)
'''

_MANIFEST = """schema_version: 1
plugins:
  - {{name: half, role: partitioner, entry_point: halves, class: '{module}:Half',
     summary: First half and second half., axis: samples, requires: [{needed}]}}
"""


def _manifest_package(tmp_path, monkeypatch, module, needed="one", manifest_class=None):
    from importlib.metadata import EntryPoint

    import macrocause.framework.registry as reg_module

    pkg = tmp_path / module
    pkg.mkdir()
    (pkg / "__init__.py").write_text(_PKG.format(needed=needed))
    (pkg / "registry.yaml").write_text(_MANIFEST.format(module=manifest_class or module, needed=needed))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(reg_module, "entry_points",
                        lambda group: [EntryPoint("halves", module, group)])


def test_a_manifest_lists_plugins_and_the_module_is_imported_on_first_use(tmp_path, monkeypatch):
    import sys

    from macrocause.framework.registry import Registry

    _manifest_package(tmp_path, monkeypatch, "mc_halves_lazy")
    reg = Registry(autoload=False)
    reg.register_module(_module(One), "fake", "fake-dist")
    reg.load_entry_points()
    assert reg.names() == ["half", "one"] and "mc_halves_lazy" not in sys.modules
    rec = reg.record("half")
    assert (rec.summary, rec.axis, rec.requires, rec.loaded) == ("First half and second half.", "samples", ("one",), False)
    assert "mc_halves_lazy" not in sys.modules
    assert reg.create("half").partition([[0.0]] * 5).labels.tolist() == [0, 0, 1, 1, 1]
    assert "mc_halves_lazy" in sys.modules and rec.loaded


def test_a_missing_required_plugin_makes_its_dependant_unavailable(tmp_path, monkeypatch):
    from macrocause.framework.registry import Registry

    _manifest_package(tmp_path, monkeypatch, "mc_halves_needy", needed="nowhere")
    reg = Registry(autoload=False)
    reg.load_entry_points()
    reg._check_requires()
    assert reg.names() == []
    (u,) = reg.unavailable()
    assert (u.origin, u.names, u.reason) == ("halves", ("half",), "half needs 'nowhere' (not installed).")
    with pytest.raises(PluginNotFoundError, match=r"It failed to load: half needs 'nowhere' \(not installed\)"):
        reg.create("half")


def test_a_manifest_that_does_not_match_its_module_is_refused_on_use(tmp_path, monkeypatch):
    import macrocause.framework.registry as reg_module
    from macrocause.framework import PluginError
    from macrocause.framework.registry import Registry

    _manifest_package(tmp_path, monkeypatch, "mc_halves_wrong", manifest_class="mc_halves_wrong.other")
    reg = Registry(autoload=False)
    reg.register_module(_module(One), "fake", "fake-dist")
    reg.load_entry_points()
    with pytest.raises(PluginError, match=r"does not register 'half' as its manifest says "
                                          r"\(mc_halves_wrong.other:Half\); run `macrocause plugins --check`"):
        reg.create("half")
    (ep,) = reg_module.entry_points("macrocause")
    assert [line.split(": ", 1)[1] for line in reg.check_manifest(ep)] == [
        "half: class is 'mc_halves_wrong.other:Half' in the manifest, 'mc_halves_wrong:Half' in the class"
    ]


def test_a_plugin_module_that_fails_on_first_use_fails_the_same_way_again(tmp_path, monkeypatch):
    from macrocause.framework import PluginError
    from macrocause.framework.registry import Registry

    _manifest_package(tmp_path, monkeypatch, "mc_halves_broken")
    (tmp_path / "mc_halves_broken" / "__init__.py").write_text("raise ImportError('no exotic_dependency')\n")
    reg = Registry(autoload=False)
    reg.register_module(_module(One), "fake", "fake-dist")
    reg.load_entry_points()
    for _ in range(2):
        with pytest.raises(PluginError, match=r'^Error importing plugin "halves": ImportError: no exotic_dependency$'):
            reg.create("half")
