"""Schema 4: the vocabularies out of the DDL.

Source kinds, origins, units, scenarios and load kinds, divisions, availabilities, suites, verified
states, result ID states, tokens-per-sample and load bases, arrival processes: checked by
exportguard/store_vocabulary.py on write instead of CHECK constraints that list them, so that a new
importer or scenario is no schema change. Every invariant constraint stays; own_run_complete keeps
everything but its bases (now own_run_bases, on write), and arrival_known's part for own runs stays as
own_arrival_is_its_load. No row changes.
"""
import sqlalchemy as sa
from alembic import op

from exportguard.migrations.sqlite_rebuild import rebuild_results

revision = "4"
down_revision = "3"
branch_labels = None
depends_on = None

DROPPED = ('origin_known', 'origin_matches_source', 'tool_files_are_own', 'unit_known', 'scenario_known', 'division_known', 'availability_known', 'suite_known', 'verified_known', 'source_kind_known', 'result_id_state_known', 'tps_basis_known', 'arrival_known', 'load_basis_known')

# The constraints schema 4 added or changed.
CHECKS = {
    'own_arrival_is_its_load':
        'mlperf OR arrival_process = scenario',
    'own_run_complete':
        "(NOT mlperf AND tool <> '' AND tool_version <> '' AND run_id <> '' AND run_date <> '' AND cohort <> '' AND shape_class <> '' AND duration_basis <> '' AND latency_definitions <> '' AND server_settings <> '' AND mean_input_tokens IS NOT NULL AND mean_input_tokens > 0) OR (mlperf AND tool = '' AND run_id = '' AND cohort = '' AND mean_input_tokens IS NULL)",
}

OWN_RUN_ONCE = "CREATE UNIQUE INDEX own_run_once ON results (run_id) WHERE origin = 'own'"

# The results table of schema 4 on SQLite, as store.py's create_all makes it.
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
    CONSTRAINT own_is_not_mlperf CHECK ((origin = 'own') = (NOT mlperf)),
    CONSTRAINT user_rows_unverified CHECK (origin = 'mlcommons' OR verified = 'unverified'),
    CONSTRAINT value_positive CHECK (value > 0),
    CONSTRAINT result_id_matches_state CHECK ((result_id_state = 'official') = (result_id <> '')),
    CONSTRAINT official_is_verified CHECK (result_id_state <> 'official' OR verified = 'verified'),
    CONSTRAINT non_mlperf_has_no_mlperf_identity CHECK (mlperf OR (division = 'n/a' AND result_id_state = 'none' AND verified = 'unverified')),
    CONSTRAINT mlperf_has_round_and_division CHECK (NOT mlperf OR (round LIKE 'v%' AND division <> 'n/a' AND result_id_state <> 'none')),
    CONSTRAINT tps_matches_basis CHECK ((tokens_per_sample_basis = 'not reported') = (tokens_per_sample IS NULL)),
    CONSTRAINT tps_positive CHECK (tokens_per_sample IS NULL OR tokens_per_sample > 0),
    CONSTRAINT max_tokens_positive CHECK ((mlperf AND reference_max_output_tokens > 0) OR (NOT mlperf AND reference_max_output_tokens IS NULL)),
    CONSTRAINT dataset_named CHECK (dataset <> '' AND ((mlperf AND dataset_samples > 0) OR (NOT mlperf AND dataset_samples IS NULL))),
    CONSTRAINT own_arrival_is_its_load CHECK (mlperf OR arrival_process = scenario),
    CONSTRAINT latency_bounds_outside_offline CHECK (NOT mlperf OR scenario = 'Offline' OR (ttft_bound_ms IS NOT NULL AND tpot_bound_ms IS NOT NULL AND ttft_bound_ms > 0 AND tpot_bound_ms > 0)),
    CONSTRAINT own_run_has_no_bounds CHECK (mlperf OR (ttft_bound_ms IS NULL AND tpot_bound_ms IS NULL)),
    CONSTRAINT target_qps_positive CHECK (target_qps IS NULL OR target_qps > 0),
    CONSTRAINT min_duration_positive CHECK ((mlperf AND min_duration_ms > 0) OR (NOT mlperf AND min_duration_ms IS NULL)),
    CONSTRAINT counts_sane CHECK (accelerators_per_node >= 0 AND nodes >= 1 AND accelerators_total >= 0),
    CONSTRAINT mlperf_counts_known CHECK (NOT mlperf OR (accelerators_per_node IS NOT NULL AND nodes IS NOT NULL AND accelerators_total IS NOT NULL)),
    CONSTRAINT own_run_complete CHECK ((NOT mlperf AND tool <> '' AND tool_version <> '' AND run_id <> '' AND run_date <> '' AND cohort <> '' AND shape_class <> '' AND duration_basis <> '' AND latency_definitions <> '' AND server_settings <> '' AND mean_input_tokens IS NOT NULL AND mean_input_tokens > 0) OR (mlperf AND tool = '' AND run_id = '' AND cohort = '' AND mean_input_tokens IS NULL)),
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
    if bind.dialect.name == "sqlite":
        rebuild_results(bind, RESULTS_SQLITE, indexes=[OWN_RUN_ONCE])
        return
    for name in DROPPED + ("own_run_complete",):  # the one changed is dropped and made again
        op.drop_constraint(name, "results", type_="check")
    for name, sql in CHECKS.items():
        op.create_check_constraint(name, "results", sa.text(sql))


def downgrade() -> None:
    raise NotImplementedError("restore the copy the upgrade kept, with the exportguard that made it")
