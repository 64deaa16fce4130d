"""CIFAR-10 training augmentation: pad 4, random 32x32 crop, random flip.

He et al. 2016 (section 4.2): "4 pixels are padded on each side, and a 32x32
crop is randomly sampled from the padded image or its horizontal flip".

The randomness of each example comes from stateless random ops seeded by
(run seed, the example's position in the training stream), never from
stateful ops: the same seed gives the same crops in every run, whatever the
tower count or thread schedule, and a run resumed at step k crops exactly as
the uninterrupted run did (positions are known from the step, like the data
order in pipeline.py).
"""

from __future__ import annotations

import tensorflow as tf

PAD = 4


def crop_flip(images: tf.Tensor, positions: tf.Tensor, seed) -> tf.Tensor:
    """Augments a batch of uint8 HWC images.

    Args:
      images: [B, H, W, C] uint8.
      positions: [B] int64, each example's position in the training stream.
      seed: the run's data seed (int or int64 scalar tensor).
    """
    seed = tf.cast(seed, tf.int64)

    def one(args):
        image, position = args
        crop_seed, flip_seed = tf.unstack(
            tf.random.experimental.stateless_split(tf.stack([seed, position]), 2)
        )
        padded = tf.pad(image, [[PAD, PAD], [PAD, PAD], [0, 0]])
        cropped = tf.image.stateless_random_crop(padded, tf.shape(image), seed=crop_seed)
        return tf.image.stateless_random_flip_left_right(cropped, seed=flip_seed)

    out = tf.map_fn(one, (images, positions), fn_output_signature=images.dtype)
    out.set_shape(images.shape)
    return out
