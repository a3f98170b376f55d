"""Schema 3 (a0dee02): own load-test runs (origin 'own'), one row per run, with their tool, load and
measured shape.

Adds the own-run columns ('' or NULL for the stored MLPerf rows, as schema 3 writes them), lets the
counts and reference conditions an own run does not have be NULL, puts the run's ID in the natural key
and changes the constraints to hold own runs. Schema 2 also stored non-MLPerf CSV rows (origin 'csv',
not MLPerf); schema 3 stores a non-MLPerf figure only as an own run with its tool, run ID and measured
shape, which such a row lacks: it is moved to the quarantine, whole (as JSON), with that reason, once
for each of its sources (so that every file and line it was read from is named there), rather than
dropped or given invented conditions.
"""
import json

import sqlalchemy as sa
from alembic import op

from exportguard.migrations.sqlite_rebuild import rebuild_results

revision = "3"
down_revision = "2"
branch_labels = None
depends_on = None

TEXT_COLUMNS = ("tool", "tool_version", "run_id", "run_date", "load_detail", "duration_basis", "latency_definitions",
                "server_settings", "shape_class", "cohort")
NUMBER_COLUMNS = {"concurrency": sa.Integer, "burstiness": sa.Float, "mean_input_tokens": sa.Float,
                  "input_tokens_std": sa.Float, "output_tokens_std": sa.Float, "requests": sa.Integer,
                  "failed_requests": sa.Integer, "duration_s": sa.Float, "p50_ttft_ms": sa.Float,
                  "p50_tpot_ms": sa.Float, "total_tokens_per_s": sa.Float}
TEXT_TYPES = {"run_id": sa.String(64), "run_date": sa.String(64), "duration_basis": sa.String(64)}
NOW_NULLABLE = ("reference_max_output_tokens", "dataset_samples", "min_duration_ms", "accelerators_per_node", "nodes",
                "accelerators_total")
NATURAL_KEY = ("system_id", "submitter_key", "benchmark", "scenario", "round", "division", "origin", "run_id")
OWN_RUN_ONCE = "CREATE UNIQUE INDEX own_run_once ON results (run_id) WHERE origin = 'own'"

