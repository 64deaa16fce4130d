"""A TF 1.x Estimator program in the manner of TensorFlow's "Build a
Convolutional Neural Network using Estimators" tutorial (cnn_mnist.py) and the
code bases grown from it: MNIST through ``tf.contrib.learn.datasets``, a
``model_fn`` of ``tf.layers``, ``tf.estimator.inputs.numpy_input_fn``, a
``LoggingTensorHook``, then what those code bases added: a second Estimator on
the same ``model_dir`` that resumes, ``predict``, ``train_and_evaluate`` with a
``LatestExporter``, and the exported SavedModel loaded in a new graph.
Written for tf1_train's tests, not taken from TensorFlow; ``import tensorflow
as tf`` as on TF 1.x, so it runs through ``python -m tf1_train.compat --v1``.

python estimator_cnn_style.py --model_dir=M --steps=N   (MNIST files in ./MNIST-data)
"""

import glob
import os

import numpy as np
import tensorflow as tf

tf.logging.set_verbosity(tf.logging.INFO)
flags = tf.app.flags
flags.DEFINE_string("model_dir", "/tmp/mnist_convnet_model", "where the Estimator saves")
flags.DEFINE_integer("steps", 200, "training steps of the first train() call")
FLAGS = flags.FLAGS


def cnn_model_fn(features, labels, mode, params):
    input_layer = tf.reshape(features["x"], [-1, 28, 28, 1])
    conv1 = tf.layers.conv2d(input_layer, filters=params["filters"], kernel_size=[5, 5],
                             padding="same", activation=tf.nn.relu)  # fmt: skip
    pool1 = tf.layers.max_pooling2d(inputs=conv1, pool_size=[2, 2], strides=2)
    conv2 = tf.layers.conv2d(pool1, filters=2 * params["filters"], kernel_size=[5, 5],
                             padding="same", activation=tf.nn.relu)  # fmt: skip
    pool2 = tf.layers.max_pooling2d(inputs=conv2, pool_size=[2, 2], strides=2)
    pool2_flat = tf.reshape(pool2, [-1, 7 * 7 * 2 * params["filters"]])
    dense = tf.layers.dense(inputs=pool2_flat, units=params["dense"], activation=tf.nn.relu,
                            kernel_regularizer=tf.contrib.layers.l2_regularizer(1e-4))  # fmt: skip
    dropout = tf.layers.dropout(dense, rate=0.4, training=mode == tf.estimator.ModeKeys.TRAIN)
    logits = tf.layers.dense(inputs=dropout, units=10)
    predictions = {
        "classes": tf.argmax(input=logits, axis=1),
        "probabilities": tf.nn.softmax(logits, name="softmax_tensor"),
    }
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode=mode,
            predictions=predictions,
            export_outputs={"classify": tf.estimator.export.PredictOutput(predictions)},
        )
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    loss += tf.losses.get_regularization_loss()
    if mode == tf.estimator.ModeKeys.TRAIN:
        optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.05)
        train_op = optimizer.minimize(loss=loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)
    eval_metric_ops = {
        "accuracy": tf.metrics.accuracy(labels=labels, predictions=predictions["classes"])
    }
    return tf.estimator.EstimatorSpec(mode=mode, loss=loss, eval_metric_ops=eval_metric_ops)


def serving_input_receiver_fn():
    images = tf.placeholder(tf.float32, [None, 784], name="images")
    return tf.estimator.export.ServingInputReceiver({"x": images}, {"x": images})


def main(unused_argv):
    # load_dataset("mnist") holds out 5,000 for validation: more than the test files have.
    mnist = tf.contrib.learn.datasets.mnist.read_data_sets("MNIST-data", validation_size=200)
    train_data = mnist.train.images
    train_labels = np.asarray(mnist.train.labels, dtype=np.int32)
    eval_data = mnist.test.images
    eval_labels = np.asarray(mnist.test.labels, dtype=np.int32)
    params = {"filters": 8, "dense": 64}
    config = tf.estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=100)
    mnist_classifier = tf.estimator.Estimator(
        model_fn=cnn_model_fn, model_dir=FLAGS.model_dir, params=params, config=config)  # fmt: skip
    logging_hook = tf.train.LoggingTensorHook(tensors={"probabilities": "softmax_tensor"},
                                              every_n_iter=50)  # fmt: skip
    train_input_fn = tf.estimator.inputs.numpy_input_fn(
        x={"x": train_data}, y=train_labels, batch_size=50, num_epochs=None, shuffle=True
    )
    eval_input_fn = tf.estimator.inputs.numpy_input_fn(
        x={"x": eval_data}, y=eval_labels, num_epochs=1, shuffle=False)  # fmt: skip
    mnist_classifier.train(input_fn=train_input_fn, steps=FLAGS.steps, hooks=[logging_hook])
    eval_results = mnist_classifier.evaluate(input_fn=eval_input_fn)
    print("first_accuracy = {}".format(eval_results["accuracy"]))
    print("first_loss = {}".format(eval_results["loss"]))
    print("first_step = {}".format(eval_results["global_step"]))

    resumed = tf.estimator.Estimator(model_fn=cnn_model_fn, model_dir=FLAGS.model_dir,
                                     params=params, config=config)  # fmt: skip
    train_spec = tf.estimator.TrainSpec(input_fn=train_input_fn, max_steps=FLAGS.steps + 100)
    exporter = tf.estimator.LatestExporter("mnist", serving_input_receiver_fn)
    eval_spec = tf.estimator.EvalSpec(input_fn=eval_input_fn, steps=None, exporters=[exporter],
                                      throttle_secs=0)  # fmt: skip
    final, _ = tf.estimator.train_and_evaluate(resumed, train_spec, eval_spec)
    print("final_accuracy = {}".format(final["accuracy"]))
    print("final_step = {}".format(final["global_step"]))

    predicted = list(resumed.predict(tf.estimator.inputs.numpy_input_fn(
        x={"x": eval_data[:20]}, num_epochs=1, shuffle=False)))  # fmt: skip
    classes = [int(p["classes"]) for p in predicted]
    print(f"predict_accuracy20 = {np.mean(np.array(classes) == eval_labels[:20])}")
    export_dir = sorted(glob.glob(os.path.join(FLAGS.model_dir, "export", "mnist", "*")))[-1]
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], export_dir)
        signature = meta.signature_def["classify"]
        served = sess.run(signature.outputs["probabilities"].name,
                          {signature.inputs["x"].name: eval_data[:20]})  # fmt: skip
    probabilities = np.stack([p["probabilities"] for p in predicted])
    print(f"served_max_diff = {np.abs(served - probabilities).max()}")
    print("served_classes_equal = %s" % (served.argmax(1).tolist() == classes))


if __name__ == "__main__":
    tf.app.run()
