"""The `exportguard` commands: parse, call, print. cli.py's group loads this module only when a
command is run or asked for, and each command imports the heavy libraries it uses inside itself, so
that `exportguard --help` starts fast."""
from __future__ import annotations

import sys
import time

import click

WAIT_DEFAULT_S = 300.0  # = store.DEFAULT_WAIT_S (a test keeps them equal; importing store here would slow --help)

# Choices match in any case ("offline" is Offline); the model, submitter and accelerator too (store.py).

FILTER_OPTIONS = [
    click.option("--round", "round_", multiple=True, help="Round, e.g. v5.1 (repeatable)."),
    click.option("--division", multiple=True, type=click.Choice(["closed", "open", "n/a"], case_sensitive=False),
                 help="Division."),
    click.option("--model", multiple=True, help="Model, e.g. llama2-70b (any case)."),
    click.option("--track", "accuracy_track", multiple=True, help="Accuracy track: 99 or 99.9."),
    click.option("--scenario", multiple=True, type=click.Choice(["Offline", "Server", "Interactive"], case_sensitive=False),
                 help="Scenario (any case)."),
    click.option("--submitter", multiple=True, help="Submitter (any case)."),
    click.option("--accelerator", multiple=True, metavar="TEXT",
                 help="Part of the accelerator's name, any case: --accelerator h200 selects every H200 system."),
    click.option("--accelerator-count", "accelerator_count", multiple=True, type=click.IntRange(min=0), metavar="N",
                 help="Total accelerators of the system, e.g. 8: a comparison at one scale."),
    click.option("--availability", multiple=True, type=click.Choice(["available", "preview", "rdi", "n/a"],
                                                                    case_sensitive=False),
                 help="MLCommons availability category: available, preview, rdi (research, development, internal); "
                      "n/a for own runs."),
    click.option("--verified", multiple=True, type=click.Choice(["verified", "unverified"], case_sensitive=False),
                 help="verified: published by MLCommons with a result ID; unverified: not (yet) matched to a "
                      "published result, or your own."),
    click.option("--unit", multiple=True, type=click.Choice(["tokens/s", "samples/s", "queries/s"], case_sensitive=False),
                 help="Unit of the figures."),
    click.option("--mlperf/--non-mlperf", "mlperf", default=None,
                 help="Only MLPerf results, or only your own (non-MLPerf) results."),
]
FILTER_NAMES = ("division", "model", "accuracy_track", "scenario", "submitter", "accelerator", "accelerator_count",
                "availability", "verified", "unit", "mlperf")


def filter_options(fn):
    for option in reversed(FILTER_OPTIONS):
        fn = option(fn)
    return fn


def _db_after_command(ctx, _param, value):
    if value:
        ctx.ensure_object(dict)["db"] = value
    return value


# --db is accepted before the command (exportguard --db URL list) and after it (exportguard list --db URL).
db_option = click.option("--db", "db_here", metavar="URL", expose_value=False, callback=_db_after_command,
                         is_eager=True, help="Store URL (as before the command); overrides EXPORTGUARD_DB.")


# name -> command, for cli.py's group, which loads this module when a command is run or asked for
BY_NAME: dict[str, click.Command] = {}


def command(name: str | None = None, db: bool = True, group: bool = False):
    """A subcommand of `exportguard`, which also takes --db after its name (``db``)."""
    def decorate(fn):
        made = (click.group if group else click.command)(name)(db_option(fn) if db else fn)
        BY_NAME[made.name] = made
        return made
    return decorate


def _filters(kwargs) -> dict:
    return {"round": kwargs.pop("round_"), **{k: kwargs.pop(k) for k in FILTER_NAMES}}


wait_option = click.option(
    "--wait", "wait_s", type=click.FloatRange(min=0), default=WAIT_DEFAULT_S, show_default=True, metavar="SECONDS",
    help="How long to wait for another writer (an ingest into the same store, an export into the same folder) "
         "before giving up; 0: do not wait.")



