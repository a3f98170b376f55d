"""Every limit the checker applies to an untrusted document, in one module.

A document is data from anyone: a zip bomb, an XML entity attack, a PDF whose streams inflate to
gigabytes or whose objects refer to each other in a loop. Nothing here trusts the file:

- **Archives** (PPTX, XLSX and the workbooks embedded in charts): the number of entries, each
  entry's declared uncompressed size, their total and each entry's compression ratio are checked
  from the central directory before a byte is inflated; duplicate (case-insensitively, as OOXML
  part names are), absolute and traversing names, encrypted entries and compression methods other
  than stored/deflate are refused; reading an entry stops at its declared size. An archive inside
  an archive is read from memory with the same limits and counts against the same total.
- **XML** is read without a DTD: no part of an archive may declare one (every entry's prolog is
  read when the archive is opened, [Content_Types].xml and parts no reader parses included, since
  the office application that opens the file parses them); defusedxml's parser (``parse_tree``) for the small parts that are
  read as trees (slides, charts, relationships), and, for the big streamed parts (worksheets, shared
  strings, styles, comments), a raw expat parser with the handlers defusedxml installs (a DOCTYPE,
  an entity declaration or an external reference raises defusedxml's own exceptions). Trees are
  built to a bounded depth.
- **PDF**: a page count limit, a limit on each stream's inflated size (pypdf's own decompression
  limits, set from ours) and on nesting (Python's recursion limit in the worker; a reference loop
  ends there or in pypdf's loop detection).
- **Every file is inspected in a worker process** (``run_isolated``) with an address-space limit
  (RLIMIT_AS, set in the child to what it starts with plus ``max_memory_mb``) and a wall-clock
  limit enforced by the parent, which kills the child when it is reached. A PDF's pages are
  extracted beside the worker (``made_beside``), in a helper forked from it with its limits, which
  the kernel ends with it. Whatever goes wrong ends as ``NotInspectable(reason)``: "could not
  inspect: <reason>", never a crash and never "no findings".

The defaults are sized so that exportguard's own 100,000-figure workbook passes (about 26 MB
zipped, 760 MB of XML in 15 entries, the largest 264 MB, compression ratios up to about 100:1).
"""
from __future__ import annotations

import io
import logging
import multiprocessing
import os
import re
import resource
import signal
import stat
import sys
import time
import traceback
import xml.parsers.expat
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..errors import ExportguardError

MB = 1 << 20


class NotInspectable(ExportguardError):
    """The file could not be inspected safely: ``reason`` says why, in words."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 1024 * MB  # any file on disk (a CSV, a Markdown file, a PDF, an archive)
    max_entries: int = 10_000  # entries in one archive
    max_entry_bytes: int = 1024 * MB  # declared uncompressed size of one entry
    max_total_bytes: int = 2048 * MB  # declared uncompressed size of all entries (nested archives included)
    max_ratio: float = 250.0  # uncompressed / compressed size of one entry...
    ratio_floor: int = 1 * MB  # ...for entries that inflate to more than this
    max_nested_archives: int = 1  # archives inside an archive (a chart's embedded workbook), depth
    max_xml_depth: int = 256  # element nesting of an XML part read as a tree
    max_tree_part_bytes: int = 64 * MB  # an XML part read as a tree (a slide, a chart) is small
    max_pdf_pages: int = 5_000
    max_pdf_stream_bytes: int = 64 * MB  # one PDF stream, inflated
    max_recursion: int = 2_000  # Python recursion in the worker (PDF object nesting, reference loops)
    timeout_s: float = 120.0  # wall clock for one file
    max_memory_mb: int = 2048  # address space of the worker inspecting one file

    def with_overrides(self, **kwargs) -> "Limits":
        return replace(self, **{k: v for k, v in kwargs.items() if v is not None})


DEFAULT_LIMITS = Limits()


# -- files on disk -----------------------------------------------------------------------------------

def check_file_size(path: Path, limits: Limits) -> int:
    try:
        st = path.stat()
    except OSError as e:
        raise NotInspectable(f"cannot read the file: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):  # swapped in after the checker looked: never opened
        raise NotInspectable(f"{path} is {_kind(st.st_mode)}, not a regular file")
    size = st.st_size
    if size > limits.max_file_bytes:
        raise NotInspectable(f"the file is {size / MB:,.0f} MB, more than the limit of {limits.max_file_bytes / MB:,.0f} MB")
    return size


_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def not_regular(path: Path) -> str | None:
    """Why ``path`` is no document: "a FIFO (named pipe)", "a socket" ..., or None for a regular file
    (through symlinks) or one that cannot be looked at (its reader then says why). Looked at with
    stat alone: opening a FIFO blocks until a writer comes, and a device never ends."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else _kind(mode)


