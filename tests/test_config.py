"""Config validation: the library refuses bad values with the flag's name."""

import dataclasses
import math

import pytest

from tf1_train import config as cfglib
from tf1_train.errors import UserError


@pytest.mark.parametrize(
    "section, field, value, flag",
    [
        (cfglib.DataConfig, "dataset", "imagenet", "--dataset"),
        (cfglib.DataConfig, "batch_size", 0, "--batch_size"),
        (cfglib.DeviceConfig, "num_towers", 0, "--num_gpus"),
        (cfglib.DeviceConfig, "device", "tpu", "--device"),
        (cfglib.DeviceConfig, "variable_update", "allreduce", "--variable_update"),
        (cfglib.DeviceConfig, "gpu_memory_fraction", 1.5, "--gpu_memory_fraction"),
        (cfglib.DeviceConfig, "onednn", "yes", "--onednn"),
        (cfglib.OptimizerConfig, "learning_rate", 0.0, "--learning_rate"),
        (cfglib.OptimizerConfig, "learning_rate", math.nan, "--learning_rate"),
        (cfglib.OptimizerConfig, "optimizer", "lbfgs", "--optimizer"),
        (cfglib.OptimizerConfig, "momentum", 1.0, "--momentum"),
        (cfglib.OptimizerConfig, "lr_boundaries", (20, 10), "--lr_boundaries"),
        (cfglib.OptimizerConfig, "adam_beta2", 1.0, "--adam_beta2"),
        (cfglib.OptimizerConfig, "rmsprop_epsilon", 0.0, "--rmsprop_epsilon"),
        (cfglib.OptimizerConfig, "gradient_clip_norm", math.inf, "--gradient_clip_norm"),
        (cfglib.OptimizerConfig, "moving_average_decay", -0.5, "--moving_average_decay"),
        (cfglib.OptimizerConfig, "lr_staircase", True, "--lr_staircase"),
        (cfglib.RunConfig, "train_steps", -1, "--train_steps"),
    ],
)
def test_bad_value_names_its_flag(section, field, value, flag):
    defaults = {"train_dir": "x"} if section is cfglib.RunConfig else {}
    with pytest.raises(UserError, match=f"^{flag}"):
        section(**{**defaults, field: value}).validate()


def test_growth_and_memory_fraction_are_refused_together():
    # TensorFlow honours only one of them (PORTING.md P11).
    dc = cfglib.DeviceConfig(allow_growth=True, gpu_memory_fraction=0.5)
    with pytest.raises(UserError, match="--allow_growth: cannot be combined"):
        dc.validate()


def test_piecewise_needs_boundaries():
    oc = cfglib.OptimizerConfig(lr_schedule="piecewise")
    with pytest.raises(UserError, match="--lr_boundaries"):
        oc.validate()


def test_real_datasets_need_data_dir_unless_synthetic():
    with pytest.raises(UserError, match="--data_dir"):
        cfglib.DataConfig(dataset="mnist").validate()
    cfglib.DataConfig(dataset="mnist", use_synthetic_data=True).validate()


def test_config_is_frozen():
    c = cfglib.Config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.model = "mlp"


def test_importing_config_does_not_import_tensorflow():
    import subprocess
    import sys

    code = "import sys, tf1_train.config, tf1_train.main; print('tensorflow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize(
    "choice, environ, value",
    [(None, {}, "1"), (None, {"TF_ENABLE_ONEDNN_OPTS": "0"}, "0"), ("off", {}, "0"),
     ("on", {"TF_ENABLE_ONEDNN_OPTS": "0"}, "1")],
)  # fmt: skip
def test_onednn_choice_sets_the_variable_tensorflow_reads(choice, environ, value):
    from tf1_train.env import choose_onednn

    assert choose_onednn(choice, environ) == value
    assert environ == {"TF_ENABLE_ONEDNN_OPTS": value}


def test_every_config_field_is_set_by_a_flag_of_its_name():
    """Adding a flag takes its definition and its config field, nothing more:
    main.config_from_flags reads each field from the flag of the same name."""
    from tf1_train import main

    for section in dataclasses.fields(cfglib.Config):
        default = section.default
        fields = dataclasses.fields(default) if dataclasses.is_dataclass(default) else [section]
        for field in fields:
            if field.name in main._NO_FLAG:
                continue
            assert main._FLAG_OF_FIELD.get(field.name, field.name) in main.F, field.name
