"""tf.contrib.image's transforms and dense warp over fixed images: run on
TensorFlow 1.15.5 itself (``python tests/contrib_image_cases.py``, Python
3.7: no newer syntax here) and on tf1_train.compat by
tests/test_compat_contrib_image.py, which holds the second to the first.

Each output (and gradient) is summed three ways, ``checks``: plain, with
fixed weights, and squared.
"""

import numpy as np


def checks(a):
    """(sum, weighted sum, sum of squares) of ``a``."""
    a = np.asarray(a, np.float64)
    w = np.random.RandomState(7).uniform(-1, 1, a.size).reshape(a.shape)
    return float(a.sum()), float((a * w).sum()), float((a * a).sum())


def build(tf):
    ci = tf.contrib.image
    rng = np.random.RandomState(0)
    img = tf.constant(rng.uniform(0, 1, (2, 6, 7, 3)).astype(np.float32))
    out = {}
    for mode in ("NEAREST", "BILINEAR"):
        out["rotate_" + mode] = ci.rotate(img, [0.3, -1.1], interpolation=mode)
        out["translate_" + mode] = ci.translate(img, [[1.5, -2.0], [0.0, 3.0]], mode)
        t = [
            [1.1, 0.2, -0.5, -0.1, 0.9, 0.7, 0.01, -0.02],
            [0.8, 0.0, 1.0, 0.3, 1.2, -1.0, 0.0, 0.0],
        ]
        out["transform_" + mode] = ci.transform(img, t, interpolation=mode)
        out["shape_" + mode] = ci.transform(img, t[0], mode, output_shape=[4, 9])
    out["rotate_hw"] = ci.rotate(img[0, :, :, 0], 0.7)
    out["rotate_hwc"] = ci.rotate(img[1], 2.0, "BILINEAR")
    u8 = tf.constant(rng.randint(0, 255, (6, 7, 3)).astype(np.uint8))
    out["rotate_uint8"] = tf.cast(ci.rotate(u8, 0.5, "BILINEAR"), tf.float32)
    a = ci.angles_to_projective_transforms([0.3, -1.1], 6.0, 7.0)
    b = ci.translations_to_projective_transforms([[1.5, -2.0], [0.0, 3.0]])
    out["angles"] = a
    out["translations"] = b
    out["compose"] = ci.compose_transforms(a, b)
    out["matrices"] = ci.flat_transforms_to_matrices(a)
    out["flat"] = ci.matrices_to_flat_transforms(tf.constant([[2.0, 1, 0], [0, 2, 1], [0.1, 0, 2]]))
    flow = tf.constant(rng.uniform(-2.5, 2.5, (2, 6, 7, 2)).astype(np.float32))
    out["warp"] = ci.dense_image_warp(img, flow)
    wr = tf.constant(np.random.RandomState(1).uniform(-1, 1, (2, 6, 7, 3)).astype(np.float32))
    for key in ("rotate_BILINEAR", "transform_NEAREST", "translate_BILINEAR", "warp"):
        loss = tf.reduce_sum(out[key] * wr)
        out["grad_image_" + key] = tf.gradients(loss, img)[0]
    out["grad_flow_warp"] = tf.gradients(tf.reduce_sum(out["warp"] * wr), flow)[0]
    return out


def run(tf):
    """{output: checks(its value)}, ``tf`` the v1 API."""
    with tf.Graph().as_default():
        outputs = build(tf)
        with tf.Session() as sess:
            values = sess.run(outputs)
    return {key: checks(value) for key, value in values.items()}


if __name__ == "__main__":
    import tensorflow

    for key, sums in sorted(run(tensorflow).items()):  # TF 1.15: the v1 API
        print(f"{key!r}: ({sums[0]:.9g}, {sums[1]:.9g}, {sums[2]:.9g}),")
