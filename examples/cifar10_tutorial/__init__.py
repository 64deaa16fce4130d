"""The CIFAR-10 tutorial's model, input and training rules as a tf1_train user package.

Written from the description of the classic TensorFlow tutorial
(tensorflow/models, tutorials/image/cifar10). ``tf1_train`` never imports this
package: it is found by import path, like any user's code::

    python -m tf1_train.main --flagfile=examples/cifar10_tutorial/train.flags

- ``model.inference``: the TF1 model function (``--model``);
- ``model.preprocess``: the per-example input function (``--preprocess``);
- ``model_tf2.Cifar10Tutorial``: the same model as a ``tf.Module`` (``--tf2_model``);
- ``model_keras.build_keras_model``: what a Keras 3 port of it looks like.
"""
