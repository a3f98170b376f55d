"""Report specs (TOML) -> Report. A spec error names the line and the key.

    title = "..."            audience = "..."
    [filters]                # defaults for every section: round, division, model, track (accuracy_track),
                             # scenario, submitter, accelerator (part of its name), accelerator_count
                             # (whole numbers), availability, verified, benchmark, unit, mlperf
                             # (for own runs also: tool; scenario is their load kind)
    [[section]]              # kind = "table" | "chart" | "kpi" | "text" | "beside"
    title, filters, columns, sort, limit, split_by_cohort, derived, pick, text
    per_accelerator = true   # chart: a per-accelerator chart (derived) after the total's; kpi: the highest
                             # per-accelerator figure (derived) instead of the highest total
                             # beside: mlperf = {filters}, own = {filters}, own_columns, axis
    [outputs]                targets = ["deck.pptx", ...], prices = "prices.toml",
                             page_size = "a4" | "letter", orientation = "portrait" | "landscape" (PDF, Word, XLSX)
"""
from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from .caveat import FULL, SHORT, TRADEMARK_LEGEND
from .errors import ExportguardError
from .formats import SECTION_KINDS
from .guard import (DEFAULT_COLUMNS, KNOWN_COLUMNS, GuardError, PriceTable, bind_table, check_one_cohort,
                    default_columns, kpi)
from .rules import finding
from .wording import scale_range_words, selection_words, shape_title, unranked_title
from .report import ChartSection, Report, TableSection, TextSection
from .store import FILTERABLE, Store


class SpecError(ExportguardError):
    pass


SECTION_KEYS = {"kind", "title", "filters", "columns", "sort", "limit", "split_by_cohort", "derived", "pick", "text",
                "mlperf", "own", "own_columns", "axis", "per_accelerator"}
BESIDE_KEYS = {"mlperf", "own", "own_columns", "axis"}
TOP_KEYS = {"title", "audience", "filters", "section", "outputs"}
FILTER_KEYS = set(FILTERABLE) | {"mlperf"}
DERIVED = ("per_accelerator", "cost_per_million_tokens")


@dataclass(frozen=True)
class SectionSpec:
    kind: str
    title: str
    filters: dict
    columns: tuple[str, ...] = DEFAULT_COLUMNS
    sort: str = "throughput"
    limit: int | None = None
    split_by_cohort: bool = False
    pick: str = "top"
    text: str = ""
    # kind = "beside": the MLPerf panel's filters (with the section's and the spec's), the own panel's
    # (on their own: an own run has no round or division), its columns, and the axis ("separate")
    own_filters: dict = field(default_factory=dict)
    own_columns: tuple[str, ...] = DEFAULT_COLUMNS
    axis: str = "separate"
    # kind = "kpi": the highest per-accelerator figure (derived) instead of the highest total; kind =
    # "chart": the per_accelerator column is added, so a chart of it (derived) follows the total's
    per_accelerator: bool = False


@dataclass(frozen=True)
class ReportSpec:
    title: str
    audience: str
    sections: tuple[SectionSpec, ...]
    targets: tuple[str, ...] = ()
    prices: str | None = None
    name: str = ""
    page_size: str = ""  # PDF, Word, XLSX: "a4" or "letter" ("" = a4)
    orientation: str = ""  # PDF, Word, XLSX: "portrait" or "landscape" ("" = the format's own choice)
    base_dir: Path = field(default=Path("."), compare=False)


def load_spec(path: str | Path) -> ReportSpec:
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(f"{path}: cannot read the spec: {e}") from None
    return parse_spec(text, name=str(path), base_dir=path.parent)


def parse_spec(text: str, name: str = "<spec>", base_dir: Path = Path(".")) -> ReportSpec:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{name}: {e}") from None
    return spec_from_data(data, name, base_dir, _Locator(text, name))


