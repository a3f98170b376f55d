"""A PDF's pages extracted in a helper process beside the worker (safety.made_beside): the same
items, in the same order, and the same reasons as the one-process reading; a helper that fails,
dies or is left behind is a reason, never a hang or an orphan."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from exportguard.check import pdf_reader
from exportguard.check.safety import Limits, NotInspectable, made_beside, run_isolated

pytestmark = pytest.mark.quick  # the PDF reading of every check, both ways: in the fast net


def _pdf(path: Path, pages: list[list[str]]) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, Preformatted, SimpleDocTemplate

    styles = getSampleStyleSheet()
    story = []
    for n, page in enumerate(pages):
        if n:
            story.append(PageBreak())
        for text in page:  # a text with a newline is a table in fixed columns, as a text table
            story.append(Preformatted(text, styles["Code"]) if "\n" in text else Paragraph(text, styles["Normal"]))
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    return path


PAGES = [
    ["Vendor X reached 101,527 tok/s ±5.4% [a] on llama2-70b-99 Offline.",
     "[a] Vendor X, 8x B200-SXM-180GB. MLPerf Inference: Datacenter v5.1, Closed, result 5.1-0061, verified."],
    [],
    ["System        Throughput (tok/s)\nVendor A      101,527\nVendor B       98,000",
     "Our own tests: 42,000 tokens per second."],
] + [[f"Page {n}: System {n} reached {90000 + n:,} tok/s, as the vendor says."] for n in range(3, 12)]


class Recorder:
    def __init__(self):
        self.calls = []

    def scope(self, *a, **k):
        self.calls.append(("scope", a, tuple(sorted(k.items()))))

    def item(self, *a, **k):
        self.calls.append(("item", a, tuple(sorted(k.items()))))


def _read(path: Path, beside: bool) -> list:
    sink = Recorder()
    pdf_reader.read(path, sink, beside=beside)
    return sink.calls


def test_the_pages_read_beside_are_the_pages_read_in_one_process(tmp_path):
    path = _pdf(tmp_path / "brief.pdf", PAGES)
    one, two = _read(path, beside=False), _read(path, beside=True)
    assert one == two
    assert [c[1][0] for c in one if c[0] == "scope"] == [f"page {n}" for n in range(1, len(PAGES) + 1)]
    assert any("line 2 (column 'tok/s')" in c[1][1] for c in one if c[0] == "item")  # the layout pass ran


def _damaged(tmp_path: Path) -> dict[str, Path]:
    good = _pdf(tmp_path / "good.pdf", PAGES).read_bytes()
    out = {"truncated": tmp_path / "truncated.pdf", "not a pdf": tmp_path / "text.pdf",
           "too many pages": tmp_path / "pages.pdf"}
    out["truncated"].write_bytes(good[: len(good) // 3])
    out["not a pdf"].write_bytes(b"hello, this is no PDF\n" * 50)
    out["too many pages"].write_bytes(good)
    return out


@pytest.mark.parametrize("case", ["truncated", "not a pdf", "too many pages"])
def test_a_failure_in_the_helper_is_the_same_reason_as_in_one_process(tmp_path, case):
    path = _damaged(tmp_path)[case]
    limits = Limits(max_pdf_pages=5)
    reasons = []
    for beside in (False, True):
        with pytest.raises(NotInspectable) as e:
            pdf_reader.read(path, Recorder(), limits, beside=beside)
        reasons.append(e.value.reason)
    assert reasons[0] == reasons[1]
    if case == "too many pages":
        assert reasons[0] == f"the PDF has {len(PAGES)} pages, more than the limit of 5"


def _children() -> set[int]:
    """This process's children, running or not yet reaped."""
    return {int(pid) for task in Path("/proc/self/task").iterdir()
            for pid in (task / "children").read_text().split()}


def _killed_midway():
    yield 1
    os.kill(os.getpid(), signal.SIGKILL)
    yield 2


def _raises():
    yield "first"
    raise ValueError("broken object 12")


def test_a_helper_that_dies_or_fails_is_a_reason_and_is_reaped():
    before = _children()
    got = []
    with pytest.raises(NotInspectable, match="the reading process was ended by SIGKILL"):
        for item in made_beside(_killed_midway):
            got.append(item)
    assert got == [1]
    with pytest.raises(NotInspectable, match=r"unreadable file \(ValueError: broken object 12"):
        list(made_beside(_raises))
    assert _children() == before


def test_a_reader_that_stops_early_stops_and_reaps_its_helper():
    before = _children()
    items = made_beside(lambda: iter(range(10**9)))
    assert next(items) == 0
    assert len(_children() - before) == 1
    items.close()
    assert _children() == before


def _slow_pages(pid_file: str):
    def produce():
        Path(pid_file).write_text(str(os.getpid()))
        while True:
            time.sleep(0.05)
            yield "page"
    for _ in made_beside(produce):
        time.sleep(0.01)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")  # a zombie of init's is dead
    except FileNotFoundError:
        return True


def test_a_worker_killed_at_its_time_limit_leaves_no_helper(tmp_path):
    pid_file = tmp_path / "helper.pid"
    outcome = run_isolated(_slow_pages, (str(pid_file),), Limits(timeout_s=1.0))
    assert outcome.reason == "inspection took longer than the limit of 1 s"
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid)
