"""How people write a throughput figure: the words, number forms and labels that the one figure
detector (detect.py) is built from. Data only, so that a unit word, a locale's number form or a
tool's label is added here, in one line, and not into the detector's code.

Every entry is a regular-expression fragment matched case-insensitively unless it says otherwise.
"""
from __future__ import annotations

import re

# -- units --------------------------------------------------------------------------------------

# What a throughput counts, in the words people write for it (English, German, French, Spanish).
COUNT_WORDS = (
    r"tok(?:en)?s?", r"jetons?",
    r"samples?", r"[ée]chantillons?", r"muestras?",
    r"quer(?:y|ies)", r"requ[êe]tes?", r"Abfragen", r"consultas?",
    r"req(?:uest)?s?", r"Anfragen",
    # what a vision or recommendation benchmark's samples are, as its readers write them ('118,500 images/s')
    r"images?", r"inferences?", r"Bilder", r"Inferenzen",
)
# Words people put between the number and the unit: '~66k output tokens/s', 'generated tok/s'.
COUNT_ADJECTIVES = (
    "output", "generated", "generation", "input", "prompt", "total", "prefill", "decode", "decoding",
    "completion", "aggregate", "Ausgabe", "generierte", "Eingabe", "gesamt",
)
# "... per second", as people abbreviate it.
PER_SECOND = (
    r"\s?/\s?s(?:ec(?:ond)?)?", r"\s?/\s?Sek(?:unde|\.)?",
    r"\s+per\s+s(?:ec(?:ond)?)?", r"\s+a\s+second", r"\s+pro\s+Sek(?:unde|\.)?", r"\s+par\s+seconde",
    r"\s+por\s+segundo",
    # 'samples-per-second' written as one word, 'samples each second' in prose
    r"-per-s(?:ec(?:ond)?)?", r"\s+(?:each|every)\s+second", r"\s+je\s+Sekunde",
)
# Units written as one acronym: '147k TPS', 'target 45 QPS'.
ACRONYM_UNITS = ("TPS", "QPS", "RPS", "q/s")
# The words that name a throughput in a label or a heading without a unit ('Throughput', 'Durchsatz').
THROUGHPUT_WORDS = ("throughput", "goodput", "durchsatz", "débit")

# -- what a figure is of -------------------------------------------------------------------------

# After the unit: what the figure is per. (pattern, qualifier, derived?) A per-accelerator, per-dollar
# or per-watt figure is computed from a measured one (derived); a per-user rate is measured.
PER_WHAT = (
    (r"(?:GPU|accelerator|chip|device|card|node|socket|XPU|TPU|NPU|HPU|Beschleuniger)s?", "per accelerator", True),
    (r"(?:\$|USD|dollar|€|EUR|euro)", "per dollar", True),
    (r"(?:W|watt|kW)", "per watt", True),
    (r"(?:user|stream|request|Nutzer|utilisateur)", "per user", False),
)
PER_JOINERS = (r"\s*/\s*", r"\s+per\s+", r"\s+pro\s+", r"\s+par\s+")

# -- derived cost figures ---------------------------------------------------------------------------