def _open(ctx, create: bool = False, wait_s: float = WAIT_DEFAULT_S, upgrade: bool = False):
    """The store; only the commands that write it may create it (a mistyped --db for a read is an
    error, not a new empty store). A store of an older schema is upgraded first only where the user
    opted in (``upgrade``: --upgrade, or EXPORTGUARD_AUTO_UPGRADE=1); else the error says how."""
    from .api import open_store
    from .errors import StoreError
    from .store import StoreOutdated

    try:
        try:
            return open_store(ctx.obj["db"], create=create, wait_s=wait_s, tell=_tell)
        except StoreOutdated:
            if not (upgrade or _auto_upgrade()):
                raise
        _upgrade_store(ctx, wait_s)
        return open_store(ctx.obj["db"], create=create, wait_s=wait_s, tell=_tell)
    except StoreError as e:
        raise click.ClickException(_safe(e)) from None


def _auto_upgrade() -> bool:
    import os

    return os.environ.get("EXPORTGUARD_AUTO_UPGRADE", "").strip().lower() in ("1", "true", "yes")


upgrade_option = click.option(
    "--upgrade", is_flag=True,
    help="Upgrade a store of an older exportguard first (as `exportguard store upgrade`); env "
         "EXPORTGUARD_AUTO_UPGRADE=1 does the same. Without it such a store is refused, saying so.")


# What own load-test files do not record, stated on the command line (over a --system description).
SYSTEM_OPTIONS = [
    click.option("--system", "system_file", type=click.Path(exists=True, dir_okay=False),
                 help="Own runs: a TOML system description (measured_by, system_name, accelerator, "
                      "accelerators_per_node, nodes, framework, server_settings, ...); see docs/own-traffic.md."),
    click.option("--measured-by", help="Own runs: who measured them."),
    click.option("--system-name", help="Own runs: the system they ran on (also its ID)."),
    click.option("--accelerator", help="Own runs: the accelerator."),
    click.option("--accelerators", "accelerators_per_node", type=click.IntRange(min=0),
                 help="Own runs: accelerators per node."),
    click.option("--nodes", type=click.IntRange(min=1), help="Own runs: nodes."),
    click.option("--framework", help="Own runs: serving framework and its version."),
    click.option("--server-settings", help="Own runs: the server's settings."),
    click.option("--model", "own_model", help="Own runs: the model, for files that name none (SGLang)."),
]


def system_options(fn):
    for option in reversed(SYSTEM_OPTIONS):
        fn = option(fn)
    return fn


def _tell(text: str) -> None:
    _say(text, err=True)


def _existing(_ctx, param, paths):
    """Each path exists; a symlink loop or a dangling link is said as what it is, not "does not exist"."""
    import errno
    import os

    for path in paths:
        try:
            os.stat(path)
        except OSError as e:
            why = ("is a symbolic link loop (too many levels of symbolic links)" if e.errno == errno.ELOOP else
                   "is a symbolic link to nothing (its target does not exist)" if os.path.islink(path) else
                   "does not exist" if e.errno == errno.ENOENT else f"cannot be looked at: {e.strerror}")
            raise click.BadParameter(f"{visible(path)!r} {why}", param=param)
    return paths


@command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(), callback=_existing)
@click.option("--retrieved", metavar="YYYY-MM-DD", help="Retrieval date to record (default: the files' date).")
@click.option("--round", "round_", metavar="vX.Y", help="Round of a submission tree with no vX.Y folder above it.")
@click.option("--json", "as_json", is_flag=True, help="Print the per-source reports as JSON.")
@system_options
@wait_option
@upgrade_option
@click.pass_context
def ingest(ctx, paths, retrieved, round_, as_json, system_file, own_model, wait_s, upgrade, **stated):
    """Ingest MLCommons submission trees, summary_results.json tables, exportguard CSV files and the
    result files of load-test tools (vLLM, SGLang, GenAI-Perf, AIPerf, guidellm, llmperf) as own runs.

    A folder stands for every source under it: an MLCommons tree, and each file read by content; the
    files a tool writes beside its results, and files that are no results, are skipped by rule and counted.

    Exit status: 0 when every source has rows in the store, or was skipped by rule while another stored
    rows; 1 when one stored nothing (said on stderr)."""
    system = _system(system_file, model=own_model, **stated)
    reports = _ingest(ctx, paths, retrieved, round_, quiet=as_json, system=system, wait_s=wait_s, upgrade=upgrade)
    if as_json:
        _echo_json([_report_dict(r) for r in reports])
    some_stored = any(r.stored for r in reports)
    empty = [(r.source.path, r.nothing_stored()) for r in reports if r.nothing_stored()
             and not (some_stored and r.rows_read and r.skipped == r.rows_read)]
    for path, why in empty:
        _say(f"Error: {path}: {why}", err=True)
    if empty:
        sys.exit(1)