def _kind(mode: int) -> str:
    return next((kind for test, kind in _KINDS if test(mode)), "a special file")


def open_regular(path: Path, limits: Limits = DEFAULT_LIMITS):
    """(binary file, size) of a regular file within the file size limit. Opened without blocking and
    looked at once open: a FIFO swapped in after the checker's first look is refused, not waited on."""
    check_file_size(path, limits)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise NotInspectable(f"cannot read the file: {e.strerror or e}") from None
    f = os.fdopen(fd, "rb")
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        f.close()
        raise NotInspectable(f"{path} is {_kind(st.st_mode)}, not a regular file")
    if st.st_size > limits.max_file_bytes:
        f.close()
        raise NotInspectable(f"the file is {st.st_size / MB:,.0f} MB, more than the limit of "
                             f"{limits.max_file_bytes / MB:,.0f} MB")
    return f, st.st_size


def read_text(path: Path, limits: Limits = DEFAULT_LIMITS) -> str:
    """A text file (CSV, Markdown, a manifest sidecar) as UTF-8, within the file size limit."""
    f, _size = open_regular(path, limits)
    try:
        with f:
            data = f.read()
    except OSError as e:
        raise NotInspectable(f"cannot read the file: {e.strerror or e}") from None
    if len(data) > limits.max_file_bytes:
        raise NotInspectable(f"the file grew past the limit of {limits.max_file_bytes / MB:,.0f} MB while read")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise NotInspectable(f"not UTF-8 text (byte {e.start}: {e.reason})") from None


class Pace:
    """A long read that, at the pace it goes, cannot end within the wall-clock limit is ended early
    with its reason, rather than killed at the limit (a text file of millions of bare numbers under a
    throughput heading reads at a few MB a second). ``check(done)`` takes the bytes read so far; it
    judges after a grace period, from the pace since the read began."""

    def __init__(self, size: int, limits: Limits):
        self.size, self.limit = size, limits.timeout_s
        self.grace = min(5.0, limits.timeout_s / 4)
        self.started = time.monotonic()

    def check(self, done: int) -> None:
        elapsed = time.monotonic() - self.started
        if elapsed < self.grace or done <= 0:
            return
        projected = elapsed * self.size / done
        if projected > self.limit:
            raise NotInspectable(f"the file is {self.size / MB:,.0f} MB, too large to read within the limit of "
                                 f"{self.limit:g} s at the pace it reads (about {projected:,.0f} s; --timeout to "
                                 "raise it)")


# -- archives ----------------------------------------------------------------------------------------

_ALLOWED_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}


