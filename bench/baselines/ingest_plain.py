"""What a competent engineer would write to load the same rows into the same tables: read the
files with json, csv and regular expressions, build one dict per row for every column, and insert
them with SQLAlchemy executemany. No merging of sources, no quarantine, no provenance rows."""
from __future__ import annotations

import csv
import datetime as dt
import json
import re
from pathlib import Path

import sqlalchemy as sa

from exportguard.store import metadata, results_table

REFERENCE = {  # dataset, samples, max output tokens; Server and Interactive bounds (ms)
    "llama2-70b": ("OpenOrca", 24576, 1024, {"Server": (2000, 200), "Interactive": (450, 40)}),
    "llama3.1-8b": ("CNN-DailyMail", 13368, 128, {"Server": (2000, 100), "Interactive": (500, 30)}),
    "llama3.1-405b": ("mixed", 8313, 2000, {"Server": (6000, 175), "Interactive": (4500, 80)}),
}
BENCHMARKS = {"llama2-70b-99": ("llama2-70b", "99"), "llama2-70b-99.9": ("llama2-70b", "99.9"),
              "llama3.1-8b": ("llama3.1-8b", "99"), "llama3.1-405b": ("llama3.1-405b", "99")}
NOW = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
_TPS = re.compile(r"TOKENS_PER_SAMPLE:\s*([0-9.]+)")
_LOG_TPS = re.compile(r"^(?:Completed tokens|Tokens) per second\s*:\s*([0-9.]+)", re.M)
_ACC_TPS = re.compile(r"'tokens_per_sample':\s*([0-9.]+)")


def _row(*, origin, round_, division, availability, submitter, system_name, system_id, result_id, benchmark,
         scenario, value, tps, tps_basis, accelerator, per_node, nodes, framework, source_kind, source_path,
         locator, url, verified):
    model, track = BENCHMARKS[benchmark]
    dataset, samples, max_tokens, bounds = REFERENCE[model]
    ttft, tpot = bounds.get(scenario, (None, None))
    return dict(origin=origin, round=round_, division=division, suite="datacenter", availability=availability,
                submitter=submitter, submitter_key=submitter, system_name=system_name or system_id,
                system_id=system_id, result_id=result_id, result_id_state="official" if result_id else "pending",
                verified=verified, mlperf=True, benchmark=benchmark, model=model, accuracy_track=track,
                scenario=scenario, value=value, unit="tokens/s", samples_per_s=None, tokens_per_sample=tps,
                tokens_per_sample_basis=tps_basis if tps else "not reported", reference_max_output_tokens=max_tokens,
                dataset=dataset, dataset_samples=samples,
                arrival_process="closed-loop drain" if scenario == "Offline" else "Poisson", target_qps=None,
                ttft_bound_ms=ttft, tpot_bound_ms=tpot, p99_ttft_ms=None, p99_tpot_ms=None, min_duration_ms=600000,
                load_basis="reference", accelerator=accelerator or "not stated", accelerators_per_node=per_node,
                nodes=nodes, accelerators_total=per_node * nodes, framework=framework or "not stated",
                host_processor="", raw_system="", source_kind=source_kind, source_path=source_path,
                source_sha256="0" * 64, source_locator=locator, source_url=url, retrieved_on="2025-09-09",
                ingested_at=NOW, corrections="", **_NO_OWN_RUN)


# An MLPerf row's own-run columns (store schema 3): empty.
_NO_OWN_RUN = dict(tool="", tool_version="", run_id="", run_date="", concurrency=None, burstiness=None, load_detail="",
                   mean_input_tokens=None, input_tokens_std=None, output_tokens_std=None, requests=None,
                   failed_requests=None, duration_s=None, duration_basis="", p50_ttft_ms=None, p50_tpot_ms=None,
                   latency_definitions="", total_tokens_per_s=None, server_settings="", shape_class="", cohort="")


def _insert(url: str, rows: list[dict]) -> None:
    engine = sa.create_engine(url)
    metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(results_table.insert(), rows)
    engine.dispose()


def load_real(url: str, tree: Path, summary: Path) -> None:
    rows, seen = [], set()
    for log in sorted(tree.rglob("mlperf_log_summary.txt")):
        parts = log.parts
        i = parts.index("results")
        submitter, system_id, benchmark, scenario = parts[i - 1], parts[i + 1], parts[i + 2], parts[i + 3]
        if benchmark not in BENCHMARKS:
            continue
        m = _LOG_TPS.search(log.read_text(errors="replace"))
        acc = log.parents[2] / "accuracy" / "accuracy.txt"
        tps = _ACC_TPS.search(acc.read_text(errors="replace")) if acc.exists() else None
        system = json.loads((tree / "closed" / submitter / "systems" / f"{system_id}.json").read_text())
        key = ("v5.1", "closed", submitter, system_id, benchmark, scenario)
        seen.add(key)
        rows.append(_row(origin="mlcommons", round_="v5.1", division="closed", availability=system["status"].lower(),
                         submitter=submitter, system_name=system["system_name"], system_id=system_id, result_id="",
                         benchmark=benchmark, scenario=scenario, value=float(m.group(1)),
                         tps=float(tps.group(1)) if tps else None, tps_basis="accuracy log",
                         accelerator=system.get("accelerator_model_name"),
                         per_node=int(system.get("accelerators_per_node") or 0),
                         nodes=int(system.get("number_of_nodes") or 1), framework=system.get("framework"),
                         source_kind="mlperf_tree", source_path=str(tree), locator=str(log.parent),
                         url=f"file://{log.parent}", verified="unverified"))
    for n, r in enumerate(json.loads(summary.read_text())):
        benchmark = r.get("Model")
        if benchmark not in BENCHMARKS or r.get("Scenario") not in ("Offline", "Server", "Interactive"):
            continue
        key = ("v5.1", r["Category"], r["Submitter"], r["Platform"], benchmark, r["Scenario"])
        if key in seen:
            continue
        seen.add(key)
        tps = _TPS.search(str(r.get("Accuracy", "")))
        rows.append(_row(origin="mlcommons", round_="v5.1", division=r["Category"], availability=r["Availability"],
                         submitter=r["Submitter"], system_name=r["System"], system_id=r["Platform"], result_id=r["ID"],
                         benchmark=benchmark, scenario=r["Scenario"], value=float(r["Performance_Result"]),
                         tps=float(tps.group(1)) if tps else None, tps_basis="summary table",
                         accelerator=r.get("Accelerator"), per_node=int(r.get("a#") or 0), nodes=int(r.get("Nodes") or 1),
                         framework=r.get("Software"), source_kind="mlperf_summary", source_path=str(summary),
                         locator=f"row {n + 1}", url="https://github.com/mlcommons/inference_results_v5.1",
                         verified="verified"))
    _insert(url, rows)


def load_csv(url: str, path: Path) -> None:
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        for n, r in enumerate(csv.DictReader(f), 2):
            rows.append(_row(origin="csv", round_=r["round"], division=r["division"], availability=r["availability"],
                             submitter=r["submitter"], system_name=r["system_name"], system_id=r["system_id"],
                             result_id="", benchmark=f"{r['model']}-{r['accuracy_track']}", scenario=r["scenario"],
                             value=float(r["value"]), tps=float(r["tokens_per_sample"]) if r["tokens_per_sample"] else None,
                             tps_basis="stated in CSV", accelerator=r["accelerator"],
                             per_node=int(r["accelerators_per_node"]), nodes=int(r["nodes"]),
                             framework=r["framework"], source_kind="csv", source_path=str(path), locator=f"line {n}",
                             url=r["source_url"], verified="unverified"))
    _insert(url, rows)
