"""Which own cohort a new own run joins, decided once, at ingest, and stored with the run.

An own cohort is the runs of one model, measured with one tool (its family, whatever the version),
under one load (its kind and parameters) at one shape class. A shape class is named after the run
that founded it ("~545 in / 250 out tokens per request"); a later run of the same model, tool and
load joins the class whose founder's mean input and mean output tokens per request it is each
within model.OWN_SHAPE_TOLERANCE of (the nearest founder, if several), or founds a class of its own.
Anchoring at the founder keeps near neighbours from chaining into one class that spans any range;
storing the decision keeps a run's cohort from moving when later runs arrive.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Iterable

from ..model import OWN_SHAPE_TOLERANCE, Result
from ..wording import own_load_words, own_shape_class_words

_CLASS = re.compile(r"^~([0-9][0-9,]*(?:\.[0-9]+)?) in / ([0-9][0-9,]*(?:\.[0-9]+)?) out tokens per request$")


def class_means(shape_class: str) -> tuple[float, float] | None:
    """The founding run's (mean input, mean output) tokens per request, as the class name states them."""
    m = _CLASS.match(shape_class)
    return (float(m[1].replace(",", "")), float(m[2].replace(",", ""))) if m else None


def load_key(r: Result) -> str:
    run = r.conditions.run
    return own_load_words(r.conditions.benchmark.scenario, run.concurrency, r.conditions.load.target_qps,
                          run.burstiness)


def _within(value: float, founder: float) -> bool:
    return abs(value - founder) <= OWN_SHAPE_TOLERANCE * founder


def assign(items: Iterable, stored: Callable[[str, str, str], list[tuple[str, str]]]) -> list:
    """``items`` with each own Result given its shape class and cohort; ``stored(model, tool, kind)``
    lists the (cohort, shape class) pairs already in the store."""
    known: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    out = []
    for item in items:
        if not isinstance(item, Result) or not item.own:
            out.append(item)
            continue
        b, run = item.conditions.benchmark, item.conditions.run
        group = (b.model, run.tool, b.scenario)
        if group not in known:
            known[group] = list(stored(*group))
        prefix = f"{run.tool}; {load_key(item)}; "
        mean_in, mean_out = run.mean_input_tokens, item.conditions.shape.tokens_per_sample
        best = None
        for cohort, shape_class in known[group]:
            founder = class_means(shape_class)
            if not cohort.startswith(prefix) or founder is None:
                continue
            if _within(mean_in, founder[0]) and _within(mean_out, founder[1]):
                distance = abs(mean_in / founder[0] - 1) + abs(mean_out / founder[1] - 1)
                if best is None or distance < best[0]:
                    best = (distance, shape_class)
        shape_class = best[1] if best else own_shape_class_words(mean_in, mean_out)
        cohort = prefix + shape_class
        if not best:
            known[group].append((cohort, shape_class))
        out.append(replace(item, conditions=replace(item.conditions, run=replace(run, shape_class=shape_class,
                                                                                  cohort=cohort))))
    return out
