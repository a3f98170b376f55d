"""NVIDIA AIPerf ``profile_export_aiperf.json`` and GenAI-Perf ``profile_export_genai_perf.json``: one run
per file, every metric a block ``{"unit", "avg", "p50", "p99", "std", ...}``.

AIPerf (``aiperf_version``/``schema_version``, or an ``input_config`` with ``loadgen`` or ``phases``):
the load is the profiling phase's ``type`` (concurrency, poisson, gamma with its smoothness, constant,
fixed_schedule, user_centric) with its ``rate`` and ``concurrency``, or, in older files, ``loadgen``
(``request_rate_mode`` is left out when it is the default, Poisson). A file of the warmup phase alone
(``phases/warmup/...``) is not a measurement and is skipped by rule.

GenAI-Perf has no version in its file: the layout tells an old one (flat ``input_config``, up to 0.0.12)
from a new one (nested, 0.0.13 on). Its request rate goes to perf_analyzer, whose request distribution
is *constant* unless set otherwise: that is constant spacing, not Poisson. It records no duration
(derived as request_count / request_throughput where both exist) and no date. GenAI-Perf 0.0.8
writes the ``unit`` of its token throughput and sequence lengths as "requests/sec": a bug, so units of
those metrics are not trusted in the flat layout.

Both: ITL = (request latency - TTFT) / (output tokens - 1) per request, which is what exportguard
calls TPOT; ISL/OSL are counted on the client with the configured tokenizer.
"""
from __future__ import annotations

from ..errors import SourceError
from ..model import (NOT_RECORDED, OWN_CLOSED_LOOP, OWN_CONSTANT, OWN_GAMMA, OWN_OTHER, OWN_POISSON, OWN_TRACE)
from .source import Skipped
from .own_build import Measured, run_digest
from .own_json import Keys, Record, positive_or_none

AIPERF, GENAI_PERF = "AIPerf", "GenAI-Perf"
TPOT_DEFINITION = ("TTFT: time to first token; TPOT read from inter_token_latency: per request (request latency - "
                   "TTFT) / (output tokens - 1), percentiles over requests")
_TIME_UNITS = {"ms": 1.0, "msec": 1.0, "s": 1000.0, "sec": 1000.0, "us": 1e-3, "ns": 1e-6}
_BUGGY_UNIT = "requests/sec"  # GenAI-Perf 0.0.8 writes it for token throughput and sequence lengths


def _metric_shaped(obj: dict) -> bool:
    block = obj.get("output_token_throughput")
    return isinstance(block, dict) and "avg" in block


def is_aiperf(obj: object) -> bool:
    if not isinstance(obj, dict) or not _metric_shaped(obj):
        return False
    config = obj.get("input_config")
    return "aiperf_version" in obj or "schema_version" in obj or (
        isinstance(config, dict) and ("loadgen" in config or "phases" in config))


def is_genai_perf(obj: object) -> bool:
    return isinstance(obj, dict) and _metric_shaped(obj) and isinstance(obj.get("input_config"), dict) \
        and not is_aiperf(obj)


def _ms(k: Keys, metric: str, stat: str) -> float | None:
    block = k.sub(metric)
    if block is None:
        return None
    unit = (block.text("unit") or "ms").lower()
    if unit not in _TIME_UNITS:
        raise SourceError("bad_field", f"key {block.name('unit')}: {unit!r} is not a unit of time", k.where)
    value = block.num(stat)
    return positive_or_none(None if value is None else value * _TIME_UNITS[unit])


def _tokens(k: Keys, metric: str, stat: str, expected: str, trust_unit: bool) -> float | None:
    block = k.sub(metric)
    if block is None:
        return None
    unit = block.text("unit")
    if trust_unit and unit and unit != expected:
        raise SourceError("bad_field", f"key {block.name('unit')}: {unit!r}, where {expected!r} was expected", k.where)
    return block.num(stat)