def _system(path, **stated):
    """The system description of own runs: the file's, with the options given on top."""
    from .api import ArgumentError, describe_system
    from .errors import SourceError

    try:
        return describe_system(path, **stated)
    except (SourceError, ArgumentError) as e:  # the file's, or an option's ('--measured-by ""')
        raise click.ClickException(_safe(e)) from None


def _ingest(ctx, paths, retrieved, round_, quiet=False, system=None, wait_s=WAIT_DEFAULT_S, upgrade=False):
    """api.ingest_sources, with a progress line per source on a terminal, each report printed as it
    comes, and what a stop would leave kept up to date."""
    from .api import ArgumentError, ingest_sources
    from .errors import SourceError, StoreError

    if retrieved:
        _check_date(retrieved)
    store = _open(ctx, create=True, wait_s=wait_s, upgrade=upgrade)
    shown = []  # the progress line of the source being ingested, if any
    done = 0

    def start(path, before_it):
        before = f"; the {before_it} source(s) before it were stored" if before_it else ""
        ctx.obj["on_stop"] = _ingest_stopped(store, store.commits, path, before)
        shown[:] = [_Progress(path)] if (sys.stderr.isatty() and not quiet) else []
        return shown[0] if shown else None

    def stored(report):
        nonlocal done
        while shown:
            shown.pop().done()
        done += 1
        ctx.obj["on_stop"] = f"the {done} source(s) ingested so far were stored"
        if not quiet:
            _print_report(report)

    with store:
        try:
            return ingest_sources(store, *paths, retrieved=retrieved, round=round_, system=system, on_start=start,
                                  on_report=stored)
        except (SourceError, StoreError, ArgumentError) as e:  # ArgumentError: --round that is no round
            raise click.ClickException(_safe(e)) from None
        finally:
            while shown:
                shown.pop().done()


def _ingest_stopped(store, commits_before: int, path, before: str):
    """What a stop during the ingest of ``path`` leaves: asked when the stop comes, since the
    commit may just have happened (the store counts its commits with the signals held)."""
    def words() -> str:
        if store.commits > commits_before:
            return f"all of {path} was stored{before}"
        return f"nothing from {path} was stored (its transaction was rolled back){before}"
    return words


def _export_stopped(targets):
    """What a stop during an export leaves: its targets all as they were, or, if it came just after
    the last move, all new (a replaced file has another inode; an undone one its own again)."""
    import os

    def identity(path):
        try:
            st = os.stat(path)
            return st.st_dev, st.st_ino
        except OSError:
            return None

    before = {t: identity(t) for t in targets}

    def words() -> str:
        if targets and all(identity(t) != before[t] for t in targets):
            return "the export had finished: every target is the new file"
        return "nothing was replaced: the targets are as they were"
    return words


def visible(text: str) -> str:
    from .sanitize import visible as _visible

    return _visible(text)


class _Progress:
    def __init__(self, label):
        self.label, self.n, self.last = label, 0, 0.0

    def __call__(self, k):
        self.n += k
        now = time.monotonic()
        if now - self.last > 0.1:
            click.echo(f"\r  ingesting {visible(str(self.label))}: {self.n} rows", nl=False, err=True)
            self.last = now

    def done(self):
        click.echo(f"\r  ingesting {visible(str(self.label))}: {self.n} rows", err=True)


