"""Launch commands → settings: the shipped runs' commands, and each engine's spellings.

Expected values are read off the commands by hand (content/runs/*.yaml, engine.launch_command),
not produced by the parser."""

from __future__ import annotations

import pytest

from sitegen.model import Engine
from sitegen.parse import parse_yaml
from sitegen.site.figures.launch_settings import parse_launch_command, speculative_decoding
from tests.kit.project import REPO

RUNS = REPO / "content" / "runs"


def _command(run_id: str) -> str:
    path = RUNS / f"{run_id}.yaml"
    command: str = parse_yaml(path.name, path.read_bytes()).data["engine"]["launch_command"]
    return command


def test_sglang_deepseek_command() -> None:
    parsed = parse_launch_command(_command("h200nvl2-sglang-deepseek-v4-flash-dspark"))
    assert dict(parsed.settings) == {
        "tensor_parallel": "2",
        "max_model_length": "1048576",
        "speculative_decoding": "DSPARK",
        "memory_fraction": "0.808234",
    }
    # Host, port, API key, served name and model path are left out; unknown flags stay verbatim.
    assert parsed.other_flags == (
        "--trust-remote-code",
        "--reasoning-parser deepseek-v4",
        "--tool-call-parser deepseekv4",
        "--moe-runner-backend marlin",
    )


def test_vllm_mtp_command() -> None:
    parsed = parse_launch_command(_command("rtx6kpro4x-vllm-qwen35-397b-awq-mtp"))
    assert dict(parsed.settings) == {
        "tensor_parallel": "4",
        "prefix_caching": "on",
        "chunked_prefill": "on",
        "speculative_decoding": "MTP, 2 tokens",
        "memory_fraction": "0.9",
        "max_batched_tokens": "8192",
        "max_sequences": "128",
    }
    assert parsed.other_flags == ()


def test_vllm_command_without_speculation() -> None:
    parsed = parse_launch_command(_command("rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp"))
    assert parsed.get("speculative_decoding") is None
    assert parsed.get("tensor_parallel") == "4" and parsed.get("prefix_caching") == "on"


@pytest.mark.parametrize(
    ("command", "expected", "other"),
    [
        (
            "python -m sglang.launch_server --model-path m --tp-size 8 --dp-size 2 "
            "--enable-dp-attention "
            "--kv-cache-dtype fp8_e5m2 --disable-radix-cache --chunked-prefill-size -1 "
            "--disable-cuda-graph",
            {
                "tensor_parallel": "8",
                "data_parallel": "attention only",
                "kv_cache_dtype": "fp8_e5m2",
                "prefix_caching": "off",
                "chunked_prefill": "off",
                "cuda_graphs": "off",
            },
            (),
        ),
        (
            "vllm serve m -tp 2 --max-model-len=32768 --enforce-eager --no-enable-prefix-caching "
            "--quantization fp8 "
            "--enable-expert-parallel --kv-cache-dtype fp8",
            {
                "tensor_parallel": "2",
                "max_model_length": "32768",
                "cuda_graphs": "off",
                "prefix_caching": "off",
                "quantization": "fp8",
                "expert_parallel": "on",
                "kv_cache_dtype": "fp8",
            },
            (),
        ),
        (
            "llama-server -m model.gguf -ngl 99 -c 131072 -fa on -ctk q8_0 -ctv q4_0 --jinja -np 4",
            {
                "gpu_layers": "99",
                "max_model_length": "131072",
                "flash_attention": "on",
                "kv_cache_dtype": "K q8_0, V q4_0",
                "max_sequences": "4",
            },
            ("--jinja",),
        ),
        (
            "trtllm-serve meta/Llama --tp_size 4 --ep_size 2 --max_batch_size 64 "
            "--extra_llm_api_options cfg.yaml",
            {"tensor_parallel": "4", "expert_parallel": "2", "max_sequences": "64"},
            ("--extra_llm_api_options cfg.yaml",),
        ),
        (
            "docker run --gpus all -e NIM_TENSOR_PARALLEL_SIZE=2 -e NIM_MAX_MODEL_LEN=8192 -e "
            "NIM_ENABLE_KV_CACHE_REUSE=1 "
            "-e NIM_DISABLE_CUDA_GRAPH=true nvcr.io/nim/meta/llama-3.3-70b-instruct:latest",
            {
                "tensor_parallel": "2",
                "max_model_length": "8192",
                "prefix_caching": "on",
                "cuda_graphs": "off",
            },
            ("--gpus all",),
        ),
    ],
)
def test_each_engines_spelling(
    command: str, expected: dict[str, str], other: tuple[str, ...]
) -> None:
    parsed = parse_launch_command(command)
    assert dict(parsed.settings) == expected
    assert parsed.other_flags == other


def test_unbalanced_quotes_and_no_command() -> None:
    assert dict(parse_launch_command("vllm serve m --tp 2 --x 'oops").settings) == {
        "tensor_parallel": "2"
    }
    assert parse_launch_command(None).settings == () and parse_launch_command("").other_flags == ()


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "python -m sglang.launch_server --model-path m --speculative-algorithm EAGLE3 "
            "--speculative-num-steps 3",
            "EAGLE3",
        ),
        ("python -m sglang.launch_server --model-path m --speculative-algorithm NGRAM", "n-gram"),
        ("python -m sglang.launch_server --model-path m --speculative-algorithm NEXTN", "NextN"),
        (
            'vllm serve m --speculative-config \'{"method": "ngram", "num_speculative_tokens": '
            "4}'",
            "n-gram, 4 tokens",
        ),
        (
            "vllm serve m --speculative-config "
            '\'{"method": "deepseek_mtp", "num_speculative_tokens": 1}\'',
            "MTP, 1 token",
        ),
        (
            "vllm serve m "
            '--speculative-config=\'{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3"}\'',
            "EAGLE, yuhuili/EAGLE-LLaMA3",
        ),
        ("llama-server -m big.gguf -md small.gguf", "small.gguf"),
        ("vllm serve m --tp 2", None),
        (None, None),
    ],
)
def test_speculative_decoding_read_from_the_command(
    command: str | None, expected: str | None
) -> None:
    assert speculative_decoding(Engine(name="e", launch_command=command)) == expected


def test_the_files_own_speculative_decoding_comes_first() -> None:
    engine = Engine(
        name="sglang",
        speculative_decoding="none",
        launch_command=_command("h200nvl2-sglang-deepseek-v4-flash-dspark"),
    )
    assert speculative_decoding(engine) == "none"
    # The shipped DeepSeek run's file says nothing; its command has --speculative-algorithm DSPARK.
    path = RUNS / "h200nvl2-sglang-deepseek-v4-flash-dspark.yaml"
    engine_data = parse_yaml(path.name, path.read_bytes()).data["engine"]
    assert "speculative_decoding" not in engine_data
    command = engine_data["launch_command"]
    assert speculative_decoding(Engine(name="sglang", launch_command=command)) == "DSPARK"