def measured(record: Record) -> Measured:
    k = Keys(record.value, record.locator)
    aiperf = is_aiperf(record.value)
    config = k.sub("input_config")
    # the nested layout (0.0.13 on) groups endpoint and perf_analyzer settings; the flat one has an
    # "endpoint" key too, the --endpoint path (usually null)
    flat = not aiperf and config is not None and not any(isinstance(config.obj.get(key), dict)
                                                         for key in ("endpoint", "perf_analyzer", "input"))
    trust = not flat  # GenAI-Perf 0.0.8's units are wrong (see above)
    output_tps = _tokens(k, "output_token_throughput", "avg", "tokens/sec", trust)
    if output_tps is None:
        raise SourceError("missing_field", "key output_token_throughput.avg is missing", record.locator)
    mean_in = _tokens(k, "input_sequence_length", "avg", "tokens", trust)
    mean_out = _tokens(k, "output_sequence_length", "avg", "tokens", trust)
    details = []
    if flat and (k.sub("output_token_throughput").text("unit") or "") == _BUGGY_UNIT:
        details.append("GenAI-Perf wrote the token throughput's unit as requests/sec (a known bug of its flat "
                       "layout); read as output tokens/s")
    if aiperf:
        kind, concurrency, rate, burstiness, load_detail, phase_requests = _aiperf_load(config, record.locator)
        requests = _count_of(k, "completed_request_count") or _count_of(k, "request_count")
        warmup = _warmup_requests(config)
        if warmup and requests == warmup and phase_requests not in (None, warmup) and not k.has("warmup_metrics"):
            return Skipped(record.locator, "AIPerf warmup phase export (not a measurement): ingest the run's "
                                   "profile_export_aiperf.json")
        version = k.text("aiperf_version") or "not recorded (before AIPerf wrote aiperf_version)"
        duration = k.stat("benchmark_duration", "avg")
        duration_basis = "measured" if duration else NOT_RECORDED
        failed = _count_of(k, "error_request_count")
        if failed is None and k.raw("error_summary") == [] and (k.stat("request_error_rate", "avg") or 0) == 0:
            failed = 0
        total = _tokens(k, "total_token_throughput", "avg", "tokens/sec", True)
        run_key = f"{k.text('benchmark_id')}|{k.text('start_time')}" if k.text("benchmark_id") else \
            run_digest({key: v for key, v in record.value.items() if key != "warmup_metrics"})
        date = _iso(k.text("start_time"))
        dataset = _aiperf_dataset(config)
    else:
        kind, concurrency, rate, burstiness, load_detail = _genai_perf_load(config, flat, record.locator)
        requests = _count_of(k, "request_count")
        version = ("not recorded (flat input_config: GenAI-Perf 0.0.12 or earlier)" if flat else
                   "not recorded (nested input_config: GenAI-Perf 0.0.13 or later)")
        throughput = k.stat("request_throughput", "avg")
        duration = requests / throughput if requests and throughput else None
        duration_basis = "derived: request_count / request_throughput" if duration else NOT_RECORDED
        failed, total, run_key, date = None, None, run_digest(record.value), NOT_RECORDED
        dataset = _genai_perf_dataset(config, flat)
    if load_detail:
        details.insert(0, load_detail)
    warnings = ()
    if not aiperf and concurrency and rate:  # perf_analyzer runs a concurrency or a rate, never both
        warnings = (f"input_config gives both concurrency {concurrency} and request_rate {rate:g}: perf_analyzer "
                    "runs one or the other; read as the rate, the concurrency as a cap",)
    return Measured(warnings=warnings,
        
        tool=AIPERF if aiperf else GENAI_PERF, tool_version=version, run_key=run_key,
        model=_model(config), output_tps=output_tps, total_tps=total, mean_input=mean_in, mean_output=mean_out,
        input_std=_tokens(k, "input_sequence_length", "std", "tokens", trust),
        output_std=_tokens(k, "output_sequence_length", "std", "tokens", trust),
        requests=requests, failed=failed, duration_s=duration, duration_basis=duration_basis,
        load_kind=kind, concurrency=concurrency, rate=rate, burstiness=burstiness, load_detail="; ".join(details),
        p50_ttft_ms=_ms(k, "time_to_first_token", "p50"), p99_ttft_ms=_ms(k, "time_to_first_token", "p99"),
        p50_tpot_ms=_ms(k, "inter_token_latency", "p50"), p99_tpot_ms=_ms(k, "inter_token_latency", "p99"),
        latency_definitions=TPOT_DEFINITION, run_date=date, dataset=dataset,
        value_where="key output_token_throughput.avg")