def _print_report(report) -> None:
    _say(report.summary_line() + f" in {report.seconds:.2f} s")
    for reason, n in sorted(report.skip_reasons.items()):
        _say(f"    skipped {n}: {reason}")
    for reason, n in sorted(report.quarantine_reasons.items()):
        _say(f"    quarantined {n}: {reason}")
    for change in report.changes[:20]:
        _say(f"    changed (not overwritten): {change}")
    if len(report.changes) > 20:
        _say(f"    ... and {len(report.changes) - 20} more changed rows (see `exportguard quarantine`)")
    for line in list(report.warnings)[:20]:
        _say(f"    warning: {line}")
    if len(report.warnings) > 20:
        _say(f"    ... and {len(report.warnings) - 20} more warnings (see --json)")
    if not report.recorded:
        _say("    already ingested, unchanged: nothing new was recorded")
    for line in report.apart[:20]:
        _say(f"    kept apart: {line}")
    if len(report.apart) > 20:
        _say(f"    ... and {len(report.apart) - 20} more rows kept apart from a disagreeing twin")


def _report_dict(r) -> dict:
    keys = ("rows_read", "added", "enriched", "unchanged", "changed", "quarantined", "skipped",
            "skip_reasons", "quarantine_reasons", "changes", "apart", "warnings", "recorded")
    return {"source": r.source.path, "kind": r.source.kind, "sha256": r.source.sha256,
            "retrieved_on": r.source.retrieved_on, **{k: getattr(r, k) for k in keys},
            "seconds": round(getattr(r, "seconds", 0.0), 3)}


def _check_date(text: str) -> None:
    from .api import ArgumentError, check_date

    try:
        check_date(text)
    except ArgumentError as e:
        raise click.BadParameter(str(e), param_hint="--retrieved") from None


def _echo_json(data, indent: int = 2) -> None:
    import json  # json compiles its regular expressions on import: not at `exportguard --help`

    # allow_nan=False: NaN and Infinity are not JSON; a store written by another tool may still hold one,
    # which is printed as null rather than as invalid JSON
    click.echo(json.dumps(_finite(data), indent=indent, allow_nan=False))


def _finite(data):
    import math

    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_finite(v) for v in data]
    return data


def _safe(text) -> str:
    """Text that holds words from sources, fit for a terminal: nothing in it may steer the screen."""
    return "\n".join(visible(line) for line in str(text).split("\n"))


def _say(text, err: bool = False) -> None:
    click.echo(_safe(text), err=err)


def _cohorts(ctx, filters):
    """The selected cohorts, or the reason none is selected (what is stored instead): api.select."""
    from .api import select

    with _open(ctx) as store:
        selection = select(store, **filters)
    return list(selection.cohorts), selection.empty_reason


@command()
@filter_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def cohorts(ctx, as_json, **kwargs):
    """Per cohort: count, tokens-per-sample range, shape slack and band (or why not estimable)."""
    from .textviews import cohort_header, cohort_row

    filters = _filters(kwargs)
    found, why = _cohorts(ctx, filters)
    if as_json:
        _echo_json([cohort_row(c) for c in found])
        return
    if not found:
        _say(why)
    for c in found:
        _say(cohort_header(c))


@command("list")
@filter_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON: every figure with unit, band and conditions.")
@click.option("--limit", type=click.IntRange(min=1), metavar="N",
              help="The first N figures of each cohort, each ranked in its whole cohort.")
@click.pass_context
def list_(ctx, as_json, limit, **kwargs):
    """Figures, grouped by cohort, each with unit, band and conditions."""
    from .textviews import figure_records, listing_lines

    filters = _filters(kwargs)
    found, why = _cohorts(ctx, filters)
    found = [c.top(limit) for c in found] if limit else found
    if as_json:
        _echo_json([rec for c in found for rec in figure_records(c)])
        return
    if not found:
        _say(why)
    for line in listing_lines(found):
        _say(line)


@command()
@click.option("--json", "as_json", is_flag=True, help="The rows as JSON: file, row or line, field, reason code, message.")
@click.pass_context
def quarantine(ctx, as_json):
    """Rows that could not be stored, with where they came from and why."""
    with _open(ctx) as store:
        rows = store.quarantined()
    if as_json:
        _echo_json(rows)
        return
    for q in rows:
        _say(f"{q['locator']}: [{q['reason']}] {q['message']}")
    click.echo(f"{len(rows)} quarantined row(s)")


