"""The public API (exported by ``exportguard/__init__.py``; docs/api.md): the command line's guarantees
in a few calls for notebooks, scripts and pipelines. The command line (cli.py, commands.py) is a thin layer over
these same functions.

Nothing here returns a throughput as a bare float: figures come as ``BoundFigure`` objects (their
text carries unit, band and marks) inside a ``Selection`` or a ``BoundReport``, and their records
keep value, unit, band, cohort, result ID, verified status and conditions in one row. Refusals are
exceptions: ``GuardError`` carries the guard's findings (rule ID, where, way out).

The internal modules stay free to change; only the names in ``exportguard.__all__`` are promised.
"""
from __future__ import annotations

import datetime as dt
import os
import time
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from .api_args import (ArgumentError, callback_arg, date_arg, flag_arg, path_arg, paths_arg, round_arg,
                       seconds_arg, store_arg, text_arg, texts_arg)
# The checker's calls live in api_check (no store, no SQLAlchemy: `exportguard check` starts fast);
# importable from here as before.
from .api_check import CheckResult, check_documents, rule_ids  # noqa: F401
from .caveat import FULL, SHORT, TRADEMARK_LEGEND
from .clock import resolve as export_clock
from .errors import SourceError, StoreError
from .guard import DEFAULT_COLUMNS, GuardError, PriceTable, bind_table, default_columns, validate
from .ingest import IngestReport, ingest_path, not_a_result_file, sources_in
from .ingest.own_system import NOT_DESCRIBED, SystemDescription, load_system, system_values
from .model import AVAILABILITIES, DIVISIONS, OWN_LOAD_KINDS, SCENARIOS, UNITS, VERIFIED, Cohort
from .report import BoundFigure, Report, TableSection
from .rules import WARNING, Finding
from .spec import (FILTER_KEYS, ReportSpec, load_prices, load_spec, no_match_words, overriding, spec_from_data,
                   spec_from_filters)
from .store import DEFAULT_WAIT_S, Store, open_store as _open_store
from .textviews import showing_words
from .wording import selection_words

RECORDS_ARE = ("data for analysis, not for publication: a figure's value is only what its row says beside it "
               "(unit, band, conditions, citation); publish through export(), which binds every figure")


# -- filters: the command line's names and semantics ------------------------------------------

# Filters whose values are fixed words, matched in any case and stored in one spelling (as the
# command line's choices, commands.FILTER_OPTIONS: a test keeps them equal). An own run's scenario is its
# load kind ("closed loop", "Poisson"), which a spec may select too.
CHOICES: dict[str, tuple[str, ...]] = {"division": DIVISIONS, "scenario": SCENARIOS + OWN_LOAD_KINDS,
                                       "availability": AVAILABILITIES, "verified": VERIFIED, "unit": UNITS}
ALIASES = {"track": "accuracy_track"}  # the command line's --track, a spec's track
FILTERS = tuple(sorted(FILTER_KEYS | set(ALIASES)))