class SafeZip:
    """A zip archive whose central directory passed every limit. ``read(name)`` inflates one entry
    (bounded by its declared size); ``open_archive(name)`` opens an archive stored inside."""

    def __init__(self, source: Path | bytes, limits: Limits = DEFAULT_LIMITS, *, label: str = "",
                 depth: int = 0, budget: list[int] | None = None):
        self.limits = limits
        self.label = label  # "" for the file itself, "embedded workbook 'x.xlsx'" for a nested one
        self.depth = depth
        self._budget = budget if budget is not None else [limits.max_total_bytes]
        if isinstance(source, (bytes, bytearray)):
            size, stream = len(source), io.BytesIO(source)
        else:
            size, stream = check_file_size(Path(source), limits), source
        try:
            self._zf = zipfile.ZipFile(stream)
            infos = self._zf.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError, NotImplementedError) as e:
            raise NotInspectable(f"{self._of()}not a readable zip archive (truncated or damaged?): {e}") from None
        self.archive_bytes = size
        self._check(infos)
        self._infos = {i.filename: i for i in infos}
        self._lower = {i.filename.lower(): i.filename for i in infos}
        seen = _scanned(source)
        if seen not in _NO_DTD:  # the manifest's reader and the document's reader open one file twice
            for info in infos:
                if not info.is_dir() and info.file_size:
                    self._refuse_doctype(info.filename)
            if seen is not None:
                _NO_DTD.add(seen)

    def _refuse_doctype(self, name: str) -> None:
        """Any XML part of the package ([Content_Types].xml and relationships included, read by the
        checker or not) that declares a DTD or an entity: an office application that opens the file
        may expand it. A DTD stands in the prolog, before the root element, so the prolog is enough."""
        head = b""
        with self.open(name) as f:
            while len(head) < PROLOG_LIMIT:
                chunk = f.read(PROLOG_CHUNK)
                if not chunk:
                    break
                head += chunk
                verdict = _prolog_declares(head, final=len(chunk) < PROLOG_CHUNK)
                if verdict is not None:
                    if verdict:
                        raise NotInspectable(f"{self._of()}XML part {name!r} has a document type declaration (DTD) "
                                             "or declares entities; entity and DTD processing is refused")
                    return
        if head and _looks_like_xml(head):
            raise NotInspectable(f"{self._of()}XML part {name!r} has a prolog longer than "
                                 f"{PROLOG_LIMIT // 1024:,} KB before its root element")

    def _of(self) -> str:
        return f"{self.label}: " if self.label else ""

    def _check(self, infos: list[zipfile.ZipInfo]) -> None:
        lim = self.limits
        if len(infos) > lim.max_entries:
            raise NotInspectable(f"{self._of()}the archive has {len(infos):,} entries, more than the limit of "
                                 f"{lim.max_entries:,}")
        seen: set[str] = set()
        total = 0
        for info in infos:
            name = info.filename
            if _unsafe_name(name):
                raise NotInspectable(f"{self._of()}archive entry name {name!r} is absolute or leaves the archive "
                                     "(path traversal)")
            key = name.lower()
            if key in seen:
                raise NotInspectable(f"{self._of()}archive entry {name!r} appears twice (duplicate names make the "
                                     "content ambiguous)")
            seen.add(key)
            if info.flag_bits & 0x1:
                raise NotInspectable(f"{self._of()}archive entry {name!r} is encrypted")
            if info.compress_type not in _ALLOWED_METHODS:
                raise NotInspectable(f"{self._of()}archive entry {name!r} uses compression method "
                                     f"{info.compress_type}, not stored or deflate")
            if info.file_size > lim.max_entry_bytes:
                raise NotInspectable(f"{self._of()}archive entry {name!r} declares {info.file_size / MB:,.0f} MB "
                                     f"uncompressed, more than the limit of {lim.max_entry_bytes / MB:,.0f} MB")
            if info.file_size > lim.ratio_floor:
                ratio = info.file_size / max(info.compress_size, 1)
                if ratio > lim.max_ratio:
                    raise NotInspectable(f"{self._of()}archive entry {name!r} inflates {ratio:,.0f} times its "
                                         f"compressed size (limit {lim.max_ratio:,.0f}): a zip bomb?")
            total += info.file_size
        if total > self._budget[0]:
            raise NotInspectable(f"{self._of()}the archive declares {total / MB:,.0f} MB uncompressed, more than the "
                                 f"{self._budget[0] / MB:,.0f} MB left of the limit of {lim.max_total_bytes / MB:,.0f} MB")
        self._budget[0] -= total

    def names(self) -> list[str]:
        return list(self._infos)

    def find(self, name: str) -> str | None:
        """The entry's name as stored (OOXML part names are case-insensitive), or None."""
        name = name.lstrip("/")
        return name if name in self._infos else self._lower.get(name.lower())

    def size(self, name: str) -> int:
        return self._infos[self.find(name) or name].file_size

    def open(self, name: str):
        """A stream of the entry's bytes, inflated no further than its declared size."""
        real = self.find(name)
        if real is None:
            raise NotInspectable(f"{self._of()}the archive has no part {name!r}")
        try:
            return _Bounded(self._zf.open(real), self._infos[real].file_size, f"{self._of()}{real}")
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as e:
            raise NotInspectable(f"{self._of()}archive entry {real!r} cannot be read: {e}") from None

    def read(self, name: str, max_bytes: int | None = None) -> bytes:
        real = self.find(name)
        if real is not None and max_bytes is not None and self._infos[real].file_size > max_bytes:
            raise NotInspectable(f"{self._of()}part {real!r} is {self._infos[real].file_size / MB:,.0f} MB, more than "
                                 f"the {max_bytes / MB:,.0f} MB such a part may have")
        with self.open(name) as f:
            return f.read()

    def open_archive(self, name: str, label: str) -> "SafeZip":
        if self.depth + 1 > self.limits.max_nested_archives:
            raise NotInspectable(f"{self._of()}{name!r} is an archive nested deeper than the limit of "
                                 f"{self.limits.max_nested_archives}")
        return SafeZip(self.read(name), self.limits, label=label, depth=self.depth + 1, budget=self._budget)

    def close(self) -> None:
        self._zf.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_NO_DTD: set[tuple] = set()  # files on disk whose every part was read free of a DTD, by identity and version