@command()
@click.option("--key", "keys", multiple=True, metavar="KEY",
              help="A natural key: origin/round/division/submitter/system/benchmark/scenario[/run ID].")
@click.option("--result-id", "result_ids", multiple=True, metavar="ID", help="An MLCommons result ID.")
@click.option("--run-id", "run_ids", multiple=True, metavar="ID", help="An own run's ID (8 or more of its characters).")
@click.option("--source", "sources", multiple=True, metavar="PATH", help="Everything stored from this source.")
@click.option("--dry-run", is_flag=True, help="Say what would be removed; change nothing.")
@wait_option
@click.pass_context
def remove(ctx, keys, result_ids, run_ids, sources, dry_run, wait_s):
    """Remove stored results or own runs, printing each, with an audit record (`exportguard audit`).

    Exit status: 0 when something was removed (or would be, with --dry-run), 1 when nothing matched."""
    from .corrections import CorrectionError, Selection, remove as remove_rows
    from .errors import StoreError

    with _open(ctx, wait_s=wait_s) as store:
        try:
            change = remove_rows(store, Selection(keys, result_ids, run_ids, sources), dry_run=dry_run)
        except (CorrectionError, StoreError) as e:
            raise click.ClickException(_safe(e)) from None
    _print_change(change)


@command()
@click.option("--run-id", "run_ids", multiple=True, required=True, metavar="ID",
              help="An own run's ID (8 or more of its characters); repeat for more runs.")
@system_options
@wait_option
@click.pass_context
def redescribe(ctx, run_ids, system_file, own_model, wait_s, **stated):
    """Re-describe the system of stored own runs (--system FILE and/or the options), printing what
    changed, with an audit record (`exportguard audit`). The figures, load, shape and source stay."""
    from .corrections import CorrectionError, redescribe as redescribe_runs
    from .errors import StoreError

    system = _system(system_file, **stated)
    with _open(ctx, wait_s=wait_s) as store:
        try:
            change = redescribe_runs(store, run_ids, system)
        except (CorrectionError, StoreError) as e:
            raise click.ClickException(_safe(e)) from None
    _print_change(change)


@command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def audit(ctx, as_json):
    """The corrections made to the store (remove, redescribe): when, what was asked, each row changed."""
    from .corrections import audit_records

    with _open(ctx) as store:
        records = audit_records(store)
    if as_json:
        _echo_json(records)
        return
    for r in records:
        _say(f"{r['at']}: {r['action']} ({r['asked']})")
        for line in r["rows"]:
            _say(f"    {line}")
    click.echo(f"{len(records)} correction(s)")


def _print_change(change) -> None:
    for line in change.rows:
        _say(f"{change.action}: {line}")
    _say(f"{len(change.rows)} row(s) {change.action}" + (" (nothing matched)" if not change.rows else ""))
    if not change.rows:
        sys.exit(1)


DEMO_SPECS = ("demo.toml", "demo-deck.toml", "demo-briefing.toml")  # in exportguard/data: workbook, deck, briefing


@command()
@click.option("--out", "out_dir", default="exportguard-demo", show_default=True, type=click.Path(file_okay=False),
              help="Folder for the artifacts the demo writes.")
@wait_option
@click.pass_context
def demo(ctx, out_dir, wait_s):
    """Ingest the real MLPerf v5.1 example data shipped with exportguard and export a bound report.

    The demo keeps its data in a store of its own, demo-store.db in the --out folder, unless --db is
    given: its example own run (a mock server's, system unknown) never lands in your store."""
    from importlib import resources
    from pathlib import Path

    if not _db_given(ctx):
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        ctx.obj["db"] = f"sqlite:///{Path(out_dir).resolve() / 'demo-store.db'}"
        click.echo(f"exportguard demo: its own store, {ctx.obj['db']} (--db to choose another)")

    from .api import build_report, export as export_report
    from .spec import parse_spec
    from .textviews import cohort_header

    data = resources.files("exportguard").joinpath("data")
    click.echo("exportguard demo: real MLPerf Inference v5.1 data (see exportguard/data/examples/SOURCES.md)")
    with resources.as_file(data.joinpath("examples")) as folder:
        _ingest(ctx, [str(folder / "v5.1_summary_results.llm.json"), str(folder / "v5.1")], "2025-09-09", None,
                wait_s=wait_s)
    found, _ = _cohorts(ctx, {"round": ("v5.1",), "division": ("closed",)})
    click.echo("\nCohorts of v5.1 closed (figures compare only inside a cohort):")
    for c in found:
        _say("  " + cohort_header(c))
    _demo_own_run(ctx, data)
    for name in DEMO_SPECS:
        spec = parse_spec(data.joinpath(name).read_text("utf-8"), name=name)
        with _open(ctx) as store:
            report = build_report(store, spec)
        paths = [Path(out_dir) / t for t in spec.targets]
        ctx.obj["on_stop"] = _export_stopped(paths)
        written = export_report(report, *paths, wait_s=wait_s, tell=_tell)
        click.echo(f"\n{spec.title}: {len(report.figures())} bound figures in")
        for path in written:
            click.echo(f"  {path}")
    click.echo("\nNext: exportguard list --model llama2-70b --track 99 --scenario Offline")


