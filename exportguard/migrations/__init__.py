"""Schema migrations of the store, one Alembic revision per schema version (versions/), run by
runner.py without alembic.ini: ``exportguard store upgrade``, or ingest/export with --upgrade.

Revision N takes a store from schema version N-1 to N, in one transaction (so a stop leaves the
store at N-1 or N, never between). Each revision is frozen: it holds the results table as that
version made it, never store.py's current one, so that a later schema does not change what an older
step does. The store's own record of its version (exportguard_meta.schema_version) stays the one
truth that every exportguard, older ones included, reads; there is no alembic_version table.

Nothing here is imported by store.py or at the command line's start: Alembic loads only where a
store is migrated.
"""
