"""The ``macrocause`` command line: plugins, describe, run, compare, report.

Every command exits with status 1 and one line on bad input; ``--debug``
shows the traceback instead.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .errors import MacrocauseError

MAX_MESSAGE = 600  # characters of an error line


class _Group(click.Group):
    """Turns expected errors into one line and exit status 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except Exception as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            expected = isinstance(exc, MacrocauseError | FileNotFoundError | ValueError | OSError)
            prefix = "Error" if expected else f"Unexpected error ({type(exc).__name__}; rerun with --debug)"
            msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if len(msg) > MAX_MESSAGE:
                msg = f"{msg[:MAX_MESSAGE]} ... [{len(msg) - MAX_MESSAGE:,} characters cut]"
            click.echo(f"{prefix}: {msg}", err=True)
            ctx.exit(1)


def _set_quiet(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        from .progress import set_quiet

        set_quiet(True)


_quiet = click.option("--quiet", "-q", is_flag=True, expose_value=False, callback=_set_quiet,
                      help="No progress bars (same as MACROCAUSE_QUIET=1).")


@click.group(cls=_Group)
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.version_option(package_name="macrocause")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """macrocause: causal discovery at the level of groups.

    \b
    Examples:
      macrocause plugins --role partitioner    # what is installed
      macrocause describe dbscan               # a plugin's parameters and paper
      macrocause run examples/quickstart.yaml  # one pipeline, results side by side
      macrocause compare examples/grid.yaml && macrocause report
    """
    ctx.ensure_object(dict)["debug"] = debug


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--role", type=click.Choice(["partitioner", "scorer", "searcher", "evaluator", "data"]),
              default=None, help="Only plugins of this role.")
@click.option("--check", is_flag=True,
              help="Import every plugin package and check its registry.yaml equals what its classes declare.")
def plugins(as_json: bool, role: str | None, check: bool) -> None:
    """List every registered plugin: name, role, origin package, summary.

    The list is read from the packages' manifests (registry.yaml) without importing
    the plugins; --check imports them and exits 1 on any difference.

    \b
    Examples:
      macrocause plugins --role evaluator --json
      macrocause plugins --check
    """
    from . import registry

    if check:
        problems = registry.get_registry().check_manifests()
        for line in problems:
            click.echo(line)
        if problems:
            raise click.exceptions.Exit(1)
        click.echo("Every manifest equals what its classes declare.")
        return
    recs = registry.records(role) if role else registry.records() + registry.records("data")
    rows = [{"name": r.name, "role": r.role, "origin": r.origin, "package": r.package, "summary": r.summary}
            for r in recs]
    broken = [{"origin": u.origin, "package": u.package, "reason": u.reason} for u in registry.unavailable()]
    if as_json:
        click.echo(json.dumps({"plugins": rows, "unavailable": broken}, indent=2))
        return
    width = max((len(r["name"]) for r in rows), default=4)
    origins = [f"{r['package']}:{r['origin']}" for r in rows]
    w_origin = max((len(o) for o in origins), default=6)
    click.echo(f"{'name':<{width}}  {'role':<11}  {'origin':<{w_origin}}  summary")
    for r, origin in zip(rows, origins):
        click.echo(f"{r['name']:<{width}}  {r['role']:<11}  {origin:<{w_origin}}  {r['summary']}")
    for u in broken:
        click.echo(f"unavailable: {u['origin']} ({u['package']}): {u['reason']}")


