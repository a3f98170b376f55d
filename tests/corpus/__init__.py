"""A corpus of person-made documents, one group per class of figure the checker must read the way
people write it (issue 18), and the score of `exportguard check` on it.

The documents are built at test time (``build(folder)``, in ``tests/corpus/documents.py``) with the
tools people use: python-pptx, openpyxl, reportlab, a text editor for Markdown and CSV. Their texts
are of the kind third parties publish about MLPerf results and load tests: vendor slides and blog
sentences quoting v5.1 figures, the console summaries that vLLM, SGLang, AIPerf, GenAI-Perf and
llmperf print (the values are those of the runs in shared/own-traffic), German and French decks.
Each document says what a careful reviewer flags in it (``Expect``): a figure by the text the
checker quotes, an uncalculated formula, a missing citation field, or "could not inspect"; a clean
document expects nothing.

    python -m tests.corpus            # build into a temporary folder, check, print recall per class
    python -m tests.corpus --keep DIR # keep the documents in DIR
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

# the classes of issue 18, in the order the report prints them
CLASSES = {
    "label-first": "label first, number after (console summaries, label: value)",
    "units": "units people use (TPS, tok/s/GPU, a word between, snake_case headings)",
    "locales": "German and French numbers, thin-space thousands, ranges",
    "unit-once": "a unit stated once for several numbers (sentences, PDF table columns)",
    "derived-cost": "derived cost figures (tokens/dollar, $/M tokens)",
    "reader-sees": "where a reader sees text (masters, alt text, tiles, charts, formulas)",
    "citations": "citations in the form people write (host/path sources)",
    "hostile": "DTD or entity declarations in any part of a package",
    "clean": "clean documents: other numbers only, or properly bound",
}
FIGURE_RULES = ("EG001", "EG002", "EG007")


@dataclass(frozen=True)
class Expect:
    """One thing a careful reviewer flags: ``rule`` and a text its finding's message holds (a figure's
    message starts with the figure as quoted, so ``"'1764.14"`` matches it)."""
    rule: str
    needle: str


def figure(text: str, rule: str = "EG001") -> Expect:
    """A figure, as the finding quotes it (repr; a line break inside the figure reads as a space)."""
    return Expect(rule, repr(text)[:-1])


def _message(h) -> str:
    return h.message.replace("\\n", " ")


@dataclass
class Doc:
    path: Path
    cls: str
    expect: list[Expect] = field(default_factory=list)
    not_inspectable: bool = False  # the file must end as "could not inspect"

    @property
    def format(self) -> str:
        return self.path.suffix.lstrip(".")


@dataclass
class Score:
    expected: int = 0
    found: int = 0
    false: int = 0
    files: int = 0
    formats: set = field(default_factory=set)
    misses: list = field(default_factory=list)
    false_findings: list = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found / self.expected if self.expected else 1.0


def score(docs: list[Doc], reports) -> dict[str, Score]:
    """Per class: expected flags found, and findings no reviewer would raise (false findings)."""
    by_path = {Path(r.path).resolve(): r for r in reports}
    out: dict[str, Score] = defaultdict(Score)
    for doc in docs:
        s = out[doc.cls]
        s.files += 1
        s.formats.add(doc.format)
        report = by_path[doc.path.resolve()]
        if doc.not_inspectable:
            s.expected += 1
            if report.status == "not-inspected":
                s.found += 1
            else:
                s.misses.append(f"{doc.path.name}: expected 'could not inspect', got {report.status}")
                s.false_findings += [f"{doc.path.name}: {h}" for h in report.hits]
                s.false += len(report.hits)
            continue
        if report.status == "not-inspected":
            s.expected += len(doc.expect)
            s.misses.append(f"{doc.path.name}: could not inspect: {report.reason}")
            s.false += 1
            s.false_findings.append(f"{doc.path.name}: could not inspect: {report.reason}")
            continue
        hits = list(report.hits)
        for e in doc.expect:
            s.expected += 1
            match = next((h for h in hits if h.rule_id == e.rule and e.needle in _message(h)), None)
            if match is None and e.rule in FIGURE_RULES:  # the figure flagged under another figure rule
                match = next((h for h in hits if h.rule_id in FIGURE_RULES and _message(h).startswith(e.needle)), None)
            if match is None:
                s.misses.append(f"{doc.path.name}: {e.rule} {e.needle}")
            else:
                s.found += 1
                hits.remove(match)
        # a figure has one finding per rule it breaks: more findings of the same figure are not false
        matched_figures = {e.needle for e in doc.expect}
        for h in hits:
            if any(_message(h).startswith(n) for n in matched_figures) and h.rule_id in FIGURE_RULES + ("EG005",):
                continue
            s.false += 1
            s.false_findings.append(f"{doc.path.name}: {h}")
    return dict(out)


def table(scores: dict[str, Score]) -> str:
    lines = ["| class | files | formats | flags expected | found | recall | false findings |",
             "|---|---:|---|---:|---:|---:|---:|"]
    total = Score()
    for cls in CLASSES:
        s = scores.get(cls)
        if s is None:
            continue
        lines.append(f"| {cls} | {s.files} | {', '.join(sorted(s.formats))} | {s.expected} | {s.found} | "
                     f"{s.recall:.0%} | {s.false} |")
        total.files += s.files
        total.expected += s.expected
        total.found += s.found
        total.false += s.false
    lines.append(f"| all | {total.files} | | {total.expected} | {total.found} | {total.recall:.0%} | {total.false} |")
    return "\n".join(lines)
