"""The benchmark's code path with tiny sizes: it runs and its JSON has the schema.

Speed itself is never asserted in tests; ``./run.sh bench`` measures it.
"""

import json

import pytest

from tf1_train import bench

ROUTE_KEYS = {
    "examples_per_sec_median", "examples_per_sec_min", "examples_per_sec_max",
    "first_step_seconds_median", "peak_rss_mb_max", "repetitions",
    "ratio_to_tf2_custom", "paired_ratio_to_tf2_custom", "flops_fraction_of_matmul",
}  # fmt: skip


def test_bench_quick_path_writes_table_and_json(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("TF_ENABLE_ONEDNN_OPTS", raising=False)
    out = tmp_path / "bench.json"
    args = ["--quick", "--workloads=lenet5/digits", "--routes=tf1_ps,tf2_custom,tf2_keras"]
    assert bench.main(args + ["--reps=1", "--steps=12", f"--out={out}"]) == 0
    results = json.loads(out.read_text())
    assert results["matmul_flops_per_sec"] > 0 and results["towers"] == 2
    assert results["machine"]["onednn"] is True  # as the training processes resolve it
    assert set(results["machine"]["cpu_features"]) <= set(bench.ISA_EXTENSIONS)
    workload = results["workloads"]["lenet5/digits"]
    assert workload["flops_per_example"] > 0
    assert set(workload["routes"]) == {"tf1_ps", "tf2_custom", "tf2_keras"}
    for row in workload["routes"].values():
        assert ROUTE_KEYS <= set(row)
        assert row["examples_per_sec_median"] > 0 and row["peak_rss_mb_max"] > 0
        assert row["first_step_seconds_median"] > 0
    assert workload["routes"]["tf2_custom"]["ratio_to_tf2_custom"] == 1.0
    assert workload["routes"]["tf2_custom"]["paired_ratio_to_tf2_custom"] == 1.0
    table = capsys.readouterr().out
    assert "tf1_ps" in table and "matmul fp32" in table and "oneDNN on" in table


def test_routes_are_interleaved_and_take_every_position_in_turn(monkeypatch):
    calls = []
    monkeypatch.setattr(bench, "matmul_flops_per_sec", lambda **kw: 1e9)
    monkeypatch.setattr(bench, "flops_per_example", lambda model, dataset: 1e6)
    monkeypatch.setattr(
        bench,
        "run_once",
        lambda w, route, n, towers: calls.append(route) or bench.Sample(100.0, 1.0, 5.0),
    )
    routes = ["tf1_ps", "tf1_replicated", "tf2_custom"]
    monkeypatch.setattr(bench.time, "sleep", lambda s: calls.append(f"sleep {s}"))
    bench.benchmark([bench.WORKLOADS[0]], routes, reps=3, quick=True, cooldown=0)
    assert [calls[i : i + 3] for i in (0, 3, 6)] == [
        ["tf1_ps", "tf1_replicated", "tf2_custom"],
        ["tf1_replicated", "tf2_custom", "tf1_ps"],
        ["tf2_custom", "tf1_ps", "tf1_replicated"],
    ]


def test_cooldown_idles_before_every_run_and_is_in_the_json(monkeypatch):
    calls = []
    monkeypatch.setattr(bench, "matmul_flops_per_sec", lambda **kw: 1e9)
    monkeypatch.setattr(bench, "flops_per_example", lambda model, dataset: 1e6)
    monkeypatch.setattr(bench.time, "sleep", lambda s: calls.append(f"sleep {s}"))
    monkeypatch.setattr(
        bench,
        "run_once",
        lambda w, route, n, towers: calls.append(route) or bench.Sample(100.0, 1.0, 5.0),
    )
    results = bench.benchmark([bench.WORKLOADS[0]], ["tf1_ps", "tf2_custom"], 2, True, cooldown=30)
    assert calls == [
        *["sleep 30", "tf1_ps", "sleep 30", "tf2_custom"],
        *["sleep 30", "tf2_custom", "sleep 30", "tf1_ps"],
    ]
    assert results["cooldown_seconds"] == 30
    assert "30 s idle before each run" in bench.table(results)


def test_negative_cooldown_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--cooldown=-1"])
    assert exit_info.value.code == 2
    assert "--cooldown=-1.0: seconds of idle, 0 or more" in capsys.readouterr().err


@pytest.mark.parametrize("value, on", [("true", True), ("1", True), ("0", False), ("false", False)])
def test_machine_reports_onednn_as_tensorflow_reads_the_variable(monkeypatch, value, on):
    monkeypatch.setenv("TF_ENABLE_ONEDNN_OPTS", value)
    assert bench.machine()["onednn"] is on
    assert bench.child_env()["TF_ENABLE_ONEDNN_OPTS"] == value  # passed on unchanged


def test_half_precision_routes_use_their_own_matmul_limit_and_pair_with_fp32(monkeypatch):
    limits = {"float32": 1e9, "bfloat16": 4e9}
    monkeypatch.setattr(bench, "matmul_flops_per_sec", lambda dtype="float32", **kw: limits[dtype])
    monkeypatch.setattr(bench, "flops_per_example", lambda model, dataset: 1e6)
    rate = {"tf1_ps": 100.0, "tf1_ps_bf16": 150.0}
    monkeypatch.setattr(
        bench, "run_once", lambda w, route, n, towers: bench.Sample(rate[route], 1.0, 5.0)
    )
    results = bench.benchmark([bench.WORKLOADS[0]], ["tf1_ps", "tf1_ps_bf16"], 2, True)
    assert results["matmul_flops_per_sec_by_precision"] == {"fp32": 1e9, "bf16": 4e9}
    rows = results["workloads"][bench.WORKLOADS[0].name]["routes"]
    assert rows["tf1_ps_bf16"]["flops_fraction_of_matmul"] == pytest.approx(150 * 1e6 / 4e9)
    assert rows["tf1_ps"]["flops_fraction_of_matmul"] == pytest.approx(100 * 1e6 / 1e9)
    assert rows["tf1_ps_bf16"]["paired_ratio_to_fp32"] == pytest.approx(1.5)
    text = bench.table(results)
    assert "tf1_ps_bf16 / tf1_ps: 1.50x" in text
    native = results["machine"]["native_bf16"]
    assert ("no native bf16" in text) == (not native)
    assert "tf1_ps_fp16" in bench.ROUTES and "tf1_ps_fp16" not in bench.DEFAULT_ROUTES
