"""The benchmark cases: for each, what exportguard does and what the hand-written baseline does,
on the same input (bench/common.py). Each side is a function (work folder, n) -> None, timed in a
fresh process by bench/measure.py; only the work is timed, not loading the input."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from common import REPO, SUMMARY, TREE, load_rows

sys.path.insert(0, str(REPO / "bench" / "baselines"))
sys.path.insert(0, str(REPO / "bench"))


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    sizes: tuple[int, ...]  # the full run: n and 4n, for time(4n) / time(n)
    quick: tuple[int, ...]  # the smoke run in CI
    prepare: Callable[[Path, int], object]  # input each side receives, made before the clock starts
    exportguard: Callable[[Path, object], None]
    baseline: Callable[[Path, object], None]
    target: float  # exportguard / baseline at most this
    subprocess: bool = False  # each side is a whole process (start-up)


# -- exports: the same replicated rows, one table ---------------------------------------------------

def _rows(work: Path, n: int):
    return load_rows(work, n)


def _export(suffix: str):
    def run(work: Path, data) -> None:
        from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
        from exportguard.guard import bind_table
        from exportguard.render import export
        from exportguard.report import Report, TableSection

        rows, slack = data
        table = bind_table(rows, title=f"{len(rows):,} results, llama2-70b-99 Offline", slack=slack)
        report = Report("Results", "benchmark", (TableSection(table.title, table),), SHORT, FULL, TRADEMARK_LEGEND)
        export(report, [work / f"exportguard{suffix}"])
    return run


def _plain(module: str, suffix: str):
    def run(work: Path, data) -> None:
        rows, slack = data
        __import__(module).run(rows, slack, work / f"baseline{suffix}")
    return run


def _report(rows, slack, sections: int = 1, columns=None):
    """The rows bound into ``sections`` tables (the guard's work, timed on the exportguard side)."""
    from exportguard.caveat import FULL, SHORT, TRADEMARK_LEGEND
    from exportguard.guard import DEFAULT_COLUMNS, bind_table
    from exportguard.report import Report, TableSection

    size = -(-len(rows) // sections)
    tables = [bind_table(rows[k:k + size], title=f"Results, part {k // size + 1}", slack=slack,
                         columns=columns or DEFAULT_COLUMNS) for k in range(0, len(rows), size)]
    return Report("Results", "benchmark", tuple(TableSection(t.title, t) for t in tables), SHORT, FULL,
                  TRADEMARK_LEGEND, generated_on="2025-09-09")


def _xlsx_input(work: Path, n: int):
    """The replicated rows, and the cells of the workbook exportguard makes of them (exported and read
    back once, untimed, as a stream), which the baseline writes again with XlsxWriter."""
    content = work / f"xlsx-content-{n}.pickle"
    if not content.exists():
        _export(".xlsx")(work, load_rows(work, n))
        __import__("xlsx_xlsxwriter").extract(work / "exportguard.xlsx", content)
    rows, slack = load_rows(work, n)
    return rows, slack, content


def _xlsx_export(work: Path, data) -> None:
    _export(".xlsx")(work, data[:2])


def _xlsxwriter(work: Path, data) -> None:
    __import__("xlsx_xlsxwriter").run(data[2], work / "baseline.xlsx")


# A real user's export: `exportguard export` run as a whole process on a store that holds the n
# replicated results (not a process whose bench input already holds them), against a whole process
# in which XlsxWriter writes the same workbook from the cells that export made (read back untimed).
_STORE_EXPORT = ("--round", "v5.1", "--division", "closed", "--model", "llama2-70b", "--track", "99",
                 "--scenario", "offline", "--title", "Results, llama2-70b-99 Offline")


def _store_input(work: Path, n: int):
    """A store of the n replicated results (and nothing else), and the cells of the workbook that
    `exportguard export` makes from it, extracted once for the baseline."""
    db = work / f"store-{n}.db"
    if not db.exists():
        from exportguard.store import open_store

        rows, _ = load_rows(work, n)
        with open_store(f"sqlite:///{work / f'store-{n}.tmp'}") as store, store.writing() as conn:
            store.put_results(conn, rows)
        (work / f"store-{n}.tmp").rename(db)
    content = work / f"xlsx-store-content-{n}.pickle"
    if not content.exists():
        _store_export(work, db)
        __import__("xlsx_xlsxwriter").extract(work / "exportguard-store.xlsx", content)
    return db, content


def _store_export(work: Path, data) -> None:
    db = data[0] if isinstance(data, tuple) else data
    exe = Path(sys.executable).with_name("exportguard")
    subprocess.run([str(exe), "--db", f"sqlite:///{db}", "export", *_STORE_EXPORT, "--force",
                    "--to", str(work / "exportguard-store.xlsx")], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)  # the mixed-scale warning


def _store_xlsxwriter(work: Path, data) -> None:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; import xlsx_xlsxwriter; "
            "xlsx_xlsxwriter.run(Path(sys.argv[2]), Path(sys.argv[3]))")
    subprocess.run([sys.executable, "-c", code, str(REPO / "bench" / "baselines"), str(data[1]),
                    str(work / "baseline-store.xlsx")], check=True)


# PPTX: tables of 10 rows, each row a throughput and a per-accelerator figure (20 figures a table)
_PPTX_COLUMNS = ("submitter", "system", "accelerators", "throughput", "per_accelerator")


def _pptx_input(work: Path, n: int):
    """The replicated rows, and what the exportguard deck shows (read back once, untimed), which
    the baseline writes again with python-pptx's plain API."""
    import pickle

    from pptx_plain import deck_content

    rows, slack = load_rows(work, n // 2)
    path = work / f"pptx-content-{n}.pickle"
    if not path.exists():
        from exportguard.render import export

        [deck] = export(_report(rows, slack, max(1, n // 20), _PPTX_COLUMNS), [work / f"pptx-reference-{n}.pptx"])
        path.write_bytes(pickle.dumps(deck_content(deck)))
    return rows, slack, pickle.loads(path.read_bytes())


def _pptx(work: Path, data) -> None:
    from exportguard.render import export

    rows, slack, _ = data
    export(_report(rows, slack, max(1, len(rows) // 10), _PPTX_COLUMNS), [work / "exportguard.pptx"])


def _pptx_plain(work: Path, data) -> None:
    __import__("pptx_plain").write(data[2], str(work / "baseline.pptx"))


def _pdf_input(work: Path, n: int):
    """The replicated rows, and the baseline's cells laid out as the briefing lays them (untimed)."""
    rows, slack = load_rows(work, n)
    data, layout = __import__("pdf_longtable").prepare(_report(rows, slack))
    return rows, slack, data, layout


def _pdf(work: Path, data) -> None:
    from exportguard.render import export

    export(_report(data[0], data[1]), [work / "exportguard.pdf"])


def _pdf_longtable(work: Path, data) -> None:
    __import__("pdf_longtable").render(data[2], data[3], work / "baseline.pdf")


# -- ingest ----------------------------------------------------------------------------------------

PG_ADMIN = os.environ.get("EXPORTGUARD_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


def _fresh_db(work: Path, name: str, backend: str = "sqlite") -> str:
    """A fresh SQLite file, or a fresh PostgreSQL database on the server EXPORTGUARD_BENCH_PG names."""
    if backend == "postgresql":
        import psycopg

        db = "eg_bench_" + name.replace(".", "_").replace("-", "_")
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{db}"')
        return PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://") + "/" + db
    path = work / name
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    return f"sqlite:///{path}"


def _ingest_real(backend: str):
    def run(work: Path, _data) -> None:
        from exportguard.ingest import ingest_path
        from exportguard.store import open_store

        with open_store(_fresh_db(work, "ingest-eg.db", backend)) as store:
            ingest_path(store, TREE)
            ingest_path(store, SUMMARY)
    return run


def _ingest_real_plain(backend: str):
    def run(work: Path, _data) -> None:
        __import__("ingest_plain").load_real(_fresh_db(work, "ingest-plain.db", backend), TREE, SUMMARY)
    return run


def _csv_file(work: Path, n: int) -> Path:
    """N rows in exportguard's own CSV format (not-yet-published MLPerf rows), from the replicated results."""
    path = work / f"own-{n}.csv"
    if not path.exists():
        header = (REPO / "templates" / "results.csv").read_text().splitlines()[0].split(",")
        rows, _ = load_rows(work, n)
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(header)
            for r in rows:
                i, c, s = r.conditions.identity, r.conditions.configuration, r.conditions.shape
                values = dict(mlperf="yes", submitter=i.submitter, system_name=i.system_name, system_id=i.system_id,
                              model="llama2-70b", accuracy_track="99", scenario="Offline", value=repr(r.value),
                              unit="tokens/s", accelerator=c.accelerator, accelerators_per_node=str(c.accelerators_per_node),
                              nodes=str(c.nodes), framework=c.framework, source_url="https://example.org/run",
                              round="v5.1", division="closed", availability=i.availability,
                              tokens_per_sample=f"{s.tokens_per_sample:.1f}", retrieved_on="2025-09-09")
                w.writerow([values.get(h, "") for h in header])
    return path


def _ingest_csv(backend: str):
    def run(work: Path, path: Path) -> None:
        from exportguard.ingest import ingest_path
        from exportguard.store import open_store

        with open_store(_fresh_db(work, "csv-eg.db", backend)) as store:
            ingest_path(store, path)
    return run


def _ingest_csv_plain(backend: str):
    def run(work: Path, path: Path) -> None:
        __import__("ingest_plain").load_csv(_fresh_db(work, "csv-plain.db", backend), path)
    return run


# -- start-up --------------------------------------------------------------------------------------

def _compiled(work: Path, n: int) -> None:
    """Bytecode for exportguard, as `pip install .` leaves it (an editable install under
    PYTHONDONTWRITEBYTECODE would otherwise compile the command line at every start)."""
    import compileall

    compileall.compile_dir(str(REPO / "exportguard"), quiet=1)


def _exportguard_help(work: Path, _data) -> None:
    exe = Path(sys.executable).with_name("exportguard")
    subprocess.run([str(exe), "--help"], check=True, stdout=subprocess.DEVNULL)


def _import_click(work: Path, _data) -> None:
    subprocess.run([sys.executable, "-c", "import click"], check=True)


# -- check: a large document, checked vs the library only opening it and reading its text ----------

_CHECK_SUFFIX = {"deck": ".pptx", "workbook": ".xlsx", "pdf": ".pdf"}


def _check_document(kind: str):
    def prepare(work: Path, n: int) -> Path:
        import bench_check

        _compiled(work, n)  # the checker's start as installed, whichever cases run
        path = work / f"check-{kind}-{n}{_CHECK_SUFFIX[kind]}"
        if not path.exists():
            {"deck": bench_check.build_deck, "workbook": bench_check.build_workbook,
             "pdf": bench_check.build_pdf}[kind](path, n)
        return path
    return prepare


def _check(work: Path, path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "exportguard", "check", "--format", "json", "--timeout", "1200",
                           "--max-memory", "4096", str(path)], capture_output=True, text=True, cwd=REPO)
    if done.returncode not in (0, 1):
        raise SystemExit(f"check of {path} could not inspect ({done.returncode}): {done.stdout[-500:]}")


def _bare_read(work: Path, path: Path) -> None:
    import bench_check

    subprocess.run([sys.executable, "-c", bench_check.BARE_READ[path.suffix], str(path)], check=True,
                   capture_output=True, cwd=REPO)


CASES = {c.name: c for c in (
    Case("startup", "`exportguard --help` vs `python -c 'import click'` (whole processes)", (1,), (1,),
         _compiled, _exportguard_help, _import_click, 1.15, subprocess=True),
    Case("ingest-v5.1", "v5.1 tree + summary into a fresh SQLite store vs a plain loader with executemany",
         (1,), (1,), lambda w, n: None, _ingest_real("sqlite"), _ingest_real_plain("sqlite"), 3.0),
    Case("ingest-csv", "own-format CSV rows into a fresh SQLite store vs csv + executemany",
         (5_000, 20_000), (500, 2_000), _csv_file, _ingest_csv("sqlite"), _ingest_csv_plain("sqlite"), 2.5),
    Case("ingest-csv-1m", "1,000,000 own-format CSV rows into SQLite (memory stays bounded)", (1_000_000,), (),
         _csv_file, _ingest_csv("sqlite"), _ingest_csv_plain("sqlite"), 3.0),
    Case("ingest-v5.1-pg", "the same into a fresh PostgreSQL database (EXPORTGUARD_BENCH_PG)",
         (1,), (1,), lambda w, n: None, _ingest_real("postgresql"), _ingest_real_plain("postgresql"), 3.0),
    Case("ingest-csv-pg", "own-format CSV rows into a fresh PostgreSQL database vs csv + executemany",
         (5_000, 20_000), (500, 2_000), _csv_file, _ingest_csv("postgresql"), _ingest_csv_plain("postgresql"), 3.0),
    Case("xlsx", "bound figures to XLSX vs XlsxWriter (constant_memory) writing the same cells, formats, comments "
         "and sheet settings as the exportguard workbook", (5_000, 20_000), (500, 2_000), _xlsx_input,
         _xlsx_export, _xlsxwriter, 1.0),
    Case("xlsx-openpyxl", "bound figures to XLSX vs openpyxl (normal mode) writing the same kind of cells, formats, "
         "comments and notes by hand", (5_000, 20_000), (500, 2_000), _rows, _export(".xlsx"),
         _plain("xlsx_plain", ".xlsx"), 1.0),
    Case("xlsx-100k", "100,000 bound figures to XLSX (memory: at most 300 MB) vs XlsxWriter constant_memory "
         "writing the same workbook", (100_000,), (), _xlsx_input, _xlsx_export, _xlsxwriter, 1.0),
    Case("xlsx-100k-store", "`exportguard export` of 100,000 stored results to XLSX as a whole process (peak RSS of "
         "the exporting process: at most 300 MB) vs a whole process in which XlsxWriter constant_memory writes the "
         "same workbook", (100_000,), (2_000,), _store_input, _store_export, _store_xlsxwriter, 1.0, subprocess=True),
    Case("pptx", "bound figures in tables of 10 rows (20 figures each) to PPTX vs python-pptx writing the same "
         "cells, footer rows and notes with cell.text", (1_000, 4_000), (100, 400), _pptx_input, _pptx, _pptx_plain,
         1.0),
    Case("pdf", "a table of bound figures to a PDF briefing vs one reportlab LongTable of the same cells",
         (5_000, 20_000), (200, 800), _pdf_input, _pdf, _pdf_longtable, 0.2),
    Case("docx", "a table of bound figures to a Word file (a footnote after each figure) vs python-docx writing the "
         "same table, footnotes and manifest by hand", (2_000, 8_000), (200, 800), _rows, _export(".docx"),
         _plain("docx_plain", ".docx"), 2.0),
    Case("check-deck", "`exportguard check` on a deck of n slides vs python-pptx reading all its text (processes)",
         (50, 200), (10, 40), _check_document("deck"), _check, _bare_read, 1.5, subprocess=True),
    Case("check-workbook", "`exportguard check` on a workbook of n rows x 5 columns vs openpyxl read-only reading "
         "every cell (processes)", (5_000, 20_000), (500, 2_000), _check_document("workbook"), _check, _bare_read,
         1.5, subprocess=True),
    Case("check-pdf", "`exportguard check` on a PDF of n pages vs pypdf extracting every page's text (processes)",
         (50, 200), (10, 40), _check_document("pdf"), _check, _bare_read, 1.5, subprocess=True),
    # The baselines write the same bytes, table and manifest beside it (tests/test_bench_baselines.py).
    Case("csv", "bound figures to CSV (and the manifest beside) vs the csv and json modules writing the same files",
         (5_000, 20_000), (500, 2_000), _rows, _export(".csv"), _plain("csv_plain", ".csv"), 3.0),
    Case("markdown", "bound figures to Markdown (and the manifest beside) vs writing the same lines and JSON",
         (5_000, 20_000), (500, 2_000), _rows, _export(".md"), _plain("markdown_plain", ".md"), 3.0),
)}
