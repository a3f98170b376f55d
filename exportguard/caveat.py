"""The caveat that travels with every artifact, in exportguard's own words: a full form for a
caveat page or sheet, and a one-line form for every page, slide or sheet that shows figures."""
from .wording import TIE_RULE

SHORT = ("MLPerf® figures hold only under their stated conditions (one model, a fixed generation shape, "
         "closed-loop or Poisson load, one tuned configuration): compare them inside one cohort, and "
         "load-test your own traffic before planning capacity or SLOs.")

FULL = (
    "What an MLPerf® Inference LLM figure tells you, and what it does not.",
    "Each figure was measured under fixed conditions that this document states beside it: a single model; "
    "a fixed generation shape (the benchmark's dataset, its input lengths, and a generation length that the "
    "accuracy rules pin to a narrow range); one traffic pattern, either every query issued at once and drained "
    "(Offline) or Poisson arrivals at one target rate under latency bounds (Server, Interactive); and one "
    "configuration that the submitter chose and tuned. Any serving technique the submitter used, such as "
    "speculative decoding, prefix caching or disaggregated prefill and decode, is named only in the "
    "framework description.",
    "These conditions are what make figures from different organisations comparable, and they are why "
    "MLPerf results are among the most trustworthy throughput numbers published: a fixed, audited protocol "
    "that every submitter runs the same way.",
    "They are also why a figure does not predict production. Real traffic mixes short and long generations, "
    "reuses context across turns, arrives in bursts, and may route between models; none of that is measured "
    "here. Use these figures to compare systems within one cohort (same round, division, benchmark, accuracy "
    "track, scenario and unit) and as a sanity floor for a configuration. Do not use them alone for SLO "
    "targets, capacity plans or cost per token: run a load test on your own traffic first, and if you must "
    "estimate before then, state the MLPerf shape next to the estimate.",
    "Even inside one cohort, submitters' generation lengths differ: the cohort's shape slack is the spread of "
    "tokens per sample among its results (10.8% for v5.1 llama2-70b-99 Offline), and every figure carries a ± "
    "band of half of it. " + TIE_RULE + " Where the slack cannot be estimated, figures are listed in order of "
    "value and not ranked.",
    "Figures from different benchmarks (for example llama2-70b with about 270-300 generated tokens per sample "
    "and llama3.1-8b capped at 128) are never compared: one token does not cost the same in both.",
)

TRADEMARK_LEGEND = (
    "The MLPerf name and logo are registered and unregistered trademarks of MLCommons Association in the "
    "United States and other countries. All rights reserved. Unauthorized use strictly prohibited. See "
    "www.mlcommons.org for more information."
)

UNVERIFIED_SENTENCE = "Result not verified by MLCommons Association."

