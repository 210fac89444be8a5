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
