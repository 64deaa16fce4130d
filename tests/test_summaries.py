"""TensorBoard event files, read back with TensorBoard's own event reader."""

import pytest
from tensorboard.backend.event_processing import event_accumulator as ea

from tests.conftest import small_config
from tf1_train import train


def _events(train_dir):
    acc = ea.EventAccumulator(str(train_dir), size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0})
    return acc.Reload()


def _steps(acc, tag):
    return [e.step for e in acc.Scalars(tag)]


def test_scalars_graph_and_run_metadata_are_in_the_event_files(tmp_path):
    cfg = small_config(
        tmp_path,
        model="lenet5",
        towers=2,
        steps=6,
        save_summary_steps=2,
        num_warmup_steps=1,
        eval_every=3,
    )
    result = train.run(cfg, gpus_found=0)
    acc = _events(tmp_path)
    assert _steps(acc, "loss") == [2, 4, 6]
    assert acc.Scalars("loss")[-1].value == result.losses[-1]
    assert _steps(acc, "learning_rate") == [2, 4, 6]
    assert _steps(acc, "examples_per_sec") == [2, 4, 6]
    assert all(e.value > 0 for e in acc.Scalars("examples_per_sec"))
    assert _steps(acc, "test_accuracy") == [3, 6]
    assert acc.Tags()["histograms"] == []  # off by default
    # The graph, and one step's RunMetadata: placement and timings per device.
    nodes = {n.name for n in acc.Graph().node}
    assert {"tower_0/xent", "tower_1/xent", "mean_loss"} <= nodes
    (tag,) = acc.Tags()["run_metadata"]
    devices = {d.device for d in acc.RunMetadata(tag).step_stats.dev_stats}
    assert {d.rsplit("/", 1)[-1] for d in devices} >= {"device:CPU:0", "device:CPU:1"}


def test_summary_verbosity_two_adds_histograms_and_zero_writes_nothing(tmp_path):
    train.run(small_config(tmp_path / "v2", steps=2, summary_verbosity=2), gpus_found=0)
    histograms = _events(tmp_path / "v2").Tags()["histograms"]
    assert sorted(histograms) == sorted(
        f"summaries/{layer}/{kind}"
        for layer in ("fc1", "fc2", "logits")
        for kind in ("weights", "biases")
    )
    train.run(small_config(tmp_path / "v0", steps=2, summary_verbosity=0), gpus_found=0)
    assert not list((tmp_path / "v0").glob("events.out.tfevents.*"))


MODEL = "tests.user_models.summarized:build"


@pytest.mark.parametrize("mode", ["parameter_server", "replicated"])
def test_the_models_own_summaries_are_written_from_tower_0(tmp_path, capsys, mode):
    cfg = small_config(
        tmp_path, model=MODEL, towers=2, batch=8, steps=4, save_summary_steps=2,
        variable_update=mode,
    )  # fmt: skip
    train.run(cfg, gpus_found=0)
    assert (
        "model summaries: 2 op(s) in tower 0's SUMMARIES collection, written every "
        "--save_summary_steps; the other towers' 2 are not written" in capsys.readouterr().out
    )
    acc = _events(tmp_path)
    (hist,) = acc.Tags()["histograms"]
    sparsity = [t for t in acc.Tags()["scalars"] if t.endswith("sparsity")]
    assert hist.endswith("tower_0/hidden/activations") and len(sparsity) == 1
    assert "tower_0/" in sparsity[0]
    assert [e.step for e in acc.Histograms(hist)] == [2, 4]
    assert _steps(acc, sparsity[0]) == [2, 4]
    for event in acc.Histograms(hist):
        # one tower's batch of 8 x 12 ReLU activations, not both towers'
        assert event.histogram_value.num == 8 * 12 and event.histogram_value.min >= 0
    zero = [e.value for e in acc.Scalars(sparsity[0])]
    assert all(0 <= z <= 1 for z in zero)


def test_unwritten_model_summaries_are_said_to_be_unwritten(tmp_path, capsys):
    cfg = small_config(tmp_path, model=MODEL, steps=2, summary_verbosity=0)
    train.run(cfg, gpus_found=0)
    out = capsys.readouterr().out
    assert "model summaries: 2 op(s) in tower 0's SUMMARIES collection, not written" in out
    assert "(--summary_verbosity=0)" in out
