"""A launch command's flags as settings a comparison can line up: pure, no I/O.

sglang, vLLM, llama.cpp, TensorRT-LLM and NIM spell the same setting differently
(``--tp 2``, ``--tensor-parallel-size 2``, ``--tp_size 2``, ``NIM_TENSOR_PARALLEL_SIZE=2``);
each known spelling maps to one setting here, so two runs' setups read side by side. A flag
this module does not know is kept verbatim under "Other flags", never dropped: a reader can
still see that two runs differ. Flags that only say where the server listens (host, port,
API key, served name, the model path) are left out, since they do not change a figure.

A setting the command does not give is absent: the engine's default applies, and defaults
differ between engines and versions, so the comparison shows "not set" rather than a guess.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

from sitegen.model import Engine

# The settings, in the order the setup table shows them.
SETTINGS: tuple[tuple[str, str], ...] = (
    ("tensor_parallel", "Tensor parallel"),
    ("pipeline_parallel", "Pipeline parallel"),
    ("data_parallel", "Data parallel"),
    ("expert_parallel", "Expert parallel"),
    ("max_model_length", "Max model length"),
    ("kv_cache_dtype", "KV-cache dtype"),
    ("prefix_caching", "Prefix caching"),
    ("chunked_prefill", "Chunked prefill"),
    ("cuda_graphs", "CUDA graphs"),
    ("speculative_decoding", "Speculative decoding"),
    ("quantization", "Quantization flag"),
    ("dtype", "Weights dtype"),
    ("memory_fraction", "Memory fraction"),
    ("max_batched_tokens", "Max batched tokens"),
    ("max_sequences", "Max simultaneous sequences"),
    ("attention_backend", "Attention backend"),
    ("gpu_layers", "Layers on GPU"),
    ("flash_attention", "Flash attention"),
)
LABELS = dict(SETTINGS)

# Flags with a value, by spelling: the setting they set.
_VALUED: dict[str, str] = {
    **dict.fromkeys(
        ("--tp", "--tp-size", "--tensor-parallel-size", "-tp", "--tp_size"), "tensor_parallel"
    ),
    **dict.fromkeys(
        ("--pp", "--pp-size", "--pipeline-parallel-size", "-pp", "--pp_size"), "pipeline_parallel"
    ),
    **dict.fromkeys(
        ("--dp", "--dp-size", "--data-parallel-size", "-dp", "--dp_size"), "data_parallel"
    ),
    **dict.fromkeys(
        ("--ep", "--ep-size", "--expert-parallel-size", "--ep_size"), "expert_parallel"
    ),
    **dict.fromkeys(
        (
            "--max-model-len",
            "--context-length",
            "--ctx-size",
            "-c",
            "--max_seq_len",
            "--max-seq-len",
        ),
        "max_model_length",
    ),
    **dict.fromkeys(("--kv-cache-dtype", "--kv_cache_dtype"), "kv_cache_dtype"),
    **dict.fromkeys(("--quantization", "-q"), "quantization"),
    "--dtype": "dtype",
    **dict.fromkeys(
        (
            "--gpu-memory-utilization",
            "--mem-fraction-static",
            "--kv_cache_free_gpu_memory_fraction",
            "--free_gpu_memory_fraction",
        ),
        "memory_fraction",
    ),
    **dict.fromkeys(
        ("--max-num-batched-tokens", "--max_num_tokens", "-b", "--batch-size"), "max_batched_tokens"
    ),
    **dict.fromkeys(
        ("--max-num-seqs", "--max-running-requests", "--max_batch_size", "-np", "--parallel"),
        "max_sequences",
    ),
    "--attention-backend": "attention_backend",
    **dict.fromkeys(("-ngl", "--n-gpu-layers", "--gpu-layers"), "gpu_layers"),
    **dict.fromkeys(
        (
            "--speculative-algorithm",
            "--speculative-config",
            "--speculative-model",
            "--speculative_config",
            "-md",
            "--model-draft",
        ),
        "speculative_decoding",
    ),
    **dict.fromkeys(("-fa", "--flash-attn"), "flash_attention"),
    **dict.fromkeys(("--chunked-prefill-size",), "chunked_prefill"),
    **dict.fromkeys(("--cuda-graph-max-bs",), "cuda_graphs"),
    # llama.cpp's K and V cache types are one setting: "K q8_0, V q8_0".
    **dict.fromkeys(("-ctk", "--cache-type-k"), "kv_cache_k"),
    **dict.fromkeys(("-ctv", "--cache-type-v"), "kv_cache_v"),
}
_SPECULATION_FLAGS = ("--speculative", "-md", "--model-draft")
# Flags without a value: the setting and the value they stand for.
_SWITCHES: dict[str, tuple[str, str]] = {
    "--enable-prefix-caching": ("prefix_caching", "on"),
    "--no-enable-prefix-caching": ("prefix_caching", "off"),
    "--disable-radix-cache": ("prefix_caching", "off"),
    "--enable-chunked-prefill": ("chunked_prefill", "on"),
    "--no-enable-chunked-prefill": ("chunked_prefill", "off"),
    "--enforce-eager": ("cuda_graphs", "off"),
    "--disable-cuda-graph": ("cuda_graphs", "off"),
    "--enable-expert-parallel": ("expert_parallel", "on"),
    "--enable-ep-moe": ("expert_parallel", "on"),
    "--enable-dp-attention": ("data_parallel", "attention only"),
}
# NIM is configured by environment variables (docker run -e NAME=value), as NVIDIA's NIM for
# LLMs documentation names them.
_ENVIRONMENT: dict[str, str] = {
    "NIM_TENSOR_PARALLEL_SIZE": "tensor_parallel",
    "NIM_PIPELINE_PARALLEL_SIZE": "pipeline_parallel",
    "NIM_MAX_MODEL_LEN": "max_model_length",
    "NIM_ENABLE_KV_CACHE_REUSE": "prefix_caching",
    "NIM_DISABLE_CUDA_GRAPH": "cuda_graphs",  # inverted: true means off (_normalise_environment)
    "VLLM_ATTENTION_BACKEND": "attention_backend",
}
# Where the server listens and what it calls the model: no bearing on a figure.
_IRRELEVANT_VALUED = frozenset(
    (
        "--host",
        "--port",
        "--api-key",
        "--served-model-name",
        "--model",
        "--model-path",
        "-m",
        "--tokenizer",
        "--download-dir",
        "--log-level",
        "--alias",
        "--hf-repo",
        "-hf",
        "-p",
        "--name",
    )
)
_IRRELEVANT_SWITCHES = frozenset(
    ("--enable-metrics", "--disable-log-requests", "--disable-log-stats", "--rm", "-d")
)
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class LaunchSettings:
    """The settings a launch command gives, by key of SETTINGS, and the flags it does not know."""

    settings: tuple[tuple[str, str], ...]
    other_flags: tuple[str, ...]

    def get(self, key: str) -> str | None:
        return dict(self.settings).get(key)


def _tokens(command: str) -> list[str]:
    # Line continuations and unbalanced quotes happen in pasted commands; fall back to spaces.
    text = command.replace("\\\n", " ")
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _switch_value(value: str) -> str:
    lowered = value.lower()
    return "on" if lowered in _TRUE else "off" if lowered in _FALSE else value


def _normalise(key: str, value: str) -> str:
    if key == "prefix_caching":
        return _switch_value(value)
    if key == "chunked_prefill":
        return (
            "off"
            if value.strip() == "-1"
            else f"on, {value} tokens"
            if value.lstrip("-").isdigit()
            else value
        )
    if key == "cuda_graphs":
        return f"on, up to batch {value}" if value.isdigit() else value
    if key == "flash_attention":
        return _switch_value(value)
    if key == "speculative_decoding":
        return _speculative_config(value) if value.startswith("{") else speculation_name(value)
    return value


# Speculative methods as their papers and engines' documentation write them: sglang's
# ``--speculative-algorithm NGRAM`` and vLLM's ``"method": "ngram"`` are both n-gram.
_SPECULATION_NAMES = {
    "ngram": "n-gram",
    "eagle": "EAGLE",
    "eagle3": "EAGLE3",
    "mtp": "MTP",
    "nextn": "NextN",
    "medusa": "Medusa",
    "mlp_speculator": "MLP speculator",
    "draft_model": "draft model",
}


def speculation_name(method: str) -> str:
    """A speculative method's usual spelling: 'ngram' → 'n-gram', 'deepseek_mtp' → 'MTP'; one
    not known here as given (DSPARK stays DSPARK)."""
    key = method.strip().lower()
    if key.endswith("_mtp"):
        key = "mtp"
    return _SPECULATION_NAMES.get(key, method.strip())


def _speculative_config(text: str) -> str:
    """vLLM's ``--speculative-config`` JSON as words: 'MTP, 2 tokens'."""
    try:
        config = json.loads(text)
    except ValueError:
        return text
    if not isinstance(config, dict):
        return text
    parts = [
        speculation_name(str(config["method"])) if name == "method" else str(config[name])
        for name in ("method", "model")
        if config.get(name)
    ]
    if isinstance(config.get("num_speculative_tokens"), int):
        count = config["num_speculative_tokens"]
        parts.append(f"{count} token" if count == 1 else f"{count} tokens")
    return ", ".join(parts) or text