@main.command()
@click.argument("name")
def describe(name: str) -> None:
    """Show a plugin's catalogue entry, its parameters (defaults, bounds, docs) and its paper.

    \b
    Examples:
      macrocause describe kmeans
      macrocause describe cafe_dbscan
    """
    import inspect

    from . import registry
    from .params import param_table

    rec = registry.get_registry().record(name)
    click.echo(f"{rec.name} ({rec.role}, from {rec.package}:{rec.origin})")
    if rec.axis:
        click.echo(f"partitions: {rec.axis}")
    if rec.needs:
        click.echo(f"needs: {', '.join(rec.needs)}")
    if rec.requires:
        click.echo(f"requires: {', '.join(rec.requires)}")
    cls = rec.cls  # the parameters and the docstring live in the class: imports its module
    click.echo("")
    click.echo(inspect.getdoc(cls) or "")
    if rec.paper:
        click.echo(f"\nPaper: {rec.paper}")
    click.echo("\nParameters:")
    rows = param_table(cls.Params)
    if not rows:
        click.echo("  (none)")
    for p in rows:
        bounds = ", ".join(f"{k}={v}" for k, v in p["bounds"].items())
        default = "required" if p["required"] else f"default {p['default']!r}"
        click.echo(f"  {p['name']}: {p['type']}, {default}" + (f" [{bounds}]" if bounds else ""))
        if p["description"]:
            click.echo(f"      {p['description']}")


@main.command()
@_quiet
@click.argument("pipeline", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--data", "data", default=None, metavar="SOURCE[:k=v,...]",
              help="Run on this data source (e.g. discrete_bn:n_variables=6,n_samples=1000), "
              "in place of the pipeline's 'data'.")
@click.option("--store", "store_path", default="macrocause-results.db", show_default=True,
              help="SQLite results store.")
@click.option("--no-store", is_flag=True, help="Do not store the run.")
@click.option("--seed", type=int, default=None, help="Override the pipeline's seed.")
@click.option("--set", "sets", multiple=True, metavar="STEP.PARAM=VALUE", help="Override a parameter.")
def run(pipeline: Path, data: str | None, store_path: str, no_store: bool, seed: int | None,
        sets: tuple[str, ...]) -> None:
    """Run one pipeline; print its results side by side and store the run.

    \b
    Examples:
      macrocause run examples/quickstart.yaml
      macrocause run examples/pc_vs_hill_climb.yaml --data discrete_bn:n_variables=6 --seed 2 --no-store
    """
    from .errors import speaking

    with speaking("yaml"):
        _run(pipeline, data, store_path, no_store, seed, sets)


def _run(pipeline: Path, data: str | None, store_path: str, no_store: bool, seed: int | None,
         sets: tuple[str, ...]) -> None:
    from .compare import Task, run_task
    from .pipeline import NO_DATA, Pipeline, data_option
    from .pipeline.yaml_io import parse_sets
    from .store import ResultStore

    pipe = Pipeline.from_yaml(pipeline)
    if sets:
        pipe = pipe.with_overrides(parse_sets(sets))
    if seed is not None:
        pipe = pipe.with_seed(seed)
    if data is not None:
        pipe = pipe.with_data(data_option(data))
    if pipe.sweep:
        raise MacrocauseError("This pipeline has a 'sweep': run it with `macrocause compare` on a grid.")
    if pipe.data is None:
        raise MacrocauseError(f"{pipeline}: {NO_DATA}.")
    task = Task(pipe)
    click.echo(f"Running {pipe.name} on {pipe.data.label()} (seed {pipe.seed}) ...", err=True)
    outcome = run_task(task)
    before_steps = [r for r in outcome.records if r["step"] == "<run>"]
    if not before_steps:  # a run that failed before its first step (reading its data) has no steps to show
        _print_outcome(outcome)
    if not no_store:
        with ResultStore(store_path) as store:
            store.write_run(outcome.key, outcome.records, pipeline=outcome.pipeline, seed=outcome.seed,
                            data_label=outcome.data_label, source=outcome.source,
                            source_params=outcome.source_params)
        click.echo(f"Stored in {store_path}.", err=True)
    if outcome.status != "done":
        bad = next(r for r in outcome.records if r["status"] != "done")
        if bad["step"] == "<run>":
            raise MacrocauseError(_without_type(bad["error"]))
        raise MacrocauseError(f"step {bad['step']!r} {bad['status']}: {_without_type(bad['error'])}")