def spec_from_data(data: Any, name: str = "<spec>", base_dir: Path = Path("."), where: "_Locator | None" = None
                   ) -> ReportSpec:
    """A spec from its parsed form (a TOML document's tables, or the same as a dict from Python):
    the same keys and checks as a file; errors name the key (and the line, where there is text)."""
    if not isinstance(data, dict):
        raise SpecError(f"{name}: a spec is a table of keys (title, filters, section, outputs), not {type(data).__name__}")
    where = where or _Locator("", name)
    for key in data:
        if key not in TOP_KEYS:
            raise where.error(key, None, f"unknown key {key!r}; known: {', '.join(sorted(TOP_KEYS))}")
    title = _str(data, "title", where, None, required=True)
    defaults = _filters(data.get("filters", {}), where, None)
    raw_sections = data.get("section", [])
    if not isinstance(raw_sections, list) or not raw_sections:
        raise where.error("section", None, "a spec needs at least one [[section]]")
    sections = tuple(_section(s, i, defaults, where) for i, s in enumerate(raw_sections))
    outputs = data.get("outputs", {})
    if not isinstance(outputs, dict):
        raise where.error("outputs", None, "outputs must be a table (targets, prices)")
    targets = outputs.get("targets", [])
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        raise where.error("targets", None, "outputs.targets must be a list of file names")
    prices = outputs.get("prices")
    if prices is not None and not isinstance(prices, str):
        raise where.error("prices", None, "outputs.prices must be a file name")
    for t in [*targets, *([prices] if prices else [])]:
        inside_folder(t, where, "prices" if t == prices else "targets")
    page = {}
    for key, choices in (("page_size", ("a4", "letter")), ("orientation", ("portrait", "landscape"))):
        value = outputs.get(key, "")
        if value and value not in choices:
            raise where.error(key, None, f"outputs.{key} must be {' or '.join(repr(c) for c in choices)}")
        page[key] = value
    return ReportSpec(title, _str(data, "audience", where, None) or "general", sections, tuple(targets),
                      prices, name, base_dir=base_dir, **page)


def inside_folder(name: str, where: "_Locator", key: str) -> str:
    """A file a spec names stays in the spec's folder (or below it): a spec from elsewhere must not
    write, or read prices, anywhere else. A path given on the command line is the user's own choice."""
    path = Path(name)
    if not name.strip() or path.is_absolute() or ".." in path.parts or path.drive:
        raise where.error(key, None, f"{name!r} leaves the spec's folder; name a file inside it, or give the "
                          "path on the command line (--to / --prices)")
    return name


