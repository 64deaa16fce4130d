"""Keras 2's image transforms, which the copy Keras 3 keeps changed.

TF 1.x programs augmented with ``ImageDataGenerator`` from Keras 2 (or TF
1.x's ``tf.keras``: both were keras_preprocessing 1.x). Keras 3 ships that
code as ``keras.src.legacy.preprocessing.image`` (TensorFlow 2.21's
``tf.keras.preprocessing.image``), with three changes that move every
augmented pixel:

- ``apply_affine_transform`` swaps x and y of the transform before applying
  it (``M' = PMP``), so a rotation turns the other way and ``tx``, which Keras
  2 applied along the rows, moves the columns; its default axes became
  channels-first (``row_axis=1, col_axis=2, channel_axis=0``, Keras 2's were
  ``0, 1, 2``);
- ``transform_matrix_offset_center`` turns about ``(h/2 - 0.5, w/2 - 0.5)``
  instead of Keras 2's ``(h/2 + 0.5, w/2 + 0.5)``;
- ZCA whitening takes the singular values of the data instead of those of
  its covariance and adds ``zca_epsilon`` to ``s`` instead of ``s**2 / n``;
- ``ImageDataGenerator`` shifts brightness without rescaling an image already
  in 0..255 (Keras 2 stretched it to 0..255 first).

The functions here compute Keras 2's transforms (written for this module and
held to Keras 2.2.4 on TensorFlow 1.15.5 by tests/test_compat_keras2_removed.py),
and ``ImageDataGenerator`` is Keras 3's copy with them. Its iterators
(``flow``, ``flow_from_directory``) are Keras 3's, calling them (held to
Keras 2.2.4 too); the random draws were the same in both and stay so.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.linalg
import scipy.ndimage
from keras.src.legacy.preprocessing import image as _keras3


def transform_matrix_offset_center(matrix, x, y):
    """``matrix`` applied about the image's centre as Keras 2 placed it."""
    o_x, o_y = float(x) / 2 + 0.5, float(y) / 2 + 0.5
    offset = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset @ matrix @ reset


def _matrices(theta, tx, ty, shear, zx, zy):
    """Keras 2's rotation, shift, shear and zoom, in its order (angles in degrees)."""
    if theta:
        t = np.deg2rad(theta)
        yield np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    if tx or ty:
        yield np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]])
    if shear:
        s = np.deg2rad(shear)
        yield np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]])
    if zx != 1 or zy != 1:
        yield np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]])


def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=0,
                           col_axis=1, channel_axis=2, fill_mode="nearest", cval=0.0,
                           order=1):  # fmt: skip
    """Keras 2's: the matrix applied to each channel as it stands (rows first)."""
    matrices = list(_matrices(theta, tx, ty, shear, zx, zy))
    if not matrices:
        return x
    matrix = transform_matrix_offset_center(
        functools.reduce(np.dot, matrices), x.shape[row_axis], x.shape[col_axis]
    )
    channels = np.rollaxis(x, channel_axis, 0)
    moved = [
        scipy.ndimage.affine_transform(
            c, matrix[:2, :2], matrix[:2, 2], order=order, mode=fill_mode, cval=cval
        )
        for c in channels
    ]
    return np.rollaxis(np.stack(moved, axis=0), 0, channel_axis + 1)


# Keras 2's random transforms passed only the channel axis on: the rows and
# columns were apply_affine_transform's defaults (0 and 1), whatever was given.
def _apply(x, channel_axis, fill_mode, cval, order, **params):
    return apply_affine_transform(
        x, channel_axis=channel_axis, fill_mode=fill_mode, cval=cval, order=order, **params
    )


def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                    cval=0.0, interpolation_order=1):  # fmt: skip
    theta = np.random.uniform(-rg, rg)
    return _apply(x, channel_axis, fill_mode, cval, interpolation_order, theta=theta)


def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1):  # fmt: skip
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return _apply(x, channel_axis, fill_mode, cval, interpolation_order, tx=tx, ty=ty)