def _db_given(ctx) -> bool:
    """Whether --db was given on the command line (before the command or after it)."""
    from click.core import ParameterSource

    root = ctx.find_root()
    return root.get_parameter_source("db") == ParameterSource.COMMANDLINE or \
        ctx.obj.get("db") != root.params.get("db")


def _demo_own_run(ctx, data) -> None:
    """An own load test beside the MLPerf data: a real vLLM bench serve file (against a mock server,
    so its figure is no hardware result), stored as an own run, never in an MLPerf cohort."""
    from importlib import resources

    from .textviews import listing_lines

    click.echo("\nYour own traffic, beside MLPerf and never in one comparison: a vLLM bench serve result file "
               "(see exportguard/data/examples/SOURCES.md)")
    with resources.as_file(data.joinpath("examples", "own-traffic")) as folder:
        _ingest(ctx, [str(p) for p in sorted(folder.glob("*.json"))], "2026-12-01", None)
    for line in listing_lines(_cohorts(ctx, {"mlperf": False})[0]):
        _say("  " + line if line else line)


@command()
@click.option("--spec", "spec_path", type=click.Path(exists=True, dir_okay=False), help="Report spec (TOML).")
@filter_options
@click.option("--split-by-cohort", is_flag=True, help="One table per cohort instead of refusing a mixed selection.")
@click.option("--columns", help="Comma-separated columns; with --spec, over its sections' own. See the README for the list.")
@click.option("--limit", type=click.IntRange(min=1), metavar="N",
              help="The first N rows of each cohort (a top N), each ranked in its whole cohort.")
@click.option("--derived", multiple=True, type=click.Choice(["per_accelerator", "cost_per_million_tokens"]),
              help="Add a derived column (labelled derived, with its basis).")
@click.option("--prices", type=click.Path(exists=True, dir_okay=False), help="Price table (TOML) for cost per 1M tokens.")
@click.option("--title", help="Report title (without --spec).")
@click.option("--to", "targets", multiple=True, metavar="FILE",
              help="Output file; the format follows the extension (.xlsx .pptx .pdf .docx .csv .md). Repeatable.")
@click.option("--text-cells", is_flag=True, help="XLSX: figure cells hold the bound text, with a numeric sort column.")
@click.option("--force", is_flag=True, help="Replace outputs even where they are read-only.")
@click.option("--template", type=click.Path(exists=True, dir_okay=False),
              help="PPTX: a .pptx/.potx whose masters, layouts, theme fonts and slide size the deck uses; Word: a "
                   ".docx/.dotx whose styles the document takes.")
@click.option("--page-size", type=click.Choice(["a4", "letter"], case_sensitive=False), default=None,
              help="PDF, Word and XLSX: the paper (default a4, or the spec's outputs.page_size).")
@click.option("--orientation", type=click.Choice(["portrait", "landscape"], case_sensitive=False), default=None,
              help="PDF, Word and XLSX: one orientation for every page or sheet (default: a PDF or Word file "
                   "portrait unless its tables need landscape; a workbook's tables landscape, its text sheets portrait).")