# The constraints schema 3 added or changed, as its create_all wrote them.
CHECKS = {
    'origin_known':
        "origin IN ('mlcommons', 'csv', 'own')",
    'origin_matches_source':
        "(origin = 'mlcommons') = (source_kind IN ('mlperf_tree', 'mlperf_summary'))",
    'own_is_not_mlperf':
        "(origin = 'own') = (NOT mlperf)",
    'tool_files_are_own':
        "origin = 'own' OR source_kind NOT IN ('aiperf', 'genai_perf', 'guidellm', 'vllm_bench', 'sglang_bench', 'llmperf')",
    'scenario_known':
        "(mlperf AND scenario IN ('Offline', 'Server', 'Interactive')) OR (NOT mlperf AND scenario IN ('closed loop', 'Poisson', 'Gamma', 'constant rate', 'burst', 'trace replay', 'other'))",
    'source_kind_known':
        "source_kind IN ('mlperf_tree', 'mlperf_summary', 'csv', 'aiperf', 'genai_perf', 'guidellm', 'vllm_bench', 'sglang_bench', 'llmperf')",
    'tps_basis_known':
        "tokens_per_sample_basis IN ('accuracy log', 'summary table', 'derived: tokens/s / samples/s', 'stated in CSV', 'not reported', 'measured: mean output tokens per request')",
    'max_tokens_positive':
        '(mlperf AND reference_max_output_tokens > 0) OR (NOT mlperf AND reference_max_output_tokens IS NULL)',
    'dataset_named':
        "dataset <> '' AND ((mlperf AND dataset_samples > 0) OR (NOT mlperf AND dataset_samples IS NULL))",
    'arrival_known':
        "(mlperf AND arrival_process IN ('closed-loop drain', 'Poisson', 'other')) OR (NOT mlperf AND arrival_process = scenario)",
    'load_basis_known':
        "load_basis IN ('run log', 'reference', 'csv', 'load-test tool')",
    'latency_bounds_outside_offline':
        "NOT mlperf OR scenario = 'Offline' OR (ttft_bound_ms IS NOT NULL AND tpot_bound_ms IS NOT NULL AND ttft_bound_ms > 0 AND tpot_bound_ms > 0)",
    'own_run_has_no_bounds':
        'mlperf OR (ttft_bound_ms IS NULL AND tpot_bound_ms IS NULL)',
    'min_duration_positive':
        '(mlperf AND min_duration_ms > 0) OR (NOT mlperf AND min_duration_ms IS NULL)',
    'mlperf_counts_known':
        'NOT mlperf OR (accelerators_per_node IS NOT NULL AND nodes IS NOT NULL AND accelerators_total IS NOT NULL)',
    'own_run_complete':
        "(NOT mlperf AND tool <> '' AND tool_version <> '' AND run_id <> '' AND run_date <> '' AND cohort <> '' AND shape_class <> '' AND duration_basis <> '' AND latency_definitions <> '' AND server_settings <> '' AND tokens_per_sample_basis = 'measured: mean output tokens per request' AND mean_input_tokens IS NOT NULL AND mean_input_tokens > 0 AND load_basis IN ('load-test tool', 'csv')) OR (mlperf AND tool = '' AND run_id = '' AND cohort = '' AND mean_input_tokens IS NULL AND tokens_per_sample_basis <> 'measured: mean output tokens per request' AND load_basis <> 'load-test tool')",
    'own_run_measures_sane':
        '(concurrency IS NULL OR concurrency > 0) AND (burstiness IS NULL OR burstiness > 0) AND (requests IS NULL OR requests > 0) AND (failed_requests IS NULL OR failed_requests >= 0) AND (duration_s IS NULL OR duration_s > 0) AND (total_tokens_per_s IS NULL OR total_tokens_per_s > 0) AND (input_tokens_std IS NULL OR input_tokens_std >= 0) AND (output_tokens_std IS NULL OR output_tokens_std >= 0) AND (p50_ttft_ms IS NULL OR p50_ttft_ms > 0) AND (p50_tpot_ms IS NULL OR p50_tpot_ms > 0)',
    'closed_loop_has_concurrency':
        "scenario <> 'closed loop' OR concurrency IS NOT NULL",
    'rate_load_has_rate':
        "NOT (NOT mlperf AND scenario IN ('Poisson', 'Gamma', 'constant rate')) OR target_qps IS NOT NULL",
    'gamma_has_burstiness':
        "scenario <> 'Gamma' OR burstiness IS NOT NULL",
}

QUARANTINE_REASON = "schema_upgrade"
QUARANTINE_MESSAGE = ("schema 3 stores a figure that is not an MLPerf result only as an own run, with its load-test "
                      "tool, run ID and measured shape, which this row (stored by schema 2) lacks; its whole row is "
                      "kept here: ingest its source again as an own run (docs/own-traffic.md)")

