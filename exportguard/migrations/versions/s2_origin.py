"""Schema 2 (341813a): user-supplied rows and MLCommons publications never share a natural key.

Adds ``origin`` (mlcommons / csv) to results and to its natural key. Schema 1 merged a CSV row and a
publication with the same key into one row; such a row (an MLCommons source among its sources) is a
publication, so it becomes origin 'mlcommons' with the first MLCommons source as its provenance: the
file, its hash, the row in it and when it was ingested, all that result_sources records of it (the CSV
source stays in result_sources). The source URL and retrieval date stay the ones stored, a pair that
result_sources does not record for the publication. Every other row keeps its provenance; a CSV row
is 'csv'.
"""
import sqlalchemy as sa
from alembic import op

from exportguard.migrations.sqlite_rebuild import rebuild_results

revision = "2"
down_revision = "1"
branch_labels = None
depends_on = None

MLCOMMONS_KINDS = "('mlperf_tree', 'mlperf_summary')"  # schema 2's publication source kinds, frozen

# A merged row's provenance: its first MLCommons source.
_FIRST_MLCOMMONS = ("(SELECT s.{column} FROM result_sources s WHERE s.result_pk = results.id AND s.source_kind IN "
                    + MLCOMMONS_KINDS + " ORDER BY s.id LIMIT 1)")
_MERGED = ("results.source_kind = 'csv' AND EXISTS (SELECT 1 FROM result_sources s WHERE s.result_pk = results.id "
           "AND s.source_kind IN " + MLCOMMONS_KINDS + ")")
_ORIGIN = "CASE WHEN source_kind = 'csv' THEN 'csv' ELSE 'mlcommons' END"

CHECKS = {  # the constraints schema 2 added, as its create_all wrote them
    "origin_known": "origin IN ('mlcommons', 'csv')",
    "origin_matches_source": "(origin = 'csv') = (source_kind = 'csv')",
    "user_rows_unverified": "origin = 'mlcommons' OR verified = 'unverified'",
}
NATURAL_KEY = ("system_id", "submitter_key", "benchmark", "scenario", "round", "division", "origin")