CURRENCY_SYMBOLS = (r"US\$", r"\$", "€", "£")
CURRENCY_WORDS = ("USD", "EUR", "GBP", "dollars?", "euros?", "cents?")
# '... per million tokens', as people write it after a price: '$0.21/M tokens', '0.21 USD per 1M tokens'.
PER_MILLION_TOKENS = (
    r"\s?/\s?(?:1\s?)?(?:M|Mio\.?|MTok|million)\s?(?:(?:output|input|generated)\s+)?(?:tok(?:en)?s?)?",
    r"\s+(?:per|pro|par|por)\s+(?:1\s?)?(?:M|million|Mio\.?|Million(?:en)?|1,000,000|1\.000\.000)\s+"
    r"(?:(?:output|input|generated|Ausgabe-?)\s*)?(?:tok(?:en)?s?|jetons)",
    r"\s?/\s?1[kK]\s?(?:tok(?:en)?s?)?", r"\s+per\s+1[kK]\s+(?:(?:output|input)\s+)?tok(?:en)?s?",
)
# The words of a cost heading without a currency symbol: 'Cost per 1M tokens', 'Kosten pro Mio. Token'.
COST_WORDS = ("cost", "price", "Kosten", "Preis", "co[ûu]t", "prix")
# What makes a money amount per token count a price, not a figure: what a provider charges ('$0.20 / 1M
# tokens' on a price list, '2.10 USD per 1M tokens' in a quote) is set by contract, not measured on a
# system with MLPerf's conditions. A cost per million tokens worked out from a system's throughput and
# its hourly price is a throughput in disguise and stays a derived figure. These words, in the figure's
# sentence, its column heading or the title over it, say it is a price.
PRICE_WORDS = (r"pric(?:e|es|ed|ing)", r"input(?=\s*[:(])", r"list(?:ed)?\s+(?:at|price)", r"rate\s+card", r"charge[sd]?", r"bill(?:ed|ing)",
               r"quot(?:e|ed|es|ation)", r"tariffs?", r"invoiced?", r"\w*preis(?:e|liste)?", r"Angebot", r"prix", r"tarifs?",
               r"tarification", r"precios?")
# Tokens that providers price and that no throughput counts ('$0.20 / 1M input tokens'): a price.
PRICED_TOKENS = ("input", "prompt", "cached", "cache", "Eingabe-?")
# '169,600 tokens/dollar', '169,600 tokens per $', 'Token pro Euro'.
TOKENS_PER_CURRENCY = r"tok(?:en)?s?\s?(?:/\s?|\s+per\s+|\s+pro\s+|\s+par\s+)(?:\$|USD|dollars?|€|EUR|euros?)"

# -- numbers ---------------------------------------------------------------------------------------

# Thousands separators people use: comma (English), dot (German), apostrophe (Swiss), and the spaces
# of French typography: no-break, narrow no-break and thin. Not a plain space: in text extracted from
# a table, '8 528 tok/s' is two columns, not 8,528.
GROUP_SEPARATORS = (",", ".", "'", "\u00a0", "\u202f", "\u2009")
# Scale words after a number: '1.2k', '3.2M', '1,2 Mio.', '5 million'.
SCALES = {
    "k": 1e3, "K": 1e3, "thousand": 1e3, "Tsd.": 1e3, "Tsd": 1e3,
    "M": 1e6, "Mio.": 1e6, "Mio": 1e6, "Mill.": 1e6, "million": 1e6, "millions": 1e6, "Millionen": 1e6,
    "Million": 1e6, "Mrd.": 1e9, "billion": 1e9,
}
# A range is two figures: '120–155 tokens/sec', '120 to 155 tok/s', '120 bis 155 Token/s'.
RANGE_JOINERS = (r"\s?[-–—]\s?", r"\s+to\s+", r"\s+bis\s+", r"\s+à\s+", r"\s+a\s+")
# Words that make a text German or French, so that '101.527 Token/s' reads 101,527 and '45,3' 45.3.
COMMA_DECIMAL_HINTS = (r"\bToken/s", r"\bToken\s+pro\b", r"\bpro\s+Sek", r"\bSek\.", r"\b(?:Mio|Mrd|Tsd)\.",
                       r"\bMillionen\b", r"\bpar\s+seconde\b", r"\bjetons?\b", r"\b[ée]chantillons?\b",
                       r"\bDurchsatz\b", r"\bd[ée]bit\b", r"\bAnfragen\b", r"\bBeschleuniger\b")

# -- what is not a figure ------------------------------------------------------------------------

# Before a number with a unit: a load setting, not a result ('target 45.2 QPS', 'at a request rate of 4 req/s').
LOAD_SETTING_BEFORE = (r"target(?:ed)?(?:\s+(?:rate|load|of|at))?", r"configured(?:\s+(?:at|to))?",
                       r"offered(?:\s+load)?(?:\s+of)?", r"(?:request|arrival|send(?:ing)?)\s+rate(?:\s+of)?",
                       r"Poisson(?:\s+arrivals?)?(?:\s+at)?(?:\s+a\s+rate\s+of)?", r"Ziel(?:wert)?")