# The results table of schema 3 on SQLite, as exportguard of a0dee02 made it.
RESULTS_SQLITE = """CREATE TABLE results (
    id INTEGER NOT NULL,
    origin VARCHAR(16) NOT NULL,
    round VARCHAR(16) NOT NULL,
    division VARCHAR(16) NOT NULL,
    suite VARCHAR(16) NOT NULL,
    availability VARCHAR(16) NOT NULL,
    submitter TEXT NOT NULL,
    submitter_key TEXT NOT NULL,
    system_name TEXT NOT NULL,
    system_id TEXT NOT NULL,
    result_id VARCHAR(32) NOT NULL,
    result_id_state VARCHAR(16) NOT NULL,
    verified VARCHAR(16) NOT NULL,
    mlperf BOOLEAN NOT NULL,
    benchmark VARCHAR(64) NOT NULL,
    model VARCHAR(64) NOT NULL,
    accuracy_track VARCHAR(8) NOT NULL,
    scenario VARCHAR(16) NOT NULL,
    value FLOAT NOT NULL,
    unit VARCHAR(16) NOT NULL,
    samples_per_s FLOAT,
    tokens_per_sample FLOAT,
    tokens_per_sample_basis VARCHAR(40) NOT NULL,
    reference_max_output_tokens INTEGER,
    dataset TEXT NOT NULL,
    dataset_samples INTEGER,
    arrival_process VARCHAR(32) NOT NULL,
    target_qps FLOAT,
    ttft_bound_ms FLOAT,
    tpot_bound_ms FLOAT,
    p99_ttft_ms FLOAT,
    p99_tpot_ms FLOAT,
    min_duration_ms INTEGER,
    load_basis VARCHAR(16) NOT NULL,
    accelerator TEXT NOT NULL,
    accelerators_per_node INTEGER,
    nodes INTEGER,
    accelerators_total INTEGER,
    framework TEXT NOT NULL,
    host_processor TEXT NOT NULL,
    raw_system TEXT NOT NULL,
    source_kind VARCHAR(16) NOT NULL,
    source_path TEXT NOT NULL,
    source_sha256 VARCHAR(64) NOT NULL,
    source_locator TEXT NOT NULL,
    source_url TEXT NOT NULL,
    retrieved_on VARCHAR(10) NOT NULL,
    ingested_at VARCHAR(32) NOT NULL,
    corrections TEXT NOT NULL,
    tool TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    run_id VARCHAR(64) NOT NULL,
    run_date VARCHAR(64) NOT NULL,
    concurrency INTEGER,
    burstiness FLOAT,
    load_detail TEXT NOT NULL,
    mean_input_tokens FLOAT,
    input_tokens_std FLOAT,
    output_tokens_std FLOAT,
    requests INTEGER,
    failed_requests INTEGER,
    duration_s FLOAT,
    duration_basis VARCHAR(64) NOT NULL,
    p50_ttft_ms FLOAT,
    p50_tpot_ms FLOAT,
    latency_definitions TEXT NOT NULL,
    total_tokens_per_s FLOAT,
    server_settings TEXT NOT NULL,
    shape_class TEXT NOT NULL,
    cohort TEXT NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT results_natural_key UNIQUE (system_id, submitter_key, benchmark, scenario, round, division, origin, run_id),
    CONSTRAINT origin_known CHECK (origin IN ('mlcommons', 'csv', 'own')),
    CONSTRAINT origin_matches_source CHECK ((origin = 'mlcommons') = (source_kind IN ('mlperf_tree', 'mlperf_summary'))),
    CONSTRAINT own_is_not_mlperf CHECK ((origin = 'own') = (NOT mlperf)),
    CONSTRAINT tool_files_are_own CHECK (origin = 'own' OR source_kind NOT IN ('aiperf', 'genai_perf', 'guidellm', 'vllm_bench', 'sglang_bench', 'llmperf')),
    CONSTRAINT user_rows_unverified CHECK (origin = 'mlcommons' OR verified = 'unverified'),
    CONSTRAINT value_positive CHECK (value > 0),
    CONSTRAINT unit_known CHECK (unit IN ('tokens/s', 'samples/s', 'queries/s')),
    CONSTRAINT scenario_known CHECK ((mlperf AND scenario IN ('Offline', 'Server', 'Interactive')) OR (NOT mlperf AND scenario IN ('closed loop', 'Poisson', 'Gamma', 'constant rate', 'burst', 'trace replay', 'other'))),
    CONSTRAINT division_known CHECK (division IN ('closed', 'open', 'n/a')),
    CONSTRAINT availability_known CHECK (availability IN ('available', 'preview', 'rdi', 'n/a')),
    CONSTRAINT suite_known CHECK (suite IN ('datacenter', 'edge', 'n/a')),
    CONSTRAINT verified_known CHECK (verified IN ('verified', 'unverified')),
    CONSTRAINT source_kind_known CHECK (source_kind IN ('mlperf_tree', 'mlperf_summary', 'csv', 'aiperf', 'genai_perf', 'guidellm', 'vllm_bench', 'sglang_bench', 'llmperf')),
    CONSTRAINT result_id_state_known CHECK (result_id_state IN ('official', 'pending', 'none')),
    CONSTRAINT result_id_matches_state CHECK ((result_id_state = 'official') = (result_id <> '')),
    CONSTRAINT official_is_verified CHECK (result_id_state <> 'official' OR verified = 'verified'),
    CONSTRAINT non_mlperf_has_no_mlperf_identity CHECK (mlperf OR (division = 'n/a' AND result_id_state = 'none' AND verified = 'unverified')),
    CONSTRAINT mlperf_has_round_and_division CHECK (NOT mlperf OR (round LIKE 'v%' AND division <> 'n/a' AND result_id_state <> 'none')),
    CONSTRAINT tps_basis_known CHECK (tokens_per_sample_basis IN ('accuracy log', 'summary table', 'derived: tokens/s / samples/s', 'stated in CSV', 'not reported', 'measured: mean output tokens per request')),
    CONSTRAINT tps_matches_basis CHECK ((tokens_per_sample_basis = 'not reported') = (tokens_per_sample IS NULL)),
    CONSTRAINT tps_positive CHECK (tokens_per_sample IS NULL OR tokens_per_sample > 0),
    CONSTRAINT max_tokens_positive CHECK ((mlperf AND reference_max_output_tokens > 0) OR (NOT mlperf AND reference_max_output_tokens IS NULL)),
    CONSTRAINT dataset_named CHECK (dataset <> '' AND ((mlperf AND dataset_samples > 0) OR (NOT mlperf AND dataset_samples IS NULL))),
    CONSTRAINT arrival_known CHECK ((mlperf AND arrival_process IN ('closed-loop drain', 'Poisson', 'other')) OR (NOT mlperf AND arrival_process = scenario)),
    CONSTRAINT load_basis_known CHECK (load_basis IN ('run log', 'reference', 'csv', 'load-test tool')),
    CONSTRAINT latency_bounds_outside_offline CHECK (NOT mlperf OR scenario = 'Offline' OR (ttft_bound_ms IS NOT NULL AND tpot_bound_ms IS NOT NULL AND ttft_bound_ms > 0 AND tpot_bound_ms > 0)),
    CONSTRAINT own_run_has_no_bounds CHECK (mlperf OR (ttft_bound_ms IS NULL AND tpot_bound_ms IS NULL)),
    CONSTRAINT target_qps_positive CHECK (target_qps IS NULL OR target_qps > 0),
    CONSTRAINT min_duration_positive CHECK ((mlperf AND min_duration_ms > 0) OR (NOT mlperf AND min_duration_ms IS NULL)),
    CONSTRAINT counts_sane CHECK (accelerators_per_node >= 0 AND nodes >= 1 AND accelerators_total >= 0),
    CONSTRAINT mlperf_counts_known CHECK (NOT mlperf OR (accelerators_per_node IS NOT NULL AND nodes IS NOT NULL AND accelerators_total IS NOT NULL)),
    CONSTRAINT own_run_complete CHECK ((NOT mlperf AND tool <> '' AND tool_version <> '' AND run_id <> '' AND run_date <> '' AND cohort <> '' AND shape_class <> '' AND duration_basis <> '' AND latency_definitions <> '' AND server_settings <> '' AND tokens_per_sample_basis = 'measured: mean output tokens per request' AND mean_input_tokens IS NOT NULL AND mean_input_tokens > 0 AND load_basis IN ('load-test tool', 'csv')) OR (mlperf AND tool = '' AND run_id = '' AND cohort = '' AND mean_input_tokens IS NULL AND tokens_per_sample_basis <> 'measured: mean output tokens per request' AND load_basis <> 'load-test tool')),
    CONSTRAINT own_run_measures_sane CHECK ((concurrency IS NULL OR concurrency > 0) AND (burstiness IS NULL OR burstiness > 0) AND (requests IS NULL OR requests > 0) AND (failed_requests IS NULL OR failed_requests >= 0) AND (duration_s IS NULL OR duration_s > 0) AND (total_tokens_per_s IS NULL OR total_tokens_per_s > 0) AND (input_tokens_std IS NULL OR input_tokens_std >= 0) AND (output_tokens_std IS NULL OR output_tokens_std >= 0) AND (p50_ttft_ms IS NULL OR p50_ttft_ms > 0) AND (p50_tpot_ms IS NULL OR p50_tpot_ms > 0)),
    CONSTRAINT closed_loop_has_concurrency CHECK (scenario <> 'closed loop' OR concurrency IS NOT NULL),
    CONSTRAINT rate_load_has_rate CHECK (NOT (NOT mlperf AND scenario IN ('Poisson', 'Gamma', 'constant rate')) OR target_qps IS NOT NULL),
    CONSTRAINT gamma_has_burstiness CHECK (scenario <> 'Gamma' OR burstiness IS NOT NULL),
    CONSTRAINT identity_named CHECK (submitter <> '' AND submitter_key <> '' AND system_id <> '' AND system_name <> ''),
    CONSTRAINT configuration_named CHECK (accelerator <> '' AND framework <> ''),
    CONSTRAINT provenance_complete CHECK (length(source_sha256) = 64 AND source_path <> '' AND source_url <> ''),
    CONSTRAINT dates_present CHECK (retrieved_on <> '' AND ingested_at <> '')
)"""