def normalize_filters(filters: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword filters as the store takes them: a value or a list of alternatives per filter (None or
    an empty list: not given); ``track`` is ``accuracy_track``; choices in their stored spelling;
    ``accelerator_count`` whole numbers; ``mlperf`` True (MLPerf only), False (own runs only) or None."""
    out: dict[str, Any] = {}
    for key, value in filters.items():
        name = ALIASES.get(key, key)
        if name not in FILTER_KEYS:
            raise ArgumentError(f"unknown filter {key!r}; known: {', '.join(FILTERS)}")
        if name in out:
            raise ArgumentError(f"filter {name} given twice (as track and accuracy_track)")
        if value is None or (isinstance(value, (tuple, list, set, frozenset)) and not value):
            continue
        if name == "mlperf":
            if not isinstance(value, bool):
                raise ArgumentError(f"mlperf={value!r}: True (MLPerf results only), False (own runs only) or None")
            out[name] = value
            continue
        values = (value,) if isinstance(value, (str, int)) else tuple(value) if isinstance(value, Iterable) else (value,)
        if name == "accelerator_count":
            if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
                raise ArgumentError(f"accelerator_count={value!r}: a whole number of accelerators (the system's "
                                    "total, e.g. 8) or a list of them")
        else:
            if not all(isinstance(v, str) for v in values):
                raise ArgumentError(f"{key}={value!r}: a text or a list of texts")
            values = tuple(text_arg(key, v, optional=False) for v in values)  # no lone surrogate, no NUL
            if name in CHOICES:
                values = tuple(_choice(name, v) for v in values)
        out[name] = values
    return out


def _choice(name: str, value: str) -> str:
    for choice in CHOICES[name]:
        if value.casefold() == choice.casefold():
            return choice
    raise ArgumentError(f"{name}={value!r} is not one of {', '.join(CHOICES[name])} (any case)")


def check_date(text: str) -> str:
    """A retrieval date, YYYY-MM-DD."""
    try:
        dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        raise ArgumentError(f"{text!r} is not a date like 2025-09-09") from None
    return text


# -- the store ------------------------------------------------------------------------------

def open_store(url: str | None = None, *, create: bool = True, wait_s: float = DEFAULT_WAIT_S,
               tell: Callable[[str], None] | None = None) -> Store:
    """Open the store at ``url`` (``sqlite:///path.db`` or ``postgresql://host/db``); without one, the
    command line's default: ``EXPORTGUARD_DB``, else an SQLite file under $XDG_DATA_HOME/exportguard.

    ``create=False`` refuses a store that does not exist yet (as the command line's read commands do).
    A writer waits up to ``wait_s`` seconds for another one and tells ``tell`` that it waits. Use it
    as a context manager (``with open_store(...) as store:``) or call ``store.close()``.
    Raises StoreError (a bad URL, not an exportguard store, a newer schema)."""
    if isinstance(url, Path):  # a path to an SQLite file is a URL's most common misspelling
        raise ArgumentError(f"url={str(url)!r}: a store URL (sqlite:///{url} or postgresql://host/db), not a path")
    text_arg("url", url)
    flag_arg("create", create)
    seconds_arg("wait_s", wait_s)
    callback_arg("tell", tell)
    return _open_store(url, create=create, wait_s=wait_s, tell=tell)


# -- ingest ---------------------------------------------------------------------------------

_SYSTEM_FIELDS = tuple(f.name for f in fields(SystemDescription) if f.name != "source")


def describe_system(system: SystemDescription | str | Path | Mapping[str, Any] | None = None,
                    **stated: Any) -> SystemDescription:
    """What own load-test files do not record: a SystemDescription, a TOML file's (docs/own-traffic.md),
    or a mapping of its fields; ``stated`` fields (those not None) take precedence. A mapping and
    ``stated`` are checked key by key as the TOML file is (own_system.system_values: the same
    messages; a file's name the file and line, a mapping's ``system=``, a stated field's its name)."""
    if system is None:
        base = NOT_DESCRIBED
    elif isinstance(system, SystemDescription):
        stated_in = {f: getattr(system, f) for f in _SYSTEM_FIELDS}  # built by hand: checked as a mapping
        base = replace(system, **_system_fields(stated_in, lambda key: f"system=, field {key!r}"))
    elif isinstance(system, (str, os.PathLike)):
        base = load_system(path_arg("system", system))
    elif isinstance(system, Mapping):
        base = NOT_DESCRIBED.merged(**_system_fields(system, lambda key: f"system=, key {key!r}"))
    else:
        raise ArgumentError(f"system={system!r}: a TOML file, a mapping of {', '.join(_SYSTEM_FIELDS)}, "
                            "a SystemDescription, or None")
    return base.merged(**_system_fields(stated, lambda key: f"the stated {key}"))


def _system_fields(given: Mapping[str, Any], where: Callable[[str], str]) -> dict[str, Any]:
    """The TOML file's check, with ArgumentError saying where the bad field was given."""
    return system_values(given, lambda key, message: ArgumentError(f"{where(key)}: {message}"))


def ingest_sources(store: Store, *paths: str | Path, retrieved: str | None = None, round: str | None = None,
                   system: SystemDescription | str | Path | Mapping[str, Any] | None = None,
                   on_start: Callable[[str, int], Callable[[int], None] | None] | None = None,
                   on_report: Callable[[IngestReport], None] | None = None) -> list[IngestReport]:
    """Ingest MLCommons submission trees, summary_results.json tables, exportguard CSV files and
    load-test tools' result files (own runs), one transaction per source, in order. A folder stands for
    the sources under it (ingest.sources_in): an MLCommons tree in it, and each file by its content; a
    file there that holds no results is reported as skipped by rule and not recorded.

    Returns one IngestReport per source, reconciled: ``rows_read == added + enriched + unchanged +
    changed + quarantined + skipped`` (``reconciles``); ``nothing_stored()`` says why a source stored
    nothing; ``summary_line()`` is the command line's line. ``retrieved`` (YYYY-MM-DD) is the
    retrieval date to record; ``round`` the round of a tree with no vX.Y folder above it; ``system``
    describes own runs (describe_system). ``on_start(path, sources_done)`` is called before each
    source and may return a row-count progress callback; ``on_report(report)`` after each.

    Raises SourceError (a path that is no source) or StoreError; the exception's ``ingested`` holds
    the reports of the sources stored before it."""
    store_arg(store)
    if not paths:
        raise ArgumentError("give at least one path to ingest")
    paths_arg("paths", paths)
    retrieved = date_arg("retrieved", retrieved)
    round_arg("round", round)
    callback_arg("on_start", on_start)
    callback_arg("on_report", on_report)
    system = describe_system(system) if system is not None else None
    reports: list[IngestReport] = []
    for path, in_folder in _expanded(paths):
        before = f"; the {len(reports)} source(s) before it were stored" if reports else ""
        progress = on_start(str(path), len(reports)) if on_start else None
        started = time.perf_counter()
        try:
            other = not_a_result_file(Path(path)) if in_folder else None
            report = other or ingest_path(store, path, retrieved_on=retrieved, round=round, progress=progress,
                                          system=system)
        except SourceError as e:
            e.ingested = tuple(reports)
            raise
        except StoreError as e:
            err = StoreError(_not_ingested(store, path, e) + before)
            err.ingested = tuple(reports)
            raise err from None
        report.seconds = time.perf_counter() - started
        reports.append(report)
        if on_report:
            on_report(report)
    return reports


def _expanded(paths) -> Iterator[tuple[str | Path, bool]]:
    """(source, whether it was found in a folder): a folder given stands for the sources it holds
    (ingest.sources_in), an MLCommons tree among them; anything else is its own source."""
    for path in paths:
        found = sources_in(path)
        if not found or found == [Path(os.path.realpath(path))]:
            yield path, False  # a file, or a tree (or an empty folder: refused as a tree, as before)
            continue
        for source in found:
            yield source, source != Path(os.path.realpath(path))


def _not_ingested(store: Store, path: str | Path, err: StoreError) -> str:
    """Why ``path`` was not ingested, in one line; a connection the server ended or lost (a backend
    terminated, a restart, the network) in the words of what it leaves."""
    from .ingest import lost_connection

    why = lost_connection(err)
    if not why:
        return f"{path}: not ingested: {err}"
    database = "database" if store.is_sqlite else "PostgreSQL"
    left = ("as its commit was sent: the store could not be asked again, so it may have been stored; ingest it "
            "again to be sure (a source already stored adds nothing)" if getattr(err, "in_doubt", False)
            else "and the source could not be written: nothing of it was stored")
    return f"{path}: not ingested: the {database} connection to {store.display_url} was lost ({why}) {left}"


# -- what a notebook shows -------------------------------------------------------------------

class _Shown:
    """What a Selection and a BoundReport share: their render-neutral report as HTML and records."""

    report: Report

    def figures(self) -> list[BoundFigure]:
        """Every figure, bound (its ``text()`` carries unit, band and labels), in report order."""
        return [fig for _, fig in self.report.figures()]

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per figure: value (a number) beside unit, band and its low and high edges, cohort,
        result ID, verified status, rank, marks and notes, and the condition columns (submitter,
        system, accelerator and count, round, division, availability, benchmark, scenario, tokens
        per sample and its basis, shape, load, citation, source, retrieval date), the caveat and the
        trademark legend: the columns of the CSV export (docs/csv.md), plus ``cohort`` and ``mlperf``.

        Data for analysis, not for publication: a value means only what its row says beside it;
        publish through export(), which binds every figure."""
        from .render.csv_out import records

        return records(self.report)

    def to_pandas(self):
        """The records as a pandas DataFrame, one row per figure with its value, unit, band edges,
        cohort, result ID, verified status and conditions in the same row (needs pandas;
        to_records() needs nothing). Data for analysis, not for publication: its ``attrs`` say so
        and hold the caveat; publish through export()."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas() needs pandas, which is not installed: pip install pandas "
                              "(or use to_records(), which needs nothing)") from None
        from .render.csv_out import RECORD_COLUMNS

        frame = pd.DataFrame.from_records(self.to_records(), columns=list(RECORD_COLUMNS))
        frame.attrs.update(exportguard=RECORDS_ARE, caveat=self.report.caveat_short, legend=self.report.legend)
        return frame

    def _repr_html_(self) -> str:
        """Bound HTML tables, checked as an export is (guard.validate: e.g. a name that reads like a
        figure); where the guard refuses what would be shown, its findings instead."""
        from .guard import refuse_on_errors
        from .notebook import refusal_html, report_html

        try:
            refuse_on_errors(validate(self.report))
            return report_html(self.report)
        except GuardError as refused:
            return refusal_html(refused.findings)


@dataclass(frozen=True)
class Selection(_Shown):
    """Stored results that keyword filters selected, grouped by cohort; each cohort's band is the whole
    stored cohort's, whatever the filters. In Jupyter it shows as one bound table per cohort (rank,
    figure with band and mark, the notes below, the caveat); ``to_records()``/``to_pandas()`` for
    analysis. Empty when nothing matched: ``empty_reason`` then says what is stored instead."""

    cohorts: tuple[Cohort, ...]
    filters: Mapping[str, Any] = field(default_factory=dict)
    empty_reason: str = ""

    def __len__(self) -> int:
        return sum(len(c.results) for c in self.cohorts)

    def __bool__(self) -> bool:
        return bool(self.cohorts)

    @cached_property
    def report(self) -> Report:
        """One table per cohort, as the command line's ``list`` ranks it (ranks among the shown)."""
        sections = []
        for cohort in self.cohorts:
            title = f"{cohort.key.label()}: {showing_words(cohort)}"
            table = bind_table(cohort.results, title=title, slack=cohort.slack,
                               columns=default_columns(DEFAULT_COLUMNS, own=not cohort.key.mlperf),
                               cohort=cohort.whole, chosen_by=selection_words(self.filters))
            sections.append(TableSection(title, table))
        title = spec_from_filters(dict(self.filters), True).title
        return Report(f"Selection: {title}", "general", tuple(sections), SHORT, FULL, TRADEMARK_LEGEND,
                      generated_on=export_clock(None).date())  # SOURCE_DATE_EPOCH, as exports

    def _repr_html_(self) -> str:
        if not self.cohorts:
            from .notebook import empty_html

            return empty_html(self.empty_reason)
        return super()._repr_html_()


def select(store: Store, **filters: Any) -> Selection:
    """The stored results that ``filters`` select, by cohort: the command line's filters, same names
    and semantics (``exportguard list``): round, division, model, track (or accuracy_track),
    scenario, submitter, accelerator (part of its name), accelerator_count (the system's total),
    availability, verified, unit, mlperf (True/False), and a spec's benchmark, tool, system_id,
    suite. A value or a list of alternatives; any case. Raises ArgumentError for an unknown filter
    or value."""
    store_arg(store)
    given = normalize_filters(filters)
    with store.reading():  # the cohorts and the words for an empty selection from one snapshot
        found = store.cohorts(**given)
        why = "" if found else no_match_words(store, given)
    return Selection(tuple(found), given, why)


# -- reports --------------------------------------------------------------------------------

@dataclass(frozen=True)
class BoundReport(_Shown):
    """A report the guard accepted: every figure bound, every band the whole stored cohort's. Export it
    with ``export``; in Jupyter it shows as bound HTML tables (figures with band and marks, the
    notes below, the caveat). ``report`` is the render-neutral report (its shape is internal)."""

    report: Report
    spec: ReportSpec
    targets: tuple[Path, ...] = ()  # the spec's outputs, beside the spec file
    inputs: Mapping[str, str | Path | None] = field(default_factory=dict)  # files an export must not overwrite

    @property
    def title(self) -> str:
        return self.report.title

    @property
    def warnings(self) -> list[Finding]:
        """The guard's warnings (e.g. EG020, systems of different scale), each also stated in the artifact."""
        return [f for f in validate(self.report) if f.severity == WARNING]


def _listed(value: Any) -> Any:
    """A spec given as a dict may use tuples where TOML has arrays."""
    if isinstance(value, Mapping):
        return {k: _listed(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_listed(v) for v in value]
    return value


def report_spec(spec: str | Path | Mapping[str, Any] | ReportSpec | None = None, *, split_by_cohort: bool = False,
                columns: str | Sequence[str] | None = None, derived: Sequence[str] = (), title: str | None = None,
                limit: int | None = None, **filters: Any) -> ReportSpec:
    """The spec a report is built from: a TOML file (docs/README), the same as a dict, or, without one,
    the filters as one table (as ``exportguard export`` without --spec). ``columns`` (with a spec: over
    its sections' own) and ``limit`` (the first N rows of each cohort, ranked in it) apply to either.
    Raises SpecError, ArgumentError."""
    flag_arg("split_by_cohort", split_by_cohort)
    text_arg("title", title)
    if isinstance(columns, str):
        columns = [c.strip() for c in text_arg("columns", columns).split(",")]
    columns = texts_arg("columns", columns) if columns is not None else None
    derived = texts_arg("derived", derived)  # one text is one derived column, as ignore= is one rule
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ArgumentError(f"limit={limit!r}: a whole number of rows, 1 or more")
    if spec is not None:
        if normalize_filters(filters) or title or split_by_cohort or derived:
            raise ArgumentError("give either a spec or filters/title/split_by_cohort/derived, not both")
        return overriding(_spec_of(spec), columns, limit)
    cols = tuple(columns) if columns else DEFAULT_COLUMNS
    return overriding(spec_from_filters(normalize_filters(filters), split_by_cohort,
                                        cols + tuple(d for d in derived if d not in cols), title or ""), limit=limit)


def _spec_of(spec) -> ReportSpec:
    if isinstance(spec, ReportSpec):
        return spec
    if isinstance(spec, (str, os.PathLike)):
        return load_spec(path_arg("spec", spec))
    if isinstance(spec, Mapping):
        return spec_from_data(_listed(spec), name="<spec dict>")
    raise ArgumentError(f"spec={type(spec).__name__}: a TOML file's path, a dict, or None")


def spec_targets(spec: ReportSpec) -> tuple[Path, ...]:
    """A spec's outputs.targets, beside the spec file (a dict's: in the current folder)."""
    return tuple(spec.base_dir / t for t in spec.targets)


def _spec_file(spec: ReportSpec) -> Path | None:
    path = Path(spec.name) if spec.name else None
    return path if path is not None and path.parent == spec.base_dir and path.is_file() else None


def build_report(store: Store, spec: str | Path | Mapping[str, Any] | ReportSpec | None = None, *,
                 prices: str | Path | PriceTable | None = None, split_by_cohort: bool = False,
                 columns: str | Sequence[str] | None = None, derived: Sequence[str] = (), title: str | None = None,
                 **filters: Any) -> BoundReport:
    """A report from a spec file, a spec dict, or keyword filters (one table; ``split_by_cohort`` for
    one per cohort, ``columns`` and ``derived`` as --columns and --derived), every section read
    from one snapshot of the store and every band from the whole stored cohort. ``prices``: a price
    table (TOML) for cost per million tokens, over the spec's.

    Raises GuardError, whose ``findings`` name each refusal's rule ID, where it is and the way out
    (a selection of several cohorts, nothing selected, an unknown column ...); SpecError for a bad
    spec; ArgumentError for a bad argument."""
    store_arg(store)
    if not (prices is None or isinstance(prices, PriceTable)):
        prices = path_arg("prices", prices)  # a price table's TOML file
    resolved = report_spec(spec, split_by_cohort=split_by_cohort, columns=columns, derived=derived, title=title,
                           **filters)
    from .spec import build_report as _build

    table = prices if isinstance(prices, PriceTable) or prices is None else load_prices(prices)
    price_file = prices if isinstance(prices, Path) else (
        resolved.base_dir / resolved.prices if resolved.prices else None)
    report = _build(store, resolved, table)
    inputs = {"store": store.path, "spec": _spec_file(resolved), "price table": price_file}
    return BoundReport(report, resolved, spec_targets(resolved), inputs)


def export(report: BoundReport | Report, *targets: str | Path, text_cells: bool = False, force: bool = False,
           template: str | Path | None = None, wait_s: float = DEFAULT_WAIT_S,
           tell: Callable[[str], None] | None = None, **options: Any) -> list[Path]:
    """Write ``report`` to every target (the format follows the extension: .xlsx .pptx .pdf .docx .csv .md),
    as ``exportguard export`` does: validated once, every target checked before any is rendered,
    each rendered beside its target and all moved into place together; a failed or interrupted
    export replaces nothing. Without targets: the spec's outputs. Returns every file written (with
    the manifests beside CSV and Markdown files). ``text_cells``: XLSX figure cells hold the bound
    text; ``force``: replace read-only outputs; ``template``: a PPTX's .pptx/.potx, a Word file's
    .docx/.dotx (each target takes the template of its kind).

    Options are checked against the targets' formats (each format's options, exportguard/formats.py):
    one that no target takes (a page_size for a .md alone, a misspelt name) raises ArgumentError
    naming the options.

    Raises GuardError (with the findings), ExportWriteError (nothing was replaced), ExportguardError."""
    from .render import export as _export

    # only what the caller gave counts: a spec's paper settings (filled in below) never refuse a .md
    given = {k: v for k, v in {**options, "text_cells": text_cells or None, "template": template}.items()
             if v is not None}
    flag_arg("text_cells", text_cells)
    flag_arg("force", force)
    for name, value in given.items():
        _check_option_value(name, value)
    seconds_arg("wait_s", wait_s)
    callback_arg("tell", tell)
    if isinstance(report, BoundReport):
        bound, inputs = report.report, dict(report.inputs)
        targets = targets or report.targets
        # a PDF's paper: the caller's choice, else the spec's (outputs.page_size / outputs.orientation)
        for key in ("page_size", "orientation"):
            options[key] = (options.get(key) or getattr(report.spec, key) or "").lower() or None
    elif isinstance(report, Report):
        bound, inputs = report, {}
    else:
        raise ArgumentError(f"export() takes a report from build_report(), not {type(report).__name__}")
    if not targets:
        raise ArgumentError("no output: give a target file (or outputs.targets in the spec)")
    _check_options(paths_arg("targets", targets), given)
    return _export(bound, targets, text_cells=text_cells, force=force, template=template, inputs=inputs,
                   wait_s=wait_s, tell=tell, **options)


COMMON_OPTIONS = ("clock",)  # render.export's own: the instant every target states, whatever the formats


def _check_options(targets: Sequence[Path], given: Mapping[str, Any]) -> None:
    """Refuse an option that no target's format takes (each format's options in exportguard/formats.py):
    a misspelt name, or a PDF's page_size for a Markdown file alone, would be ignored without a word."""
    from .formats import written_as

    taken = {fmt.suffix: fmt.options for fmt in map(written_as, targets)
             if fmt is not None}  # an unknown format: render.export says so
    for name, value in given.items():
        if name in COMMON_OPTIONS or any(name in names for names in taken.values()):
            continue
        takers = [suffix for suffix, names in _all_options().items() if name in names]
        listed = ", ".join(takers[:-1]) + " and " + takers[-1] if len(takers) > 1 else "".join(takers)
        what = (f"an option of {listed} targets" if takers else
                f"not an export option; the options: {_options_words(_all_options())}")
        raise ArgumentError(f"{name}={value!r}: no target of this export takes it ({_options_words(taken)}); "
                            f"{name} is {what}")


def _all_options() -> dict[str, tuple[str, ...]]:
    from .formats import FORMATS

    return {fmt.suffix: fmt.options for fmt in FORMATS}


def _options_words(by_format: Mapping[str, Sequence[str]]) -> str:
    return "; ".join(f"{suffix}: {', '.join(names) or 'none'}" for suffix, names in by_format.items())


def _check_option_value(name: str, value: Any) -> None:
    """The values of the options a renderer takes from export() (text_cells and template are checked
    as export's own arguments)."""
    if name == "template":
        path_arg(name, value)
    elif name in ("page_size", "orientation"):
        from .layout import paper

        choices = tuple(paper.SIZES) if name == "page_size" else paper.ORIENTATIONS
        if not isinstance(value, str) or value.lower() not in choices:
            raise ArgumentError(f"{name}={value!r}: one of {', '.join(choices)} (any case), for a .pdf, .docx or .xlsx target")