@wait_option
@upgrade_option
@click.pass_context
def export(ctx, spec_path, split_by_cohort, columns, limit, derived, prices, title, targets, text_cells, force, template,
           page_size, orientation, wait_s, upgrade, **kwargs):
    """Export bound figures to XLSX, PPTX, PDF, Word, CSV or Markdown: from a spec, or from the filters."""
    from dataclasses import replace

    from .api import build_report, export as export_report, report_spec, spec_targets
    from .errors import ExportguardError
    from .guard import GuardError
    from .spec import load_prices

    filters = _filters(kwargs)
    try:
        if spec_path:
            if any(v not in (None, ()) for v in filters.values()) or title:
                raise click.UsageError("give either --spec or filters/--title, not both")
            spec = report_spec(spec_path, columns=columns, limit=limit)
        else:
            spec = report_spec(split_by_cohort=split_by_cohort, columns=columns, derived=derived, title=title,
                               limit=limit, **filters)
        targets = targets or tuple(str(t) for t in spec_targets(spec))
        if not targets:
            raise click.UsageError("no output: give --to FILE (or outputs.targets in the spec)")
        price_table = load_prices(prices) if prices else None  # read (and refused) before the store is opened
        with _open(ctx, wait_s=wait_s, upgrade=upgrade) as store:
            report = build_report(store, spec, prices=price_table)
        if prices:
            report = replace(report, inputs={**report.inputs, "price table": prices})
        ctx.obj["on_stop"] = _export_stopped(targets)
        written = export_report(report, *targets, text_cells=text_cells, force=force, template=template,
                                page_size=page_size, orientation=orientation, wait_s=wait_s, tell=_tell)
    except GuardError as e:
        _say(str(e), err=True)
        sys.exit(1)
    except ExportguardError as e:
        raise click.ClickException(_safe(e)) from None
    figures = len(report.figures())
    for path in written:
        _say(f"wrote {path}")
    from .guard import warning_lines
    from .wording import count_words

    for line in warning_lines(report.warnings):  # one short line per rule: the manifest keeps each in full
        _say(f"warning: {line}", err=True)
    click.echo(f"{count_words(figures, 'figure')} in {count_words(len(report.report.sections), 'section')}, "
               "each bound to its conditions")


@command("recover", db=False)
@click.argument("folders", nargs=-1, type=click.Path(exists=True, file_okay=False))
@wait_option
def recover(folders, wait_s):
    """Finish or undo every export to FOLDERS (default: the current folder) that a crash or a kill
    interrupted, and remove every export's leftovers there; prints what it did. Every command that
    writes to a folder does the same first."""
    from pathlib import Path

    from .errors import ExportguardError
    from .render.commit import recover as recover_folders

    places = [Path(f) for f in folders] or [Path.cwd()]
    try:
        done = recover_folders(places, tell=lambda line: _say(line), wait_s=wait_s)  # what it did: its output
    except ExportguardError as e:
        raise click.ClickException(_safe(e)) from None
    except OSError as e:
        raise click.ClickException(f"{e.filename or places[0]}: {e.strerror or e}") from None
    if not done:
        click.echo("nothing to recover in " + ", ".join(str(p) for p in places))


@command("store", db=False, group=True)
def store_group():
    """The store itself: what it holds and its schema version (info), and upgrades of a store that
    an older exportguard made (upgrade)."""


@store_group.command("info", short_help="URL, engine, schema version and counts.")
@db_option
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def store_info(ctx, as_json):
    """The store's URL (no password, no query), engine, schema version and counts of results, own
    runs, sources, quarantined rows and ingest runs. Reads a store of any older version as it is."""
    from dataclasses import asdict

    from .errors import StoreError
    from .store import SCHEMA_VERSION, open_store
    from .store_info import info

    try:
        with open_store(ctx.obj["db"], create=False, outdated_ok=True) as store:
            found = info(store)
    except StoreError as e:
        raise click.ClickException(_safe(e)) from None
    if as_json:
        _echo_json(asdict(found) | {"tool_schema_version": SCHEMA_VERSION})
        return
    _say(f"store:          {found.url} ({found.engine})")
    needs = "" if found.version == SCHEMA_VERSION else \
        f" (this exportguard uses {SCHEMA_VERSION}: run `exportguard store upgrade`)"
    _say(f"schema version: {found.version}{needs}")
    c = found.counts
    for label, n in (("results", c.results), ("own runs", c.own_runs), ("sources", c.sources),
                     ("quarantined", c.quarantines), ("ingest runs", c.ingest_runs)):
        _say(f"{label + ':':<16}{n:,}")


