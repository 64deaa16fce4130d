"""The same training written the TF2 way: tf.Module, tf.function, MirroredStrategy.

Nothing in this package uses ``tf.compat.v1``. Variables carry the TF1 graph's
checkpoint names (``conv1/weights``, ``conv1/weights/Momentum``, ...), so
weights, optimizer slots and checkpoints move between the two paths by name.
"""
