"""The words the site uses for the schema's enumerated values."""

from __future__ import annotations

from sitegen.model import Status

HARDWARE_TYPES = {
    "discrete-gpu": "Discrete GPU",
    "integrated-gpu": "Integrated GPU",
    "accelerator": "AI accelerator",
    "cpu": "CPU",
}
DEVICE_NOUN = {"discrete-gpu": "GPU", "integrated-gpu": "GPU", "accelerator": "Accelerator", "cpu": "CPU"}
MEMORY_NOUN = {"discrete-gpu": "VRAM", "integrated-gpu": "Unified memory", "accelerator": "Device memory", "cpu": "Memory"}
DECODE_MODES = {
    "fixed-duration": "Fixed duration",
    "fixed-request-count": "Fixed request count",
    "batched": "One batch per cell",
    "single-stream": "One request at a time",
}
# What the decode phase is called on the run page (heading and the table's Phase column).
# Runs that do not say how they measured decode keep the site's original word.
DECODE_PHASES = {
    "fixed-duration": "Sustained decode",
    "fixed-request-count": "Request-count decode",
    "batched": "Batched decode",
    "single-stream": "Single-stream decode",
}
DEFAULT_DECODE_PHASE = "Sustained decode"
# The sentence under "All measurements" that says what the latency columns are.
LATENCY_STATISTICS = {
    "mean": "TTFT, time between tokens and per-request tok/s are means over each cell's requests.",
    "median": "TTFT, time between tokens and per-request tok/s are medians over each cell's requests.",
}
LATENCY_UNDECLARED = "Latencies as the source reports them."
PREFILL_MODES = {
    "decode-warmup": "Measured during decode warm-up",
    "standalone-cold": "Standalone, cold cache",
    "at-depth": "Prompt chunk at KV-cache depth",
    "first-token": "From time to first token",
    "not-measured": "Not measured",
}
STATUSES = {
    Status.VALID: "Valid",
    Status.REQUESTS_QUEUED: "Requests queued",
    Status.OVER_CAPACITY: "Over capacity",
    Status.NOT_RUN: "Not run",
    Status.FAILED: "Failed",
}
# Shown under the matrix for every status that appears in it (valid needs no words).
STATUS_EXPLANATIONS = {
    Status.REQUESTS_QUEUED: "the server could not run all requests at once, so some waited in a queue.",
    Status.OVER_CAPACITY: "not run because this many requests at this context would exceed the server's KV cache.",
    Status.NOT_RUN: "not run for another reason; the cell's note says why.",
    Status.FAILED: "the measurement failed, so there is no figure.",
}
