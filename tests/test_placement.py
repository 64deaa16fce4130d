"""The placement report, built from the partition graphs of a real step."""

import pytest
import tensorflow as tf

from tests.conftest import run_cli, small_config
from tf1_train import devices, placement, train, variable_update
from tf1_train.config import DeviceConfig

CPU0, CPU1 = "/device:CPU:0", "/device:CPU:1"


def _report(tmp_path, **kw):
    result = train.run(small_config(tmp_path, towers=2, steps=2, **kw), gpus_found=0)
    return result.summary


@pytest.mark.parametrize("model", ["mlp", "lenet5"])
def test_parameter_server_variables_on_cpu0_and_each_tower_on_its_device(tmp_path, model):
    summary = _report(tmp_path, model=model, optimizer="momentum")
    where = summary["placement"]
    assert where["unexpected"] == []
    cpu0, cpu1 = where["devices"][CPU0], where["devices"][CPU1]
    n = 6 if model == "mlp" else 10
    assert cpu0["model_variables"] == n and cpu0["other_variables"] == n + 1  # slots, step
    assert cpu1["model_variables"] == 0 and cpu1["other_variables"] == 0
    assert cpu1["ops"] > 0
    assert summary["variable_devices"] == {CPU0: n}
    # Forward and gradient MatMul/Conv2D of each tower ran on its own device only.
    assert list(where["tower_compute"][0]) == [CPU0]
    assert list(where["tower_compute"][1]) == [CPU1]
    assert where["tower_compute"][0][CPU0] == where["tower_compute"][1][CPU1] > n // 2


@pytest.mark.parametrize("model", ["mlp", "lenet5"])
def test_gpu_parameter_device_spreads_bytes_greedily(tmp_path, model):
    summary = _report(tmp_path, model=model, optimizer="momentum", local_parameter_device="gpu")
    where = summary["placement"]
    assert where["unexpected"] == []
    variables = {name: tuple(v) for name, v in where["variables"].items()}
    model_vars = {name: v for name, v in variables.items() if v[2]}
    loads = [where["devices"][d]["model_bytes"] for d in (CPU0, CPU1)]
    largest = max(size for _, size, _ in model_vars.values())
    # Greedy least-loaded: the gap is at most one variable; within 20% unless
    # that variable alone is bigger than 20% of the heavier device.
    assert max(loads) - min(loads) <= max(0.2 * max(loads), largest)
    assert sum(loads) == sum(size for _, size, _ in model_vars.values())
    assert all(load > 0 for load in loads)
    # Optimizer slots live with their variable.
    for name, (device, _, _) in variables.items():
        if name.endswith("/Momentum"):
            assert device == variables[name[: -len("/Momentum")]][0], name


def test_replicated_holds_a_copy_per_tower_device(tmp_path):
    summary = _report(tmp_path, model="mlp", variable_update="replicated")
    assert summary["placement"]["unexpected"] == []
    assert summary["variable_devices"] == {CPU0: 6, CPU1: 6}


def _node(name, op, device, **shape):
    node = tf.compat.v1.NodeDef(name=name, op=op, device=f"/job:localhost/replica:0/task:0{device}")
    if op == "VarHandleOp":
        node.attr["dtype"].type = tf.float32.as_datatype_enum
        for size in shape["dims"]:
            node.attr["shape"].shape.dim.add(size=size)
    return node


def test_ops_and_variables_on_the_wrong_device_are_reported():
    plan = devices.plan_devices(DeviceConfig(num_towers=2, device="cpu"), 0)
    graph_def = tf.compat.v1.GraphDef()
    graph_def.node.extend(
        [
            _node("fc/weights", "VarHandleOp", CPU1, dims=[4, 8]),
            _node("fc/weights/Momentum", "VarHandleOp", CPU1, dims=[4, 8]),
            _node("tower_0/fc/MatMul", "_FusedMatMul", CPU0),
            _node("tower_1/fc/MatMul", "MatMul", CPU0),
        ]
    )
    mode = variable_update.get("parameter_server")
    report = placement.build([graph_def], ["fc/weights"], plan, mode)
    assert report.unexpected == [
        f"tower 1: 1 MatMul/Conv2D ops on {CPU0}, not {CPU1}",
        f"variable fc/weights on {CPU1}, not on {CPU0}",
    ]
    assert report.devices[CPU1] == placement.DeviceLoad(2, 1, 128, 1, 128)
    assert report.tower_compute == [{CPU0: 1}, {CPU0: 1}]


def test_placement_report_flag_prints_it(tmp_path):
    out = run_cli(
        ["--num_gpus=2", "--train_steps=2", "--placement_report", f"--train_dir={tmp_path}"]
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "placement (from the runtime's partition graphs):" in out.stdout
    assert f"tower 1 MatMul/Conv2D on: {CPU1} (" in out.stdout
    assert "unexpected: none" in out.stdout


@pytest.mark.parametrize("mode, warned", [("replicated", True), ("parameter_server", False)])
def test_a_models_own_device_pin_against_the_mode_is_one_warning_line(tmp_path, mode, warned):
    """Replicated mode wants tower 1's copy on CPU:1; the model's /cpu:0 pin
    keeps it on CPU:0 (parameter_server mode keeps variables there anyway)."""
    out = run_cli(
        ["--model=tests.user_models.pinned:build", "--num_gpus=2", f"--variable_update={mode}",
         "--train_steps=2", f"--train_dir={tmp_path}"]
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("warning: placement")]
    if not warned:
        assert lines == []
        return
    assert lines == [
        f"warning: placement is not what --variable_update=replicated plans: variable v1/w on "
        f"{CPU0}, not on {CPU1}; a tf.device() in the model (or in a legacy cell it uses: "
        "contrib's EmbeddingWrapper pins /cpu:0) overrides tf1_train's placement "
        "(remove it: tf1_train places variables and towers)"
    ]