# The words that start one of the above (a cheap test before the patterns run).
LOAD_SETTING_WORDS = ("target", "configured", "offered", "rate", "poisson", "ziel")
# A heading or label with one of these names a load setting, a latency or a shape, not a throughput.
NOT_A_THROUGHPUT_HEADING = (r"\btarget(?:ed)?\b", r"\bper\s+sample\b", r"\blatenc", r"\bTTFT\b", r"\bTPOT\b",
                            r"\bITL\b", r"\bconfigured\b", r"\boffered\b", r"\b(?:request|arrival)\s+rate\b",
                            r"\bconcurrency\b", r"\bin\s+flight\b", r"\bper\s+(?:min(?:ute)?|hour|h)\b",
                            r"/\s?(?:min|h|hr|hour)\b", r"\bduration\b", r"\bgoal\b", r"\bZiel", r"\bobjectif\b",
                            r"\bSLO\b",
                            # a throughput of memory, a network or a disk: bandwidth, not tokens ('Speicherdurchsatz')
                            r"\b(?:memory|network|disk|storage|i/?o|nvlink|pcie|interconnect|fabric)[\s-]+throughput",
                            r"\b(?:Speicher|Netzwerk|Netz|Daten|Platten|Festplatten|Storage|Interconnect)-?durchsatz",
                            r"\bd[ée]bit\s+(?:m[ée]moire|r[ée]seau|disque|du\s+r[ée]seau|de\s+la\s+m[ée]moire)",
                            # counts per hour, day, month: a volume of traffic, not a rate per second
                            r"\b(?:per|pro|je|par)\s+(?:day|week|month|year|Minute|Stunde|Std\.?|Tag|Woche|Monat|"
                            r"heure|jour|mois)\b", r"/\s?(?:day|Tag|Std\.?|jour)\b")

# A name of a file or a path: the numbers in it name a run, a rate setting or a time stamp, never a figure
# ('poisson4_isl550_osl250/openai-4.0qps-mock-llm-20261201-094331.json' in a source note).
FILE_EXTENSIONS = ("json", "jsonl", "csv", "tsv", "txt", "log", "ya?ml", "toml", "xlsx?", "pptx?", "pdf", "md", "html?",
                   "png", "jpe?g", "svg", "zip", "gz", "tgz", "parquet", "db", "sqlite", "py", "ipynb", "out")
# The units of other quantities, as a caption beside a headline number names them ('141' over 'GB HBM3e',
# '72' over 'GPUs'): such a number is not in the unit that the slide's title states for its tiles.
OTHER_UNITS = (r"[KMGTP]i?B(?:/s)?", r"[KMGT]b(?:/s|ps)", r"Gbit/s", r"ms", r"µs", r"sec(?:onds?)?", r"min(?:utes?)?",
               r"hours?", r"W", r"kW", r"MW", r"%", r"GPUs?", r"accelerators?", r"chips?", r"nodes?", r"racks?", r"users?",
               r"requests?", r"tokens", r"Token", r"params?", r"parameters", r"days?", r"USD", r"EUR", r"TTFT", r"TPOT",
               r"latency", r"Latenz", r"memory", r"Speicher", r"HBM\w*", r"bandwidth", r"Bandbreite", r"context",
               r"Kontext", r"concurrency", r"batch")

# -- labels and tables in text ---------------------------------------------------------------------

