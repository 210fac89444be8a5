"""lil-bench result documents (``schema: "lil-bench-result/1"``).

lil-bench runs llm-inference-bench inside a vLLM container and embeds its complete
``benchmark_results.json`` at ``results/bench``; the measurements are read from there by
the llm_inference_bench adapter. What lil-bench adds is what the bench file lacks: the
engine version, the exact server command line, the GPUs from NVML and the model id.
Those win over the embedded file's guesses; run.yaml still wins over both.
"""

from __future__ import annotations

import shlex
from typing import Any

from sitegen.collect.adapters import llm_inference_bench
from sitegen.collect.adapters._foreign import Adapted, Node
from sitegen.parse import Document

SCHEMA = "lil-bench-result/1"
_MIB = 1024 * 1024


def looks_like(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("schema"), str)
        and data["schema"].startswith("lil-bench-")
    )


def adapt(document: Document) -> Adapted:
    root = Node.root(document)
    schema = root.need("schema")
    if schema.text() != SCHEMA:
        raise schema.error(
            f"{schema.text()!r} documents are not supported; sitegen reads {SCHEMA!r}"
        )
    status = root.opt_text("status") or "complete"
    results = root.need("results", f": the lil-bench run ({status}) produced no benchmark results")
    bench = results.need("bench", f": the lil-bench run ({status}) produced no benchmark results")
    adapted = llm_inference_bench.convert(bench)
    adapted.imported_from = _imported_from(root, adapted)
    if status != "complete":
        adapted.notes.append(
            f"lil-bench reports this run as {status}: only what it finished is imported."
        )
    _engine(adapted, root)
    _hardware(adapted, root)
    _run(adapted, root)
    return adapted


def _imported_from(root: Node, adapted: Adapted) -> str:
    client = root.get("client")
    lil_version = client.opt_text("lil_bench") if client is not None else None
    bench_version = adapted.sections["run"].get("benchmark_tool_version")
    run_id = root.opt_text("run_id")
    text = "lil-bench" + (f" {lil_version}" if lil_version else "") + " result document"
    if run_id:
        text += f" {run_id}"
    if bench_version:
        text += f" (llm-inference-bench {bench_version})"
    return text


def _engine(adapted: Adapted, root: Node) -> None:
    server = root.get("server")
    if server is None:
        return
    # lil-bench finds only `vllm serve` (or its launchers): the engine is vLLM by construction.
    adapted.put("engine", "name", "vLLM", server)
    api = server.get("api")
    version = api.get("version") if api is not None else None
    if version is not None:
        adapted.put("engine", "version", version.text(), version)
    argv = server.get("argv")
    if argv is not None:
        words = [item.text() for item in argv.elements()]
        if words:
            adapted.put("engine", "launch_command", shlex.join(words), argv)
    options = server.get("options")
    quantization = options.get("quantization") if options is not None else None
    if quantization is not None and isinstance(quantization.value, str):
        adapted.put("engine", "quantization", quantization.value, quantization)
    limits = server.get("limits")
    tensor_parallel = limits.get("tensor_parallel_size") if limits is not None else None
    if tensor_parallel is not None:
        adapted.put("engine", "parallelism", f"TP{tensor_parallel.integer()}", tensor_parallel)
    image = root.get("image")
    alias = image.get("alias") if image is not None else None
    if alias is not None and alias.text():
        adapted.put("engine", "build", alias.text(), alias)


def _hardware(adapted: Adapted, root: Node) -> None:
    hardware = root.get("hardware")
    if hardware is None:
        return
    gpus = hardware.get("gpus")
    if gpus is not None and gpus.elements():
        _gpus(adapted, gpus)
    nvml = hardware.get("nvml_system")
    driver = nvml.get("driver_version") if nvml is not None else None
    if driver is not None and driver.text():
        adapted.put("hardware", "driver", driver.text(), driver)


def _gpus(adapted: Adapted, gpus: Node) -> None:
    devices = gpus.elements()
    names = {device.need("name").text() for device in devices}
    if len(names) == 1:
        name = names.pop()
        adapted.put("hardware", "vendor", "NVIDIA", gpus)
        adapted.put("hardware", "accelerator", name.removeprefix("NVIDIA ").strip() or name, gpus)
    else:
        # The embedded bench file may have named one of them; mixed GPUs need run.yaml.
        adapted.drop("hardware", "accelerator")
        adapted.drop("hardware", "vendor")
        adapted.notes.append(
            f"The container saw different GPUs ({', '.join(sorted(names))}); "
            "the accelerator comes from run.yaml."
        )
    adapted.put("hardware", "count", len(devices), gpus)
    memory = {device.opt_integer("memory_total_mib") for device in devices}
    if len(memory) == 1 and (mib := memory.pop()):
        # NVML reports MiB; the result format uses GB of 10^9 bytes.
        adapted.put("hardware", "memory_per_device_gb", round(mib * _MIB / 1e9, 1), gpus)


def _run(adapted: Adapted, root: Node) -> None:
    server = root.get("server")
    if server is not None:
        model = server.get("model")
        if model is not None and model.text():
            adapted.put("run", "model", model.text(), model)
        api = server.get("api")
        served = api.get("model_id") if api is not None else None
        if served is not None and served.text():
            adapted.put("run", "served_model_name", served.text(), served)
    started = root.get("started")
    if started is not None:
        # UTC start of the run; more precise than the embedded file's local save time.
        adapted.put("run", "date", started.iso_date(), started)
