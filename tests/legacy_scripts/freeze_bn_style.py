"""A TF 1.x export in facenet's manner: a tf-slim network whose batch norm
updates its moving averages in place under a placeholder ``phase_train``,
trained a few steps, frozen with the freeze scripts' batch-norm fix
(TensorFlow issue 3628: RefSwitch -> Switch, AssignSub -> Sub), and run
from the frozen graph. Prints how many RefSwitch nodes the graph had and
the largest difference between the frozen graph's embeddings and the
session's, in each phase."""

import numpy as np
import tensorflow as tf
import tensorflow.contrib.slim as slim


def build():
    images = tf.placeholder(tf.float32, [None, 8, 8, 3], name="input")
    phase_train = tf.placeholder(tf.bool, name="phase_train")
    bn = {"decay": 0.9, "epsilon": 0.001, "updates_collections": None, "is_training": phase_train}
    with slim.arg_scope([slim.conv2d], normalizer_fn=slim.batch_norm, normalizer_params=bn):
        net = slim.conv2d(images, 4, 3, scope="conv1")
        net = slim.conv2d(net, 4, 3, scope="conv2")
    embeddings = tf.identity(tf.reduce_mean(net, [1, 2]), name="embeddings")
    return images, phase_train, embeddings


def fix_batch_norm_nodes(graph_def):
    for node in graph_def.node:
        if node.op == "RefSwitch":
            node.op = "Switch"
            for index in range(len(node.input)):
                if "moving_" in node.input[index]:
                    node.input[index] = node.input[index] + "/read"
        elif node.op == "AssignSub":
            node.op = "Sub"
            if "use_locking" in node.attr:
                del node.attr["use_locking"]


def main():
    x = np.random.RandomState(0).rand(6, 8, 8, 3).astype(np.float32)
    images, phase_train, embeddings = build()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(embeddings, {images: x, phase_train: True})
        want = {}
        for phase in (True, False):
            want[phase] = sess.run(embeddings, {images: x, phase_train: phase})
        graph_def = sess.graph.as_graph_def()
        print("ref_switch_nodes =", sum(n.op == "RefSwitch" for n in graph_def.node))
        fix_batch_norm_nodes(graph_def)
        frozen = tf.graph_util.convert_variables_to_constants(sess, graph_def, ["embeddings"])
    with tf.Graph().as_default():
        tf.import_graph_def(frozen, name="")
        with tf.Session() as sess:
            for phase in (False, True):
                got = sess.run("embeddings:0", {"input:0": x, "phase_train:0": phase})
                print(f"max_difference_{phase} =", float(np.abs(got - want[phase]).max()))


if __name__ == "__main__":
    main()
