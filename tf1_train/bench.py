"""Side-by-side benchmark: TF1 towers against the TF2 routes, and the machine's limit.

    python -m tf1_train.bench [--quick] [--cooldown SECONDS] [--out bench_results.json]

Every (workload, route) run is a fresh process, so TF1 and TF2 never share
one and each has its own peak RSS. Routes run interleaved, the order
rotating per repetition (A B C, B C A, ...), so a slow minute of the
machine hits every route alike; ``--cooldown`` idles before each run on
machines that throttle sustained load. Synthetic data on
each tower's device keeps input out of the comparison. The machine's limit
is TensorFlow's own large matmul rate in the route's precision (fp32; bf16
for the ``_bf16`` routes, whose rate is also paired with the same route in
fp32), measured in the same run; a model's FLOPs per training example come
from the TF1 graph's profiler counts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, NamedTuple

from tf1_train import models

ROUTES = {
    "tf1_ps": ("tf1_train.main", ["--variable_update=parameter_server"]),
    "tf1_replicated": ("tf1_train.main", ["--variable_update=replicated"]),
    "tf1_xla": ("tf1_train.main", ["--xla"]),
    "tf2_custom": ("tf1_train.tf2.main", ["--route=custom"]),
    "tf2_keras": ("tf1_train.tf2.main", ["--route=keras"]),
    "tf1_ps_bf16": ("tf1_train.main", ["--variable_update=parameter_server", "--precision=bf16"]),
    "tf2_custom_bf16": ("tf1_train.tf2.main", ["--route=custom", "--precision=bf16"]),
    "tf1_ps_fp16": ("tf1_train.main", ["--variable_update=parameter_server", "--precision=fp16"]),
}
# float16 on a CPU without AVX512-FP16 runs Eigen's emulated kernels: asked for by --routes.
DEFAULT_ROUTES = [r for r in ROUTES if not r.endswith("_fp16")]
BASELINE = "tf2_custom"
# TensorFlow enables oneDNN by itself only with the AVX-512/VNNI/AMX ones;
# the bf16 and fp16 ones decide whether half precision is native.
ISA_EXTENSIONS = (
    "avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni", "amx_tile",
    "amx_bf16", "avx512_fp16", "amx_fp16",
)  # fmt: skip
NATIVE_BF16 = ("avx512_bf16", "amx_bf16")
DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


def precision_of(route: str) -> str:
    """``tf1_ps_bf16`` -> bf16; a route without a suffix runs fp32."""
    suffix = route.rsplit("_", 1)[-1]
    return suffix if suffix in ("bf16", "fp16") else "fp32"


def fp32_twin(route: str) -> str:
    """The same route in fp32 (``tf1_ps_bf16`` -> ``tf1_ps``)."""
    return route.rsplit("_", 1)[0] if precision_of(route) != "fp32" else route


class Workload(NamedTuple):
    name: str
    model: str
    dataset: str
    batch_size: int  # per tower
    steps: int
    quick_steps: int


WORKLOADS = [
    Workload("lenet5/digits", "lenet5", "digits", 64, 1000, 150),
    Workload("lenet5/mnist", "lenet5", "mnist", 64, 600, 60),
    Workload("resnet20/cifar10", "resnet20", "cifar10", 32, 80, 12),
]


class Sample(NamedTuple):
    examples_per_sec: float  # of the run's median step (run_summary.json)
    first_step_seconds: float
    peak_rss_mb: float


def onednn() -> str:
    """TF_ENABLE_ONEDNN_OPTS as the training entry points resolve it."""
    from tf1_train.env import choose_onednn

    return choose_onednn(None, dict(os.environ))


def child_env() -> Dict[str, str]:
    """Every process of a run, the matmul probe included, with the same
    oneDNN choice: it sets the speed of convolutions and matmuls alike."""
    return dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", TF_ENABLE_ONEDNN_OPTS=onednn())


def cpu_features() -> List[str]:
    """The CPU's vector extensions that decide TensorFlow's kernels (Linux)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), [])
    except OSError:
        return []
    return [x for x in ISA_EXTENSIONS if x in flags]


