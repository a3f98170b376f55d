"""A spreadsheet cell as displayed: a number rendered through its number format.

The checker reads what a person sees, and in a workbook a number's format may carry text:
``#,##0" tok/s ±5.4% [a]"`` shows 101527.4 as ``101,527 tok/s ±5.4% [a]``. This renders the parts
of Excel's format language that decide what text a cell shows: sections (positive; negative;
zero; text), quoted and backslash-escaped literals, digit placeholders (0 # ?), thousands
separators and scaling commas, percent, scientific notation, ``[$sym-locale]`` currency blocks,
colours and conditions (ignored), padding (``_x``) and fill (``*x``) characters. Dates and times
are shown in ISO form (the checker only needs to know they are not figures). Rounding is half away
from zero, as spreadsheets round and as exportguard's own wording does.
"""
from __future__ import annotations

import datetime as dt
import functools
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from ..embedding import CUSTOM_FORMAT_BUDGET  # noqa: F401  (the writer and this reader share it)
FIRST_CUSTOM_ID = 164  # ids below are Excel's built-in formats (a numFmt there only restates one)

BUILTIN = {
    0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00", 5: '"$"#,##0_);("$"#,##0)',
    6: '"$"#,##0_);[Red]("$"#,##0)', 7: '"$"#,##0.00_);("$"#,##0.00)', 8: '"$"#,##0.00_);[Red]("$"#,##0.00)',
    9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??", 14: "mm-dd-yy", 15: "d-mmm-yy",
    16: "d-mmm", 17: "mmm-yy", 18: "h:mm AM/PM", 19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss",
    22: "m/d/yy h:mm", 37: "#,##0 ;(#,##0)", 38: "#,##0 ;[Red](#,##0)", 39: "#,##0.00;(#,##0.00)",
    40: "#,##0.00;[Red](#,##0.00)", 45: "mm:ss", 46: "[h]:mm:ss", 47: "mmss.0", 48: "##0.0E+0", 49: "@",
}
_DATE_IDS = set(range(14, 23)) | set(range(27, 37)) | set(range(45, 48)) | set(range(50, 82))


def builtin(num_fmt_id: int) -> str:
    if num_fmt_id in BUILTIN:
        return BUILTIN[num_fmt_id]
    return "yyyy-mm-dd" if num_fmt_id in _DATE_IDS else "General"


def general(value: float) -> str:
    """Excel's General format: integers as they are, others to about 10 significant digits."""
    if value != value or value in (float("inf"), float("-inf")):
        return "#NUM!"
    if value == int(value) and abs(value) < 1e11:
        return str(int(value))
    text = f"{value:.10g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        return f"{mantissa}E{'+' if int(exp) >= 0 else '-'}{abs(int(exp)):02d}"
    return text


@functools.lru_cache(maxsize=4096)
def _compile(code: str) -> tuple:
    return tuple(_parse_section(s) for s in _split_sections(code))


_SIMPLE = re.compile(r'([#0,.]+)"([^"]*)"')  # '#,##0" tok/s ±5.4% [a]"': digits, then one literal


def format_number(value: float, code: str, date1904: bool = False) -> str:
    """The text a cell holding ``value`` shows under the number format ``code``."""
    if not code or code == "General" or code.lower() == "general":
        return general(value)
    simple = _SIMPLE.fullmatch(code)
    if simple and value >= 0:
        return _digits(value, simple.group(1)) + simple.group(2)
    try:
        sections = _compile(code)
    except Exception:
        return general(value)
    sign = ""
    if value < 0 and len(sections) >= 2:
        section, value = sections[1], -value
    elif value == 0 and len(sections) >= 3:
        section = sections[2]
    else:
        section = sections[0]
        if value < 0:
            sign, value = "-", -value
    kind, parts = section
    if kind == "date":
        return _date(value, date1904)
    if kind in ("general", "text"):  # a text-only section applied to a number shows it as General
        return sign + general(value)
    return sign + _render_number(value, parts)


def _split_sections(code: str) -> list[str]:
    sections, buf, i, quoted = [], [], 0, False
    while i < len(code):
        ch = code[i]
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "\\" and i + 1 < len(code):
            buf.append(code[i:i + 2])
            i += 2
            continue
        elif not quoted and ch == ";":
            sections.append("".join(buf))
            buf = []
            i += 1
            continue
        buf.append(ch)
        i += 1
    sections.append("".join(buf))
    return sections[:4]


_BRACKET = re.compile(r"\[([^\]]*)\]")
_DATE_TOKENS = re.compile(r"[ymdhsYMDHS]|AM/PM|A/P", re.IGNORECASE)