def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1):  # fmt: skip
    shear = np.random.uniform(-intensity, intensity)
    return _apply(x, channel_axis, fill_mode, cval, interpolation_order, shear=shear)


def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                cval=0.0, interpolation_order=1):  # fmt: skip
    if len(zoom_range) != 2:
        raise ValueError(
            f"`zoom_range` should be a tuple or list of two floats. Received: {zoom_range}"
        )
    zx, zy = (1, 1) if tuple(zoom_range) == (1, 1) else np.random.uniform(*zoom_range, 2)
    return _apply(x, channel_axis, fill_mode, cval, interpolation_order, zx=zx, zy=zy)


def apply_brightness_shift(x, brightness, scale=True):
    """Keras 2's: the image stretched to 0..255 first, whatever ``scale`` says."""
    return _keras3.apply_brightness_shift(x, brightness, True)


def random_brightness(x, brightness_range, scale=True):
    if len(brightness_range) != 2:
        raise ValueError(f"`brightness_range` should be two floats. Received: {brightness_range}")
    return apply_brightness_shift(x, np.random.uniform(*brightness_range))


def zca_matrix(x, epsilon):
    """Keras 2's whitening matrix: from the covariance's singular values."""
    flat = np.reshape(x, (x.shape[0], -1))
    u, s, _ = scipy.linalg.svd(flat.T @ flat / flat.shape[0])
    return (u * (1.0 / np.sqrt(s[np.newaxis] + epsilon))) @ u.T


class ImageDataGenerator(_keras3.ImageDataGenerator):
    """Keras 3's copy of Keras 2's generator, transforming and whitening as Keras 2 did."""

    def apply_transform(self, x, transform_parameters):
        p = transform_parameters
        rows, cols, channels = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        x = apply_affine_transform(
            x, p.get("theta", 0), p.get("tx", 0), p.get("ty", 0), p.get("shear", 0),
            p.get("zx", 1), p.get("zy", 1), row_axis=rows, col_axis=cols, channel_axis=channels,
            fill_mode=self.fill_mode, cval=self.cval, order=self.interpolation_order,
        )  # fmt: skip
        if p.get("channel_shift_intensity") is not None:
            x = _keras3.apply_channel_shift(x, p["channel_shift_intensity"], channels)
        if p.get("flip_horizontal", False):
            x = _keras3.flip_axis(x, cols)
        if p.get("flip_vertical", False):
            x = _keras3.flip_axis(x, rows)
        if p.get("brightness") is not None:
            x = apply_brightness_shift(x, p["brightness"])
        return x

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Keras 3's statistics (Keras 2's too), then Keras 2's ZCA matrix, also
        kept as ``principal_components``, Keras 2's name for it."""
        zca, self.zca_whitening = self.zca_whitening, False
        transformed = []
        if zca:  # what the statistics were taken over, whitened as Keras 2 did
            self.random_transform = _recording(self.random_transform, transformed)
        try:
            super().fit(x, augment, rounds, seed)
        finally:
            self.zca_whitening = zca
            self.__dict__.pop("random_transform", None)
        if not zca:
            return
        data = np.asarray(x, dtype=self.dtype) * (self.rescale or 1)  # as fit() took it
        data = np.asarray(transformed, dtype=self.dtype) if augment else data
        if self.featurewise_center:
            data = data - self.mean
        if self.featurewise_std_normalization:
            data = data / (self.std + 1e-6)
        self.zca_whitening_matrix = self.principal_components = zca_matrix(data, self.zca_epsilon)


def _recording(transform, into):
    def recorded(x, seed=None):
        out = transform(x, seed)
        into.append(out)
        return out

    return recorded


NAMES = {
    "ImageDataGenerator": ImageDataGenerator,
    "apply_affine_transform": apply_affine_transform,
    "apply_brightness_shift": apply_brightness_shift,
    "random_brightness": random_brightness,
    "random_rotation": random_rotation,
    "random_shear": random_shear,
    "random_shift": random_shift,
    "random_zoom": random_zoom,
}
