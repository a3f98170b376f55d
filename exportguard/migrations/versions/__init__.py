"""The revisions, one per schema version: Alembic reads these files by path (runner.py)."""
