"""The `exportguard` command line's front door: the group, its safety net and the list of its
commands. The commands themselves (commands.py) load when one is run or asked for, so that
`exportguard --help` builds none of their options: start-up costs little more than importing click."""
from __future__ import annotations

import sys

import click

# The commands and the line `exportguard --help` shows for each (their full help is their own, in
# commands.py; tests/test_cli.py keeps the two lists of names equal).
COMMANDS = {
    "audit": "The corrections made to the store (remove, redescribe).",
    "check": "Check decks, workbooks, PDFs, Word files, CSV and Markdown for bare figures.",
    "cohorts": "Per cohort: count, shape range, shape slack and band.",
    "demo": "Ingest the shipped MLPerf v5.1 data and export a bound report.",
    "export": "Export bound figures to XLSX, PPTX, PDF, Word, CSV or Markdown.",
    "ingest": "Ingest MLCommons results, exportguard CSV and load-test results.",
    "list": "Figures, grouped by cohort, with unit, band and conditions.",
    "quarantine": "Rows that could not be stored, with where from and why.",
    "recover": "Finish or undo exports that a crash or a kill interrupted.",
    "redescribe": "Re-describe the system of stored own runs (audited).",
    "remove": "Remove stored results or own runs (audited).",
    "store": "The store itself: what it holds; upgrade an older one.",
}


class _Terminated(BaseException):
    """SIGTERM, raised where the process is, so that it unwinds as SIGINT does: a transaction rolls
    back, an export undoes its moves and removes its temporary files."""


def _raise_terminated(_signum, _frame):
    raise _Terminated()


def _quiet_driver_logs() -> None:
    """The database drivers' log records (psycopg's "error ignored terminating <Pipeline>" when a
    server ends the connection, SQLAlchemy's pool "Exception during reset" with a traceback) would
    reach stderr through logging's last resort, beside the one line in which the command reports
    that same fault. A handler that drops them keeps the command's line the whole report."""
    import logging

    for name in ("psycopg", "sqlalchemy"):
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())


class _Guarded(click.Group):
    """The commands' one safety net: an OSError or a database error that no command turned into a
    message ends in one line, as do SIGINT and SIGTERM (what the interrupted command leaves is in
    ``ctx.obj["on_stop"]``), never in a traceback. The commands load on first use (``COMMANDS``)."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        from .commands import BY_NAME

        return BY_NAME[name]

    def format_commands(self, ctx, formatter):
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name]) for name in self.list_commands(ctx)])

    def invoke(self, ctx):
        import signal

        _quiet_driver_logs()
        try:
            previous = signal.signal(signal.SIGTERM, _raise_terminated)
        except ValueError:  # not the main thread: leave signals alone
            previous = None
        try:
            return super().invoke(ctx)
        except (KeyboardInterrupt, _Terminated) as e:
            from .commands import _safe

            name, code = ("SIGTERM", 143) if isinstance(e, _Terminated) else ("SIGINT", 130)
            left = (ctx.obj or {}).get("on_stop")
            left = left() if callable(left) else left
            click.echo(_safe(f"Error: stopped by {name}" + (f"; {left}" if left else "")), err=True)
            raise click.exceptions.Exit(code) from None
        except BrokenPipeError:  # the reader of our output went away (| head): nothing to tell it
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise click.exceptions.Exit(141) from None
        except OSError as e:
            from .commands import _safe
            from .errors import os_cause

            where = f"{e.filename}: " if e.filename else ""
            raise click.ClickException(_safe(f"{where}{os_cause(e)}")) from None
        except Exception as e:
            from .api_args import ArgumentError
            from .commands import _safe
            from .errors import ExportguardError

            if isinstance(e, ExportguardError):  # e.g. an API ArgumentError from an option click let through
                failed = click.ClickException(_safe(e))
                if isinstance(e, ArgumentError):
                    failed.exit_code = 2  # a usage error, as click's own (check: 1 means findings)
                raise failed from None
            sa = sys.modules.get("sqlalchemy")
            if sa is None or not isinstance(e, sa.exc.SQLAlchemyError):
                raise
            from .store import _cause, default_url, mask_url

            url = (ctx.obj or {}).get("db") or default_url()
            raise click.ClickException(_safe(f"{mask_url(url)}: the database failed: {_cause(e, url)}")) from None
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)


def _print_version(ctx, _param, value) -> None:
    """--version from _version.py: no metadata look-up, and no option built through click's
    translated wording at start-up (version_option's gettext calls import locale)."""
    if value and not ctx.resilient_parsing:
        from ._version import VERSION

        click.echo(f"{ctx.find_root().info_name}, version {VERSION}")
        ctx.exit()


@click.group(cls=_Guarded, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", envvar="EXPORTGUARD_DB", metavar="URL",
              help="Store URL: sqlite:///path.db or postgresql://host/db. Default: an SQLite file under "
                   "$XDG_DATA_HOME/exportguard (~/.local/share/exportguard/exportguard.db); env EXPORTGUARD_DB.")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
@click.pass_context
def main(ctx, db):
    """MLPerf Inference LLM figures that keep their conditions: a store, exports and a checker."""
    ctx.ensure_object(dict).setdefault("db", db)