# What stands between a label and its value: 'Output token throughput (tok/s):   1764.14' (vLLM,
# SGLang), '│ Output Token Throughput (tokens/sec) │ 761.31 │' (AIPerf), '"output_throughput": 1764.1'.
LABEL_VALUE_SEPARATORS = r"\s*(?:[:=│┃|\t]|\s{2,}|\s[-–—]\s)\s*"
# Separators of the cells of a table typed or pasted as text ('|', box drawing, tabs).
TEXT_TABLE_SEPARATORS = "|│┃\t"
# Statistic names under a throughput heading ('request_output_throughput_token_per_s' then 'p50 = 97.2').
STATISTIC_LABELS = (r"p\d{1,3}(?:\.\d)?", "mean", "avg", "average", "median", "min", "max", "std", "stddev",
                    r"quantiles?_p\d{1,3}", "total", "value")

# -- a unit stated once for several numbers ----------------------------------------------------------

# How far from a unit a number may stand and still be in it: lines before and after the unit's line
# (text extracted from a page runs on without full stops through titles and tables).
SENTENCE_LINES_BEFORE = 1
SENTENCE_LINES_AFTER = 2
# A word after a number that lets the number stand for a quantity of the sentence's unit
# ('118.5 (40% faster than H100's 84.2)', 'up from 21,806 on H100'). Any other word names its own
# quantity ('8 GPUs', '450 ms', '24,576 samples') and the number is not a figure.
FOLLOWS_A_FIGURE = ("on", "for", "and", "or", "vs", "versus", "with", "from", "to", "in", "at", "by", "while",
                    "compared", "against", "than", "when", "under", "where", "which", "using", "respectively",
                    "auf", "für", "und", "bei", "mit", "gegenüber", "im", "sur", "pour", "et", "avec", "contre", "en")
# A sentence with one of these explains a band; the numbers it quotes are the band's basis
# ('Band ±0.5%: half the run-to-run spread of 0.9% (... from 774.0 to 781.2)').
BAND_SENTENCE = ("band ±", "spread of", "slack of", "no band")
# How many words before a number are read for another quantity's name ('TTFT of 450').
WORDS_BEFORE = 2
# Words shortly before a number that name another quantity ('TTFT of 450', 'tokens per sample 272.6',
# 'Llama 3.1', 'round 5.1'): the number is not in the sentence's throughput unit.
OTHER_QUANTITY_BEFORE = (
    "ttft", "tpot", "itl", "latency", "latencies", "e2e", "price", "prices", "cost", "costs", "priced", "memory",
    "hbm", "bandwidth", "power", "watts", "tdp", "slack", "band", "accuracy", "rouge", "rouge-1", "rouge-l", "score",
    "batch", "concurrency", "duration", "sample", "samples", "isl", "osl", "length", "lengths", "dataset", "round",
    "version", "v", "inference", "llama", "tie", "ties", "mixtral", "gpt", "gpt-j", "deepseek", "qwen", "rank", "ranked", "top",
    "no", "id", "result", "gen", "generation", "pcie", "nvlink", "nodes", "gpus", "accelerators", "page",
    "slide", "table", "figure", "fig", "section", "step", "p50", "p90", "p95", "p99", "p999", "percent", "tokens",
    "token", "requests", "request", "prompts", "errors", "failed", "completed", "successful", "count", "concurrent",
    "rate", "target", "configured", "offered", "qps", "year", "since", "seconds", "minutes", "hours", "days", "ms",
    # software and its versions ('CUDA 12.9', 'ROCm 6.4', 'TensorRT-LLM 0.21')
    "cuda", "rocm", "driver", "drivers", "python", "ubuntu", "rhel", "linux", "kernel", "os", "firmware", "release",
    "tensorrt", "tensorrt-llm", "trt", "trt-llm", "vllm", "sglang", "pytorch", "torch", "jax", "openvino", "triton",
)

# What shows nothing where a document stands (the checker reads a figure as a reader sees it, without
# them): soft hyphen, Arabic letter mark, Mongolian vowel separator, zero-width space, joiners, LRM and
# RLM, bidi embeddings and overrides, word joiner and invisible operators, isolates, byte order mark.
HIDDEN = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
REORDERING = re.compile("[\u202a\u202b\u202d\u202e\u2066-\u2068]")  # bidi embeddings, overrides, isolates opened
