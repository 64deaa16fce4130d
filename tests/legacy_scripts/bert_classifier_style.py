"""A TF 1.x sentence classifier in the manner of BERT's run_classifier.py and
the code bases copied from it: ``tf.flags``, examples written to a TFRecord
file and read back with ``tf.parse_single_example`` and
``tf.contrib.data.map_and_batch``, a transformer-style encoder with
``tf.contrib.layers.layer_norm``, ``tf.contrib.tpu.TPUEstimator`` with
``use_tpu=False`` (``RunConfig``, ``TPUConfig``, ``PER_HOST_V2``,
``TPUEstimatorSpec`` with ``eval_metrics=(metric_fn, [...])`` and a
``scaffold_fn``), ``tf.train.init_from_checkpoint`` from ``--init_checkpoint``.
Written for tf1_train's tests, not taken from BERT; ``import tensorflow as
tf`` as on TF 1.x and BERT's ``shape[-1].value``, so it runs through
``python -m tf1_train.compat --v1 --v1_shapes``.

python bert_classifier_style.py --output_dir=D [--do_train] [--do_eval] [--do_predict]
    [--init_checkpoint=CKPT]
"""

import os

import numpy as np
import tensorflow as tf

flags = tf.flags
FLAGS = flags.FLAGS
flags.DEFINE_string("output_dir", None, "where checkpoints and results go")
flags.DEFINE_string("init_checkpoint", None, "initial checkpoint")
flags.DEFINE_bool("do_train", False, "train")
flags.DEFINE_bool("do_eval", False, "evaluate")
flags.DEFINE_bool("do_predict", False, "predict")
flags.DEFINE_bool("use_tpu", False, "TPU or not")
flags.DEFINE_integer("train_steps", 150, "training steps")

SEQ, VOCAB, HIDDEN = 12, 20, 32


def make_examples(n, seed):
    """Token ids; the label says whether token 5 comes before token 6."""
    rng = np.random.RandomState(seed)
    ids = rng.randint(7, VOCAB, size=(n, SEQ))
    labels = rng.randint(0, 2, size=n)
    for row, label in zip(ids, labels):
        first, second = sorted(rng.choice(SEQ, 2, replace=False))
        row[first], row[second] = (5, 6) if label else (6, 5)
    return ids, labels


def write_tfrecord(path, ids, labels):
    with tf.python_io.TFRecordWriter(path) as writer:
        for row, label in zip(ids, labels):
            feature = {
                "input_ids": tf.train.Feature(int64_list=tf.train.Int64List(value=list(row))),
                "label_ids": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
            }
            example = tf.train.Example(features=tf.train.Features(feature=feature))
            writer.write(example.SerializeToString())


def file_based_input_fn_builder(input_file, is_training, drop_remainder):
    name_to_features = {
        "input_ids": tf.FixedLenFeature([SEQ], tf.int64),
        "label_ids": tf.FixedLenFeature([], tf.int64),
    }

    def _decode_record(record):
        example = tf.parse_single_example(record, name_to_features)
        return {name: tf.to_int32(t) for name, t in example.items()}

    def input_fn(params):
        d = tf.data.TFRecordDataset(input_file)
        if is_training:
            d = d.repeat().shuffle(buffer_size=100, seed=1)
        return d.apply(
            tf.contrib.data.map_and_batch(
                _decode_record, batch_size=params["batch_size"], drop_remainder=drop_remainder
            )
        )

    return input_fn


def encoder(input_ids, is_training):
    initializer = tf.truncated_normal_initializer(stddev=0.02)
    with tf.variable_scope("bert"):
        table = tf.get_variable("word_embeddings", [VOCAB, HIDDEN], initializer=initializer)
        positions = tf.get_variable("position_embeddings", [SEQ, HIDDEN], initializer=initializer)
        x = tf.contrib.layers.layer_norm(
            tf.gather(table, input_ids) + positions,
            begin_norm_axis=-1,
            begin_params_axis=-1,
            scope="embeddings/LayerNorm",
        )
        with tf.variable_scope("attention"):
            q = tf.layers.dense(x, HIDDEN, name="query", kernel_initializer=initializer)
            k = tf.layers.dense(x, HIDDEN, name="key", kernel_initializer=initializer)
            v = tf.layers.dense(x, HIDDEN, name="value", kernel_initializer=initializer)
            scores = tf.matmul(q, k, transpose_b=True) / np.sqrt(HIDDEN)
            context = tf.matmul(tf.nn.softmax(scores), v)
            if is_training:
                context = tf.nn.dropout(context, keep_prob=0.9)
            x = tf.contrib.layers.layer_norm(
                x + context, begin_norm_axis=-1, begin_params_axis=-1, scope="LayerNorm"
            )
        with tf.variable_scope("pooler"):
            first_token = tf.squeeze(x[:, 0:1, :], axis=1)
            mean = tf.reduce_mean(x, axis=1)
            return tf.layers.dense(
                tf.concat([first_token, mean], 1),
                HIDDEN,
                activation=tf.tanh,
                kernel_initializer=initializer,
            )


