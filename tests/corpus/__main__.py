"""python -m tests.corpus [--keep DIR] [--misses]: build the corpus, check it, print recall per class."""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from exportguard.check.engine import check

from . import score, table
from .documents import build


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="build the documents in this folder and keep them")
    parser.add_argument("--misses", action="store_true", help="list each missed flag and each false finding")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        docs = build(folder)
        scores = score(docs, check([d.path for d in docs]))
    print(table(scores))
    if args.misses:
        for cls, s in scores.items():
            for line in s.misses:
                print(f"miss  [{cls}] {line}")
            for line in s.false_findings:
                print(f"false [{cls}] {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
