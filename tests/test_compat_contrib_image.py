"""tf.contrib.image after tf1_train.compat.install(), held to TensorFlow 1.15.5.

tests/contrib_image_cases.py rotates, translates and transforms fixed
images (NEAREST and BILINEAR, rank 2, 3 and 4, uint8, another output
shape), builds and composes transforms and warps with dense_image_warp,
with gradients to the image and the flow; ``GOLDEN`` is what TF 1.15.5
computed for each (its three sums, tests/contrib_image_cases.py's
``checks``). On 2.21 all 22 came out equal to the last bit (2026-12-07).
"""

import contrib_image_cases as cases
import numpy as np
import pytest
import tensorflow as tf

# measured on TF 1.15.5, 2026-12-07 (python tests/contrib_image_cases.py)
GOLDEN = {
    "angles": (6.36657959, -4.67445014, 22.027556),
    "compose": (1.77551657, -4.08919707, 23.6245738),
    "flat": (3.05, 0.427122312, 2.5025),
    "grad_flow_warp": (-5.49168893, 0.302673337, 18.923753),
    "grad_image_rotate_BILINEAR": (6.204029, 6.45728702, 31.9201042),
    "grad_image_transform_NEAREST": (-8.58680389, -0.326985003, 83.7974666),
    "grad_image_translate_BILINEAR": (3.79492445, -0.704887473, 37.9298417),
    "grad_image_warp": (-0.970618395, 2.75196208, 52.3548932),
    "matrices": (8.36657959, -2.58719387, 24.027556),
    "rotate_BILINEAR": (105.036669, -0.0321134708, 54.237152),
    "rotate_NEAREST": (109.750622, -0.674190509, 71.3288449),
    "rotate_hw": (17.2166925, 0.994802937, 10.9279278),
    "rotate_hwc": (50.3745805, 0.21888908, 25.58531),
    "rotate_uint8": (13255, 136.916014, 1801227),
    "shape_BILINEAR": (76.150318, -2.30568754, 40.2828446),
    "shape_NEAREST": (72.3159075, -2.94470222, 46.7387405),
    "transform_BILINEAR": (101.387361, 0.0309790091, 54.0062619),
    "transform_NEAREST": (104.518946, -0.641217092, 68.7070366),
    "translate_BILINEAR": (63.9152496, -0.331476802, 38.6852897),
    "translate_NEAREST": (61.107476, -0.754254779, 40.9695968),
    "translations": (1.5, 2.35049354, 19.25),
    "warp": (124.601058, -0.277202564, 71.5314413),
}


def test_every_output_and_gradient_is_tf_1_15_5s(installed):
    got = cases.run(tf.compat.v1)
    assert sorted(got) == sorted(GOLDEN)
    for key, want in GOLDEN.items():
        np.testing.assert_allclose(got[key], want, rtol=1e-6, atol=1e-6, err_msg=key)


def test_the_rest_of_the_module_raises_one_line_and_the_paths_import(installed):
    from tensorflow.contrib.image import dense_image_warp, rotate
    from tensorflow.contrib.image.python.ops import dense_image_warp as warp_module
    from tensorflow.contrib.image.python.ops import image_ops

    assert image_ops.rotate is rotate and warp_module.dense_image_warp is dense_image_warp
    assert callable(warp_module._interpolate_bilinear)
    with pytest.raises(AttributeError, match="sparse_image_warp.*tfa.image"):
        tf.contrib.image.sparse_image_warp  # noqa: B018
    with pytest.raises(ImportError):
        from tensorflow.contrib.image import connected_components  # noqa: F401
    with pytest.raises(AttributeError, match="not served"):
        image_ops.bipartite_match  # noqa: B018


def test_a_bad_rank_is_refused_as_tf_1_15_refused_it(installed):
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Images should have rank between 2 and 4."):
            tf.contrib.image.rotate(tf.zeros([1, 2, 3, 4, 5]), 0.5)
        with pytest.raises(TypeError, match="Transforms should have rank 1 or 2."):
            tf.contrib.image.transform(tf.zeros([4, 4]), tf.zeros([1, 1, 8]))
