"""exportguard: MLPerf Inference LLM figures that cannot leave the database without their conditions.

The public API (docs/api.md), the same guarantees as the command line, which calls it::

    import exportguard as eg
    with eg.open_store("sqlite:///results.db") as store:
        eg.ingest_sources(store, "v5.1_summary_results.json")       # per-source reconciliation
        eg.select(store, model="llama2-70b", track="99", scenario="Offline")   # bound tables in Jupyter
        report = eg.build_report(store, "deck.toml")                  # or a dict, or filters
    eg.export(report, "deck.pptx", "figures.xlsx")                    # atomic, as the command line
    eg.check_documents("deck.pptx").findings                          # findings as data

Only the names in ``__all__`` are promised; the modules behind them may change. The functions are
named so that no submodule shadows them (``exportguard.ingest``, ``exportguard.check`` and
``exportguard.report`` are packages and modules). They load on first use, so that importing the
package (and ``exportguard --help``) stays fast.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "__version__",
    # calls
    "open_store", "ingest_sources", "select", "build_report", "export", "check_documents",
    # what they return
    "Store", "IngestReport", "Selection", "BoundReport", "BoundFigure", "CheckResult", "Finding",
    # what they raise
    "ExportguardError", "ArgumentError", "SourceError", "StoreError", "SpecError", "GuardError", "ExportWriteError",
]

# name -> the module that defines it (imported when the name is first used)
_HOME = {
    "open_store": "api", "ingest_sources": "api", "select": "api", "build_report": "api", "export": "api",
    "check_documents": "api_check", "CheckResult": "api_check", "Selection": "api", "BoundReport": "api",
    "ArgumentError": "api",
    "Store": "store", "IngestReport": "ingest", "BoundFigure": "report", "Finding": "rules",
    "ExportguardError": "errors", "SourceError": "errors", "StoreError": "errors", "SpecError": "spec",
    "GuardError": "guard", "ExportWriteError": "render.commit",
}

if TYPE_CHECKING:  # for type checkers and editors; at run time the names load on first use
    from .api import ArgumentError, BoundReport, Selection, build_report, export, ingest_sources, open_store, select
    from .api_check import CheckResult, check_documents
    from .errors import ExportguardError, SourceError, StoreError
    from .guard import GuardError
    from .ingest import IngestReport
    from .render.commit import ExportWriteError
    from .report import BoundFigure
    from .rules import Finding
    from .spec import SpecError
    from .store import Store

def __getattr__(name: str) -> Any:
    if name == "__version__":
        from ._version import VERSION as value
    elif name in _HOME:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # once loaded, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
