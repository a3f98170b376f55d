"""The guard's rules, one registry shared by the exporters (which refuse what breaks them) and the
checker (which reports it in documents made by anyone). IDs are stable: never renumber."""
from __future__ import annotations

from dataclasses import dataclass

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    severity: str
    title: str
    description: str


RULES = {r.id: r for r in (
    Rule("EG001", "bare-figure", ERROR, "Figure without its binding",
         "A throughput figure appears without its unit, band and a footnote mark that resolves to its "
         "scenario, shape and citation."),
    Rule("EG002", "missing-band", ERROR, "Figure without a band",
         "A figure shows no shape-slack band and no words saying why there is none "
         "(\"slack not estimable: 1 result\"). A band is never printed as ±0%."),
    Rule("EG003", "mixed-cohort", ERROR, "Figures of different cohorts in one comparison",
         "A table column, chart series or ranking holds figures of different round, division, model, "
         "accuracy track, scenario or unit: different shape or load, never one comparison. Split by cohort."),
    Rule("EG004", "lead-within-slack", ERROR, "A lead inside shape slack shown as an order",
         "A ranking (a rank column, a headline) shows an order between two figures of one cohort whose ratio "
         "is inside 1 + the cohort's slack, or a tie between two whose ratio is not, or ranks figures whose "
         "cohort has no estimable slack. Each rank names the ranks it is tied with: \"3 (tie 2-5)\"."),
    Rule("EG005", "missing-citation-field", ERROR, "Footnote lacks a required citation field",
         "MLCommons' messaging rules require, for each result: suite, version and division; benchmark and "
         "scenario; retrieval date and source; result ID; verified status; and the trademark legend."),
    Rule("EG006", "unverified-not-labelled", ERROR, "Unverified figure not labelled",
         "An unverified figure must say \"unverified\" next to the number, and its footnote must say "
         "\"Result not verified by MLCommons Association.\""),
    Rule("EG007", "derived-not-labelled", ERROR, "Derived figure not labelled",
         "A derived figure (per accelerator, cost per million tokens, an estimate) must be labelled derived, "
         "state its basis and the MLPerf shape it comes from, and never sit in an official column unlabelled."),
    Rule("EG008", "hidden-difference", ERROR, "Compared rows differ in a way the table does not show",
         "Rows compared in one table differ in version, division, availability, verified status, scenario "
         "or accelerator count, and the table has no column that shows it."),
    Rule("EG009", "mlperf-vs-non-mlperf", ERROR, "MLPerf figure compared with a non-MLPerf figure",
         "MLPerf results may not be compared with results that are not MLPerf results."),
    Rule("EG010", "caveat-missing", ERROR, "Caveat missing",
         "The artifact must carry the caveat, and every page, slide or sheet that shows figures its short form."),
    Rule("EG011", "mlperf-without-mark", WARNING, "\"MLPerf\" without the registered mark",
         "The first mention of MLPerf in a text should read MLPerf®."),
    Rule("EG012", "unknown-column", ERROR, "Unknown column",
         "A table or spec names a column exportguard does not know; the message lists the known ones."),
    Rule("EG013", "empty-selection", ERROR, "Nothing selected",
         "A section's filters select no stored result: there is nothing to compare. Ingest the results or "
         "widen the filters."),
    Rule("EG014", "missing-prices", ERROR, "Cost column without a price table",
         "A derived cost column needs a price table that says where its prices come from."),
    Rule("EG015", "ranking-without-figure", ERROR, "Results listed without their figure",
         "A table of results (a ranking) must show the figure it ranks by, with its band and citation."),
    # The checker's own: an exportguard artifact compared with the manifest it embeds (exportguard
    # check). The guard never raises them: it has no artifact to compare.
    Rule("EG016", "manifest-invalid", ERROR, "Manifest cannot be trusted",
         "The artifact's embedded manifest cannot be read, has an unknown schema, or its digest (or, with "
         "EXPORTGUARD_SIGNING_KEY, its HMAC signature) does not match its content: the manifest was edited."),
    Rule("EG017", "edited-figure", ERROR, "Figure edited since export",
         "A figure is no longer what was exported at its location: its value changed or it was removed. The "
         "finding gives the exported and the current value."),
    Rule("EG018", "stripped-binding", ERROR, "Binding stripped since export",
         "A figure kept its value but lost part of its binding since export: the number format, unit, band, "
         "mark or label, or the note its marks resolve to (a footer row, a notes line)."),
    Rule("EG019", "figure-added", ERROR, "Figure added after export",
         "An exportguard artifact shows a throughput figure that its manifest does not list: it was added after "
         "export, and nothing vouches for its conditions."),
    # The guard's, after the checker's (IDs are never renumbered).
    Rule("EG020", "mixed-scale", WARNING, "Comparison across system scales",
         "The compared systems differ in accelerator count, so a total throughput reflects the size of each "
         "system as well as its hardware. The guard states the scales on the same slide, page or sheet as the "
         "comparison; compare at one scale (an accelerator_count filter) or per accelerator (derived)."),
    Rule("EG021", "one-axis-for-mlperf-and-own", ERROR, "MLPerf figures and own measurements on one axis",
         "A chart, table column or axis would put MLPerf figures and the user's own load-test runs on one scale, "
         "as if they were one comparison. Show them beside each other (a section of kind \"beside\": two panels, "
         "each with its own axis, band and notes, and a shape panel that states both shapes)."),
    Rule("EG022", "own-measurement-not-labelled", ERROR, "Own measurement not labelled as such",
         "A figure from the user's own load test must say \"own measurement\" next to the number, and its note must "
         "say so and give who measured it, when, with which tool and version, on which system, at which shape and "
         "load, and from which source; an own measurement's note never carries an MLPerf citation, so an own figure "
         "can never pass as an MLPerf one."),
    # The checker's own, for documents made by anyone.
    Rule("EG023", "unread-value", WARNING, "Could not read the value",
         "A place where a reader sees a throughput figure holds a value the file does not carry: a formula "
         "that was never calculated (saved without its cached result) under a throughput heading, after a "
         "throughput label or with a unit in its number format. What a reader sees depends on the application "
         "that opens it; recalculate and save the file, then check it again."),
    Rule("EG024", "number-format-budget", ERROR, "Workbook over the number-format budget",
         "A workbook defines more than 200 custom number formats. Excel cannot open a workbook with more than "
         "about 200 to 250 (Office: 206), and LibreOffice keeps the first 9,856 and shows the cells past them "
         "without their format, silently: a figure whose unit, band and mark are in its number format then reads "
         "as a bare number. Share one format among the cells that show the same words, or write such figures "
         "as text."),
    Rule("EG025", "note-not-visible", ERROR, "Footnote not visible where the figure is",
         "A figure's mark resolves only to a note that a reader of its slide does not see: the notes block "
         "inside a chart's embedded workbook (shown only by Edit Data). A chart's marks must resolve to notes "
         "standing on its slide or page."),
    Rule("EG026", "mixed-export-set", ERROR, "Files of one export from different runs",
         "Files written together by one export carry different export run ids in their manifests: an export "
         "was interrupted between putting its files in place, or one file was replaced by another export, so "
         "the set no longer shows one report. Run `exportguard recover FOLDER` (it finishes or undoes every "
         "interrupted export there), then export again."),
    Rule("EG027", "hidden-characters", ERROR, "Figure with characters a reader does not see",
         "A figure's text holds characters that show nothing (a zero-width space or joiner, a soft hyphen, a "
         "byte order mark) or that reorder what is shown (a right-to-left override or isolate before it): a "
         "reader sees one figure, while a copy, a search or a checker reads another, or none (101\u200d,527 "
         "reads as two numbers; an override shows 101,527 as 725,101). The checker reads the figure as a "
         "reader sees it and reports it; remove the characters."),
)}


def rule(name_or_id: str) -> Rule:
    for r in RULES.values():
        if name_or_id in (r.id, r.name):
            return r
    raise KeyError(name_or_id)


@dataclass(frozen=True)
class Finding:
    rule_id: str
    location: str
    message: str

    @property
    def rule(self) -> Rule:
        return RULES[self.rule_id]

    @property
    def severity(self) -> str:
        return self.rule.severity

    def __str__(self) -> str:
        r = self.rule
        return f"{self.location}: {r.id} {r.name} ({r.severity}): {self.message}"


def finding(name: str, location: str, message: str) -> Finding:
    return Finding(rule(name).id, location, message)