def _parse_section(section: str) -> tuple[str, list]:
    """('number', tokens) | ('date', None) | ('general', None) | ('text', None); tokens are
    ('lit', text) and ('num', pattern) with the digit pattern gathered in one place."""
    tokens: list[tuple[str, str]] = []
    i, n = 0, len(section)
    pattern: list[str] = []
    plain: list[str] = []  # unquoted letters, to tell a date format
    while i < n:
        ch = section[i]
        if ch == '"':
            j = section.find('"', i + 1)
            j = n if j < 0 else j
            tokens.append(("lit", section[i + 1:j]))
            i = j + 1
        elif ch == "\\" and i + 1 < n:
            tokens.append(("lit", section[i + 1]))
            i += 2
        elif ch == "_" and i + 1 < n:
            tokens.append(("lit", " "))
            i += 2
        elif ch == "*" and i + 1 < n:
            i += 2
        elif ch == "[":
            m = _BRACKET.match(section, i)
            if not m:
                tokens.append(("lit", ch))
                i += 1
                continue
            inner = m.group(1)
            if inner.startswith("$"):
                tokens.append(("lit", inner[1:].split("-")[0]))
            elif re.fullmatch(r"[hHmMsS]+", inner):
                plain.append("h")
            i = m.end()
        elif ch in "0#?.,%" or (ch in "Ee" and i + 1 < n and section[i + 1] in "+-" and pattern):
            if ch in "Ee":
                pattern.append(section[i:i + 2])
                i += 2
                continue
            if not pattern or tokens[-1:] != [("num", "")]:
                tokens.append(("num", ""))
            pattern.append(ch)
            i += 1
            # a literal between digit placeholders ends this group only if no placeholder follows
        elif ch == "@":
            tokens.append(("lit", ""))
            plain.append("@")
            i += 1
        else:
            if ch.isalpha():
                plain.append(ch)
            tokens.append(("lit", ch))
            i += 1
    letters = "".join(plain)
    if section.strip().lower() == "general" or letters.lower() == "general":
        return "general", []
    if _DATE_TOKENS.search(letters):
        return "date", []
    if "@" in letters and not pattern:
        return "text", []
    if not pattern:
        return "number", [("lit", "".join(t for k, t in tokens if k == "lit"))]
    out: list[tuple[str, str]] = []
    placed = False
    for kind, text in tokens:
        if kind == "num":
            if not placed:
                out.append(("num", "".join(pattern)))
                placed = True
        else:
            out.append(("lit", text))
    return "number", out


def _render_number(value: float, parts: list) -> str:
    out = []
    for kind, text in parts:
        out.append(text if kind == "lit" else _digits(value, text))
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def _digit_spec(pattern: str) -> tuple:
    percent = pattern.count("%")
    body = pattern.replace("%", "")
    exp = None
    m = re.search(r"[Ee][+-]", body)
    if m:
        exp = body[m.start():]
        body = body[:m.start()]
    scale = 0
    while body.endswith(","):  # commas after the last digit placeholder scale by a thousand each
        scale += 1
        body = body[:-1]
    int_part, _, frac_part = body.partition(".")
    frac_part = frac_part.replace(",", "")
    thousands = "," in int_part
    int_part = int_part.replace(",", "")
    min_int = int_part.count("0")
    frac_zero = frac_part.count("0")
    frac_all = sum(frac_part.count(c) for c in "0#?")
    exp_digits = exp.count("0") if exp else 0
    return percent, scale, thousands, min_int, frac_zero, frac_all, exp, exp_digits, "." in body


def _digits(value: float, pattern: str) -> str:
    percent, scale, thousands, min_int, frac_zero, frac_all, exp, exp_digits, has_point = _digit_spec(pattern)
    try:
        d = Decimal(repr(float(value)))
    except InvalidOperation:
        return general(value)
    d = d * (Decimal(100) ** percent) / (Decimal(1000) ** scale)
    sign = "-" if d < 0 else ""
    d = abs(d)
    exponent = ""
    if exp is not None:
        e = 0
        if d != 0:
            e = d.adjusted()
            d = d.scaleb(-e)
        exponent = "E" + ("-" if e < 0 else ("+" if "+" in exp else "")) + str(abs(e)).zfill(max(exp_digits, 1))
    q = d.quantize(Decimal(1).scaleb(-frac_all), ROUND_HALF_UP)
    text = f"{q:f}"
    int_digits, _, frac_digits = text.partition(".")
    if frac_all > frac_zero:
        frac_digits = frac_digits.rstrip("0").ljust(frac_zero, "0")
    int_digits = int_digits.lstrip("0")
    int_digits = int_digits.rjust(min_int, "0") if min_int else int_digits
    if thousands and int_digits:
        int_digits = f"{int(int_digits):,}"
    out = int_digits
    if has_point and frac_all:
        out += "." + frac_digits if frac_digits or frac_zero else "."
    elif has_point:
        out += "."
    return sign + out + exponent + "%" * percent


def _date(value: float, date1904: bool) -> str:
    try:
        base = dt.datetime(1904, 1, 1) if date1904 else dt.datetime(1899, 12, 30)
        moment = base + dt.timedelta(days=float(value))
    except (OverflowError, ValueError):
        return general(value)
    if moment.time() == dt.time(0):
        return moment.date().isoformat()
    return moment.isoformat(sep=" ", timespec="seconds")
