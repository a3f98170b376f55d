"""guidellm ``benchmarks.json``: one report, several benchmarks (a sweep gives a synchronous, a
throughput and several rate points), each stored as a run of its own.

Every metric is ``{successful, errored, incomplete, total}`` of distributions ``{mean, std_dev,
percentiles{p50, p99, ...}, total_sum, ...}``; exportguard reads the *successful* requests. The output
rate is ``output_tokens_per_second.successful.mean`` (``.total`` also counts tokens of requests cut at
a time limit). TPOT is ``inter_token_latency_ms`` (per request, first token excluded);
``time_per_output_token_ms`` includes the first token and is not TPOT.

The strategy per benchmark: ``config.strategy`` (0.4 and later) or ``args.strategy`` (0.3 and
earlier), ``type_`` synchronous (one request in flight), concurrent (``streams`` in flight),
throughput (as many as possible, up to ``max_concurrency``), constant, poisson (``rate``), trace.
"""
from __future__ import annotations

from ..errors import SourceError
from ..model import NOT_RECORDED, OWN_CLOSED_LOOP, OWN_CONSTANT, OWN_OTHER, OWN_POISSON, OWN_TRACE
from .own_build import Measured, run_digest
from .own_json import Keys, Record, positive_or_none

TOOL = "guidellm"
TPOT_DEFINITION = ("TTFT: time_to_first_token_ms; TPOT: inter_token_latency_ms, per request excluding the first "
                   "token (guidellm's time_per_output_token_ms includes it and is not used); successful requests only")


def recognises(obj: object) -> bool:
    if not isinstance(obj, dict) or not isinstance(obj.get("benchmarks"), list) or not obj["benchmarks"]:
        return False
    first = obj["benchmarks"][0]
    return isinstance(first, dict) and first.get("type_") == "generative_benchmark"


def runs(record: Record):
    """One run per element of ``benchmarks``."""
    top = Keys(record.value, record.locator)
    benchmarks = top.raw("benchmarks")
    for n, benchmark in enumerate(benchmarks):
        locator = f"{record.locator} benchmarks[{n}]"
        yield locator, (lambda b=benchmark, n=n, locator=locator: measured(top, b, n, len(benchmarks), locator))


def _successful(k: Keys, metric: str) -> Keys | None:
    block = k.sub(metric)
    return None if block is None else block.sub("successful")


def _stat(k: Keys, metric: str, stat: str) -> float | None:
    s = _successful(k, metric)
    if s is None:
        return None
    if stat.startswith("p"):
        p = s.sub("percentiles")
        return None if p is None else p.num(stat)
    return s.num(stat)


def measured(top: Keys, benchmark: object, n: int, of: int, locator: str) -> Measured:
    b = Keys(benchmark, locator, f"benchmarks[{n}]")
    m = b.sub("metrics")
    if m is None:
        raise SourceError("missing_field", f"key {b.name('metrics')} is missing", locator)
    totals = m.sub("request_totals") or b.sub("request_totals")
    successful = totals.count("successful") if totals else None
    if not successful:
        raise SourceError("non_positive_value", "no request succeeded: there is no measurement", locator)
    kind, concurrency, rate, detail = _load(top, b, n, of, locator)
    incomplete = totals.count("incomplete") if totals else None
    if incomplete:
        detail = "; ".join(x for x in (detail, f"{incomplete} requests cut at the run's limit, not counted") if x)
    metadata = top.sub("metadata")
    version = (metadata.text("guidellm_version") if metadata else None) or NOT_RECORDED
    duration = b.num("duration")
    if duration is None and b.has("start_time") and b.has("end_time"):
        duration = b.num("end_time") - b.num("start_time")
    config = b.sub("config")
    run_key = (config.text("id_") if config else None) or run_digest(benchmark)
    return Measured(
        tool=TOOL, tool_version=version, run_key=run_key, model=_model(top, b),
        output_tps=_stat(m, "output_tokens_per_second", "mean"), total_tps=_stat(m, "tokens_per_second", "mean"),
        mean_input=_stat(m, "prompt_token_count", "mean"), mean_output=_stat(m, "output_token_count", "mean"),
        input_std=_stat(m, "prompt_token_count", "std_dev"), output_std=_stat(m, "output_token_count", "std_dev"),
        requests=successful, failed=totals.count("errored") if totals else None,
        duration_s=duration, duration_basis="measured" if duration else NOT_RECORDED,
        load_kind=kind, concurrency=concurrency, rate=rate, burstiness=None, load_detail=detail,
        p50_ttft_ms=positive_or_none(_stat(m, "time_to_first_token_ms", "p50")),
        p99_ttft_ms=positive_or_none(_stat(m, "time_to_first_token_ms", "p99")),
        p50_tpot_ms=positive_or_none(_stat(m, "inter_token_latency_ms", "p50")),
        p99_tpot_ms=positive_or_none(_stat(m, "inter_token_latency_ms", "p99")),
        latency_definitions=TPOT_DEFINITION, run_date=_date(b.num("start_time")), dataset=_dataset(top, b),
        value_where=f"key {b.name('metrics.output_tokens_per_second.successful.mean')}")


