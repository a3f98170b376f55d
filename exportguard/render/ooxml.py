"""What a deck and a Word file share as Office packages: the parts they carry their manifest in, as
bytes (render/pptx_xml.py and render/docx_adapter.py relate them, each through its library), and the
reading of a template the user chose.

- the manifest as a custom XML item ``<eg:manifest xmlns:eg=...>JSON</eg:manifest>``, and its
  properties part naming the namespace (embedding.py: PPTX_MANIFEST_NS);
- docProps/custom.xml with text properties (the manifest's digest and schema), added to the
  properties a template already has.
"""
from __future__ import annotations

import hashlib
import io
import uuid
import zipfile
from pathlib import Path
from typing import Iterable, Mapping

from lxml import etree

from ..embedding import PPTX_MANIFEST_NS as MANIFEST_NS
from ..errors import ExportguardError

DS = "http://schemas.openxmlformats.org/officeDocument/2006/customXml"
RT_CUSTOM_XML = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/customXml"
RT_CUSTOM_XML_PROPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/customXmlProps"
CT_CUSTOM_XML_PROPS = "application/vnd.openxmlformats-officedocument.customXmlProperties+xml"
CUSTOM_PROPS_NS = "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"
VT_NS = "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"
_PROPS_FMTID = "{D5CDD505-2E9C-101B-9397-08002B2CF9AE}"  # the format ID every user-defined property carries


def manifest_xml(pieces: Iterable[str], schema: str) -> bytes:
    """``<eg:manifest xmlns:eg=...>JSON</eg:manifest>``; the JSON pieces are ASCII-only."""
    head = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            f'<eg:manifest xmlns:eg="{MANIFEST_NS}" schema="{schema}">')
    body = "".join(pieces).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (head + body + "</eg:manifest>").encode("ascii")


def datastore_item(blob: bytes, namespace: str) -> bytes:
    """The properties part of a custom XML item: its ID (from its content, which holds the manifest's
    digest and clock, not from chance) and the schema it follows."""
    item_id = uuid.uuid5(uuid.NAMESPACE_URL, f"{namespace}#{hashlib.sha256(blob).hexdigest()}")
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
            f'<ds:datastoreItem ds:itemID="{{{str(item_id).upper()}}}" xmlns:ds="{DS}">'
            f'<ds:schemaRefs><ds:schemaRef ds:uri="{namespace}"/></ds:schemaRefs></ds:datastoreItem>').encode("utf-8")


def custom_properties(existing: bytes | None, values: Mapping[str, str]) -> bytes:
    """docProps/custom.xml: ``existing`` (a template's, or None) with ``values`` as text properties,
    replacing those of the same name."""
    if existing is None:
        root = etree.Element(f"{{{CUSTOM_PROPS_NS}}}Properties", nsmap={None: CUSTOM_PROPS_NS, "vt": VT_NS})
    else:
        root = safe_parse(existing, "custom properties")
    props = [p for p in root if p.tag == f"{{{CUSTOM_PROPS_NS}}}property"]
    for p in props:
        if p.get("name") in values:
            root.remove(p)
    pid = max([int(p.get("pid", "1")) for p in props if p.get("pid", "").isdigit()] + [1])
    for name, value in values.items():
        pid += 1
        prop = etree.SubElement(root, f"{{{CUSTOM_PROPS_NS}}}property", fmtid=_PROPS_FMTID, pid=str(pid), name=name)
        etree.SubElement(prop, f"{{{VT_NS}}}lpwstr").text = value
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def safe_parse(blob: bytes, what: str):
    """A template's part (a file the user chose, which the library has already parsed): no DTD, no
    entities, no network."""
    if b"<!DOCTYPE" in blob or b"<!ENTITY" in blob:
        raise ExportguardError(f"{what}: a document type declaration is not allowed here")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)
    try:
        return etree.fromstring(blob, parser)
    except etree.XMLSyntaxError as e:
        raise ExportguardError(f"{what}: not well-formed XML: {e}") from None


def template_bytes(path: str | Path, limit: int) -> bytes:
    """A template's bytes; a clear error naming the file when it cannot be read or is over ``limit``."""
    name = str(path)
    try:
        size = Path(path).stat().st_size
    except OSError as e:
        raise ExportguardError(f"{name}: cannot read the template: {e.strerror or e}") from None
    if size > limit:
        raise ExportguardError(f"{name}: the template is larger than {limit // 2**20} MB")
    return Path(path).read_bytes()


def as_document(data: bytes, template_type: str, document_type: str) -> bytes:
    """A template package (.potx, .dotx) as the document its library opens (.pptx, .docx): the main
    part's content type rewritten in memory (the file itself is not touched)."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        _within_bounds(z)
        try:
            types = z.read("[Content_Types].xml")
        except KeyError:
            raise ExportguardError("not an Office Open XML package: no [Content_Types].xml") from None
        if template_type.encode() not in types:
            return data
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in z.infolist():
                blob = z.read(info)
                if info.filename == "[Content_Types].xml":
                    blob = blob.replace(template_type.encode(), document_type.encode())
                dst.writestr(info, blob)
        return out.getvalue()


TEMPLATE_MAX_INFLATED = 1 << 30  # bytes a template's parts may inflate to, together
TEMPLATE_MAX_PARTS = 20_000
TEMPLATE_MAX_RATIO = 200  # inflated / stored, per part over a megabyte


def _within_bounds(z: zipfile.ZipFile) -> None:
    """A template is opened whole by its library (python-pptx, python-docx): a zip bomb is refused
    from its directory first (a part's declared size bounds what zipfile inflates: more is an error)."""
    infos = z.infolist()
    if len(infos) > TEMPLATE_MAX_PARTS:
        raise ExportguardError(f"the template has {len(infos):,} parts, more than {TEMPLATE_MAX_PARTS:,}")
    total = sum(i.file_size for i in infos)
    if total > TEMPLATE_MAX_INFLATED:
        raise ExportguardError(f"the template's parts inflate to {total >> 20:,} MB, more than "
                               f"{TEMPLATE_MAX_INFLATED >> 20:,} MB: not opened")
    for i in infos:
        if i.file_size > 1 << 20 and i.file_size > TEMPLATE_MAX_RATIO * max(i.compress_size, 1):
            raise ExportguardError(f"the template's part {i.filename} inflates {i.file_size // max(i.compress_size, 1):,} "
                                   f"times (a zip bomb?): not opened")