def run_once(workload: Workload, route: str, steps: int, towers: int) -> Sample:
    """One training process; its summary and its peak RSS (from wait4)."""
    module, extra = ROUTES[route]
    with tempfile.TemporaryDirectory() as train_dir:
        args = [
            sys.executable, "-m", module,
            f"--model={workload.model}", f"--dataset={workload.dataset}",
            "--use_synthetic_data", f"--num_gpus={towers}", "--device=cpu",
            f"--batch_size={workload.batch_size}", f"--train_steps={steps}",
            f"--num_warmup_steps={max(steps // 5, 2)}", f"--display_every={steps}",
            "--optimizer=momentum", "--learning_rate=0.01", f"--train_dir={train_dir}",
            *extra,
        ]  # fmt: skip
        env = child_env()
        proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        stderr = proc.stderr.read().decode(errors="replace")
        proc.stdout.close(), proc.stderr.close()
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{route} on {workload.name} failed:\n{stderr[-2000:]}")
        with open(os.path.join(train_dir, "run_summary.json")) as f:
            summary = json.load(f)
    return Sample(
        # The median step, not the mean: this VM's speed dips for seconds at a
        # time (two runs of one route differed by 10%), and a dip during one
        # route's run would be charged to that route.
        summary["examples_per_sec_median_step"],
        summary.get("first_step_seconds", float("nan")),
        usage.ru_maxrss / 1024.0,
    )


def matmul_flops_per_sec(
    n: int = 2048, seconds: float = 3.0, windows: int = 5, dtype: str = "float32"
) -> float:
    """TensorFlow's own matmul rate on this machine (all cores) in ``dtype``:
    the median over ``windows`` timed windows, so one slow second does not
    set the ceiling every row is measured against."""
    code = f"""
import statistics, time, tensorflow as tf
a = tf.cast(tf.random.normal([{n}, {n}]), tf.{dtype})
b = tf.cast(tf.random.normal([{n}, {n}]), tf.{dtype})
f = tf.function(lambda a, b: tf.matmul(a, b))
f(a, b).numpy()
rates = []
for _ in range({windows}):
    iters, start = 0, time.perf_counter()
    while time.perf_counter() - start < {seconds / windows}:
        f(a, b).numpy(); iters += 1
    rates.append(2 * {n}**3 * iters / (time.perf_counter() - start))
print(statistics.median(rates))
"""
    env = child_env()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def flops_per_example(model: str, dataset: str) -> float:
    """Forward + backward FLOPs of one training example, from the TF1 graph."""
    code = f"""
import tensorflow as tf
from tf1_train import config, data, devices, graph
cfg = config.Config(model="{model}", data=config.DataConfig(dataset="{dataset}",
    use_synthetic_data=True, batch_size=8), devices=config.DeviceConfig(device="cpu"))
plan = devices.plan_devices(cfg.devices, 0)
g = graph.build(cfg.model, data.load_source(cfg.data), cfg.data, cfg.devices, cfg.optimizer,
                plan, 0)
opts = (tf.compat.v1.profiler.ProfileOptionBuilder(
    tf.compat.v1.profiler.ProfileOptionBuilder.float_operation())
    .with_empty_output().account_displayed_op_only(True)
    .with_node_names(show_name_regexes=["tower_0/.*"]).build())
prof = tf.compat.v1.profiler.profile(g.graph, options=opts)
print(prof.total_float_ops / 8)
"""
    env = child_env()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return float(out.stdout.strip().splitlines()[-1])


def summarize(samples: List[Sample]) -> Dict:
    rates = [s.examples_per_sec for s in samples]
    return {
        "examples_per_sec_median": statistics.median(rates),
        "examples_per_sec_min": min(rates),
        "examples_per_sec_max": max(rates),
        "examples_per_sec_each": [round(r, 1) for r in rates],  # in repetition order
        "first_step_seconds_median": statistics.median(s.first_step_seconds for s in samples),
        "peak_rss_mb_max": max(s.peak_rss_mb for s in samples),
        "repetitions": len(samples),
    }


