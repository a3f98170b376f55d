"""The named states and vocabularies of a result's conditions, as strings: scenarios, units, result
ID states, where tokens per sample and the load came from, own-run load kinds.

Apart from model.py's classes (which import them from here), so that what only needs a state's name
(wording.py, and through it `exportguard check`) does not build the classes.
"""

SCENARIOS = ("Offline", "Server", "Interactive")
UNITS = ("tokens/s", "samples/s", "queries/s")
NOT_APPLICABLE = "n/a"  # an own run's division, availability, suite: not an MLPerf result
DIVISIONS = ("closed", "open", NOT_APPLICABLE)
AVAILABILITIES = ("available", "preview", "rdi", NOT_APPLICABLE)
SUITES = ("datacenter", "edge", NOT_APPLICABLE)
VERIFIED = ("verified", "unverified")
# Own load-test result files, one kind per tool family (ingest/own_*.py).
OWN_SOURCE_KINDS = ("aiperf", "genai_perf", "guidellm", "vllm_bench", "sglang_bench", "llmperf")
SOURCE_KINDS = ("mlperf_tree", "mlperf_summary", "csv") + OWN_SOURCE_KINDS
ORIGINS = ("mlcommons", "csv", "own")

# Result ID states: MLCommons assigns IDs when a round is published.
RESULT_ID_OFFICIAL = "official"
RESULT_ID_PENDING = "pending"  # an MLPerf tree not (yet) matched to its round's published summary
RESULT_ID_NONE = "none"  # not an MLPerf result: there is no ID to give
RESULT_ID_STATES = (RESULT_ID_OFFICIAL, RESULT_ID_PENDING, RESULT_ID_NONE)

# Where tokens per sample came from.
TPS_ACCURACY_LOG = "accuracy log"
TPS_SUMMARY = "summary table"
TPS_DERIVED = "derived: tokens/s / samples/s"
TPS_CSV = "stated in CSV"
TPS_NOT_REPORTED = "not reported"
TPS_OWN = "measured: mean output tokens per request"  # an own run's shape, from the tool's totals
TPS_BASES = (TPS_ACCURACY_LOG, TPS_SUMMARY, TPS_DERIVED, TPS_CSV, TPS_NOT_REPORTED, TPS_OWN)
# Measured tokens per sample: the only kind a slack is computed from. A derived one (tokens/s over
# samples/s of the performance run, another run over another sample mix) is shown, labelled derived,
# and never widens or narrows a band: on the v5.1 llama2-70b logs it reads -0.2 % to +1.2 % off the
# measured value, on one real system of another round 256.2 against 271.0 measured. (An own run's
# band comes from its repeated runs, never from tokens per sample: own_slack.)
TPS_MEASURED = (TPS_ACCURACY_LOG, TPS_SUMMARY, TPS_CSV)

# Where the load parameters came from.
LOAD_RUN_LOG = "run log"
LOAD_REFERENCE = "reference"
LOAD_CSV = "csv"
LOAD_TOOL = "load-test tool"  # an own run's load, as its tool recorded it
LOAD_BASES = (LOAD_RUN_LOG, LOAD_REFERENCE, LOAD_CSV, LOAD_TOOL)

ARRIVAL_CLOSED_LOOP = "closed-loop drain"
ARRIVAL_POISSON = "Poisson"
ARRIVAL_PROCESSES = (ARRIVAL_CLOSED_LOOP, ARRIVAL_POISSON, "other")

# How an own load test sent its requests, as the tool really ran it. An own run is never named with
# an MLPerf scenario, even when its arrivals look alike (Poisson is not "Server"): the store keeps
# one of these in the scenario column of an own run, and the same in its arrival process.
OWN_CLOSED_LOOP = "closed loop"  # N requests in flight, the next sent when one completes
OWN_POISSON = "Poisson"  # exponential gaps at a target rate
OWN_GAMMA = "Gamma"  # gamma-distributed gaps at a target rate, burstiness k (k = 1 is Poisson)
OWN_CONSTANT = "constant rate"  # equal gaps at a target rate
OWN_BURST = "burst"  # every request sent at once, no cap on how many are in flight
OWN_TRACE = "trace replay"  # send times taken from a recorded trace
OWN_OTHER = "other"  # anything else, described in the run's load detail
OWN_LOAD_KINDS = (OWN_CLOSED_LOOP, OWN_POISSON, OWN_GAMMA, OWN_CONSTANT, OWN_BURST, OWN_TRACE, OWN_OTHER)
UNKNOWN = "unknown"  # what no file records and the user did not state (--system): never guessed
NOT_RECORDED = "not recorded by the tool"

