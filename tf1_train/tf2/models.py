"""The TF1 models as tf.Modules with the same variable names and shapes."""

from __future__ import annotations

from typing import Dict, Tuple

import tensorflow as tf

from tf1_train.tf2 import layers


class Model(tf.Module):
    """Base: a ``Params`` store and ``__call__(images, training) -> logits``."""

    def __init__(self, name: str):
        super().__init__(name=name)
        self.params = layers.Params()

    @property
    def by_name(self) -> Dict[str, tf.Variable]:
        """Every variable by TF1 checkpoint name (trainable and moving stats)."""
        return self.params.by_name

    @property
    def trainable_by_name(self) -> Dict[str, tf.Variable]:
        return {n: v for n, v in self.by_name.items() if v.trainable}


class MLP(Model):
    def __init__(self, image_shape: Tuple[int, int, int], num_classes: int):
        super().__init__("mlp")
        p, in_dim = self.params, int(tf.TensorShape(image_shape).num_elements())
        self.fc1 = layers.Dense(p, "fc1", in_dim, 256, tf.nn.relu)
        self.fc2 = layers.Dense(p, "fc2", 256, 128, tf.nn.relu)
        self.logits = layers.Dense(p, "logits", 128, num_classes)

    def __call__(self, images: tf.Tensor, training: bool) -> tf.Tensor:
        del training
        return self.logits(self.fc2(self.fc1(layers.flatten(images))))


class LeNet5(Model):
    def __init__(self, image_shape: Tuple[int, int, int], num_classes: int):
        super().__init__("lenet5")
        p = self.params
        h, w, c = image_shape
        self.conv1 = layers.Conv2D(p, "conv1", c, 6, 5)
        self.conv2 = layers.Conv2D(p, "conv2", 6, 16, 5)
        flat = _pooled(_pooled(h)) * _pooled(_pooled(w)) * 16
        self.fc3 = layers.Dense(p, "fc3", flat, 120, tf.nn.relu)
        self.fc4 = layers.Dense(p, "fc4", 120, 84, tf.nn.relu)
        self.logits = layers.Dense(p, "logits", 84, num_classes)

    def __call__(self, images: tf.Tensor, training: bool) -> tf.Tensor:
        del training
        x = layers.max_pool(tf.nn.relu(self.conv1(images)))
        x = layers.max_pool(tf.nn.relu(self.conv2(x)))
        x = self.fc4(self.fc3(layers.flatten(x)))
        return self.logits(x)


def _pooled(n: int) -> int:
    """Size after a 2x2, stride-2 SAME pool."""
    return (n + 1) // 2


MODELS = {"mlp": MLP, "lenet5": LeNet5}


def build(name: str, image_shape: Tuple[int, int, int], num_classes: int) -> Model:
    """Creates model ``name``; call inside ``strategy.scope()`` to mirror it."""
    return MODELS[name](tuple(image_shape), num_classes)