# The results table of schema 2 on SQLite, as exportguard of a0dee02^ made it.
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
    reference_max_output_tokens INTEGER NOT NULL,
    dataset TEXT NOT NULL,
    dataset_samples INTEGER NOT NULL,
    arrival_process VARCHAR(32) NOT NULL,
    target_qps FLOAT,
    ttft_bound_ms FLOAT,
    tpot_bound_ms FLOAT,
    p99_ttft_ms FLOAT,
    p99_tpot_ms FLOAT,
    min_duration_ms INTEGER NOT NULL,
    load_basis VARCHAR(16) NOT NULL,
    accelerator TEXT NOT NULL,
    accelerators_per_node INTEGER NOT NULL,
    nodes INTEGER NOT NULL,
    accelerators_total INTEGER NOT NULL,
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
    PRIMARY KEY (id),
    CONSTRAINT results_natural_key UNIQUE (system_id, submitter_key, benchmark, scenario, round, division, origin),
    CONSTRAINT origin_known CHECK (origin IN ('mlcommons', 'csv')),
    CONSTRAINT origin_matches_source CHECK ((origin = 'csv') = (source_kind = 'csv')),
    CONSTRAINT user_rows_unverified CHECK (origin = 'mlcommons' OR verified = 'unverified'),
    CONSTRAINT value_positive CHECK (value > 0),
    CONSTRAINT unit_known CHECK (unit IN ('tokens/s', 'samples/s', 'queries/s')),
    CONSTRAINT scenario_known CHECK (scenario IN ('Offline', 'Server', 'Interactive')),
    CONSTRAINT division_known CHECK (division IN ('closed', 'open', 'n/a')),
    CONSTRAINT availability_known CHECK (availability IN ('available', 'preview', 'rdi', 'n/a')),
    CONSTRAINT suite_known CHECK (suite IN ('datacenter', 'edge', 'n/a')),
    CONSTRAINT verified_known CHECK (verified IN ('verified', 'unverified')),
    CONSTRAINT source_kind_known CHECK (source_kind IN ('mlperf_tree', 'mlperf_summary', 'csv')),
    CONSTRAINT result_id_state_known CHECK (result_id_state IN ('official', 'pending', 'none')),
    CONSTRAINT result_id_matches_state CHECK ((result_id_state = 'official') = (result_id <> '')),
    CONSTRAINT official_is_verified CHECK (result_id_state <> 'official' OR verified = 'verified'),
    CONSTRAINT non_mlperf_has_no_mlperf_identity CHECK (mlperf OR (division = 'n/a' AND result_id_state = 'none' AND verified = 'unverified')),
    CONSTRAINT mlperf_has_round_and_division CHECK (NOT mlperf OR (round LIKE 'v%' AND division <> 'n/a' AND result_id_state <> 'none')),
    CONSTRAINT tps_basis_known CHECK (tokens_per_sample_basis IN ('accuracy log', 'summary table', 'derived: tokens/s / samples/s', 'stated in CSV', 'not reported')),
    CONSTRAINT tps_matches_basis CHECK ((tokens_per_sample_basis = 'not reported') = (tokens_per_sample IS NULL)),
    CONSTRAINT tps_positive CHECK (tokens_per_sample IS NULL OR tokens_per_sample > 0),
    CONSTRAINT max_tokens_positive CHECK (reference_max_output_tokens > 0),
    CONSTRAINT dataset_named CHECK (dataset_samples > 0 AND dataset <> ''),
    CONSTRAINT arrival_known CHECK (arrival_process IN ('closed-loop drain', 'Poisson', 'other')),
    CONSTRAINT load_basis_known CHECK (load_basis IN ('run log', 'reference', 'csv')),
    CONSTRAINT latency_bounds_outside_offline CHECK (scenario = 'Offline' OR (ttft_bound_ms IS NOT NULL AND tpot_bound_ms IS NOT NULL AND ttft_bound_ms > 0 AND tpot_bound_ms > 0)),
    CONSTRAINT target_qps_positive CHECK (target_qps IS NULL OR target_qps > 0),
    CONSTRAINT min_duration_positive CHECK (min_duration_ms > 0),
    CONSTRAINT counts_sane CHECK (accelerators_per_node >= 0 AND nodes >= 1 AND accelerators_total >= 0),
    CONSTRAINT identity_named CHECK (submitter <> '' AND submitter_key <> '' AND system_id <> '' AND system_name <> ''),
    CONSTRAINT configuration_named CHECK (accelerator <> '' AND framework <> ''),
    CONSTRAINT provenance_complete CHECK (length(source_sha256) = 64 AND source_path <> '' AND source_url <> ''),
    CONSTRAINT dates_present CHECK (retrieved_on <> '' AND ingested_at <> '')
)"""


def upgrade() -> None:
    bind = op.get_bind()
    columns = ("source_kind", "source_path", "source_sha256", "source_locator", "ingested_at")
    bind.exec_driver_sql("UPDATE results SET " + ", ".join(f"{c} = {_FIRST_MLCOMMONS.format(column=c)}" for c in columns)
                         + " WHERE " + _MERGED)
    if bind.dialect.name == "sqlite":
        rebuild_results(bind, RESULTS_SQLITE, {"origin": _ORIGIN})
        return
    op.add_column("results", sa.Column("origin", sa.String(16), nullable=False, server_default="mlcommons"))
    bind.exec_driver_sql(f"UPDATE results SET origin = {_ORIGIN}")
    op.alter_column("results", "origin", server_default=None)  # a fresh schema-2 store has no default
    op.drop_constraint("results_natural_key", "results", type_="unique")
    op.create_unique_constraint("results_natural_key", "results", list(NATURAL_KEY))
    for name, sql in CHECKS.items():
        op.create_check_constraint(name, "results", sa.text(sql))


def downgrade() -> None:
    raise NotImplementedError("restore the copy the upgrade kept, with the exportguard that made it")
