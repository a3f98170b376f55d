"""What exportguard reads out of MLCommons submission files, pinned on the real v5.1 files
(mlcommons/inference_results_v5.1, copied under shared/mlperf) and on hostile text."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from exportguard.errors import SourceError
from exportguard.ingest.mlperf_logs import (
    derived_tokens_per_sample,
    parse_accuracy,
    parse_performance_summary,
    parse_system_description,
)
from tests.conftest import MLPERF
from tests.real_data import require_real_data

CLOSED = MLPERF / "submissions" / "v5.1" / "closed"
# Under CI a missing tree fails this module; elsewhere only the tests that need it are skipped.
real_data = pytest.mark.skipif(not require_real_data(CLOSED, skip_module=False),
                               reason=f"real MLPerf v5.1 submission tree not found at {CLOSED} (set EXPORTGUARD_SHARED)")


def read(path: Path) -> str:
    # As the ingest will: bytes decoded leniently, CRLF and progress-bar CRs left in place.
    return path.read_bytes().decode("utf-8", errors="replace")


def real_files(pattern: str) -> list:
    found = sorted(CLOSED.glob(pattern)) if CLOSED.is_dir() else []
    return [pytest.param(p, id=str(p.relative_to(CLOSED))) for p in found]


def result_dir(submitter: str, system: str, benchmark: str, scenario: str) -> Path:
    return CLOSED / submitter / "results" / system / benchmark / scenario


def summary(submitter: str, system: str, benchmark: str, scenario: str):
    path = result_dir(submitter, system, benchmark, scenario) / "performance/run_1/mlperf_log_summary.txt"
    return parse_performance_summary(read(path))


def accuracy(submitter: str, system: str, benchmark: str, scenario: str):
    return parse_accuracy(read(result_dir(submitter, system, benchmark, scenario) / "accuracy/accuracy.txt"))


def system(submitter: str, system_id: str):
    return parse_system_description(read(CLOSED / submitter / "systems" / f"{system_id}.json"))


def reason_of(parse, text: str) -> str:
    with pytest.raises(SourceError) as info:
        parse(text)
    return info.value.reason


# Shape of a real Offline summary (AMD 8xMI300X_2xEPYC_9575F llama2-70b-99, v5.1), trimmed.
OFFLINE_LOG = """\
================================================
MLPerf Results Summary
================================================
SUT name : PySUT
Scenario : Offline
Mode     : PerformanceOnly
Samples per second: 92.1544
Tokens per second: 27803.9
Result is : VALID
  Min duration satisfied : Yes

================================================
Test Parameters Used
================================================
samples_per_query : 245520
target_qps : 93
ttft_latency (ns): 2000000000
tpot_latency (ns): 200000000
min_duration (ms): 2400000
min_query_count : 1
performance_sample_count : 24576
"""

ACCURACY_70B = """\

Results

{'rouge1': 44.4465, 'rouge2': 22.0638, 'rougeL': 28.625, 'gen_num': 24576, 'gen_tok_len': 7399575, 'tokens_per_sample': 301.1}