def _scanned(source) -> tuple | None:
    if isinstance(source, (bytes, bytearray)):
        return None
    try:
        st = os.stat(source)
    except OSError:
        return None
    return (os.path.realpath(source), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


PROLOG_CHUNK = 1024  # a part's prolog is mostly its first line
PROLOG_LIMIT = 1 * MB
_PROLOG = re.compile(r"(?:\s+|<\?.*?\?>|<!--.*?-->)*", re.S)


def _decode_head(head: bytes) -> str:
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or head[1:2] == b"\x00" or head[:1] == b"\x00":
        codec = "utf-16" if head[:2] in (b"\xff\xfe", b"\xfe\xff") else (
            "utf-16-le" if head[1:2] == b"\x00" else "utf-16-be")
        return head[:len(head) // 2 * 2].decode(codec, "replace")
    return head.decode("utf-8", "replace").lstrip("\ufeff")


def _looks_like_xml(head: bytes) -> bool:
    return _decode_head(head[:64]).lstrip()[:1] == "<"


def _prolog_declares(head: bytes, final: bool) -> bool | None:
    """True if the XML prolog in ``head`` holds a markup declaration (<!DOCTYPE, <!ENTITY), False if
    the root element starts first (or the part is not XML), None if ``head`` ends inside the prolog."""
    text = _decode_head(head)
    if text.lstrip()[:1] not in ("<", ""):
        return False  # not XML (an image, a binary part)
    m = _PROLOG.match(text)
    rest = text[m.end():]
    if not rest:
        return False if final else None
    if rest.startswith("<!"):
        if rest.startswith("<!--") and not final:
            return None  # a comment that runs past what was read
        return True
    if rest.startswith("<?") and "?>" not in rest:
        return False if final else None
    return False


def _unsafe_name(name: str) -> bool:
    if not name or name.startswith(("/", "\\")) or "\\" in name or "\x00" in name:
        return True
    if len(name) > 1 and name[1] == ":":  # C:...
        return True
    return any(part == ".." for part in name.split("/"))


class _Bounded(io.RawIOBase):
    """An entry's stream that fails instead of returning more than the declared size, and turns
    the zip module's errors for damaged data into NotInspectable."""

    def __init__(self, raw, limit: int, label: str):
        self._raw, self._left, self._label = raw, limit, label

    def readable(self):
        return True

    def _take(self, n: int) -> bytes:
        try:
            data = self._raw.read(min(n, self._left + 1))
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as e:
            raise NotInspectable(f"archive entry {self._label!r} is damaged: {e}") from None
        except Exception as e:  # zlib.error
            raise NotInspectable(f"archive entry {self._label!r} is damaged: {e}") from None
        if len(data) > self._left:
            raise NotInspectable(f"archive entry {self._label!r} inflates past its declared size")
        self._left -= len(data)
        return data

    def readinto(self, b):
        data = self._take(len(b))
        b[:len(data)] = data
        return len(data)

    def read(self, n: int = -1) -> bytes:
        # Straight from the zip stream: no buffer of the chunk's size to fill and copy (a 1 MB
        # buffer per small slide part cost the deck check a tenth of its time).
        if n is None or n < 0:
            chunks = []
            while True:
                chunk = self._take(1 << 20)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        return self._take(n)

    def close(self):
        self._raw.close()
        super().close()


# -- XML -------------------------------------------------------------------------------------------

def _xml_problem(part: str, e: BaseException) -> NotInspectable:
    from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden

    if isinstance(e, EntitiesForbidden):
        return NotInspectable(f"XML part {part!r} declares entities; entity expansion is refused (billion laughs?)")
    if isinstance(e, ExternalReferenceForbidden):
        return NotInspectable(f"XML part {part!r} refers to an external entity; refused")
    if isinstance(e, DTDForbidden):
        return NotInspectable(f"XML part {part!r} has a document type declaration (DTD); entity and DTD "
                              "processing is refused")
    if isinstance(e, NotInspectable):
        return e
    return NotInspectable(f"XML part {part!r} is not well-formed: {e}")


def _parse_errors():
    from defusedxml import DefusedXmlException
    from xml.etree.ElementTree import ParseError

    return (DefusedXmlException, ParseError, xml.parsers.expat.ExpatError, ValueError, UnicodeError)


class _RootReached(Exception):
    """The prolog scan's stop: the root element starts, so no DOCTYPE can follow."""


def _defused_expat():
    """An expat parser that ends the parse with defusedxml's exception at a DOCTYPE, an entity
    declaration or an external entity reference."""
    from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden

    p = xml.parsers.expat.ParserCreate()

    def doctype(name, sysid, pubid, has_internal_subset):
        raise DTDForbidden(name, sysid, pubid)

    def entity(name, is_parameter_entity, value, base, sysid, pubid, notation_name=None):
        raise EntitiesForbidden(name, value, base, sysid, pubid, notation_name)

    def external(context, base, sysid, pubid):
        raise ExternalReferenceForbidden(context, base, sysid, pubid)

    p.StartDoctypeDeclHandler = doctype
    p.EntityDeclHandler = entity
    p.UnparsedEntityDeclHandler = lambda name, base, sysid, pubid, notation: entity(name, False, None, base, sysid,
                                                                                   pubid, notation)
    p.ExternalEntityRefHandler = external
    p.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    return p


def _refuse_dtd(data: bytes) -> None:
    """Read the prolog only, up to the root element's start, refusing a DOCTYPE there. A DTD can
    stand nowhere else, and without one a part declares no entity (an undeclared reference is a
    well-formedness error), so what follows may go to the C parser at full speed."""
    p = _defused_expat()

    def root(name, attrs):
        raise _RootReached

    p.StartElementHandler = root
    try:
        p.Parse(data, True)
    except _RootReached:
        pass


def _deeper_than(root, levels: int) -> bool:
    """Whether a parsed tree has an element below ``levels`` levels (the root is level 1): one
    pass over the levels, each element visited once at C speed."""
    level = [root]
    for _ in range(levels):
        level = [child for element in level for child in element]
        if not level:
            return False
    return True


def parse_tree(data: bytes, part: str, limits: Limits = DEFAULT_LIMITS):
    """A small XML part (a slide, a chart, relationships) as an ElementTree element, with DTDs and
    entity declarations refused (as defusedxml does) and the depth bounded. The prolog is scanned
    first and the body parsed by ElementTree's C parser and tree builder: a per-element Python
    callback cost the checker a third of its time on a 200-slide deck (issue 37)."""
    from xml.etree.ElementTree import XMLParser

    if len(data) > limits.max_tree_part_bytes:
        raise NotInspectable(f"XML part {part!r} is {len(data) / MB:,.0f} MB, more than the "
                             f"{limits.max_tree_part_bytes / MB:,.0f} MB such a part may have")
    try:
        _refuse_dtd(data)
        parser = XMLParser()
        parser.feed(data)
        root = parser.close()
    except _parse_errors() + (NotInspectable,) as e:
        raise _xml_problem(part, e) from None
    if _deeper_than(root, limits.max_xml_depth):
        raise NotInspectable(f"XML part {part!r} nests elements deeper than {limits.max_xml_depth} levels")
    return root


def stream_xml(stream, part: str, start: Callable, end: Callable | None = None,
               data: Callable | None = None, chunk: int = 1 << 20) -> None:
    """Stream a big XML part through expat callbacks (``start(tag, attrs)``, ``end(tag)``,
    ``data(text)``; tags are local names ``"c"``, ``"row"``, ``"t"``, attributes a dict keyed by
    their qualified names). The parser carries defusedxml's protections: a DOCTYPE, an entity
    declaration or an external entity reference ends the parse with defusedxml's exception."""
    p = _defused_expat()
    p.buffer_text = True
    p.buffer_size = 1 << 16
    p.StartElementHandler = start
    if end is not None:
        p.EndElementHandler = end
    if data is not None:
        p.CharacterDataHandler = data
    try:
        while True:
            block = stream.read(chunk)
            if not block:
                break
            p.Parse(block, False)
        p.Parse(b"", True)
    except _parse_errors() as e:
        raise _xml_problem(part, e) from None


def local(tag: str) -> str:
    """'x:row' or 'row' -> 'row' (expat without namespace processing keeps the prefix)."""
    return tag.rpartition(":")[2]


# -- PDF -------------------------------------------------------------------------------------------

def configure_pypdf(limits: Limits) -> None:
    """pypdf's own resource limits, set from ours: its Configuration (pypdf 7) or, in older
    releases, its module-level decompression limits."""
    import pypdf

    logger = logging.getLogger("pypdf")
    logger.setLevel(logging.WARNING)  # its warnings are read by pdf_reader (PypdfTrouble), not printed
    logger.propagate = False
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())  # else logging's last resort prints them to stderr
    size = limits.max_pdf_stream_bytes
    if hasattr(pypdf, "overwrite_configuration"):
        fields = {f for f in getattr(pypdf.Configuration, "__dataclass_fields__", {})}
        wanted = {"maximum_declared_stream_length": size, "array_based_stream_maximum_output_length": size,
                  "jbig2_maximum_output_length": size, "lzw_maximum_output_length": size,
                  "run_length_maximum_output_length": size, "zlib_maximum_output_length": size,
                  "brotli_maximum_output_length": size, "image_maximum_buffer_size": size,
                  "stream_decoding_work_maximum_length": 4 * size, "page_tree_maximum_entries": limits.max_pdf_pages * 4,
                  "disable_legacy_handling": True}
        pypdf.overwrite_configuration(**{k: v for k, v in wanted.items() if k in fields})
        return
    from pypdf import filters

    for name in ("ZLIB_MAX_OUTPUT_LENGTH", "LZW_MAX_OUTPUT_LENGTH", "MAX_DECLARED_STREAM_LENGTH",
                 "RUN_LENGTH_MAX_OUTPUT_LENGTH", "MAX_ARRAY_BASED_STREAM_OUTPUT_LENGTH"):
        if hasattr(filters, name):
            setattr(filters, name, size)


_PDF_FATAL = re.compile(r"error reading|limit|recursion|cyclic|depth|impossible to decode|decompress|too many|loop",
                        re.IGNORECASE)


class PypdfTrouble(logging.Handler):
    """pypdf recovers from damage with a logged warning and carries on with part of a page missing;
    the checker does not: a warning that content was lost ends the inspection (``check``)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.found: list[str] = []
        logging.getLogger("pypdf").addHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        if _PDF_FATAL.search(message):
            self.found.append(message[:200])

    def check(self, page: int) -> None:
        if self.found:
            raise NotInspectable(f"pypdf could not read all of page {page}: {self.found[0]} (a damaged object, "
                                 "nesting past its limits or a stream past the size limit)")

    def close(self) -> None:
        logging.getLogger("pypdf").removeHandler(self)
        super().close()


def inflate_page_contents(page, n: int) -> None:
    """Inflate each of a PDF page's content streams (within pypdf's limits, set from ours), whether or
    not text extraction would; a content entry that is not a stream or an array of streams (a
    reference loop, a damaged page) ends the inspection."""
    from pypdf.generic import ArrayObject, StreamObject

    raw = page.get("/Contents")
    if raw is None:
        return
    obj = raw.get_object()
    parts = list(obj) if isinstance(obj, ArrayObject) else [obj]
    for part in parts:
        stream = part.get_object() if part is not None else None
        if not isinstance(stream, StreamObject):
            raise NotInspectable(f"page {n}'s contents are not streams ({type(stream).__name__}): a reference loop "
                                 "or a damaged page")
        stream.get_data()


def pdf_problem(e: BaseException, limits: Limits = DEFAULT_LIMITS) -> NotInspectable:
    name = type(e).__name__
    if isinstance(e, NotInspectable):
        return e
    if isinstance(e, RecursionError):
        return NotInspectable("the PDF nests objects too deeply or its objects refer to each other in a loop "
                              "(recursion limit reached)")
    if name == "LimitReachedError":
        return NotInspectable(f"a PDF stream or structure goes past the limit of "
                              f"{limits.max_pdf_stream_bytes / MB:,.0f} MB or pypdf's own limits: {e}")
    return NotInspectable(f"not a readable PDF ({name}: {e})")


# -- the worker ------------------------------------------------------------------------------------

@dataclass
class Outcome:
    value: Any = None
    reason: str | None = None  # set when the file could not be inspected
    seconds: float = 0.0
    peak_rss_mb: float = 0.0


def run_isolated(fn: Callable, args: tuple, limits: Limits = DEFAULT_LIMITS) -> Outcome:
    """Run ``fn(*args)`` in a forked worker whose address space may grow by at most
    ``limits.max_memory_mb`` over what it starts with (the parent's, at the fork), and which the
    parent kills after ``limits.timeout_s``. Returns the
    value, or the reason it could not be had (NotInspectable's reason, a memory or time limit, or
    the worker's unexpected end)."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    started = time.monotonic()
    proc = ctx.Process(target=_child, args=(send, fn, args, limits, _address_space()), daemon=True)
    proc.start()
    send.close()
    try:
        if receive.poll(limits.timeout_s):
            try:
                kind, payload, peak = receive.recv()
            except (EOFError, OSError):
                proc.join(5)
                return Outcome(reason=_died(proc, limits), seconds=time.monotonic() - started)
        else:
            _kill(proc)
            return Outcome(reason=f"inspection took longer than the limit of {limits.timeout_s:g} s",
                           seconds=time.monotonic() - started)
    finally:
        receive.close()
    proc.join(5)
    if proc.is_alive():
        _kill(proc)
    seconds = time.monotonic() - started
    if kind == "ok":
        return Outcome(value=payload, seconds=seconds, peak_rss_mb=peak)
    return Outcome(reason=payload, seconds=seconds, peak_rss_mb=peak)


def _kill(proc) -> None:
    try:
        os.kill(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.join(5)


_OUT_OF_MEMORY = 75  # the worker's exit status when even its short reason could not be sent


def memory_reason(limits: Limits) -> str:
    return f"needed more than {limits.max_memory_mb} MB of memory (--max-memory to raise it)"


def _died(proc, limits: Limits) -> str:
    return _end_reason(proc.exitcode, limits, "inspecting")


def _end_reason(code: int | None, limits: Limits, process: str) -> str:
    """Why a process that sent no word ended, from its exit status (negative: the signal)."""
    if code == _OUT_OF_MEMORY:
        return memory_reason(limits)
    if code is not None and code < 0:
        sig = signal.Signals(-code).name if -code in {s.value for s in signal.Signals} else str(-code)
        return (f"the {process} process was ended by {sig}: out of memory past {limits.max_memory_mb} MB "
                "(--max-memory to raise it), or a crash in a parser")
    return f"the {process} process ended unexpectedly (exit code {code})"


def _address_space() -> int:
    """This process's address space in bytes (what a forked worker starts with), 0 if unknown."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _child(send, fn, args, limits: Limits, base: int = 0) -> None:
    try:
        import faulthandler

        faulthandler.disable()  # a parser's crash is reported by the parent as a reason, not dumped here
    except Exception:
        pass
    try:
        # what the inspection may add to the address space the worker starts with (the checker's own,
        # shared with its parent until written): a small CLI process starts at about 100-200 MB
        cap = base + limits.max_memory_mb * MB
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ValueError, OSError):
        pass  # an already lower hard limit stays in force
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ValueError, OSError):
        pass
    sys.setrecursionlimit(limits.max_recursion)
    code = 0
    try:
        try:
            message = _outcome(fn, args, limits)
        except MemoryError:  # even the reason of another failure could not be built
            message = ("not", memory_reason(limits))
        peak = max(resource.getrusage(who).ru_maxrss  # the helper's too, where a reading had one
                   for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024
        try:
            send.send(message + (peak,))
        except MemoryError:  # pickling a big value ran past the limit: drop it, then send the reason
            message = None
            send.send(("not", memory_reason(limits), peak))
    except MemoryError:
        code = _OUT_OF_MEMORY  # the parent says so from the exit status
    except BaseException:
        code = 1
    finally:
        try:
            send.close()
        finally:
            os._exit(code)


def _outcome(fn, args, limits: Limits) -> tuple:
    """("ok", value) or ("not", reason)."""
    try:
        return ("ok", fn(*args))
    except Exception as e:
        return ("not", _reason(e, limits))


def _reason(e: Exception, limits: Limits) -> str:
    """Why an inspection failed, in words; a MemoryError, wherever it is raised, is the memory limit
    speaking (RLIMIT_AS makes every allocation past it fail)."""
    if isinstance(e, NotInspectable):
        return e.reason
    if isinstance(e, MemoryError):
        return memory_reason(limits)
    if isinstance(e, RecursionError):
        return "nesting deeper than the recursion limit (a reference loop or a deeply nested structure)"
    where = traceback.extract_tb(e.__traceback__)[-1]  # a parser's own error on a malformed file: say what
    return f"unreadable file ({type(e).__name__}: {e}; in {Path(where.filename).name}:{where.lineno})"


# -- a reading beside the worker ---------------------------------------------------------------------

def spare_core() -> bool:
    """Whether this process may use a second core (a reading beside it is then worth its fork)."""
    try:
        return len(os.sched_getaffinity(0)) > 1
    except (AttributeError, OSError):
        return (os.cpu_count() or 1) > 1


def made_beside(produce: Callable[[], Iterable], limits: Limits = DEFAULT_LIMITS) -> Iterator:
    """The items ``produce()`` yields, made in a forked helper process while this one goes on with
    those it has: a PDF's pages are extracted there while the worker reads the pages before them
    (pypdf's extraction and the checker's reading each take a core, as a bare read takes one).

    The helper starts from this process, so it has the worker's limits (its own address space
    limit and recursion limit) and it dies with it (the parent's timeout kills the worker, and the
    kernel then the helper). What the helper fails with is raised here as NotInspectable, with the
    reason the worker would have given; a helper that ends without a word (killed, crashed) is a
    reason too. The helper's items must pickle."""
    from multiprocessing.connection import Pipe

    receive, send = Pipe(duplex=False)
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the helper: it never returns into the worker's code
        code = 0
        try:
            receive.close()
            _die_with(parent)
            try:
                for item in produce():
                    send.send(("item", item))
                send.send(("end", None))
            except Exception as e:
                send.send(("not", _reason(e, limits)))
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    send.close()
    ended = False
    try:
        while True:
            try:
                kind, payload = receive.recv()
            except (EOFError, OSError):
                break
            if kind == "item":
                yield payload
            elif kind == "end":
                ended = True
                return
            else:
                ended = True
                raise NotInspectable(payload)
    finally:
        receive.close()
        if not ended:
            try:
                os.kill(pid, signal.SIGKILL)  # the worker stopped reading (its own failure): stop the helper
            except ProcessLookupError:
                pass
        _, status = os.waitpid(pid, 0)
    raise NotInspectable(_end_reason(os.waitstatus_to_exitcode(status), limits, "reading"))


def _die_with(parent: int) -> None:
    """Have the kernel kill this process when its parent ends (Linux), so that a worker killed at its
    time limit leaves no helper running; elsewhere, a parent already gone ends it here."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(0)
