"""Schema 1 (db9e889): the first store. The base revision: no store is ever migrated to it."""
revision = "1"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Stores of schema 1 were made by exportguard's create_all; there is nothing to do."""


def downgrade() -> None:
    raise NotImplementedError("schema 1 is the first")
