"""Slack and band: computed from tokens per sample, and never a silent ±0%."""
from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exportguard.ingest import ingest_path
from exportguard.model import TPS_DERIVED, cohort_slack, estimate_slack, same_at_published_precision
from exportguard.wording import band_words, percent, slack_words
from tests.conftest import TREE_V51

pytestmark = pytest.mark.real_data


@pytest.fixture
def real_result(store):
    ingest_path(store, TREE_V51)
    return store.results(benchmark="llama2-70b-99", scenario="Offline")[0]


def _with_tps(result, tps, basis="accuracy log"):
    shape = replace(result.conditions.shape, tokens_per_sample=tps,
                    tokens_per_sample_basis="not reported" if tps is None else basis)
    return result.with_conditions(shape=shape)


def _derived(result, tps):
    return _with_tps(result, tps, TPS_DERIVED)


def test_slack_is_the_relative_spread_and_the_band_half_of_it(real_result):
    s = estimate_slack([_with_tps(real_result, t) for t in (272.6, 290.0, 302.0)])
    assert s.fraction == pytest.approx((302.0 - 272.6) / 272.6)
    assert (slack_words(s), band_words(s)) == ("10.8%", "±5.4%")


@pytest.mark.parametrize("tps, reason", [
    ([301.1], "1 result"),
    ([None, None], "tokens/sample measured for 0 of 2 results"),
    ([300.0, None, None, None], "tokens/sample measured for 1 of 4 results"),
    ([128.0, 129.0, None, None, None], "tokens/sample measured for 2 of 5 results"),
    ([301.1, 301.1], "equal tokens/sample"),
])
def test_slack_not_estimable_says_why_in_words(real_result, tps, reason):
    s = estimate_slack([_with_tps(real_result, t) for t in tps])
    assert not s.estimable and band_words(s) == f"slack not estimable: {reason}"


def test_derived_tokens_per_sample_never_enters_a_slack(real_result):
    measured = [_with_tps(real_result, t) for t in (271.0, 272.0, 290.0)]
    # One real v5.1-class system: 256.2 derived (tokens/s / samples/s) against 271.0 and 272.0 measured.
    s = estimate_slack(measured + [_derived(real_result, 256.2)])
    assert (s.tps_min, s.tps_max, s.with_tps, s.count) == (271.0, 290.0, 3, 4)
    assert s.fraction == pytest.approx((290.0 - 271.0) / 271.0)


def test_a_cohort_of_derived_tokens_per_sample_has_no_slack_and_says_so(real_result):
    s = estimate_slack([_derived(real_result, t) for t in (128.0, 128.5, 129.0)] + [_with_tps(real_result, 128.2)])
    assert not s.estimable and (s.tps_min, s.tps_max) == (128.2, 128.2)
    assert band_words(s) == "slack not estimable: tokens/sample measured for 1 of 4 results"


@given(st.floats(min_value=1e-9, max_value=10))
def test_a_positive_spread_never_prints_as_zero(fraction):
    assert percent(fraction) not in ("0.0%", "0%")


def test_published_precision_matches_log_and_summary_roundings():
    assert same_at_published_precision(128786.8, 128787.0)
    assert same_at_published_precision(450.84, 450.836)
    assert not same_at_published_precision(2019.04, 1942.15)
    assert not same_at_published_precision(101527.0, 101253.0)


def _verified(result, tps):
    identity = replace(result.conditions.identity, verified="verified", result_id="5.1-0001", result_id_state="official")
    return _with_tps(result, tps).with_conditions(identity=identity)


def _unverified(result, tps):
    identity = replace(result.conditions.identity, verified="unverified", result_id="", result_id_state="pending")
    return _with_tps(result, tps).with_conditions(identity=identity)


def test_unverified_rows_never_widen_a_verified_band(real_result):
    verified = [_verified(real_result, t) for t in (272.6, 290.0, 302.0)]
    s = cohort_slack(verified + [_unverified(real_result, 900.0), _unverified(real_result, 10.0)])
    assert (s.tps_min, s.tps_max, s.count, s.unverified_only) == (272.6, 302.0, 3, False)
    assert band_words(s) == "±5.4%"


def test_a_cohort_without_verified_results_says_its_band_is_from_unverified_rows(real_result):
    s = cohort_slack([_unverified(real_result, t) for t in (272.6, 302.0)])
    assert s.unverified_only and band_words(s) == "±5.4%"


def test_whole_numbers_round_half_away_from_zero_as_their_decimal_text_does():
    """number()'s shortcut for figures of 100 and more agrees with the rounding of repr(value) as a
    Decimal, digit for digit, at every half, next to every half, and up to where floats skip halves."""
    import random
    from decimal import ROUND_HALF_UP, Decimal, localcontext

    from exportguard.wording import number

    def by_decimal(v: float) -> str:
        with localcontext(prec=400):
            return f"{Decimal(repr(v)).quantize(Decimal(1), ROUND_HALF_UP):,}"

    rng = random.Random(21)
    values = [100.0, 100.5, 101527.4, 33762.5, 2.0 ** 51 - 0.5, 2.0 ** 51 - 1.5, 2.0 ** 51, 2.0 ** 52 + 1, 1e300]
    for _ in range(20_000):
        half = rng.randrange(100, 2 ** 51) + 0.5
        values += [half, math.nextafter(half, 0), math.nextafter(half, math.inf), rng.uniform(100, 1e12)]
    for v in values:
        assert number(v) == by_decimal(v), v