def _without_type(error: str) -> str:
    """A stored error without the ``DataValidationError: `` its record starts with (one of ours)."""
    import re

    return re.sub(r"^(?:\w+Error|MacrocauseError): ", "", error or "", count=1)


def _print_outcome(outcome) -> None:
    from .pipeline.summary import format_records

    click.echo(format_records(outcome.records))


@main.command()
@_quiet
@click.argument("grid", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--store", "store_path", default="macrocause-results.db", show_default=True)
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@click.option("--address", default=None, help="Dask scheduler address (default: a local 2-worker cluster).")
@click.option("--n-jobs", type=int, default=1, show_default=True, help="Worker processes (local executor).")
@click.option("--retry-failed", is_flag=True, help="Run failed and timed-out runs again.")
@click.option("--rerun-stale", is_flag=True,
              help="Run again (and replace) stored runs whose plugins now resolve to other parameter values.")
def compare(grid: Path, store_path: str, executor: str, address: str | None, n_jobs: int,
            retry_failed: bool, rerun_stale: bool) -> None:
    """Run a grid (data sources x pipelines x seeds); runs already stored are skipped.

    \b
    Examples:
      macrocause compare examples/grid.yaml
      macrocause compare examples/grid.yaml --n-jobs 2 --store grid.db --quiet --retry-failed
    """
    from .compare import Grid
    from .compare import compare as run_grid
    from .errors import speaking
    from .pipeline.yaml_io import check_kind, load_yaml, read_yaml_source
    from .store import ResultStore

    with speaking("yaml"):
        check_kind(load_yaml(*read_yaml_source(grid, "Grid")[::2]), str(grid), "grid")
        spec, base = Grid.from_yaml(grid)
    with speaking("yaml"), ResultStore(store_path) as store:
        counts = run_grid(spec, store, base=base, executor=executor, n_jobs=n_jobs, address=address,
                          retry_failed=retry_failed, rerun_stale=rerun_stale)
    click.echo(
        f"{counts['total']} runs: {counts['skipped']} already stored, {counts['done']} done, "
        f"{counts['failed']} failed, {counts['timeout']} timed out. Store: {store_path}"
    )


@main.command()
@click.option("--store", "store_path", default="macrocause-results.db", show_default=True)
@click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False, path_type=Path),
              help="Write report.md, report.html, CSV files and one PNG per metric here.")
@click.option("--grid", "grid_name", default=None, metavar="NAME|FILE",
              help="The grid to report (default: the latest); a grid file (.yaml) reports only the runs it "
                   "names now (entries since removed or changed are left out).")
@click.option("--metrics", default=None, metavar="A,B",
              help="Metrics to report (default: the evaluators' values and time); timings: time, cpu, "
                   "memory, and time@E, cpu@E, memory@E of evaluator E.")
@click.option("--baselines", default=None, metavar="A,B",
              help="Plugins, step ids or methods the paired tests compare every method with (default: the grid "
                   "file's baselines: with --grid FILE.yaml, else the plugins that declare themselves baselines).")
@click.option("--peer", default=None, metavar="METHOD",
              help="Add each timing relative to this method (or evaluator E, with time@E in --metrics).")
@click.option("--growth", default=None, metavar="PARAM",
              help="Add timings against this data-source parameter (or n, d: the data's shape), log-log, "
                   "with growth exponents.")
@click.option("--correlate", default=None, metavar="METRIC",
              help="Add, per dataset, the Pearson and Spearman correlation of every other reported metric "
                   "with METRIC over the runs (e.g. internal scores against ari).")
@click.option("--select-among", default=None, metavar="PLUGIN",
              help="Add a leave-one-dataset-out choice among PLUGIN's settings (e.g. the cells of a sweep): "
                   "each dataset gets the setting with the best average rank on the others, judged "
                   "against the baselines.")
