"""The ingest's one number parser (exportguard/ingest/numbers.py) and its strict JSON (strict_json.py).

Python's own float()/int() are the foil: each refused spelling below is one they accept or misread.
"""
from __future__ import annotations

import math

import pytest

from exportguard.errors import SourceError
from exportguard.ingest import strict_json
from exportguard.ingest.numbers import (
    COUNT,
    CSV,
    JSON,
    LOG,
    PYTHON,
    SUMMARY_TEXT,
    json_count,
    json_number,
    parse_count,
    parse_number,
)

ALL = {"LOG": LOG, "PYTHON": PYTHON, "JSON": JSON, "SUMMARY_TEXT": SUMMARY_TEXT, "CSV": CSV}


def refusal(call) -> SourceError:
    with pytest.raises(SourceError) as info:
        call()
    assert info.value.reason == "bad_number"
    return info.value


@pytest.mark.parametrize("text, value", [("27803.9", 27803.9), ("0", 0.0), ("92.", 92.0), (".5", 0.5),
                                         ("128", 128.0), ("007", 7.0)])
@pytest.mark.parametrize("syntax", ALL.values(), ids=ALL.keys())
def test_plain_ascii_decimals_are_read_in_every_format(syntax, text, value):
    assert parse_number(text, syntax, "f") == value


# Each of these is accepted (or misread) by float()/int() or by a "remove the commas" clean-up.
REFUSED_EVERYWHERE = [
    ("1,5", "separator"),  # "15" once the commas are dropped
    ("1.234,5", "decimal comma"),  # "1.2345" once the commas are dropped
    ("1 234", "separator"),
    ("1\u00a0234", "separator"),  # no-break space, as some locales group
    ("1\u202f234", "separator"),  # narrow no-break space (French)
    ("1'234", "separator"),  # Swiss
    ("1_234", "separator"),  # float() accepts this
    ("1.2.3", "second decimal point"),
    ("\u0663", "ASCII 0-9"),  # Arabic-Indic 3: float() gives 3.0, isdigit() is True
    ("\uff13", "ASCII 0-9"),  # full-width 3: int() gives 3
    ("\u0967\u0968", "ASCII 0-9"),  # Devanagari 12
    ("\U0001d7d9", "ASCII 0-9"),  # mathematical double-struck 1
    ("nan", "finite"),
    ("NaN", "finite"),
    ("-nan", "finite"),
    ("inf", "finite"),
    ("Infinity", "finite"),
    ("-infinity", "finite"),
    ("", "empty"),
    ("   ", "empty"),
    (" 5", "spaces"),
    ("5 ", "spaces"),
    ("0x10", "ASCII digits"),
    ("1e", "ASCII digits"),
    ("--5", "not a number"),
    ("9" * 65, "characters long"),
]


@pytest.mark.parametrize("text, why", REFUSED_EVERYWHERE, ids=[repr(t) for t, _ in REFUSED_EVERYWHERE])
@pytest.mark.parametrize("syntax", ALL.values(), ids=ALL.keys())
def test_spellings_python_accepts_are_refused_in_every_format(syntax, text, why):
    err = refusal(lambda: parse_number(text, syntax, "column value", "line 3"))
    assert why in err.message
    assert err.message.startswith("column value: ") and err.locator == "line 3"


@pytest.mark.parametrize("syntax", [LOG, PYTHON, JSON, SUMMARY_TEXT], ids=["LOG", "PYTHON", "JSON", "SUMMARY_TEXT"])
def test_formats_with_an_exponent_read_it_whole(syntax):
    assert parse_number("2.9e2", syntax, "f") == 290.0  # never 2.9, the prefix
    assert parse_number("1E-5", syntax, "f") == 1e-05
    err = refusal(lambda: parse_number("1e309", syntax, "f"))
    assert "too large to be a finite number" in err.message


def test_csv_writes_no_exponent():
    assert "exponent" in refusal(lambda: parse_number("2.9e2", CSV, "column value")).message


def test_signs_only_where_the_format_has_them():
    assert parse_number("-5", LOG, "f") == -5.0 and parse_number("+5", CSV, "f") == 5.0
    assert "no sign" in refusal(lambda: parse_number("-5", SUMMARY_TEXT, "f")).message


@pytest.mark.parametrize("text, value", [("0", 0), ("8", 8), ("2400000", 2400000), ("9" * 18, 10 ** 18 - 1)])
def test_counts_are_ascii_digits_only(text, value):
    assert parse_count(text, "nodes") == value


@pytest.mark.parametrize("text, why", [("8.0", "decimal point"), ("-1", "no sign"), ("+1", "no sign"),
                                       ("1e3", "no exponent"), ("9" * 19, "more than 18 digits"),
                                       ("\u0668", "ASCII 0-9"), ("1,024", "separator"), ("", "empty")])
def test_counts_refuse_everything_else(text, why):
    err = refusal(lambda: parse_count(text, "accelerators_per_node"))
    assert why in err.message and "accelerators_per_node" in err.message and "count" in err.message


def test_count_syntax_has_neither_sign_nor_fraction_nor_exponent():
    assert (COUNT.sign, COUNT.fraction, COUNT.exponent) == (False, False, False)


@pytest.mark.parametrize("value, expected", [(1, 1.0), (27803.9, 27803.9), ("27803.9", 27803.9), (" 8 ", 8.0)])
def test_json_numbers_and_numbers_in_json_strings(value, expected):
    assert json_number(value, "field Performance_Result") == expected


@pytest.mark.parametrize("value", [True, False, None, [], {}, math.nan, math.inf, -math.inf, 10 ** 400, "1,5",
                                   "\u0663", "NaN"])
