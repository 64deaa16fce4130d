"""``tensorflow.contrib.image``'s projective transforms and dense warp, as TF
1.15 computed them.

Augmentation pipelines of TF1 code bases rotated and shifted images with
``tf.contrib.image.rotate`` / ``translate`` / ``transform`` and warped
spectrograms with ``dense_image_warp`` (DeepSpeech's ``--augment warp``);
``tf.image`` has neither. TF 1.15's transforms ran contrib's
``ImageProjectiveTransformV2`` kernel, which TensorFlow 2.21 still has
(``tf.raw_ops.ImageProjectiveTransformV3``: the same kernel with a fill mode
and value, given TF 1.15's zeros here) with its gradient to the image (the
inverse transform of the incoming gradient, as contrib registered it);
``dense_image_warp`` and its bilinear interpolation were core ops, so they
are those ops again. tests/test_compat_contrib_image.py holds images and
gradients to TF 1.15.5's. The rest of the module (``sparse_image_warp``,
``connected_components``, ...) raises one line (_contrib_names.IMAGE_GONE).
"""

from __future__ import annotations

import tensorflow as tf
from tensorflow.python.ops import image_ops

_DTYPES = (tf.uint8, tf.int32, tf.int64, tf.float16, tf.float32, tf.float64)


def _as_batch(images: tf.Tensor) -> tf.Tensor:
    """``images`` as NHWC (rank 2 and 3 gain the missing axes), TF 1.15's checks."""
    if images.dtype.base_dtype not in _DTYPES:
        raise TypeError(f"Invalid dtype {images.dtype}.")
    rank = images.shape.ndims
    if rank is None:
        raise TypeError("image_or_images rank must be statically known")
    if rank not in (2, 3, 4):
        raise TypeError("Images should have rank between 2 and 4.")
    return {2: lambda x: x[None, :, :, None], 3: lambda x: x[None], 4: lambda x: x}[rank](images)


def _as_given(output: tf.Tensor, rank: int) -> tf.Tensor:
    return {2: lambda x: x[0, :, :, 0], 3: lambda x: x[0], 4: lambda x: x}[rank](output)


def _project(images, transforms, output_shape, interpolation: str) -> tf.Tensor:
    """Contrib's kernel: each output pixel read from where ``transforms`` maps it, 0 outside."""
    return tf.raw_ops.ImageProjectiveTransformV3(
        images=images, transforms=transforms, output_shape=output_shape,
        fill_value=tf.zeros([], tf.float32), interpolation=interpolation.upper(),
        fill_mode="CONSTANT",
    )  # fmt: skip


def transform(images, transforms, interpolation="NEAREST", output_shape=None, name=None):
    """``tf.contrib.image.transform``: ``transforms`` ([8] or [N, 8]) maps each
    output point to the input point it reads (NEAREST or BILINEAR), zeros
    outside; no gradient to the transforms, as in TF 1.15."""
    with tf.name_scope(name or "transform"):
        given = tf.convert_to_tensor(images, name="images")
        batch = _as_batch(given)
        transforms = tf.convert_to_tensor(transforms, tf.float32, name="transforms")
        if output_shape is None:
            output_shape = tf.shape(batch)[1:3]
            known = tf.get_static_value(output_shape)
            output_shape = known if known is not None else output_shape
        output_shape = tf.convert_to_tensor(output_shape, tf.int32, name="output_shape")
        if not output_shape.shape.is_compatible_with([2]):
            raise ValueError(
                "output_shape must be a 1-D Tensor of 2 elements: new_height, new_width"
            )
        if transforms.shape.ndims is None:
            raise TypeError("transform_or_transforms rank must be statically known")
        if transforms.shape.ndims not in (1, 2):
            raise TypeError("Transforms should have rank 1 or 2.")
        transforms = transforms[None] if transforms.shape.ndims == 1 else transforms
        output = _project(batch, transforms, output_shape, interpolation)
        return _as_given(output, given.shape.ndims)


def angles_to_projective_transforms(angles, image_height, image_width, name=None):
    """[N, 8] transforms rotating by ``angles`` (radians, counterclockwise)
    about the image centre."""
    with tf.name_scope(name or "angles_to_projective_transforms"):
        angles = tf.convert_to_tensor(angles, tf.float32, name="angles")
        if angles.shape.ndims not in (0, 1):
            raise TypeError("Angles should have rank 0 or 1.")
        angles = angles[None] if angles.shape.ndims == 0 else angles
        cos, sin = tf.cos(angles), tf.sin(angles)
        x_offset = ((image_width - 1) - (cos * (image_width - 1) - sin * (image_height - 1))) / 2
        y_offset = ((image_height - 1) - (sin * (image_width - 1) + cos * (image_height - 1))) / 2
        columns = [cos, -sin, x_offset, sin, cos, y_offset]
        zeros = tf.zeros((tf.shape(angles)[0], 2), tf.float32)
        return tf.concat([c[:, None] for c in columns] + [zeros], axis=1)


def translations_to_projective_transforms(translations, name=None):
    """[N, 8] transforms shifting by ``translations`` ([dx, dy] or [N, 2])."""
    with tf.name_scope(name or "translations_to_projective_transforms"):
        shifts = tf.convert_to_tensor(translations, tf.float32, name="translations")
        if shifts.shape.ndims is None:
            raise TypeError("translation_or_translations rank must be statically known")
        if shifts.shape.ndims not in (1, 2):
            raise TypeError("Translations should have rank 1 or 2.")
        shifts = shifts[None] if shifts.shape.ndims == 1 else shifts
        ones = tf.ones((tf.shape(shifts)[0], 1), tf.float32)
        zeros = tf.zeros_like(ones)
        columns = [ones, zeros, -shifts[:, 0, None], zeros, ones, -shifts[:, 1, None]]
        return tf.concat(columns + [zeros, zeros], axis=1)


def rotate(images, angles, interpolation="NEAREST", name=None):
    """``tf.contrib.image.rotate``: each image turned by its angle about its centre."""
    with tf.name_scope(name or "rotate"):
        given = tf.convert_to_tensor(images)
        batch = _as_batch(given)
        height = tf.cast(tf.shape(batch)[1], tf.float32)[None]
        width = tf.cast(tf.shape(batch)[2], tf.float32)[None]
        transforms = angles_to_projective_transforms(angles, height, width)
        output = transform(batch, transforms, interpolation=interpolation)
        return _as_given(output, given.shape.ndims)


def translate(images, translations, interpolation="NEAREST", name=None):
    """``tf.contrib.image.translate``: each image shifted by its [dx, dy]."""
    with tf.name_scope(name or "translate"):
        transforms = translations_to_projective_transforms(translations)
        return transform(images, transforms, interpolation=interpolation)


def resolve(name: str):
    """``tf.contrib.image.<name>``: this module's, or the warp's."""
    if name == "dense_image_warp":
        from tf1_train.compat._contrib_image_warp import dense_image_warp

        return dense_image_warp
    return globals()[name]


# TF 1.15's own two functions, which TensorFlow 2.21 keeps (the same ops and name scopes)
flat_transforms_to_matrices = image_ops.flat_transforms_to_matrices
matrices_to_flat_transforms = image_ops.matrices_to_flat_transforms


def compose_transforms(*transforms):
    """One transform doing each of ``transforms`` in turn (the matrices' product)."""
    assert transforms, "transforms cannot be empty"
    with tf.name_scope("compose_transforms"):
        composed = flat_transforms_to_matrices(transforms[0])
        for more in transforms[1:]:
            composed = tf.matmul(composed, flat_transforms_to_matrices(more))
        return matrices_to_flat_transforms(composed)
