"""Hostile files built here end as "could not inspect: <reason>" (exit 2), never a crash and never
"no findings", within the worker's bounds: the checker runs with --timeout 10 --max-memory 512, so
a file that hung or grew would end with the time or memory reason instead of its own."""
from __future__ import annotations

import io
import json
import os
import signal
import struct
import subprocess
import sys
import time
import warnings
import zipfile
import zlib
from pathlib import Path

import pytest

from exportguard.check import safety
from exportguard.check.safety import Limits, NotInspectable, SafeZip, parse_tree, run_isolated, stream_xml
from tests.documents import pptx_person, xlsx_person

MAIN_NS = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'


def rezip(src: Path, dst: Path, replace: dict | None = None, extra=()) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
        for info in zin.infolist():
            data = zin.read(info.filename)
            z.writestr(info.filename, (replace or {}).get(info.filename, data))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns about the duplicate name we write on purpose
            for name, data in extra:
                z.writestr(name, data)
    return dst


def pdf_bytes(objects: list[bytes]) -> bytes:
    """A PDF whose object 1 is the catalog, with a correct cross-reference table."""
    buf = io.BytesIO()
    buf.write(b"%PDF-1.7\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(buf.tell())
        buf.write(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    xref = buf.tell()
    buf.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for o in offsets:
        buf.write(b"%010d 00000 n \n" % o)
    buf.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return buf.getvalue()


FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
CATALOG = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"]


def build_hostile(d: Path) -> dict[str, str]:
    """Each hostile file, and the words its reason must contain."""
    person_xlsx = xlsx_person(d / "base.xlsx")
    person_pptx = pptx_person(d / "base.pptx")
    expect = {}

    # archives
    rezip(person_xlsx, d / "zip-bomb.xlsx", {"xl/worksheets/sheet1.xml": b"<worksheet>" + b" " * (50 << 20) +
                                             b"</worksheet>"})
    expect["zip-bomb.xlsx"] = "inflates 1,0"  # about 1,000 times its compressed size
    declared = bytearray(rezip(person_xlsx, d / "tmp.xlsx").read_bytes())
    central = declared.find(b"PK\x01\x02")
    struct.pack_into("<I", declared, central + 24, 3_000_000_000)  # uncompressed size in the central directory
    (d / "huge-declared.xlsx").write_bytes(bytes(declared))
    expect["huge-declared.xlsx"] = "declares 2,861 MB uncompressed"
    rezip(person_xlsx, d / "many-entries.xlsx", extra=[(f"x/{k}.txt", b"") for k in range(10_001)])
    expect["many-entries.xlsx"] = "entries, more than the limit of 10,000"
    rezip(person_xlsx, d / "duplicate.xlsx", extra=[("xl/workbook.xml", b"<workbook/>")])
    expect["duplicate.xlsx"] = "appears twice"
    rezip(person_xlsx, d / "traversal.xlsx", extra=[("../../evil.xml", b"<x/>")])
    expect["traversal.xlsx"] = "leaves the archive (path traversal)"
    rezip(person_xlsx, d / "absolute.xlsx", extra=[("/etc/evil.xml", b"<x/>")])
    expect["absolute.xlsx"] = "is absolute"
    data = person_xlsx.read_bytes()
    (d / "truncated.xlsx").write_bytes(data[: len(data) // 2])
    expect["truncated.xlsx"] = "not a readable zip archive"
    (d / "tmp.xlsx").unlink()

    # XML
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
              b"".join(b'<!ENTITY lol%d "%s">' % (k, (b"&lol%d;" % (k - 1) if k > 1 else b"&lol;") * 10)
                       for k in range(1, 10)) + b"]>")
    rezip(person_xlsx, d / "billion-laughs.xlsx", {
        "xl/workbook.xml": laughs + b'<workbook ' + MAIN_NS + b'><sheets><sheet name="&lol9;" sheetId="1"/></sheets>'
                                                            b'</workbook>'})
    expect["billion-laughs.xlsx"] = "document type declaration (DTD)"
    rezip(person_xlsx, d / "laughs-in-sheet.xlsx", {
        "xl/worksheets/sheet1.xml": laughs + b"<worksheet " + MAIN_NS + b"><sheetData><row r=\"1\"><c r=\"A1\" "
                                    b"t=\"inlineStr\"><is><t>&lol9;</t></is></c></row></sheetData></worksheet>"})
    expect["laughs-in-sheet.xlsx"] = "'xl/worksheets/sheet1.xml' has a document type declaration"
    with zipfile.ZipFile(person_pptx) as z:
        slide = z.read("ppt/slides/slide1.xml")
    xxe = slide.replace(b"?>", b'?><!DOCTYPE p:sld [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', 1)
    rezip(person_pptx, d / "external-entity.pptx", {"ppt/slides/slide1.xml": xxe.replace(b"Vendor X", b"&xxe;")})
    expect["external-entity.pptx"] = "document type declaration (DTD)"
    deep = slide.replace(b"</p:spTree>", b"<p:grpSp>" * 5000 + b"</p:grpSp>" * 5000 + b"</p:spTree>")
    rezip(person_pptx, d / "deep-nesting.pptx", {"ppt/slides/slide1.xml": deep})
    expect["deep-nesting.pptx"] = "nests elements deeper than 256 levels"

    # PDF
    c = zlib.compressobj(9)
    chunk = b"0 0 m " * (1 << 16)
    stream = b"".join(c.compress(chunk) for _ in range((200 << 20) // len(chunk))) + c.flush()
    (d / "flate-200mb.pdf").write_bytes(pdf_bytes(CATALOG + [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream", FONT]))
    expect["flate-200mb.pdf"] = "Limit reached while decompressing"
    (d / "page-loop.pdf").write_bytes(pdf_bytes(CATALOG[:1] + [
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", b"<< /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >>"]))
    expect["page-loop.pdf"] = "cyclic"
    (d / "content-loop.pdf").write_bytes(pdf_bytes(CATALOG + [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"[4 0 R]", FONT]))
    expect["content-loop.pdf"] = "reference loop"
    form = (b"<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /Fm0 5 0 R >> /Font << "
            b"/F1 6 0 R >> >> /Length 30 >>\nstream\nBT /F1 9 Tf (x) Tj ET /Fm0 Do\nendstream")
    (d / "form-loop.pdf").write_bytes(pdf_bytes(CATALOG + [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /Fm0 5 0 R "
        b">> /Font << /F1 6 0 R >> >> >>", b"<< /Length 8 >>\nstream\n/Fm0 Do\nendstream", form, FONT]))
    expect["form-loop.pdf"] = "cyclic form XObject"
    (d / "deep-nesting.pdf").write_bytes(pdf_bytes(CATALOG + [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /X " + b"[" * 100_000 +
        b"]" * 100_000 + b" /Font << /F1 5 0 R >> >> >>",
        b"<< /Length 20 >>\nstream\nBT /F1 9 Tf (hi) Tj ET\nendstream", FONT]))
    expect["deep-nesting.pdf"] = "pypdf could not read all of page 1"
    (d / "not-a.pdf").write_bytes(b"%PDF-1.7\n" + os.urandom(4000))
    expect["not-a.pdf"] = "not a readable PDF"

    # a file of one format named as another
    (d / "workbook-named.pptx").write_bytes(person_xlsx.read_bytes())
    expect["workbook-named.pptx"] = "not a presentation: its main part 'xl/workbook.xml' is a 'workbook'"
    (d / "deck-named.xlsx").write_bytes(person_pptx.read_bytes())
    expect["deck-named.xlsx"] = "not a workbook"
    (d / "empty.pptx").write_bytes(b"")
    expect["empty.pptx"] = "not a readable zip archive"

    # text
    (d / "binary.csv").write_bytes(b"a,b\n\xff\xfe\x00garbage\n")
    expect["binary.csv"] = "not UTF-8"
    for base in ("base.xlsx", "base.pptx"):
        (d / base).unlink()
    return expect


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    expect = build_hostile(d)
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "exportguard", "check", "--format", "json", "--timeout", "10",
                          "--max-memory", "512", str(d)], capture_output=True, text=True, timeout=600)
    return expect, out, time.monotonic() - started


@pytest.mark.quick
def test_every_hostile_file_could_not_be_inspected_for_its_own_reason(hostile):
    expect, out, _ = hostile
    assert out.returncode == 2, out.stderr
    assert out.stderr == ""  # no traceback, no parser's warnings leaking to the terminal
    data = json.loads(out.stdout)
    got = {Path(f["path"]).name: f for f in data["files"]}
    assert set(got) == set(expect)
    for name, words in expect.items():
        f = got[name]
        assert f["status"] == "not-inspected", (name, f)
        assert words in f["reason"], (name, f["reason"])
        # ended by its own limit, not by the worker's bounds
        assert "took longer" not in f["reason"] and "memory" not in f["reason"], (name, f["reason"])
        assert f["peak_rss_mb"] <= 512, (name, f["peak_rss_mb"])
        assert f["findings"] == []
    assert data["summary"]["not_inspected"] == len(expect) and data["summary"]["clean"] == 0


def test_text_output_says_could_not_inspect(tmp_path):
    data = xlsx_person(tmp_path / "base.xlsx").read_bytes()
    (tmp_path / "base.xlsx").write_bytes(data[:100])
    out = subprocess.run([sys.executable, "-m", "exportguard", "check", str(tmp_path)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2
    assert f"{tmp_path / 'base.xlsx'}: could not inspect: not a readable zip archive" in out.stdout
    assert "1 could not be inspected" in out.stdout


# -- the worker's own bounds -------------------------------------------------------------------------

def _sleep_forever():
    time.sleep(600)


def _allocate():
    blocks = []
    for _ in range(64):
        blocks.append(bytearray(64 << 20))
    return len(blocks)


def _crash():
    os.kill(os.getpid(), signal.SIGSEGV)


def _recurse(n=0):
    return _recurse(n + 1)


def _broken():
    raise KeyError("xl/workbook.xml")


def test_the_worker_is_killed_at_its_wall_clock_limit():
    outcome = run_isolated(_sleep_forever, (), Limits(timeout_s=1.0))
    assert outcome.reason == "inspection took longer than the limit of 1 s"


def test_the_worker_cannot_grow_past_its_memory_limit():
    outcome = run_isolated(_allocate, (), Limits(max_memory_mb=512))
    assert outcome.reason == "needed more than 512 MB of memory (--max-memory to raise it)"


def test_a_crashing_parser_is_a_reason_not_a_crash():
    outcome = run_isolated(_crash, (), Limits())
    assert "ended by SIGSEGV" in outcome.reason


def test_recursion_and_unexpected_errors_are_reasons():
    assert "recursion limit" in run_isolated(_recurse, (), Limits()).reason
    assert run_isolated(_broken, (), Limits()).reason.startswith("unreadable file (KeyError: 'xl/workbook.xml'")


def test_the_worker_returns_its_value():
    assert run_isolated(len, ("abc",), Limits()).value == 3


# -- units of the safe-open layer --------------------------------------------------------------------

def test_limits_are_sized_for_exportguards_own_100000_figure_workbook():
    lim = safety.DEFAULT_LIMITS
    # measured on a 100,000-figure export (bench/bench_check.py): 26 MB zipped, 759 MB of XML in 15 entries,
    # the largest 264 MB, the highest compression ratio 98:1
    assert lim.max_entry_bytes >= 264 << 20 and lim.max_total_bytes >= 759 << 20
    assert lim.max_ratio >= 98 and lim.max_entries >= 15 and lim.max_file_bytes >= 26 << 20


def test_a_part_read_stops_at_its_declared_size(tmp_path):
    path = tmp_path / "x.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.xml", b"<a>" + b"x" * 1000 + b"</a>")
    data = bytearray(path.read_bytes())
    for sig, offset in ((b"PK\x01\x02", 24), (b"PK\x03\x04", 22)):
        i = data.find(sig)
        struct.pack_into("<I", data, i + offset, 10)  # declare 10 bytes for 1007
    path.write_bytes(bytes(data))
    with pytest.raises(NotInspectable, match="damaged|declared size"):
        SafeZip(path).read("a.xml")


def test_stream_xml_refuses_entities_and_parse_tree_refuses_depth():
    calls = []
    with pytest.raises(NotInspectable, match="DTD"):
        stream_xml(io.BytesIO(b'<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>'), "a.xml", lambda t, a: calls.append(t))
    assert calls == []
    with pytest.raises(NotInspectable, match="deeper than 3 levels"):
        parse_tree(b"<a><b><c><d/></c></b></a>", "a.xml", Limits(max_xml_depth=3))
    assert parse_tree(b"<a><b/></a>", "a.xml").tag == "a"
