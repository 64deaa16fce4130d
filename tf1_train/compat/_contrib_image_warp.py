"""``tf.contrib.image.dense_image_warp`` and its bilinear interpolation, the
core ops TF 1.15 built, again (DeepSpeech's ``--augment warp`` warps its
spectrograms with it; ``tf.image`` has no warp). Each output pixel reads the
image at its own position minus the flow there, interpolated between the
four pixels around it and clamped to the border, so gradients reach both the
image and the flow.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf


def _corners(queries, size, grid_type):
    """Per query coordinate: the floor cell index (clamped to [0, size - 2]),
    the next one, and the weight of the next ([batch, queries, 1], in [0, 1])."""
    floor = tf.minimum(
        tf.maximum(tf.constant(0.0, queries.dtype), tf.floor(queries)),
        tf.cast(size - 2, queries.dtype),
    )
    low = tf.cast(floor, tf.int32)
    alpha = tf.cast(queries - floor, grid_type)
    alpha = tf.minimum(tf.maximum(tf.constant(0.0, grid_type), alpha), tf.constant(1.0, grid_type))
    return low, low + 1, tf.expand_dims(alpha, 2)


def _interpolate_bilinear(grid, query_points, name="interpolate_bilinear", indexing="ij"):
    """``grid`` [batch, height, width, channels] read at ``query_points``
    [batch, n, 2] (row, column for ``ij``; x, y for ``xy``): [batch, n, channels]."""
    if indexing not in ("ij", "xy"):
        raise ValueError("Indexing mode must be 'ij' or 'xy'")
    with tf.name_scope(name):
        grid = tf.convert_to_tensor(grid)
        query_points = tf.convert_to_tensor(query_points)
        shape = grid.shape.as_list()
        if len(shape) != 4:
            raise ValueError(f"Grid must be 4 dimensional. Received size: {grid.shape}")
        batch_size, height, width, channels = tf.unstack(tf.shape(grid))
        checks = [
            tf.debugging.assert_equal(
                len(query_points.shape), 3, message="Query points must be 3 dimensional."
            ),
            tf.debugging.assert_equal(
                tf.shape(query_points)[2], 2, message="Query points must be size 2 in dim 2."
            ),
            tf.debugging.assert_greater_equal(height, 2, message="Grid height must be at least 2."),
            tf.debugging.assert_greater_equal(width, 2, message="Grid width must be at least 2."),
            tf.debugging.assert_less_equal(
                tf.cast(batch_size * height * width, tf.float32),
                np.iinfo(np.int32).max / 8,
                message="The image size or batch size is sufficiently large that the "
                "linearized addresses used by gather may exceed the int32 limit.",
            ),
        ]
        with tf.control_dependencies(checks):
            n = tf.shape(query_points)[1]
            coordinates = tf.unstack(query_points, axis=2)
            order = [0, 1] if indexing == "ij" else [1, 0]
            (y0, y1, ay), (x0, x1, ax) = [
                _corners(coordinates[d], shape[d + 1] or tf.shape(grid)[d + 1], grid.dtype)
                for d in order
            ]
            flat = tf.reshape(grid, [batch_size * height * width, channels])
            offsets = tf.reshape(tf.range(batch_size) * height * width, [batch_size, 1])

        def gather(y, x):
            return tf.reshape(tf.gather(flat, offsets + y * width + x), [batch_size, n, channels])

        top_left, top_right = gather(y0, x0), gather(y0, x1)
        bottom_left, bottom_right = gather(y1, x0), gather(y1, x1)
        top = ax * (top_right - top_left) + top_left
        bottom = ax * (bottom_right - bottom_left) + bottom_left
        return ay * (bottom - top) + top


def dense_image_warp(image, flow, name="dense_image_warp"):
    """``output[b, y, x] = image[b, y - flow[b, y, x, 0], x - flow[b, y, x, 1]]``,
    bilinear between pixels, the border's pixels outside."""
    with tf.name_scope(name):
        batch_size, height, width, channels = tf.unstack(tf.shape(image))
        grid_x, grid_y = tf.meshgrid(tf.range(width), tf.range(height))
        grid = tf.cast(tf.stack([grid_y, grid_x], axis=2), flow.dtype)[None]
        queries = tf.reshape(grid - flow, [batch_size, height * width, 2])
        warped = _interpolate_bilinear(image, queries)
        return tf.reshape(warped, [batch_size, height, width, channels])
