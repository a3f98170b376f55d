"""Terminal and JSON views of stored figures. A figure here reads exactly as in an export, without
its mark (the terminal has no notes); its band is the whole stored cohort's, whatever the filters."""
from __future__ import annotations

import dataclasses

from .citation import result_id_words, system_words
from .guard import bound_figure, cohort_ranks
from .model import Cohort, Result
from .report import RankSpan
from .wording import NOT_RANKED_SENTENCE, band_words, load_text, number, own_tool_words, slack_words, tps_words


def figure_text(result: Result, cohort: Cohort) -> str:
    """'101,527 tok/s ±5.4%' or '27,804 tok/s (slack not estimable: 1 result)'; unverified said inline."""
    return bound_figure(result, cohort.slack).text()


def showing_words(cohort: Cohort) -> str:
    n = len(cohort.results)
    return f"showing {n} of {cohort.total} results" if cohort.filtered else \
        f"{cohort.total} result{'s' if cohort.total != 1 else ''}"


def cohort_header(cohort: Cohort) -> str:
    s = cohort.slack
    if s.basis == "repeats":  # an own cohort: its band comes from repeated runs, not from shapes
        spread = (f"output tokens/s of {s.with_tps} repeated runs of one configuration {number(s.tps_min, 1)} to "
                  f"{number(s.tps_max, 1)}, run-to-run spread {slack_words(s)}, band {band_words(s)}"
                  if s.estimable else band_words(s))
        return f"{cohort.key.label()}: {showing_words(cohort)}; {spread}"
    basis = "unverified" if s.unverified_only else "verified"
    spread = (f"tokens/sample {number(s.tps_min, 1)} to {number(s.tps_max, 1)} over {s.with_tps} {basis} of "
              f"{cohort.total}, slack {slack_words(s)}, band {band_words(s)}" if s.estimable else band_words(s))
    return f"{cohort.key.label()}: {showing_words(cohort)}; {spread}"


def cohort_row(cohort: Cohort) -> dict:
    s = cohort.slack
    row = {"cohort": cohort.key.label(), **dataclasses.asdict(cohort.key), "count": cohort.total,
           "shown": len(cohort.results), "tokens_per_sample_min": s.tps_min, "tokens_per_sample_max": s.tps_max,
           "with_tokens_per_sample": s.with_tps, "slack_basis": "unverified" if s.unverified_only else "verified",
           "slack": s.fraction, "band": s.band_fraction, "slack_text": slack_words(s), "band_text": band_words(s),
           "not_estimable_reason": s.reason or None}
    if s.basis == "repeats":  # an own cohort: the spread of its repeated runs' figures, not of shapes
        row.update(tokens_per_sample_min=None, tokens_per_sample_max=None, with_tokens_per_sample=None,
                   slack_basis="repeated runs", repeated_runs=s.with_tps, repeated_runs_min=s.tps_min,
                   repeated_runs_max=s.tps_max)
    return row


def _ranked(cohort: Cohort) -> list[tuple[RankSpan, Result]]:
    """The shown results, highest first, each with its rank in the whole stored cohort
    (guard.cohort_ranks): a filter chooses the rows shown, never their ranks."""
    results = sorted(cohort.results, key=lambda r: -r.value)
    return list(zip(cohort_ranks(results, cohort.whole, cohort.slack), results))


def figure_records(cohort: Cohort) -> list[dict]:
    """Figures for machine consumers: a value never appears without unit, band and conditions."""
    return [{"figure": figure_text(r, cohort), "rank": span.words(), "position": span.position,
             "rank_from": span.tie_from, "rank_to": span.tie_to, "value": r.value, "unit": r.unit,
             "band": cohort.slack.band_fraction, "band_text": band_words(cohort.slack), "cohort": cohort.key.label(),
             "cohort_results": cohort.total, "result_id": r.conditions.identity.result_id or None,
             "result_id_state": r.conditions.identity.result_id_state, "corrections": list(r.corrections),
             "conditions": dataclasses.asdict(r.conditions)} for span, r in _ranked(cohort)]


def listing_lines(cohorts: list[Cohort]) -> list[str]:
    lines = []
    for cohort in cohorts:
        lines.append(cohort_header(cohort))
        if not cohort.slack.estimable:
            lines.append(f"  {NOT_RANKED_SENTENCE}")
        ranked = [(span.words(), r) for span, r in _ranked(cohort)]
        w = max(len(rank) for rank, _ in ranked)
        for rank, r in ranked:
            i, c = r.conditions.identity, r.conditions.configuration
            if r.own:
                lines.append(f"  {rank:<{w}}  {figure_text(r, cohort):<34} | measured by {i.submitter} | "
                             f"{system_words(r)} | {own_tool_words(r)} | "
                             f"mean {number(r.conditions.run.mean_input_tokens, 1)} input tokens per request, "
                             f"{tps_words(r.conditions.shape)} | run on {r.conditions.run.run_date}")
            else:
                lines.append(f"  {rank:<{w}}  {figure_text(r, cohort):<34} {i.submitter} | {i.system_name} | "
                             f"{c.accelerators_total} x {c.accelerator} | {i.availability} | {result_id_words(r)} | "
                             f"{tps_words(r.conditions.shape)}")
            lines.append(f"  {'':<{w}}  {'':<34} {load_text(r)}")
            if r.corrections:
                lines.append(f"  {'':<{w}}  {'':<34} corrected: {'; '.join(r.corrections)}")
        lines.append("")
    return lines