def paired_ratio(route: List[Sample], base: List[Sample] | None) -> float | None:
    """Median over repetitions of route rate / baseline rate in the same
    repetition. Runs of one repetition are neighbours in time, so a slow
    stretch of the machine (seen here: +-10% over minutes) cancels out of
    each pair; the ratio of medians keeps it."""
    if not base:
        return None
    return statistics.median(r.examples_per_sec / b.examples_per_sec for r, b in zip(route, base))


def rotated(routes: List[str], rep: int) -> List[str]:
    """The order of repetition ``rep``: A B C, then B C A, then C A B, ...

    Each route takes every position in turn, so no route is always the one
    that runs first after the previous workload (or the matmul), or last.
    The cyclic neighbours stay the same: a route is still preceded by the
    same route within a repetition.
    """
    k = rep % len(routes)
    return routes[k:] + routes[:k]


def benchmark(
    workloads, routes, reps: int, quick: bool, towers: int = 2, steps: int = 0, cooldown: float = 0
) -> Dict:
    """Runs every (workload, route) ``reps`` times, interleaved; the results dict.

    ``cooldown`` seconds of idle precede each run: this VM slows a process
    that keeps both cores busy for minutes (a TF1 LeNet-5 step went from
    7.3-7.8 ms to 9.1-9.4 ms after 140 s of matmuls; the TF2 loop, which
    leaves a core idle part of each step, did not slow), so without a pause
    the ratio measures the host's throttling as much as the code.
    """
    seconds = 1.0 if quick else 5.0
    limits = {
        p: matmul_flops_per_sec(seconds=seconds, dtype=DTYPES[p])
        for p in sorted({"fp32", *(precision_of(r) for r in routes)})
    }
    results = {"machine": machine(), "matmul_flops_per_sec": limits["fp32"], "towers": towers,
               "matmul_flops_per_sec_by_precision": limits,
               "quick": quick, "cooldown_seconds": cooldown, "workloads": {}}  # fmt: skip
    for w in workloads:
        flops = flops_per_example(w.model, w.dataset)
        usable = [r for r in routes if r != "tf2_keras" or w.model in models.with_keras()]
        samples: Dict[str, List[Sample]] = {r: [] for r in usable}
        n = steps or (w.quick_steps if quick else w.steps)
        for rep in range(reps):
            for route in rotated(usable, rep):
                if cooldown:
                    time.sleep(cooldown)
                samples[route].append(run_once(w, route, n, towers))
        rows = {r: summarize(s) for r, s in samples.items()}
        base = rows.get(BASELINE, {}).get("examples_per_sec_median")
        for route, row in rows.items():
            rate = row["examples_per_sec_median"]
            row["ratio_to_tf2_custom"] = rate / base if base else None
            row["paired_ratio_to_tf2_custom"] = paired_ratio(samples[route], samples.get(BASELINE))
            row["flops_fraction_of_matmul"] = rate * flops / limits[precision_of(route)]
            if precision_of(route) != "fp32":  # the speed-up over the same route in fp32
                twin = samples.get(fp32_twin(route))
                row["paired_ratio_to_fp32"] = paired_ratio(samples[route], twin)
                row["peak_rss_ratio_to_fp32"] = (
                    row["peak_rss_mb_max"] / rows[fp32_twin(route)]["peak_rss_mb_max"]
                    if twin
                    else None
                )
        results["workloads"][w.name] = {"flops_per_example": flops, "routes": rows}
    return results


def machine() -> Dict:
    import platform

    return {
        "date": time.strftime("%Y-%m-%d"),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_features": cpu_features(),
        "native_bf16": any(x in cpu_features() for x in NATIVE_BF16),
        "onednn": onednn().strip().lower() in ("1", "true"),  # as TensorFlow reads it
    }


