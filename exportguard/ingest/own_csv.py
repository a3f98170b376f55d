"""Own load-test runs written as rows of exportguard's CSV (``mlperf=no``): the same conditions an own
run read from a tool's file has (own_build.py), stated by the user.

An own row never names an MLPerf scenario, latency bounds, a round or a reference shape: it gives
the load it ran (``load``: closed loop with ``concurrency``, Poisson / constant rate with
``request_rate``, Gamma with ``request_rate`` and ``burstiness``, burst, trace replay, other), its
measured shape (``mean_input_tokens``, ``mean_output_tokens``, their spread where known) and the tool
it was measured with. ``value`` is output tokens/s; total tokens/s goes in ``total_tokens_per_s``.
What a row leaves empty comes from ``--system``, else is stored as unknown.
"""
from __future__ import annotations

from ..errors import SourceError
from ..model import LOAD_CSV, NOT_RECORDED, OWN_LOAD_KINDS, SCENARIOS
from .csv_cells import cell_date, cell_number
from .numbers import parse_count
from .own_build import Measured, own_result, run_digest
from .own_system import SystemDescription

OWN_COLUMNS = ("tool", "tool_version", "load", "concurrency", "request_rate", "burstiness", "load_detail",
               "mean_input_tokens", "mean_output_tokens", "input_tokens_std", "output_tokens_std", "requests",
               "failed_requests", "duration_s", "p50_ttft_ms", "p50_tpot_ms", "latency_definitions",
               "total_tokens_per_s", "dataset", "run_date", "run_id", "server_settings")
OWN_ONLY = tuple(c for c in OWN_COLUMNS if c != "dataset")
OWN_REQUIRED = ("tool", "load", "mean_input_tokens", "mean_output_tokens")
# MLPerf-only columns: an own row leaves them empty (a value there would be lost, or would dress an
# own run in MLPerf conditions).
MLPERF_ONLY = ("scenario", "round", "division", "availability", "accuracy_track", "system_id", "tokens_per_sample",
               "target_qps", "ttft_bound_ms", "tpot_bound_ms", "arrival_process", "min_duration_ms")
_NOT_STATED = "not stated in the CSV row"


def own_row_result(row: dict, locator: str, source, system: SystemDescription):
    get = lambda k: (row.get(k) or "").strip()  # noqa: E731
    for key in MLPERF_ONLY:
        if get(key):
            raise SourceError("bad_field", f"column {key} is for MLPerf rows; an own run (mlperf=no) gives its load in "
                              "column load (closed loop, Poisson, Gamma, constant rate, burst, trace replay, other) "
                              "and its measured shape in mean_input_tokens / mean_output_tokens", f"column {key}")
    for key in OWN_REQUIRED:
        if not get(key):
            raise SourceError("missing_field", f"column {key} is required for an own run (mlperf=no)", f"column {key}")
    unit = get("unit").lower()
    if unit != "tokens/s":
        raise SourceError("unknown_unit", f"an own run's value is output tokens/s (unit tokens/s), not {get('unit')!r}; "
                          "total tokens/s goes in column total_tokens_per_s", "column unit")
    load = _load_kind(get("load"))
    number = lambda k, required=False: cell_number(get, k, True, required)  # noqa: E731
    count = lambda k: parse_count(get(k), f"column {k}", f"column {k}") if get(k) else None  # noqa: E731
    described = system.merged(**{k: v for k, v in (
        ("measured_by", get("submitter")), ("system_name", get("system_name")), ("accelerator", get("accelerator")),
        ("framework", get("framework")), ("server_settings", get("server_settings")),
        ("host_processor", get("host_processor"))) if v},
        **{k: count(k) for k in ("accelerators_per_node", "nodes") if get(k)})
    duration = number("duration_s")
    measured = Measured(
        tool=get("tool"), tool_version=get("tool_version") or _NOT_STATED,
        run_key=get("run_id") or run_digest({k: v.strip() for k, v in row.items() if k and v and v.strip()}),
        model=get("model"), output_tps=number("value", True), total_tps=number("total_tokens_per_s"),
        mean_input=number("mean_input_tokens", True), mean_output=number("mean_output_tokens", True),
        input_std=cell_number(get, "input_tokens_std", True, required=False, zero=True),
        output_std=cell_number(get, "output_tokens_std", True, required=False, zero=True),
        requests=count("requests"), failed=count("failed_requests"), duration_s=duration,
        duration_basis="stated in the CSV row" if duration else _NOT_STATED,
        load_kind=load, concurrency=count("concurrency"), rate=number("request_rate"), burstiness=number("burstiness"),
        load_detail=get("load_detail"), p50_ttft_ms=number("p50_ttft_ms"), p99_ttft_ms=number("p99_ttft_ms"),
        p50_tpot_ms=number("p50_tpot_ms"), p99_tpot_ms=number("p99_tpot_ms"),
        latency_definitions=get("latency_definitions") or f"TTFT and TPOT definitions {_NOT_STATED}",
        run_date=get("run_date") or _NOT_STATED, dataset=get("dataset") or NOT_RECORDED, value_where="column value")
    try:
        return own_result(measured, source, locator, described, source_url=get("source_url"), load_basis=LOAD_CSV,
                          retrieved_on=cell_date(get, "retrieved_on"))
    except SourceError as err:  # own_build names a field as the CSV column it comes from
        where = err.locator if not err.locator or err.locator.startswith("column ") else f"column {err.locator}"
        raise SourceError(err.reason, err.message, where, err.raw) from None


def _load_kind(text: str) -> str:
    for kind in OWN_LOAD_KINDS:
        if text.lower() == kind.lower():
            return kind
    if text.lower() in (s.lower() for s in SCENARIOS):
        raise SourceError("bad_field", f"load {text!r} is an MLPerf scenario; an own run is never named with one: give "
                          f"the load it ran ({', '.join(OWN_LOAD_KINDS)})", "column load")
    raise SourceError("bad_field", f"load {text!r} is not one of {', '.join(OWN_LOAD_KINDS)}", "column load")