def upgrade() -> None:
    bind = op.get_bind()
    _quarantine_non_mlperf_rows(bind)
    if bind.dialect.name == "sqlite":
        rebuild_results(bind, RESULTS_SQLITE, {c: "''" for c in TEXT_COLUMNS} | {c: "NULL" for c in NUMBER_COLUMNS},
                        [OWN_RUN_ONCE])
        return
    for name in TEXT_COLUMNS:
        op.add_column("results", sa.Column(name, TEXT_TYPES.get(name, sa.Text()), nullable=False, server_default=""))
        op.alter_column("results", name, server_default=None)  # a fresh schema-3 store has no default
    for name, kind in NUMBER_COLUMNS.items():
        op.add_column("results", sa.Column(name, kind(), nullable=True))
    for name in NOW_NULLABLE:
        op.alter_column("results", name, nullable=True)
    op.drop_constraint("results_natural_key", "results", type_="unique")
    op.create_unique_constraint("results_natural_key", "results", list(NATURAL_KEY))
    bind.exec_driver_sql(OWN_RUN_ONCE)
    existing = {r[0] for r in bind.exec_driver_sql(
        "SELECT conname FROM pg_constraint WHERE conrelid = 'results'::regclass AND contype = 'c'")}
    for name, sql in CHECKS.items():
        if name in existing:
            op.drop_constraint(name, "results", type_="check")
        op.create_check_constraint(name, "results", sa.text(sql))