def table(results: Dict) -> str:
    lines = [
        f"machine: {results['machine']['cpus']} CPUs, {results['machine']['platform']}, "
        f"{' '.join(results['machine']['cpu_features'])}, oneDNN "
        f"{'on' if results['machine']['onednn'] else 'off'}, "
        f"{results['machine']['date']}; towers: {results['towers']}; "
        f"matmul fp32: {results['matmul_flops_per_sec'] / 1e9:.1f} GFLOP/s"
        + _half_limits(results)
        + (
            f"; {results['cooldown_seconds']:g} s idle before each run"
            if results.get("cooldown_seconds")
            else ""
        ),
        "",
        f"{'workload':<18} {'route':<15} {'ex/s median':>12} {'min-max':>17} "
        f"{'vs tf2':>7} {'%matmul':>8} {'1st step s':>10} {'peak RSS MB':>12}",
    ]
    for name, w in results["workloads"].items():
        for route, r in w["routes"].items():
            ratio = r["paired_ratio_to_tf2_custom"]
            lines.append(
                f"{name:<18} {route:<15} {r['examples_per_sec_median']:>12.1f} "
                f"{r['examples_per_sec_min']:>8.0f}-{r['examples_per_sec_max']:<8.0f} "
                f"{(f'{ratio:.2f}x' if ratio else '-'):>7} "
                f"{100 * r['flops_fraction_of_matmul']:>7.1f}% "
                f"{r['first_step_seconds_median']:>10.2f} {r['peak_rss_mb_max']:>12.0f}"
            )
    lines += _precision_lines(results)
    lines.append(
        "\nex/s: a run's rate is that of its median step (warm-up excluded); median and "
        "min-max over repetitions.\nvs tf2: median over repetitions of the route's rate / "
        "tf2_custom's rate in the same repetition; %matmul: achieved FLOP/s / matmul FLOP/s"
    )
    return "\n".join(lines)


def _half_limits(results: Dict) -> str:
    """The header's half-precision matmul limits and whether bf16 is native."""
    limits = results.get("matmul_flops_per_sec_by_precision", {})
    text = "".join(f", {p}: {v / 1e9:.1f}" for p, v in sorted(limits.items()) if p != "fp32")
    if "bf16" in limits:
        native = results["machine"].get("native_bf16")
        text += (
            " (native bf16)"
            if native
            else " (no native bf16 on this CPU: TensorFlow emulates it; no speed claim)"
        )
    return text


def _precision_lines(results: Dict) -> List[str]:
    """bf16/fp16 routes against the same route in fp32, same repetition."""
    lines = []
    for name, w in results["workloads"].items():
        for route, r in w["routes"].items():
            if r.get("paired_ratio_to_fp32"):
                lines.append(
                    f"{name:<18} {route} / {fp32_twin(route)}: {r['paired_ratio_to_fp32']:.2f}x "
                    f"ex/s, peak RSS {r['peak_rss_ratio_to_fp32']:.2f}x"
                )
    return ["", *lines] if lines else []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tf1_train.bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="about a minute: fewer steps")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per route")
    parser.add_argument("--out", default="bench_results.json")
    parser.add_argument("--workloads", default=",".join(w.name for w in WORKLOADS))
    parser.add_argument(
        "--routes", default=",".join(DEFAULT_ROUTES), help=f"from {', '.join(ROUTES)}"
    )
    parser.add_argument("--steps", type=int, default=0, help="override steps per run (tests)")
    parser.add_argument(
        "--cooldown",
        type=float,
        default=0.0,
        help="seconds of idle before each run (see docs/SPEED.md)",
    )
    args = parser.parse_args(argv)
    chosen = [w for w in WORKLOADS if w.name in args.workloads.split(",")]
    routes = [r for r in args.routes.split(",") if r in ROUTES]
    if not chosen or not routes:
        parser.error(
            f"--workloads from {[w.name for w in WORKLOADS]}, --routes from {list(ROUTES)}"
        )
    if args.cooldown < 0:
        parser.error(f"--cooldown={args.cooldown}: seconds of idle, 0 or more")
    reps = args.reps or (1 if args.quick else 7)
    results = benchmark(chosen, routes, reps, args.quick, steps=args.steps, cooldown=args.cooldown)
    print(table(results))
    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