hash=67fdbd042a4bcb16775c8f216fca75deb2eaf5ae8c19344f328c650faaa830b5
"""


# --------------------------------------------------------------------------- real performance logs

@real_data
@pytest.mark.parametrize("path", real_files("*/results/*/*/*/performance/run_1/mlperf_log_summary.txt"))
def test_every_real_summary_is_valid_with_positive_tokens_per_second(path):
    perf = parse_performance_summary(read(path))
    assert perf.valid is True
    assert perf.tokens_per_s > 0
    assert perf.samples_per_s > 0
    assert perf.scenario_in_log in ("Offline", "Server")


@real_data
def test_amd_offline_reports_tokens_and_samples_per_second():
    perf = summary("AMD", "8xMI300X_2xEPYC_9575F", "llama2-70b-99", "Offline")
    assert perf.scenario_in_log == "Offline"
    assert perf.tokens_per_s == 27803.9
    assert perf.samples_per_s == 92.1544
    assert perf.scheduled_samples_per_s is None  # Server-only line
    assert perf.p99_ttft_ns is None
    # Offline still prints the latency bounds, though they do not apply.
    assert (perf.ttft_bound_ns, perf.tpot_bound_ns) == (2_000_000_000, 200_000_000)


@real_data
def test_nvidia_b200_server_reports_completed_tokens_and_latencies():
    perf = summary("NVIDIA", "B200-SXM-180GBx8_TRT", "llama2-70b-99", "Server")
    assert perf.scenario_in_log == "Server"
    assert perf.tokens_per_s == 99123.04
    assert perf.samples_per_s == 361.30
    assert perf.scheduled_samples_per_s == 363.79
    assert perf.target_qps == 364
    assert perf.ttft_bound_ns == 2_000_000_000
    assert perf.tpot_bound_ns == 200_000_000
    assert perf.p99_ttft_ns == 436_315_697
    assert perf.p99_tpot_ns == 132_366_416
    assert perf.min_duration_ms == 2_400_000
    assert perf.min_query_count == 100
    assert perf.samples_per_query == 1
    assert perf.performance_sample_count == 24576


@real_data
def test_interactive_log_says_server_and_only_the_bounds_tell_it_apart():
    interactive = summary("NVIDIA", "B200-SXM-180GBx8_TRT", "llama2-70b-99", "Interactive")
    server = summary("NVIDIA", "B200-SXM-180GBx8_TRT", "llama2-70b-99", "Server")
    assert interactive.scenario_in_log == server.scenario_in_log == "Server"
    assert interactive.ttft_bound_ns == 450_000_000
    assert interactive.tpot_bound_ns == 40_000_000
    assert interactive.tokens_per_s == 59545.45
    assert interactive.p99_ttft_ns == 140_376_101
    assert interactive.min_duration_ms == 1_200_000


# --------------------------------------------------------------------------- real accuracy files

@real_data
@pytest.mark.parametrize("path", real_files("*/results/*/*/*/accuracy/accuracy.txt"))
def test_every_real_accuracy_file_parses(path):
    result = parse_accuracy(read(path))
    assert result.gen_num in (24576, 13368, 8313)  # the three datasets' sample counts
    if path.parts[-4] in ("llama3.1-8b", "llama3_1-8b"):
        assert result.tokens_per_sample is None
    else:  # llama2-70b and llama3.1-405b
        assert result.tokens_per_sample > 0


@real_data
def test_llama2_70b_accuracy_has_tokens_per_sample():
    result = accuracy("AMD", "8xMI300X_2xEPYC_9575F", "llama2-70b-99", "Offline")
    assert result.tokens_per_sample == 301.1
    assert result.gen_num == 24576
    assert result.gen_tok_len == 7399575
    assert result.metrics["rouge1"] == 44.4465


@real_data
@pytest.mark.parametrize("where", [
    ("Intel", "1-node-2S-GNR_128C", "llama3_1-8b", "Offline"),  # after nltk and progress-bar noise
    ("RedHat", "XE8640_4xH100_vLLM", "llama3.1-8b", "Server"),
    ("Dell", "XE9680L_B200_SXM_180GBx8_TRT", "llama3.1-8b", "Interactive"),
], ids=lambda w: "/".join(w))
def test_llama3_8b_accuracy_has_quoted_rouge_and_no_tokens_per_sample(where):
    result = accuracy(*where)
    assert result.tokens_per_sample is None
    assert result.gen_tok_len is None
    assert result.gen_num == 13368
    assert isinstance(result.metrics["rouge1"], float)
    assert 38 < result.metrics["rouge1"] < 39


@real_data
def test_quoted_rouge_value_is_read_as_its_number():
    assert accuracy("Dell", "XE9680L_B200_SXM_180GBx8_TRT", "llama3.1-8b", "Interactive").metrics == {
        "rouge1": 38.4887, "rouge2": 15.9093, "rougeL": 24.3217, "rougeLsum": 35.6339,
        "gen_len": 8152019.0, "gen_num": 13368.0,
    }


@real_data
@pytest.mark.parametrize("path", real_files("*/results/*/llama3*8b/Offline/performance/run_1/mlperf_log_summary.txt"))
def test_llama3_8b_offline_derived_tokens_per_sample_is_near_max_tokens(path):
    derived = derived_tokens_per_sample(parse_performance_summary(read(path)))
    assert 120 < derived < 135  # max_tokens is 128


# --------------------------------------------------------------------------- real system descriptions

@real_data
@pytest.mark.parametrize("path", real_files("*/systems/*.json"))
def test_every_real_system_description_parses(path):
    text = read(path)
    desc = parse_system_description(text)
    assert desc.division == "closed"
    assert desc.status == "available"
    assert desc.submitter == path.parts[-3]
    assert desc.number_of_nodes >= 1
    assert desc.accelerators_per_node >= 0
    assert desc.raw_text == text


@real_data
def test_cpu_only_intel_system_gives_zero_accelerators_from_the_string_zero():
    desc = system("Intel", "1-node-2S-GNR_128C")
    assert desc.accelerators_per_node == 0
    assert desc.number_of_nodes == 1
    assert desc.accelerator_model_name == "N/A"  # kept; the caller decides what it means
    assert json.loads(desc.raw_text)["accelerators_per_node"] == "0"


@real_data
def test_nvidia_b200_system_has_eight_accelerators_on_one_node():
    desc = system("NVIDIA", "B200-SXM-180GBx8_TRT")
    assert (desc.number_of_nodes, desc.accelerators_per_node) == (1, 8)
    assert desc.accelerator_model_name == "NVIDIA B200-SXM-180GB"
    assert desc.system_type == "datacenter"


@real_data
def test_system_json_can_disagree_with_its_directory_name():
    # The id says 4xH100; the JSON (which we trust) says one accelerator.
    assert system("RedHat", "XE8640_4xH100_vLLM").accelerators_per_node == 1


# --------------------------------------------------------------------------- broken performance logs

def test_invalid_result_is_returned_not_raised():
    perf = parse_performance_summary(OFFLINE_LOG.replace("Result is : VALID", "Result is : INVALID"))
    assert perf.valid is False
    assert perf.tokens_per_s == 27803.9


@pytest.mark.parametrize("line", ["Result is: VALID", "Result is :VALID", "  Result is   :   VALID  "])
def test_result_status_spacing_varies(line):
    assert parse_performance_summary(OFFLINE_LOG.replace("Result is : VALID", line)).valid is True


def test_offline_tokens_key_is_not_confused_with_completed_tokens():
    log = OFFLINE_LOG.replace("Tokens per second: 27803.9", "Completed tokens per second : 5.0")
    assert parse_performance_summary(log).tokens_per_s == 5.0
    assert parse_performance_summary(OFFLINE_LOG.replace(
        "Tokens per second: 27803.9", "Scheduled tokens per second: 1.0")).tokens_per_s is None


def test_missing_result_line_is_refused():
    assert reason_of(parse_performance_summary,
                     OFFLINE_LOG.replace("Result is : VALID\n", "")) == "missing_result_status"


def test_non_numeric_tokens_per_second_names_field_and_text():
    with pytest.raises(SourceError) as info:
        parse_performance_summary(OFFLINE_LOG.replace("27803.9", "abc"))
    assert info.value.reason == "bad_number"
    assert "Tokens per second" in info.value.message and "'abc'" in info.value.message
    assert info.value.locator == "line 8"


@pytest.mark.parametrize("value", ["nan", "inf", "1e999", "1_000", "0x10", "27803.9.1"])
def test_tokens_per_second_must_be_a_plain_finite_number(value):
    assert reason_of(parse_performance_summary,
                     OFFLINE_LOG.replace("27803.9", value)) == "bad_number"


@pytest.mark.parametrize("value", ["-27803.9", "0"])
def test_non_positive_tokens_per_second_is_refused(value):
    assert reason_of(parse_performance_summary,
                     OFFLINE_LOG.replace("27803.9", value)) == "negative_value"


def test_negative_latency_is_refused_but_zero_target_qps_is_not():
    server = OFFLINE_LOG + "99.00 percentile first token latency (ns)   : -5\n"
    assert reason_of(parse_performance_summary, server) == "negative_value"
    assert parse_performance_summary(OFFLINE_LOG.replace("target_qps : 93", "target_qps : 0")).target_qps == 0


def test_log_without_any_throughput_is_refused():
    log = OFFLINE_LOG.replace("Samples per second: 92.1544\n", "").replace("Tokens per second: 27803.9\n", "")
    assert reason_of(parse_performance_summary, log) == "missing_throughput"


def test_empty_text_is_not_a_performance_summary():
    assert reason_of(parse_performance_summary, "") == "not_a_performance_summary"


def test_binary_garbage_is_refused():
    garbage = random.Random(0).randbytes(1 << 20).decode("utf-8", errors="replace")
    assert reason_of(parse_performance_summary, garbage) == "not_a_performance_summary"
    # A MiB of random bytes holds some short line that starts with { and ends with }:
    # it is tokenized and refused, never trusted.
    assert reason_of(parse_accuracy, garbage) == "accuracy_not_a_dict_literal"
    assert reason_of(parse_system_description, garbage) == "invalid_json"


def test_twenty_megabyte_line_is_skipped():
    assert reason_of(parse_performance_summary, "Tokens per second: " + "9" * 20_000_000) \
        == "not_a_performance_summary"
    # Even inside a real log the monster line is ignored, not parsed.
    assert parse_performance_summary(OFFLINE_LOG + "target_qps : " + "1" * 20_000_000).target_qps == 93


# --------------------------------------------------------------------------- broken accuracy files

def test_code_in_accuracy_dict_is_refused_and_named():
    text = "{'tokens_per_sample': __import__('os').system('echo pwned')}\nhash=00\n"
    with pytest.raises(SourceError) as info:
        parse_accuracy(text)
    assert info.value.reason == "accuracy_not_a_dict_literal"
    assert "__import__" in info.value.message


@pytest.mark.parametrize("line, offender", [
    ("{'rouge1': {'inner': 1}}", "'{'"),
    ("{'rouge1': [1, 2]}", "'['"),
    ("{'rouge1': lambda: 1}", "'lambda'"),
    ("{'rouge1': True}", "'True'"),
    ("{'rouge1': 'high'}", "'high'"),
    ("{rouge1: 1}", "'rouge1'"),
    ("{'rouge1' 1}", "'1'"),
    ("{'a': 1 'b': 2}", "'b'"),
], ids=["nested-dict", "list", "lambda", "name", "non-numeric-string", "bare-key", "no-colon", "no-comma"])
def test_anything_but_quoted_keys_and_numbers_is_refused(line, offender):
    with pytest.raises(SourceError) as info:
        parse_accuracy(f"Results\n\n{line}\n")
    assert info.value.reason == "accuracy_not_a_dict_literal"
    assert offender in info.value.message


def test_accuracy_without_dict_line_is_refused():
    assert reason_of(parse_accuracy, "Results\n\nhash=abc\n") == "accuracy_dict_missing"
    assert reason_of(parse_accuracy, "") == "accuracy_dict_missing"


def test_last_dict_line_wins_and_noise_is_ignored():
    text = "[nltk_data] {x}\n{'rouge1': 1}\r\nDownloading: 0.00B\r6.27kB\n" + ACCURACY_70B.replace("\n", "\r\n")
    result = parse_accuracy(text)
    assert result.tokens_per_sample == 301.1
    assert "rouge1" in result.metrics and result.metrics["rouge1"] == 44.4465


def test_ten_megabyte_accuracy_line_is_refused():
    line = "{" + "'rouge1': 1.0, " * 700_000 + "}"
    assert len(line) > 10_000_000
    assert reason_of(parse_accuracy, line) == "accuracy_line_too_long"


def test_a_million_open_braces_is_no_dict():
    assert reason_of(parse_accuracy, "{" * 1_000_000) == "accuracy_dict_missing"
    assert reason_of(parse_accuracy, "{" * 60_000 + "}") == "accuracy_not_a_dict_literal"


@pytest.mark.parametrize("value, reason", [
    ("1e999", "bad_number"),
    ("'1e999'", "bad_number"),
    # Not a number in the literal's grammar at all: the dict is refused, naming the value.
    ("'nan'", "accuracy_not_a_dict_literal"),
    ("\u0663\u0660\u0661", "accuracy_not_a_dict_literal"),  # Arabic-Indic 301: float() would take it
    ("'\uff13\uff10\uff11'", "accuracy_not_a_dict_literal"),  # full-width 301
    ("'301,1'", "accuracy_not_a_dict_literal"),
    ("301,1", "accuracy_not_a_dict_literal"),
])
def test_tokens_per_sample_must_be_a_finite_ascii_number(value, reason):
    assert reason_of(parse_accuracy, f"{{'tokens_per_sample': {value}}}") == reason


def test_tokens_per_sample_out_of_range_is_read_as_written_and_judged_by_the_ingest():
    # Plausibility against the benchmark's cap is one check in the ingest (build.py), not the parser's.
    assert parse_accuracy("{'tokens_per_sample': -3.5}").tokens_per_sample == -3.5


def test_numbers_in_accuracy_dict_accept_python_spellings():
    result = parse_accuracy("""{'a': 1, "b": -2.5e3, 'c': "7", 'd': .5, 'gen_num': 24576,}""")
    assert dict(result.metrics) == {"a": 1.0, "b": -2500.0, "c": 7.0, "d": 0.5, "gen_num": 24576.0}
    assert result.gen_num == 24576


def test_duplicate_accuracy_key_is_refused():
    assert reason_of(parse_accuracy, "{'tokens_per_sample': 1, 'tokens_per_sample': 2}") \
        == "accuracy_duplicate_key"


def test_accuracy_metrics_cannot_be_modified():
    with pytest.raises(TypeError):
        parse_accuracy(ACCURACY_70B).metrics["tokens_per_sample"] = 1.0  # type: ignore[index]


# --------------------------------------------------------------------------- broken system descriptions

SYSTEM_JSON = '{"division": " closed ", "status": "Available", "number_of_nodes": "1", "accelerators_per_node": " 8 "}'


def test_system_strings_are_stripped_and_status_lower_cased():
    desc = parse_system_description(SYSTEM_JSON)
    assert (desc.division, desc.status) == ("closed", "available")
    assert (desc.number_of_nodes, desc.accelerators_per_node) == (1, 8)
    assert desc.framework is None  # absent fields are None, not ""


def test_truncated_system_json_reports_line_and_column():
    with pytest.raises(SourceError) as info:
        parse_system_description('{\n  "division": "closed",\n  "submitter": "NV')
    assert info.value.reason == "invalid_json"
    assert "line 3 column" in info.value.message


def test_system_json_that_is_a_list_is_refused():
    assert reason_of(parse_system_description, '[{"division": "closed"}]') == "not_a_system_description"


@pytest.mark.parametrize("value", ['"eight"', "-1", "2.5", '"-1"', "true", '"\u0668"'])
def test_accelerator_count_must_be_a_whole_number(value):
    with pytest.raises(SourceError) as info:
        parse_system_description(f'{{"accelerators_per_node": {value}}}')
    assert info.value.reason == "bad_number"
    assert "accelerators_per_node" in info.value.message


@pytest.mark.parametrize("value", ['"N/A"', '""', "null"])
def test_missing_accelerator_count_is_none(value):
    assert parse_system_description(f'{{"accelerators_per_node": {value}}}').accelerators_per_node is None


def test_system_string_field_that_is_not_a_string_is_refused():
    assert reason_of(parse_system_description, '{"framework": ["TensorRT"]}') == "non_string_field"


def test_oversized_or_deeply_nested_system_json_is_refused():
    assert reason_of(parse_system_description, " " * (1024 * 1024 + 1)) == "file_too_large"
    assert reason_of(parse_system_description, "[" * 200_000) == "invalid_json"
    assert reason_of(parse_system_description, '{"number_of_nodes": ' + "9" * 5000 + "}") == "bad_number"


# Fuzz tests of these parsers are in test_fuzz_parsers.py.