def _profile(top: Keys) -> Keys | None:
    config = top.sub("config")
    spec = config.sub("spec") if config else None
    if spec is not None and spec.sub("profile") is not None:
        return spec.sub("profile")
    args = top.sub("args")  # 0.4 - 0.6
    return args.sub("profile") if args is not None and isinstance(args.raw("profile"), dict) else None


def _load(top: Keys, b: Keys, n: int, of: int, locator: str):
    config = b.sub("config") or b.sub("args")
    strategy = config.sub("strategy") if config else None
    if strategy is None:
        raise SourceError("missing_field", f"key {b.name('config.strategy')} is missing: the load is not recorded",
                          locator)
    kind_name = (strategy.text("type_") or "").lower()
    profile = _profile(top)
    profile_kind = (profile.text("kind") if profile else None) or ""
    cap = profile.count("max_concurrency") if profile else None  # the strategy's own cap is its worker limit
    detail = f"sweep point {n + 1} of {of} ({kind_name})" if profile_kind == "sweep" else ""
    if kind_name == "synchronous":
        return OWN_CLOSED_LOOP, 1, None, _join(detail, "synchronous: one request at a time")
    if kind_name == "concurrent":
        return OWN_CLOSED_LOOP, strategy.count("streams"), None, detail
    if kind_name == "throughput":
        limit = strategy.count("max_concurrency") or cap
        return OWN_CLOSED_LOOP, limit, None, _join(detail, "throughput strategy: as many requests as possible")
    if kind_name == "poisson":
        return OWN_POISSON, cap, strategy.num("rate"), detail
    if kind_name in ("constant", "async"):
        return OWN_CONSTANT, cap, strategy.num("rate"), detail
    if kind_name == "trace":
        return OWN_TRACE, cap, None, detail
    return OWN_OTHER, cap, None, _join(detail, f"guidellm strategy {kind_name!r}")


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _model(top: Keys, b: Keys) -> str | None:
    config = b.sub("config")
    backend = config.sub("backend") if config else None
    if backend is not None and backend.text("model"):
        return backend.text("model")
    worker = b.sub("worker")  # 0.3 and earlier
    if worker is not None and worker.text("backend_model"):
        return worker.text("backend_model")
    top_config = top.sub("config")
    spec = top_config.sub("spec") if top_config else None
    spec_backend = spec.sub("backend") if spec else None
    if spec_backend is not None and spec_backend.text("model"):
        return spec_backend.text("model")
    args = top.sub("args")
    return args.text("model") if args else None


def _dataset(top: Keys, b: Keys) -> str:
    top_config = top.sub("config")
    spec = top_config.sub("spec") if top_config else None
    data = spec.raw("data") if spec else None
    if isinstance(data, list) and data and isinstance(data[0], dict) and isinstance(data[0].get("kind"), str):
        return data[0]["kind"]
    loader = b.sub("request_loader")
    if loader is not None and loader.text("data"):
        return loader.text("data")
    return NOT_RECORDED


def _date(epoch: float | None) -> str:
    import datetime as dt

    if epoch is None or not (0 < epoch < 1e11):
        return NOT_RECORDED
    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