def _quarantine_non_mlperf_rows(bind) -> None:
    """Each non-MLPerf row goes to the quarantine once for each of its sources (the file and line it was
    read from, and any other it was read again from), each with the whole stored row as JSON: every value
    it held, whatever its length (a stored row is bounded already; store.RAW_LIMIT bounds an input's offending
    text, and a row cut there would not be whole)."""
    rows = bind.exec_driver_sql("SELECT * FROM results WHERE NOT mlperf ORDER BY id").mappings().all()
    for row in rows:
        raw = json.dumps(dict(row), default=str, sort_keys=True)
        sources = [dict(s) for s in bind.execute(sa.text(
            "SELECT source_kind, source_path, source_sha256, source_locator, ingested_at FROM result_sources"
            " WHERE result_pk = :pk ORDER BY id"), {"pk": row["id"]}).mappings()]
        own = {k: row[k] for k in ("source_kind", "source_path", "source_sha256", "source_locator", "ingested_at")}
        if not any((s["source_sha256"], s["source_locator"]) == (own["source_sha256"], own["source_locator"])
                   for s in sources):
            sources.insert(0, own)  # the row's own provenance is always among them
        for source in sources:
            bind.execute(sa.text(
                "INSERT INTO quarantine (source_kind, source_path, source_sha256, locator, raw, reason, message,"
                " ingested_at) VALUES (:kind, :path, :sha, :locator, :raw, :reason, :message, :at)"),
                dict(kind=source["source_kind"], path=source["source_path"], sha=source["source_sha256"],
                     locator=source["source_locator"] or source["source_path"], raw=raw, reason=QUARANTINE_REASON,
                     message=QUARANTINE_MESSAGE, at=source["ingested_at"]))
        bind.execute(sa.text("DELETE FROM result_sources WHERE result_pk = :pk"), {"pk": row["id"]})
        bind.execute(sa.text("DELETE FROM results WHERE id = :pk"), {"pk": row["id"]})


def downgrade() -> None:
    raise NotImplementedError("restore the copy the upgrade kept, with the exportguard that made it")
