"""Bad-input rows for the legacy training rules' flags (tests/test_training_rules.py):
each out of range; tests/test_bad_input.py runs them with the rest of the table."""

from __future__ import annotations

from tests.bad_input_rows import Bad

TF2_MAIN = "tf1_train.tf2.main"

# The legacy training rules (tests/test_training_rules.py): each out of range.
RULES = [
    Bad("adam_beta1=1", ["--adam_beta1=1"], "--adam_beta1: got 1.0", "must be in [0, 1)"),
    Bad("adam_beta2<0", ["--adam_beta2=-0.1"], "--adam_beta2: got -0.1", "must be in [0, 1)"),
    Bad("adam_epsilon=0", ["--adam_epsilon=0"], "--adam_epsilon: got 0.0", "must be > 0"),
    Bad("rmsprop_decay=1", ["--rmsprop_decay=1"], "--rmsprop_decay", "must be in [0, 1)"),
    Bad("rmsprop_momentum=2", ["--rmsprop_momentum=2"], "--rmsprop_momentum", "in [0, 1)"),
    Bad("rmsprop_epsilon<0", ["--rmsprop_epsilon=-1e-10"], "--rmsprop_epsilon", "must be > 0"),
    Bad(
        "adagrad_initial_accumulator=0",
        ["--optimizer=adagrad", "--adagrad_initial_accumulator=0"],
        "--adagrad_initial_accumulator",
        "must be > 0",
    ),
    Bad("lr_end<0", ["--lr_schedule=polynomial", "--lr_end=-1"], "--lr_end", "must be >= 0"),
    Bad("lr_power=0", ["--lr_schedule=polynomial", "--lr_power=0"], "--lr_power", "must be > 0"),
    Bad("lr_staircase constant", ["--lr_staircase"], "--lr_staircase", "exponential only"),
    Bad("lr_warmup_steps<0", ["--lr_warmup_steps=-5"], "--lr_warmup_steps", "must be >= 0"),
    Bad("tf2 keras warmup", ["--route=keras", "--lr_warmup_steps=5"], "no --lr_warmup_steps",
        "use --route=custom", module=TF2_MAIN),
    Bad("gradient_clip_norm<0", ["--gradient_clip_norm=-1"], "--gradient_clip_norm", ">= 0"),
    Bad("gradient_clip_norm=nan", ["--gradient_clip_norm=nan"], "--gradient_clip_norm", ">= 0"),
    Bad("moving_average_decay=1", ["--moving_average_decay=1"], "--moving_average_dec", "[0, 1)"),
    Bad(
        "tf2 keras moving_average_decay",
        ["--route=keras", "--moving_average_decay=0.99"],
        "--moving_average_decay",
        "use --route=custom",
        module=TF2_MAIN,
    ),
    Bad(
        "tf2 keras clip on 2 replicas",
        ["--route=keras", "--num_gpus=2", "--gradient_clip_norm=1"],
        "--gradient_clip_norm",
        "use --route=custom or --num_gpus=1",
        module=TF2_MAIN,
    ),
    Bad("precision=fp8", ["--precision=fp8"], "--precision", "fp32, bf16, fp16"),
    Bad("loss_scale with bf16", ["--precision=bf16", "--loss_scale=128"], "--loss_scale",
        "fp16 only"),
    Bad("loss_scale<1", ["--precision=fp16", "--loss_scale=0.5"], "--loss_scale", "a number >= 1"),
    Bad("loss_scale=big", ["--precision=fp16", "--loss_scale=big"], "--loss_scale", "dynamic, or"),
    Bad("auto_mixed_precision with bf16", ["--auto_mixed_precision", "--precision=bf16"],
        "--auto_mixed_precision", "--precision=fp32"),
    Bad("tf2 auto_mixed_precision", ["--auto_mixed_precision"], "--auto_mixed_precision",
        "--precision=bf16 or fp16", module=TF2_MAIN),
    Bad("tf2 keras fixed loss_scale", ["--route=keras", "--precision=fp16", "--loss_scale=128"],
        "--loss_scale=128", "use --loss_scale=dynamic or --route=custom", module=TF2_MAIN),
]  # fmt: skip