def model_fn_builder(init_checkpoint, learning_rate, use_tpu):
    def model_fn(features, labels, mode, params):
        is_training = mode == tf.estimator.ModeKeys.TRAIN
        pooled = encoder(features["input_ids"], is_training)
        # BERT's own line: a Dimension's value, so the program runs under --v1_shapes
        hidden_size = pooled.shape[-1].value
        output_weights = tf.get_variable(
            "output_weights",
            [2, hidden_size],
            initializer=tf.truncated_normal_initializer(stddev=0.02),
        )
        output_bias = tf.get_variable("output_bias", [2], initializer=tf.zeros_initializer())
        logits = tf.nn.bias_add(tf.matmul(pooled, output_weights, transpose_b=True), output_bias)
        probabilities = tf.nn.softmax(logits, axis=-1)
        log_probs = tf.nn.log_softmax(logits, axis=-1)
        one_hot = tf.one_hot(features["label_ids"], depth=2, dtype=tf.float32)
        per_example_loss = -tf.reduce_sum(one_hot * log_probs, axis=-1)
        total_loss = tf.reduce_mean(per_example_loss)
        scaffold_fn = None
        if init_checkpoint:
            assignment_map = {
                v.name.split(":")[0]: v.name.split(":")[0] for v in tf.trainable_variables()
            }
            if use_tpu:

                def tpu_scaffold():
                    tf.train.init_from_checkpoint(init_checkpoint, assignment_map)
                    return tf.train.Scaffold()

                scaffold_fn = tpu_scaffold
            else:
                tf.train.init_from_checkpoint(init_checkpoint, assignment_map)
        if mode == tf.estimator.ModeKeys.TRAIN:
            optimizer = tf.train.AdamOptimizer(learning_rate)
            if use_tpu:
                optimizer = tf.contrib.tpu.CrossShardOptimizer(optimizer)
            train_op = optimizer.minimize(
                total_loss, global_step=tf.train.get_or_create_global_step()
            )
            return tf.contrib.tpu.TPUEstimatorSpec(
                mode=mode, loss=total_loss, train_op=train_op, scaffold_fn=scaffold_fn
            )
        if mode == tf.estimator.ModeKeys.EVAL:

            def metric_fn(per_example_loss, label_ids, logits):
                predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
                return {
                    "eval_accuracy": tf.metrics.accuracy(labels=label_ids, predictions=predictions),
                    "eval_loss": tf.metrics.mean(values=per_example_loss),
                }

            eval_metrics = (metric_fn, [per_example_loss, features["label_ids"], logits])
            return tf.contrib.tpu.TPUEstimatorSpec(
                mode=mode, loss=total_loss, eval_metrics=eval_metrics, scaffold_fn=scaffold_fn
            )
        return tf.contrib.tpu.TPUEstimatorSpec(
            mode=mode, predictions={"probabilities": probabilities}, scaffold_fn=scaffold_fn
        )

    return model_fn


def main(_):
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.gfile.MakeDirs(FLAGS.output_dir)
    is_per_host = tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2
    run_config = tf.contrib.tpu.RunConfig(
        cluster=None,
        master=None,
        model_dir=FLAGS.output_dir,
        save_checkpoints_steps=100,
        tf_random_seed=12345,  # BERT's is unseeded: the test's accuracy bounds hold every run
        tpu_config=tf.contrib.tpu.TPUConfig(
            iterations_per_loop=50, num_shards=8, per_host_input_for_training=is_per_host
        ),
    )
    estimator = tf.contrib.tpu.TPUEstimator(
        use_tpu=FLAGS.use_tpu,
        model_fn=model_fn_builder(FLAGS.init_checkpoint, 3e-3, FLAGS.use_tpu),
        config=run_config,
        train_batch_size=32,
        eval_batch_size=8,
        predict_batch_size=8,
    )
    if FLAGS.do_train:
        train_file = os.path.join(FLAGS.output_dir, "train.tf_record")
        write_tfrecord(train_file, *make_examples(512, 0))
        estimator.train(
            file_based_input_fn_builder(train_file, True, True), max_steps=FLAGS.train_steps
        )
    if FLAGS.do_eval:
        eval_file = os.path.join(FLAGS.output_dir, "eval.tf_record")
        write_tfrecord(eval_file, *make_examples(128, 1))
        result = estimator.evaluate(file_based_input_fn_builder(eval_file, False, False))
        for key in sorted(result):
            print(f"{key} = {result[key]}")
    if FLAGS.do_predict:
        ids, labels = make_examples(16, 2)
        predict_file = os.path.join(FLAGS.output_dir, "predict.tf_record")
        write_tfrecord(predict_file, ids, labels)
        found = estimator.predict(file_based_input_fn_builder(predict_file, False, False))
        predicted = [int(np.argmax(p["probabilities"])) for p in found]
        print(f"predict_accuracy = {np.mean(np.array(predicted) == labels)}")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    tf.app.run()