def _value_after(flag: str, tokens: list[str], index: int) -> tuple[str | None, int]:
    """The value ``flag`` takes from the token at ``index``, if it takes one, and the index after
    it."""
    if index >= len(tokens):
        return None, index
    following = tokens[index]
    takes_value = flag in _VALUED or flag in _IRRELEVANT_VALUED
    if following.startswith("-"):
        # Only a flag known to take a value takes a negative number ("--chunked-prefill-size -1").
        return (
            (following, index + 1)
            if takes_value and following.lstrip("-").isdigit()
            else (None, index)
        )
    if takes_value or (flag not in _SWITCHES and flag not in _IRRELEVANT_SWITCHES):
        return (
            following,
            index + 1,
        )  # an unknown flag keeps the word after it, shown verbatim with it
    return None, index


def parse_launch_command(command: str | None) -> LaunchSettings:
    """The settings of ``command``, whichever of the known engines it starts."""
    if not command:
        return LaunchSettings((), ())
    found: dict[str, str] = {}
    other: list[str] = []
    tokens = _tokens(command)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "-e" and index < len(tokens) and "=" in tokens[index]:
            token = tokens[index]  # docker run -e NAME=value
            index += 1
        if not token.startswith("-"):
            name, _, setting = token.partition("=")
            if name in _ENVIRONMENT and setting:
                if name == "NIM_DISABLE_CUDA_GRAPH":
                    setting = {"on": "off", "off": "on"}.get(_switch_value(setting), setting)
                found[_ENVIRONMENT[name]] = _normalise(_ENVIRONMENT[name], setting)
            continue  # the program, its subcommand, the model path, other environment variables
        flag, has_inline, inline = token.partition("=")
        value, index = (inline, index) if has_inline else _value_after(flag, tokens, index)
        if flag in _SWITCHES and value is None:
            key, meaning = _SWITCHES[flag]
            found[key] = meaning
        elif flag in _VALUED and value is not None:
            found[_VALUED[flag]] = _normalise(_VALUED[flag], value)
        elif flag in _IRRELEVANT_VALUED or flag in _IRRELEVANT_SWITCHES:
            continue
        else:
            other.append(token if has_inline or value is None else f"{flag} {value}")
    key_type, value_type = found.pop("kv_cache_k", None), found.pop("kv_cache_v", None)
    if key_type or value_type:
        found.setdefault(
            "kv_cache_dtype", f"K {key_type or 'default'}, V {value_type or 'default'}"
        )
    ordered = tuple((key, found[key]) for key, _ in SETTINGS if key in found)
    return LaunchSettings(ordered, tuple(other))


def speculative_decoding(engine: Engine) -> str | None:
    """The speculative decoding a run used: what its file says, else what its launch command
    gives (``--speculative-algorithm DSPARK``, vLLM's ``--speculative-config`` JSON …)."""
    if engine.speculative_decoding:
        return engine.speculative_decoding
    command = engine.launch_command
    # Most commands name no draft: a substring test spares parsing them (labels read every run).
    if not command or not any(flag in command for flag in _SPECULATION_FLAGS):
        return None
    return parse_launch_command(command).get("speculative_decoding")