@click.option("--select-by", default=None, metavar="A,B",
              help="Metrics whose sum (each signed: larger is better) ranks the settings (default: the "
                   "reported metrics but timings).")
@click.option("--margins", default=None, metavar="A,B",
              help="Add, per dataset, each method's gain over each baseline in these reported metrics "
                   "(signed: positive = better) over the seeds both have: mean, worst, and on how many "
                   "seeds it is at least as good.")
@click.option("--plugins", "plugin_files", multiple=True, metavar="FILE",
              type=click.Path(dir_okay=False, path_type=Path),
              help="A plugin file (.py) to import, e.g. a grid's evaluator; repeatable. report imports "
                   "nothing else: not the files a store or a grid's plugins: name.")
def report(store_path: str, out_dir: Path | None, grid_name: str | None, metrics: str | None,
           baselines: str | None, peer: str | None, growth: str | None, correlate: str | None,
           select_among: str | None, select_by: str | None, margins: str | None,
           plugin_files: tuple[Path, ...]) -> None:
    """Tables (methods x datasets per metric, mean ± sd over seeds), ranks and paired tests.

    With --out: also report.html (linking its figures), CSV files and one PNG per metric.

    \b
    Examples:
      macrocause report --store grid.db --grid quickstart --out report/
      macrocause report --metrics ari,time,cpu --peer dbscan --margins ari --growth n_samples --select-among cafe_dbscan
    """
    from .atomic import atomic_folder
    from .report import build_report, markdown, write_files
    from .store import ResultStore

    if not Path(store_path).is_file():
        raise MacrocauseError(f"No results store at {store_path}; run `macrocause run` or `compare` first.")
    if plugin_files:
        from . import registry

        registry.load_files(plugin_files)
    with ResultStore(store_path, readonly=True) as store:
        shown, keys, named = _grid_runs(store, grid_name)
        opts = {"baselines": _names(baselines) if baselines else named, "metrics": _names(metrics) if metrics else None,
                "peer": peer, "correlate": correlate, "select_among": select_among,
                "select_by": _names(select_by) if select_by else None,
                "margins": _names(margins) if margins else None}
        rep = build_report(store.results(shown, keys), shown, growth=growth, **opts)
        click.echo(markdown(rep))
        if out_dir is not None:
            # a report folder written before markers existed holds only these
            with atomic_folder(out_dir, legacy=("report.md", "report.html", "*.csv", "*.png")) as tmp:
                files = write_files(rep, tmp)
            click.echo(f"Wrote {len(files)} files to {out_dir} (open report.html).", err=True)


def _grid_runs(store, grid: str | None) -> tuple[str | None, set[str] | None, list[str] | None]:
    """The grid name to report and, when *grid* is a grid file, the run keys it names now and
    the baselines it names (None when it names none)."""
    if grid is None or not grid.endswith((".yaml", ".yml")):
        shown = grid or (store.grids() or [None])[-1]
        click.echo(f"Grid {shown!r}." if shown else "Single runs (the store holds no grid).", err=True)
        return shown, None, None
    from .compare import Grid

    spec, base = Grid.from_yaml(grid)
    try:
        keys = {t.key for t in spec.tasks(base, load_plugins=False)}
    except MacrocauseError as exc:
        if not spec.plugins:
            raise
        raise MacrocauseError(f"{exc} (report does not import the grid's plugins: files; "
                              "name them with --plugins FILE)") from None
    stored = {r["run_key"] for r in store.results(spec.name)}
    if not keys & stored:
        raise MacrocauseError(f"None of the {len(keys)} runs {grid} names is in {store.path}; "
                              f"run `macrocause compare {grid} --store {store.path}` first.")
    click.echo(f"Grid {spec.name!r} as {grid} names it: {len(keys & stored)} of its {len(keys)} runs stored; "
               f"{len(stored - keys)} other stored runs of the grid left out.", err=True)
    return spec.name, keys, spec.baselines or None


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
