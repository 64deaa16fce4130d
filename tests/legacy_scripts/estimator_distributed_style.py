"""The ways TF 1.x Estimator code bases trained on several devices, in one
program: ``RunConfig(train_distribute=MirroredStrategy(...))`` (towers in one
process; the input_fn's batch is each tower's); a TF_CONFIG cluster
(between-graph replication, as before distribution strategies: ``RunConfig()``
reads the cluster and this task from TF_CONFIG, the Estimator places its
variables on the ps task and ``train_and_evaluate`` starts this task's gRPC
server; a ps task then serves until killed; the chief waits for the worker's
session before its first step); and a strategy on a TF_CONFIG cluster
(``MultiWorkerMirroredStrategy`` or ``ParameterServerStrategy``:
``train_and_evaluate`` runs each task through the distribute coordinator; an
``evaluator`` task evaluates each checkpoint). Each prints where its towers or
variables are, how many steps this process ran, and what it evaluated.
Written for tf1_train's tests; ``import tensorflow as tf`` as on TF 1.x, so
it runs through ``python -m tf1_train.compat --v1``.

python estimator_distributed_style.py MODEL_DIR mirrored|contrib_mirrored TOWERS BATCH_PER_TOWER
TF_CONFIG='{"cluster": ..., "task": ...}' python estimator_distributed_style.py MODEL_DIR cluster
TF_CONFIG=... python estimator_distributed_style.py MODEL_DIR ROUTE BATCH
    (ROUTE: multiworker, contrib_collective or ps_strategy)
"""

import json
import os
import sys
import time

import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode):
    hidden = tf.layers.dense(features["x"], 16, activation=tf.nn.relu)
    logits = tf.layers.dense(hidden, 3)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"acc": accuracy})
    print(f"tower {len(towers)} = {logits.device}")
    towers.append(logits.device)
    print(f"devices = {json.dumps(sorted({v.device for v in tf.global_variables()}))}")
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=step)


class CountSteps(tf.train.SessionRunHook):
    """Counts this task's steps; the chief's first step waits (up to a minute)
    until the worker has a session, so both tasks train whatever the load.
    The task is TF_CONFIG's (under a strategy the RunConfig stays local)."""

    ran = 0
    task = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {}).get("type")

    def after_create_session(self, session, coord):
        open(os.path.join(model_dir, f"started_{self.task}"), "w").close()

    def before_run(self, run_context):
        started = os.path.join(model_dir, "started_worker")
        for _ in range(600 if self.task == "chief" and CountSteps.ran == 0 else 0):
            if os.path.exists(started):
                break
            time.sleep(0.1)

    def after_run(self, run_context, run_values):
        CountSteps.ran += 1


towers = []
model_dir, route = sys.argv[1], sys.argv[2]
rng = np.random.RandomState(0)
x = rng.randn(600, 4).astype(np.float32)
y = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 0).astype(np.int32)


def examples():
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y))


def train_input_fn():
    return examples().repeat().shuffle(600).batch(50)


def eval_input_fn():
    return examples().batch(100)


if route in ("mirrored", "contrib_mirrored"):
    if route == "mirrored":
        strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(int(sys.argv[3]))])
    else:  # TF 1.12-1.14's spelling, GPUs by count (CPUs under --gpus_as_cpus)
        strategy = tf.contrib.distribute.MirroredStrategy(num_gpus=int(sys.argv[3]))
    config = tf.estimator.RunConfig(
        train_distribute=strategy,
        tf_random_seed=1,
        session_config=tf.ConfigProto(device_count={"CPU": 2}),
    )
    estimator = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    batch = int(sys.argv[4])
    estimator.train(lambda: examples().repeat().batch(batch), steps=100)  # unshuffled
    result = estimator.evaluate(eval_input_fn)
    print(f"result = {json.dumps({k: float(v) for k, v in result.items()})}")
elif route in ("multiworker", "contrib_collective", "ps_strategy"):
    strategy = {
        "multiworker": tf.distribute.experimental.MultiWorkerMirroredStrategy,
        "contrib_collective": tf.contrib.distribute.CollectiveAllReduceStrategy,
        "ps_strategy": tf.distribute.experimental.ParameterServerStrategy,
    }[route]()
    config = tf.estimator.RunConfig(
        train_distribute=strategy,
        model_dir=model_dir, tf_random_seed=1, save_checkpoints_steps=100,
    )  # fmt: skip
    estimator = tf.estimator.Estimator(model_fn, config=config)
    batch = int(sys.argv[3])
    hooks = [CountSteps()] if route == "ps_strategy" else []  # the others wait in collectives
    train_spec = tf.estimator.TrainSpec(
        lambda: examples().repeat().batch(batch), max_steps=100, hooks=hooks
    )
    eval_spec = tf.estimator.EvalSpec(eval_input_fn, steps=None, start_delay_secs=0,
                                      throttle_secs=0)  # fmt: skip
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    task = json.loads(os.environ["TF_CONFIG"])["task"]["type"]  # RunConfig's stays local
    print(f"done = {task}")
    if task == "chief":
        result = estimator.evaluate(eval_input_fn)
        print(f"result = {json.dumps({k: float(v) for k, v in result.items()})}")
else:
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=500)
    estimator = tf.estimator.Estimator(model_fn, config=config)
    train_spec = tf.estimator.TrainSpec(train_input_fn, max_steps=600, hooks=[CountSteps()])
    eval_spec = tf.estimator.EvalSpec(eval_input_fn, steps=None, throttle_secs=0)
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    print(f"task = {config.task_type} {config.task_id}")
    print(f"ran = {CountSteps.ran}")
    print(f"global_step = {estimator.get_variable_value('global_step')}")
    if config.is_chief:
        print(f"accuracy = {estimator.evaluate(eval_input_fn)['acc']}")
