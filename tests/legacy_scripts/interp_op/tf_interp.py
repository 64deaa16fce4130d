"""The Python side of tf_interp_so.so, as TF 1.x point-cloud code bases wrote
it: the library loaded next to this file, thin wrappers, and the gradient
registered here (not a file of tf1_train)."""

import os

import tensorflow as tf
from tensorflow.python.framework import ops

BASE_DIR = os.path.dirname(os.path.abspath(__file__))
interp_module = tf.load_op_library(os.path.join(BASE_DIR, "tf_interp_so.so"))


def three_nn(xyz1, xyz2):
    """Squared distances to, and indices of, the three points of xyz2 nearest each of xyz1."""
    return interp_module.three_nearest(xyz1, xyz2)


ops.NoGradient("ThreeNearest")


def three_interpolate(points, idx, weight):
    """Features of xyz2's points (b, m, c) at xyz1's points (b, n, c)."""
    return interp_module.three_interpolate(points, idx, weight)


@ops.RegisterGradient("ThreeInterpolate")
def _three_interpolate_grad(op, grad_out):
    points, idx, weight = op.inputs
    return [interp_module.three_interpolate_grad(points, idx, weight, grad_out), None, None]
