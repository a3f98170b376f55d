"""What no load-test file records, stated once per system by the user: a small TOML description
(``exportguard ingest --system FILE``) or command-line options. Whatever is stated by neither is
stored as "unknown", never guessed.

    measured_by = "ACME performance team"      # who ran the test
    system_name = "lab-h100-01"                 # the system's name (also its ID in the store)
    accelerator = "NVIDIA H100-SXM-80GB"
    accelerators_per_node = 8
    nodes = 1
    framework = "vLLM 0.6.3"                    # serving framework and its version
    server_settings = "tensor-parallel-size 8, max-num-seqs 256"
    host_processor = "2x Intel Xeon Platinum 8480+"
    model = "meta-llama/Llama-3.1-70B-Instruct" # only for files that name no model (SGLang)
    tool_version = "0.6.3"                      # only for files that record no tool version (vLLM)
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from ..errors import SourceError
from ..model import UNKNOWN

_TEXT = ("measured_by", "system_name", "accelerator", "framework", "server_settings", "host_processor", "model",
         "tool_version")
_COUNTS = ("accelerators_per_node", "nodes")
SYSTEM_LIMIT = 64 * 1024  # bytes: a system description is a few lines


@dataclass(frozen=True)
class SystemDescription:
    measured_by: str | None = None
    system_name: str | None = None
    accelerator: str | None = None
    accelerators_per_node: int | None = None
    nodes: int | None = None
    framework: str | None = None
    server_settings: str | None = None
    host_processor: str | None = None
    model: str | None = None
    tool_version: str | None = None
    source: str = ""  # the file it was read from, if any

    def stated(self, name: str) -> str:
        value = getattr(self, name)
        return UNKNOWN if value is None else value

    def merged(self, **options) -> "SystemDescription":
        """This description with the command line's options (those given) taking precedence."""
        given = {k: v for k, v in options.items() if v is not None}
        return replace(self, **given)

    @property
    def described(self) -> bool:
        """True when the user named the system: only then can two runs be repeats of each other."""
        return self.system_name is not None


NOT_DESCRIBED = SystemDescription()


def load_system(path: str | Path) -> SystemDescription:
    """Read a system description; an error names the file, the line and the key."""
    from .source import decode_utf8, read_regular

    path = Path(path)
    shown = str(path)
    text = decode_utf8(read_regular(path, SYSTEM_LIMIT, shown), shown)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SourceError("bad_system_description", f"not TOML: {e}", shown) from None

    def bad(key: str, message: str) -> SourceError:
        return SourceError("bad_system_description", message, f"{shown}, line {_line_of(text, key)}, key {key!r}")

    return SystemDescription(**system_values(data, bad), source=shown)


KNOWN = tuple(sorted(f.name for f in fields(SystemDescription) if f.name != "source"))


def system_values(data: Mapping[Any, Any], bad: Callable[[str, str], Exception]) -> dict[str, Any]:
    """The stated fields of a system description, checked key by key (texts stripped); the first bad
    one raises ``bad(key, message)``. The one check of the --system TOML and of the API's
    ``system=`` mapping, so that both say the same; only where it is differs (the file and line,
    or ``system=``). None is "not stated" (a mapping's way of leaving a field out)."""
    values = {}
    for key, value in data.items():
        if value is None and key in KNOWN:
            continue
        problem = _field_problem(key, value)
        if problem:
            raise bad(key, problem)
        values[key] = value.strip() if isinstance(value, str) else value
    return values


def _field_problem(key: Any, value: Any) -> str:
    """What is wrong with one stated field, in words; "" when nothing is."""
    if key not in KNOWN:
        return f"unknown key; known: {', '.join(KNOWN)}"
    if key in _COUNTS:
        least = 1 if key == "nodes" else 0
        # bool is an int to Python, and 8.5 accelerators would divide every per-accelerator figure
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            return f"{key} must be a whole number {least} or more, not {value!r}"
        return ""
    if not isinstance(value, str) or not value.strip():
        return f"{key} must be a non-empty text, not {value!r}"
    if "\x00" in value:  # the store refuses it in every text column
        return f"{key} must be a text without NUL characters, not {value!r}"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (from a mapping; TOML is decoded UTF-8)
        return f"{key} must be valid text, not {value!r} (it holds a lone surrogate)"
    return ""


def _line_of(text: str, key: str) -> str:
    for n, line in enumerate(text.splitlines(), 1):
        if line.split("=", 1)[0].strip().strip('"') == key:
            return str(n)
    return "?"