def _count_of(k: Keys, metric: str) -> int | None:
    value = k.stat(metric, "avg")
    return int(value) if value is not None and value.is_integer() and value > 0 else None


def _phases(config: Keys | None) -> dict[str, Keys]:
    """AIPerf's phases by kind: a list of {kind, type, ...} (0.13) or a mapping name -> phase."""
    if config is None:
        return {}
    raw = config.raw("phases")
    out = {}
    if isinstance(raw, list):
        for n, phase in enumerate(raw):
            p = Keys(phase, config.where, f"input_config.phases[{n}]")
            out.setdefault(p.text("kind") or p.text("name") or str(n), p)
    elif isinstance(raw, dict):
        for name in raw:
            out.setdefault(name, Keys(raw[name], config.where, f"input_config.phases.{name}"))
    return out


def _warmup_requests(config: Keys | None) -> int | None:
    warmup = _phases(config).get("warmup")
    if warmup is not None:
        return warmup.count("requests")
    loadgen = config.sub("loadgen") if config else None
    return loadgen.count("warmup_request_count") if loadgen else None


_AIPERF_KINDS = {"concurrency": OWN_CLOSED_LOOP, "poisson": OWN_POISSON, "gamma": OWN_GAMMA,
                 "constant": OWN_CONSTANT, "fixed_schedule": OWN_TRACE}


def _aiperf_load(config: Keys | None, where: str):
    phases = _phases(config)
    warmup = _warmup_requests(config)
    warm = f"{warmup} warmup requests first, excluded" if warmup else ""
    profiling = phases.get("profiling")
    if profiling is not None:
        kind_name = (profiling.text("type") or "").lower()
        concurrency, rate, requests = profiling.count("concurrency"), profiling.num("rate"), profiling.count("requests")
        kind = _AIPERF_KINDS.get(kind_name, OWN_OTHER)
        burstiness = profiling.num("smoothness") if kind == OWN_GAMMA else None
        detail = "; ".join(x for x in (warm, "" if kind != OWN_OTHER else f"AIPerf phase type {kind_name!r}") if x)
        return kind, concurrency, rate if kind in (OWN_POISSON, OWN_GAMMA, OWN_CONSTANT) else None, burstiness, \
            detail, requests
    loadgen = config.sub("loadgen") if config else None
    if loadgen is None:
        return OWN_OTHER, None, None, None, "; ".join(x for x in ("load not recorded in the file", warm) if x), None
    rate, concurrency = loadgen.num("request_rate"), loadgen.count("concurrency")
    requests = loadgen.count("request_count")
    if rate:
        mode = (loadgen.text("request_rate_mode") or "poisson").lower()  # left out when it is the default
        kind = {"poisson": OWN_POISSON, "constant": OWN_CONSTANT, "gamma": OWN_GAMMA}.get(mode, OWN_OTHER)
        return kind, concurrency, rate, loadgen.num("smoothness") if kind == OWN_GAMMA else None, warm, requests
    if concurrency:
        return OWN_CLOSED_LOOP, concurrency, None, None, warm, requests
    return OWN_OTHER, None, None, None, "; ".join(x for x in ("load not recorded in the file", warm) if x), requests