class _Locator:
    """Finds the line of a key so that errors point at it."""

    def __init__(self, text: str, name: str):
        self.lines = text.splitlines()
        self.name = name

    def line_of(self, key: str, section: int | None) -> int | None:
        start = 0
        if section is not None:
            headers = [i for i, line in enumerate(self.lines) if line.strip() == "[[section]]"]
            if section < len(headers):
                start = headers[section]
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=|[{{,]\s*{re.escape(key)}\s*=|^\s*\[{re.escape(key)}\]")
        for i in range(start, len(self.lines)):
            if pattern.search(self.lines[i]):
                return i + 1
        return None

    def error(self, key: str, section: int | None, message: str) -> SpecError:
        line = self.line_of(key, section)
        at = f"line {line}, " if line else "(line not found), " if self.lines else ""  # a dict has no lines
        where = f"section {section + 1}, " if section is not None else ""
        return SpecError(f"{self.name}, {at}{where}key {key!r}: {message}")


def _str(data: dict, key: str, where: _Locator, section, required: bool = False) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise where.error(key, section, "must be a non-empty text" if required else "must be text")
    return value


def _filters(raw: Any, where: _Locator, section) -> dict:
    if not isinstance(raw, dict):
        raise where.error("filters", section, "filters must be a table of key = value")
    out = {}
    for key, value in raw.items():
        name = "accuracy_track" if key == "track" else key
        if name not in FILTER_KEYS:
            raise where.error(key, section, f"unknown filter; known: {', '.join(sorted(FILTER_KEYS))}")
        if name == "mlperf":
            if not isinstance(value, bool):
                raise where.error(key, section, "mlperf must be true or false")
            out[name] = value
            continue
        if name == "accelerator_count":
            counts = [value] if not isinstance(value, list) else value
            if not counts or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts):
                raise where.error(key, section, "accelerator_count is a whole number (the system's total accelerators) "
                                  "or a list of them, e.g. accelerator_count = 8")
            out[name] = tuple(counts)
            continue
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise where.error(key, section, "a filter is a text or a list of texts")
        out[name] = tuple(values)
    return out


def _section(raw: Any, i: int, defaults: dict, where: _Locator) -> SectionSpec:
    if not isinstance(raw, dict):
        raise where.error("section", i, "each [[section]] must be a table")
    for key in raw:
        if key not in SECTION_KEYS:
            raise where.error(key, i, f"unknown key; known: {', '.join(sorted(SECTION_KEYS))}")
    kind = raw.get("kind", "")
    if kind not in SECTION_KINDS:
        raise where.error("kind", i, f"kind must be one of {', '.join(SECTION_KINDS)}")
    title = _str(raw, "title", where, i, required=True)
    if kind == "text":
        return SectionSpec(kind, title, {}, text=_str(raw, "text", where, i, required=True))
    columns = _columns(raw, "columns", i, where)
    derived = raw.get("derived", [])
    if not isinstance(derived, list) or any(d not in DERIVED for d in derived):
        raise where.error("derived", i, f"derived must be a list of {', '.join(DERIVED)}")
    columns = [*columns, *(d for d in derived if d not in columns)]
    per_accelerator = raw.get("per_accelerator", False)
    if not isinstance(per_accelerator, bool):
        raise where.error("per_accelerator", i, "per_accelerator must be true or false")
    if per_accelerator and kind not in ("kpi", "chart"):
        raise where.error("per_accelerator", i, "only a kpi or chart section takes per_accelerator; a table shows "
                          "the figure per accelerator with derived = [\"per_accelerator\"]")
    if per_accelerator and kind == "chart" and "per_accelerator" not in columns:
        columns.append("per_accelerator")
    sort = raw.get("sort", "throughput")
    if sort != "throughput":
        raise where.error("sort", i, "tables sort by throughput, highest first (rankings need that order)")
    limit = raw.get("limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise where.error("limit", i, "limit must be a positive whole number")
    split = raw.get("split_by_cohort", False)
    if not isinstance(split, bool):
        raise where.error("split_by_cohort", i, "split_by_cohort must be true or false")
    pick = raw.get("pick", "top")
    if pick != "top":
        raise where.error("pick", i, "pick must be \"top\" (the highest figure of one cohort)")
    filters = {**defaults, **_filters(raw.get("filters", {}), where, i)}
    stray = sorted(k for k in BESIDE_KEYS if k in raw and kind != "beside")
    if stray:
        raise where.error(stray[0], i, "only a section of kind \"beside\" takes mlperf, own, own_columns and axis")
    if kind == "beside":
        return _beside(raw, i, where, title, filters, tuple(columns), limit)
    return SectionSpec(kind, title, filters, tuple(columns), sort, limit, split, pick, per_accelerator=per_accelerator)


def _columns(raw: dict, key: str, i: int, where: "_Locator") -> list[str]:
    """A section's list of known column names (``columns``, ``own_columns``), the defaults if absent."""
    columns = raw.get(key, list(DEFAULT_COLUMNS))
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise where.error(key, i, f"{key} must be a list of column names")
    unknown = [c for c in columns if c not in KNOWN_COLUMNS]
    if unknown:
        raise where.error(key, i, f"unknown column(s) {', '.join(unknown)}; known: {', '.join(KNOWN_COLUMNS)}")
    return columns


def _beside(raw: dict, i: int, where: "_Locator", title: str, filters: dict, columns: tuple, limit) -> SectionSpec:
    from .beside import AXES

    for key in ("split_by_cohort", "derived", "pick"):
        if key in raw:
            raise where.error(key, i, f"a beside section shows one MLPerf cohort and one own cohort; {key} does not apply")
    if "own" not in raw:
        raise where.error("kind", i, "a beside section needs own = { ... } filters that select your runs")
    own_columns = _columns(raw, "own_columns", i, where)
    axis = raw.get("axis", "separate")
    if axis not in AXES:
        raise where.error("axis", i, "axis must be \"separate\"")
    mlperf = {**filters, **_filters(raw.get("mlperf", {}), where, i), "mlperf": True}
    own = {**_filters(raw["own"], where, i), "mlperf": False}
    return SectionSpec("beside", title, mlperf, columns, limit=limit, own_filters=own, own_columns=tuple(own_columns),
                       axis=axis)


def load_prices(path: str | Path) -> PriceTable:
    """Price table (TOML): currency, source, [[price]] with system_id or accelerator and per_hour
    (for a system: the whole system's hourly price; for an accelerator: per accelerator-hour)."""
    path = Path(path)
    try:
        if not path.is_file():
            raise OSError("not a regular file")
        text = path.read_text("utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise SpecError(f"{path}: cannot read the price table: {e}") from None
    where = _Locator(text, str(path))
    unknown = set(data) - {"currency", "source", "price"}
    if unknown:
        raise where.error(sorted(unknown)[0], None, "unknown key; known: currency, source, price")
    for key in ("currency", "source"):
        if not isinstance(data.get(key, "USD"), str) or not str(data.get(key, "USD")).strip():
            raise where.error(key, None, f"{key} must be a non-empty text")
    if not re.fullmatch(r"[A-Za-z$€£¥]{1,8}", data.get("currency", "USD")):
        raise where.error("currency", None, "currency must be a code or symbol of up to 8 letters (USD, EUR, €)")
    entries = data.get("price", [])
    if not isinstance(entries, list):
        raise where.error("price", None, "prices are [[price]] tables")
    by_system, by_accelerator = {}, {}
    for entry in entries:
        hourly = entry.get("per_hour") if isinstance(entry, dict) else None
        if not isinstance(hourly, (int, float)) or isinstance(hourly, bool) or not math.isfinite(hourly) or hourly <= 0:
            raise where.error("per_hour", None, f"per_hour must be a finite positive number, not {hourly!r}")
        name = entry.get("system_id", entry.get("accelerator"))
        if not isinstance(name, str) or not name.strip():
            raise where.error("price", None, "each [[price]] names a system_id or an accelerator (as text)")
        (by_system if "system_id" in entry else by_accelerator)[name] = float(hourly)
    if not data.get("source"):
        raise where.error("source", None, "a price table must say where its prices come from")
    return PriceTable(data.get("currency", "USD"), data["source"], by_system, by_accelerator)


def build_report(store: Store, spec: ReportSpec, prices: PriceTable | None = None) -> Report:
    """Query, bind and assemble, every section from one snapshot of the store (Store.reading): an
    ingest committing meanwhile changes no section's rows or bands. Raises GuardError naming the
    rows and the way out. Every band is the whole stored cohort's (Store.cohorts), whatever a
    section's filters or limit select."""
    with store.reading():
        return _build_report(store, spec, prices)


def _build_report(store: Store, spec: ReportSpec, prices: PriceTable | None) -> Report:
    if prices is None and spec.prices:
        prices = load_prices(spec.base_dir / spec.prices)
    sections = []
    problems = []
    for n, s in enumerate(spec.sections, 1):
        where = f"section {n} ({s.title})"
        if s.kind == "text":
            sections.append(TextSection(s.title, tuple(p.strip() for p in s.text.split("\n\n") if p.strip())))
            continue
        if s.kind == "beside":
            section = _beside_section(store, s, where)
            if isinstance(section, list):
                problems += section
            else:
                sections.append(section)
            continue
        cohorts = store.cohorts(**s.filters)
        if not cohorts:
            problems.append(finding("empty-selection", where, no_match_words(store, s.filters)))
            continue
        if len(cohorts) > 1 and (not s.split_by_cohort or s.kind == "kpi"):
            if s.kind == "chart" and len({c.key.mlperf for c in cohorts}) > 1:
                from .guard import one_axis_refusal

                problems.append(one_axis_refusal(where, chart=True))  # one chart is one axis
                continue
            problems += check_one_cohort([r for c in cohorts for r in c.results], where, can_split=s.kind != "kpi")
            continue
        for cohort in cohorts:
            title = s.title if len(cohorts) == 1 else f"{s.title}: {cohort.key.label()}"
            if s.kind != "kpi" and "rank" in s.columns and not cohort.slack.estimable:
                title = unranked_title(title, cohort.slack)  # "top 5" over rows no band can rank: "5 highest"
            rows = sorted(cohort.results, key=lambda r: -r.value)
            if s.kind == "kpi":
                # a headline picked from one scale says so: "highest" alone would read as the cohort's
                title += scale_filter_words(s.filters.get("accelerator_count"), title)
                try:
                    sections.append(kpi(rows, cohort.slack, title, cohort=cohort.whole,
                                        per_accelerator=s.per_accelerator, where=where))
                except GuardError as e:
                    problems += e.findings
                continue
            try:
                table = bind_table(rows, title=title, slack=cohort.slack,
                                   columns=default_columns(s.columns, own=not cohort.key.mlperf), prices=prices,
                                   where=where, limit=s.limit, cohort=cohort.whole,
                                   chosen_by=selection_words(s.filters))
            except GuardError as e:
                problems += e.findings
                continue
            shown = rows[: s.limit]
            # a "top N" table is a ranking statement: its title names the scales it spans, as a chart's does
            ranked_title = f"{title} ({scale_range_words(shown)})" if s.limit and len(rows) > s.limit else title
            sections.append(TableSection(ranked_title, table) if s.kind == "table" else
                            ChartSection(f"{title} ({shape_title(rows[0])}; {scale_range_words(shown)})", table))
    if problems:
        raise GuardError(problems)
    return Report(spec.title, spec.audience, tuple(sections), SHORT, FULL, TRADEMARK_LEGEND,
                  spec_name=spec.name)  # dated by the export's clock (render.export)


def scale_filter_words(counts, title: str) -> str:
    """' among systems of 8 accelerators' (' of 8 or 16 accelerators') for a headline whose filters chose
    one scale (or a few), unless its title says so already."""
    if not counts:
        return ""
    counts = sorted(set(counts))
    words = (f"{counts[0]:,}" if len(counts) == 1 else
             ", ".join(f"{c:,}" for c in counts[:-1]) + f" or {counts[-1]:,}")
    noun = "accelerator" if counts == [1] else "accelerators"
    said = f"systems of {words} {noun}"
    return "" if said in title else f" among {said}"


def _beside_section(store: Store, s: SectionSpec, where: str):
    """The section, or the findings that refuse it: each panel must select exactly one cohort."""
    from .beside import beside_section

    if s.axis != "separate":
        from .guard import one_axis_refusal

        return [one_axis_refusal(where)]
    picked = []
    for label, filters in (("MLPerf panel", s.filters), ("own panel", s.own_filters)):
        cohorts = store.cohorts(**filters)
        if not cohorts:
            return [finding("empty-selection", f"{where}, {label}", no_match_words(store, filters))]
        if len(cohorts) > 1 and label == "MLPerf panel":
            listing = "; ".join(c.key.label() for c in cohorts[:6]) + (" ..." if len(cohorts) > 6 else "")
            return [finding("mixed-cohort", f"{where}, {label}", f"the MLPerf filters select {len(cohorts)} cohorts "
                            f"({listing}); the MLPerf panel shows one. Way out: narrow the mlperf filters of the section")]
        picked.append(cohorts)
    try:
        return beside_section(picked[0][0], picked[1], title=s.title, columns=s.columns, own_columns=s.own_columns,
                              limit=s.limit, axis=s.axis, where=where)
    except GuardError as e:
        return list(e.findings)


VALUES_SHOWN = 40  # stored values a no-match message lists for one filter


def no_match_words(store: Store, filters: dict) -> str:
    """Why a selection is empty, with the stored values that the failing filter could take: the
    filters that match nothing on their own, or else each filter against the others."""
    given = {k: v for k, v in filters.items() if v not in (None, (), [])}
    if not given:
        return "the store holds no results yet (exportguard ingest PATH, or exportguard demo)"
    lines = [f"no stored result matches {_filter_words(given)}"]
    listed = {k: v for k, v in given.items() if k != "mlperf"}
    alone = [k for k, v in listed.items() if not store.stored_values(k, **{k: v})]
    if alone:
        for k in alone:
            lines.append(f"  {k} {_filter_words({k: given[k]}, name=False)} matches no stored result; stored "
                         f"{k} values: {_values_words(store.stored_values(k))}")
    else:
        lines.append("  each filter matches on its own, not all together; with the other filters, stored values are:")
        for k in listed:
            others = {o: v for o, v in given.items() if o != k}
            lines.append(f"  {k}: {_values_words(store.stored_values(k, **others))}")
    return "\n".join(lines)


def _filter_words(filters: dict, name: bool = True) -> str:
    def one(v):
        return "/".join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)
    return ", ".join(f"{k}={one(v)}" if name else one(v) for k, v in filters.items())


def _values_words(values: list) -> str:
    if not values:
        return "none"
    shown = ", ".join(str(v) for v in values[:VALUES_SHOWN])
    return shown + (f" and {len(values) - VALUES_SHOWN} more" if len(values) > VALUES_SHOWN else "")


def overriding(spec: ReportSpec, columns: Sequence[str] | None = None, limit: int | None = None) -> ReportSpec:
    """A spec whose table, chart and beside sections show ``columns`` (the command line's --columns over
    a spec's) and the first ``limit`` rows of each cohort (--limit); as it was where neither is given."""
    if not columns and limit is None:
        return spec
    sections = []
    for s in spec.sections:
        if s.kind in ("table", "chart", "beside"):
            s = replace(s, columns=tuple(columns) if columns else s.columns, limit=s.limit if limit is None else limit)
        sections.append(s)
    return replace(spec, sections=tuple(sections))


def spec_from_filters(filters: dict, split_by_cohort: bool, columns=DEFAULT_COLUMNS, title: str = "") -> ReportSpec:
    """The command line's filters as a one-table spec."""
    given = {k: v for k, v in filters.items() if v not in (None, (), [])}
    words = {k: _filter_words({k: v}, name=False) + (" accelerators" if k == "accelerator_count" else "")
             for k, v in given.items() if k != "mlperf"}
    if "model" in words and "accuracy_track" in words and "/" not in words["model"] + words["accuracy_track"]:
        # one benchmark: its model and track as one name ("llama2-70b-99"), as every cohort label reads
        words["model"] = f"{words['model']}-{words.pop('accuracy_track')}"
    shown = " ".join(words.values())
    # own runs alone: named as what they are (and with no unmarked "MLPerf", which the checker flags)
    kind = {True: "MLPerf® Inference LLM results", False: "Own load-test LLM results"}.get(
        given.get("mlperf"), "MLPerf® Inference LLM results")
    return ReportSpec(title or f"{kind} {shown}".strip(), "general",
                      (SectionSpec("table", "Results", given, tuple(columns), split_by_cohort=split_by_cohort),))