@store_group.command("upgrade", short_help="Upgrade a store an older exportguard made.")
@db_option
@wait_option
@click.pass_context
def store_upgrade(ctx, wait_s):
    """Upgrade the store to this exportguard's schema, keeping every row: one transaction per schema
    version (a stop leaves it at the version before or after a step, never between); on PostgreSQL
    under a lock that concurrent commands wait for; on SQLite with a copy of the file kept beside it
    (named) until the upgrade commits. Prints the versions and counts before and after."""
    _upgrade_store(ctx, wait_s, always_say=True)


def _upgrade_store(ctx, wait_s: float, always_say: bool = False) -> None:
    from .errors import StoreError
    from .migrations.runner import upgrade

    try:
        done = upgrade(ctx.obj["db"], wait_s=wait_s, tell=_tell)
    except StoreError as e:
        raise click.ClickException(_safe(e)) from None
    if not done.steps:
        if always_say:
            _say(f"{done.url}: schema version {done.after} already, nothing to upgrade "
                 f"({done.counts_after.line()})")
        return
    _say(f"{done.url}: upgraded from schema version {done.before} to {done.after}", err=not always_say)
    _say(f"  before: {done.counts_before.line()}", err=not always_say)
    _say(f"  after:  {done.counts_after.line()}", err=not always_say)


@command("check", db=False)
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--format", "out_format", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True,
              help="Report format: text grouped by file, JSON (docs/check.md) or SARIF 2.1.0.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to FILE instead of stdout.")
@click.option("--ignore", multiple=True, metavar="RULE", help="Drop findings of this rule (ID or name). Repeatable.")
@click.option("--rules", "list_rules", is_flag=True, help="List the rules and exit.")
@click.option("--timeout", type=float, default=None, metavar="SECONDS",
              help="Wall-clock limit for one file (default 120).")
@click.option("--max-memory", type=int, default=None, metavar="MB",
              help="Memory (address space) the process inspecting one file may add to the checker's own "
                   "(default 2048).")
@click.option("--quiet", "-q", is_flag=True, help="Text: list only files with findings or that could not be inspected.")
def check(paths, out_format, output, ignore, list_rules, timeout, max_memory, quiet):
    """Check PPTX, XLSX, PDF, Word, CSV and Markdown files (or folders of them) for throughput figures
    without their binding, citation gaps and, in exportguard artifacts, edits since export.

    Exit status: 0 clean, 1 findings, 2 a file could not be inspected."""
    from .api_check import ArgumentError, check_documents, rule_ids
    from .check.engine import Progress
    from .check.output import rules_text

    if list_rules:
        click.echo(rules_text(), nl=False)
        return
    if not paths:
        raise click.UsageError("give at least one file or folder to check (or --rules)")
    try:
        rule_ids(ignore)  # refused as the option's error before any file is read
    except ArgumentError as e:
        raise click.BadParameter(str(e), param_hint="--ignore") from None
    progress = Progress() if sys.stderr.isatty() else None  # after half a second (EXPORTGUARD_PROGRESS_AFTER)
    result = check_documents(*paths, ignore=ignore, timeout=timeout, max_memory=max_memory, progress=progress)
    if not result.files:
        click.echo("no PPTX, XLSX, PDF, CSV or Markdown files found in "
                   + ", ".join(str(p) for p in paths), err=True)
    text = result.render(out_format, quiet=quiet)
    if output:
        from pathlib import Path

        from .render.commit import write_file

        try:
            write_file(Path(output), text.encode("utf-8"), tell=_tell)
        except OSError as e:
            raise click.ClickException(f"{output}: could not be written: {e.strerror or e}") from None
        except Exception as e:  # ExportWriteError: its message says what was kept
            raise click.ClickException(_safe(e)) from None
    else:
        click.echo(text, nl=False)
    sys.exit(result.exit_code)
