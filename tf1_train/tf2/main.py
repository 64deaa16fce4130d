"""Trains a model the TF2 way, with the same flags as tf1_train.main: a
tf.function step under MirroredStrategy (--route=custom), or Keras fit
(--route=keras). Same data, checkpoints (TF1 names) and run_summary.json.

    python -m tf1_train.tf2.main --num_gpus=2                # lenet5 on the embedded digits
    python -m tf1_train.tf2.main --route=keras --model=mlp

Docs: README.md and docs/TF2.md in the repository.
"""

# For developers: the flags are those of tf1_train/main.py (imported, not
# redefined), plus --route; this entry point never leaves eager mode.

from __future__ import annotations

import sys

from absl import app, flags

from tf1_train import env, models, warm_start
from tf1_train import main as tf1_main
from tf1_train.errors import EXIT_DIVERGED, TrainingDiverged, UserError, signal_status
from tf1_train.tf2 import flag_checks

flags.DEFINE_enum(
    "route",
    "custom",
    ["custom", "keras"],
    "TF2 route: tf.function + MirroredStrategy custom loop, or Keras Model.fit.",
)


def main(argv) -> None:
    del argv
    try:
        cfg = tf1_main.config_from_flags()
    except UserError as e:
        tf1_main.fail(str(e))
    try:
        warnings = flag_checks.check(cfg, tf1_main.F.route)
    except UserError as e:
        tf1_main.fail(str(e))
    for line in warnings:
        print(line, file=sys.stderr, flush=True)
    env.quiet_tensorflow(cfg.devices.log_device_placement)
    env.choose_onednn(cfg.devices.onednn)
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    if cfg.devices.intra_op_threads:  # as TF1's ConfigProto, before the runtime starts
        tf.config.threading.set_intra_op_parallelism_threads(cfg.devices.intra_op_threads)
    if cfg.devices.inter_op_threads:
        tf.config.threading.set_inter_op_parallelism_threads(cfg.devices.inter_op_threads)
    if cfg.devices.log_device_placement:
        tf.debugging.set_log_device_placement(True)
    from tf1_train import prelude
    from tf1_train.tf2 import models as tf2_models

    if tf1_main.F.route == "keras":
        from tf1_train.tf2.keras_fit import run
    else:
        from tf1_train.tf2.train import run

    try:
        models.import_user_code(cfg, tf2=True)
        env.freeze_imports()
        if cfg.run.init_checkpoint:
            warm_start.resolve(cfg.run.init_checkpoint)
        tf2_models.check_twin(cfg.model, cfg.tf2_model)
        with prelude.writing_train_dir(cfg):  # one writer per train_dir, as on TF1
            result = run(cfg)
    except UserError as e:
        tf1_main.fail(str(e))
    except TrainingDiverged as e:
        tf1_main.fail(str(e), EXIT_DIVERGED)
    if result.stop_signal:  # saved: 128 + N, as the TF1 entry point
        sys.exit(signal_status(result.stop_signal))


if __name__ == "__main__":
    app.run(main, flags_parser=tf1_main.parse_flags)