def _genai_perf_load(config: Keys | None, flat: bool, where: str):
    if config is None:
        raise SourceError("missing_field", "key input_config is missing: the load is not recorded", where)
    if flat:
        concurrency, rate = config.count("concurrency"), config.num("request_rate")
        window = config.num("measurement_interval")
        detail = f"measured over stable windows of {window / 1000:g} s (perf_analyzer)" if window else ""
    else:
        pa = config.sub("perf_analyzer")
        stimulus = pa.sub("stimulus") if pa else None
        concurrency = stimulus.count("concurrency") if stimulus else None
        rate = stimulus.num("request_rate") if stimulus else None
        measurement = pa.sub("measurement") if pa else None
        mode = measurement.text("mode") if measurement else None
        detail = _measurement_words(mode, measurement.num("num")) if mode and measurement.num("num") else ""
    if rate:
        return OWN_CONSTANT, concurrency, rate, None, "; ".join(
            x for x in ("perf_analyzer's request distribution: constant (its default; not recorded otherwise)",
                        detail) if x)
    if concurrency:
        return OWN_CLOSED_LOOP, concurrency, None, None, detail
    raise SourceError("missing_field", "input_config names neither a concurrency nor a request rate", where)


def _measurement_words(mode: str, num: float) -> str:
    """perf_analyzer's measurement setting, each number with its noun (a bare "request_count 64" in a
    title or note reads as a figure)."""
    words = {"request_count": f"measured over {num:g} requests", "count_windows": f"measured over windows of "
             f"{num:g} requests", "time_windows": f"measured over windows of {num / 1000:g} s"}
    return words.get(mode, f"measurement mode {mode!r} with its setting of {num:g} requests or ms")


def _model(config: Keys | None) -> str | None:
    if config is None:
        return None
    for key in ("model_names", "model"):
        value = config.raw(key)
        if isinstance(value, list) and value and isinstance(value[0], str):
            return value[0].strip() or None
        if isinstance(value, str) and value.strip():
            return value.strip()
    models = config.sub("models")  # AIPerf 0.13: {"items": [{"name": ...}]}
    items = models.raw("items") if models else None
    if isinstance(items, list) and items and isinstance(items[0], dict) and isinstance(items[0].get("name"), str):
        return items[0]["name"].strip() or None
    endpoint = config.sub("endpoint")
    names = endpoint.raw("model_names") if endpoint else None
    if isinstance(names, list) and names and isinstance(names[0], str):
        return names[0].strip() or None
    return None


def _aiperf_dataset(config: Keys | None) -> str:
    datasets = config.raw("datasets") if config else None
    if isinstance(datasets, list) and datasets and isinstance(datasets[0], dict):
        d = datasets[0]
        kind = d.get("type") if isinstance(d.get("type"), str) else "dataset"
        return f"{kind} ({d['name']})" if isinstance(d.get("name"), str) else kind
    inp = config.sub("input") if config else None
    if inp is not None:
        for key in ("public_dataset", "file"):
            if inp.text(key):
                return inp.text(key)
    return NOT_RECORDED


def _genai_perf_dataset(config: Keys | None, flat: bool) -> str:
    if config is None:
        return NOT_RECORDED
    if flat:
        for key in ("input_dataset", "input_file"):
            if config.text(key):
                return config.text(key)
        return "synthetic" if config.has("synthetic_input_tokens_mean") else NOT_RECORDED
    inp = config.sub("input")
    if inp is None:
        return NOT_RECORDED
    return inp.text("file") or inp.text("prompt_source") or NOT_RECORDED


def _iso(text: str | None) -> str:
    """'2026-12-01T09:08:16.106184' -> '2026-12-01 09:08:16 (no time zone recorded)'."""
    if not text:
        return NOT_RECORDED
    date, _, time = text.partition("T")
    return f"{date} {time[:8]} (no time zone recorded)" if time else date


def runs(record: Record):
    yield record.locator, lambda: measured(record)