def test_json_values_that_are_not_finite_numbers_are_refused(value):
    refusal(lambda: json_number(value, "field Performance_Result"))


@pytest.mark.parametrize("value, expected", [(8, 8), (8.0, 8), ("8", 8), (" 8 ", 8), (0, 0)])
def test_json_counts_take_ints_integral_floats_and_digit_strings(value, expected):
    assert json_count(value, "field a#") == expected


@pytest.mark.parametrize("value", [8.5, -1, True, None, "8.0", "\u0668", math.nan, math.inf, 10 ** 19])
def test_json_counts_refuse_everything_else(value):
    refusal(lambda: json_count(value, "field a#"))


# --------------------------------------------------------------------------- strict JSON


@pytest.mark.parametrize("text, path, words", [
    ('{"a": NaN}', "a", "NaN"),
    ('{"a": [1, Infinity]}', "a[1]", "Infinity"),
    ('{"a": {"b": -Infinity}}', "a.b", "-Infinity"),
    ('{"a": 1e309}', "a", "finite"),
    ('{"a": -1e309}', "a", "finite"),
    ('{"a": ' + "9" * 5000 + "}", "a", "5,000 characters"),
])
def test_strict_json_marks_what_the_standard_refuses_in_place(text, path, words):
    found = strict_json.refusal_in(strict_json.loads(text))
    assert found is not None
    where, refused = found
    assert where == path and words in refused.message


def test_strict_json_reads_standard_json_as_json_loads_does():
    text = '[{"ID": "5.1-0001", "Nodes": 1, "a#": 8.0, "Performance_Result": 27803.9, "x": [true, null, -2e3]}]'
    doc = strict_json.loads(text)
    assert doc == [{"ID": "5.1-0001", "Nodes": 1, "a#": 8.0, "Performance_Result": 27803.9, "x": [True, None, -2000.0]}]
    assert strict_json.refusal_in(doc) is None


@pytest.mark.parametrize("text, found", [
    ('{"a": 1, "a": 2}', [("a", ("1", "2"))]),
    ('[{"x": {"a": 1, "b": 2, "a": 3}}]', [("[0].x.a", ("1", "3"))]),
    ('{"a": 1, "a": true, "a": "1"}', [("a", ("1", "true", '"1"'))]),  # equal to Python, not to a JSON reader
    ('{"a": 1, "a": 1, "b": {"c": [1], "c": [1]}, "d": "", "d": ""}', []),  # the same value twice is no ambiguity
])
def test_strict_json_finds_keys_repeated_with_different_values_only(text, found):
    doc = strict_json.loads(text)
    assert [(r.path, r.values) for r in strict_json.repeats_in(doc)] == found
    assert strict_json.refusal_in(doc) is None  # a repeat is judged by the caller, by the field it is in


def test_strict_json_check_refuses_a_repeat_in_a_field_read_and_warns_of_one_in_another():
    doc = strict_json.loads('{"number_of_nodes": 1, "number_of_nodes": 2, "notes": "a", "notes": "b", '
                            '"status": "available", "status": "available"}')
    with pytest.raises(SourceError) as info:
        strict_json.check(doc, "the system description", "systems/x.json", read=("number_of_nodes", "status"))
    assert (info.value.reason, info.value.locator) == ("duplicate_key", "systems/x.json")
    assert info.value.message == ("the system description: key 'number_of_nodes' is given twice with different "
                                  "values (1, 2); exportguard reads this field and cannot tell which value the "
                                  "source means")
    assert strict_json.check(doc, "the system description", read=("status",)) == (
        "the system description: key 'number_of_nodes' is given twice with different values (1, 2), in a field "
        "exportguard does not read: a warning, not a reason to refuse the row",
        "the system description: key 'notes' is given twice with different values (\"a\", \"b\"), in a field "
        "exportguard does not read: a warning, not a reason to refuse the row")


def test_strict_json_check_names_the_document_and_the_key():
    with pytest.raises(SourceError) as info:
        strict_json.check(strict_json.loads('{"number_of_nodes": NaN}'), "the system description", "systems/x.json",
                          read=("number_of_nodes",))
    assert info.value.reason == "bad_number"
    assert info.value.message == "the system description, key number_of_nodes: NaN is not a number JSON allows"
    assert info.value.locator == "systems/x.json"


def test_deep_nesting_is_walked_without_recursion():
    text = "[" * 900 + "NaN" + "]" * 900
    where, refused = strict_json.refusal_in(strict_json.loads(text))
    assert where == "[0]" * 900 and refused.reason == "bad_number"


# -- the CSV reader's physical lines, streamed a chunk at a time ----------------------------------

@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 64])
def test_physical_lines_end_at_cr_lf_and_crlf_whatever_the_chunk_boundaries(chunk):
    import io

    from exportguard.ingest.csv_rows import _physical_lines

    data = b"h1,h2\r\na,b\rc,d\ne,f\r\n\r\ng,h"
    assert list(_physical_lines(io.BytesIO(data), chunk)) == [b"h1,h2", b"a,b", b"c,d", b"e,f", b"", b"g,h"]


def test_a_line_past_the_limit_is_cut_and_the_next_lines_keep_their_numbers(monkeypatch):
    import io

    from exportguard.ingest import csv_rows

    monkeypatch.setattr(csv_rows, "LINE_LIMIT", 10)
    data = b"short\r\n" + b"x" * 50 + b"\r\nnext\nlast"
    assert list(csv_rows._physical_lines(io.BytesIO(data), 4)) == [b"short", b"x" * 10, b"next", b"last"]
