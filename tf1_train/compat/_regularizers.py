"""``get_variable(regularizer=...)`` as TF 1.x ran it, after install().

TF 1.x called the regularizer once, when it made the variable: under
``colocate_with(variable)``, in the name scope ``<variable>/Regularizer/`` and
``init_scope`` (out of any control flow), and put the loss it returned in
REGULARIZATION_LOSSES. TensorFlow 2.21 calls it once in the caller's name
scope only to see whether it returns None, and puts a ``_LazyEvalTensor`` in
the collection, which calls it again at each use. The loss's number is the
same; what a regularizer does besides returning it is not. One that adds its
loss to a collection (``tf.add_to_collection('losses', ...)``, polyaxon's
tracked regularizers) or writes a summary does so two or more times:
``'losses'`` holds the term twice where TF 1.15.5 held it once (a total of
``'losses'`` and REGULARIZATION_LOSSES: 0.09 where TF 1.15.5 gives 0.06), and
TensorBoard gets ``decay``, ``.../decay`` and ``.../decay_1``. The
collection's item also is not a ``tf.Tensor`` (no ``ref()``:
``ExponentialMovingAverage.apply`` over the collection raised AttributeError
in TensorFlow's distributed Inception trainer).
"""

import functools


def install(set_attribute) -> None:
    """Patch TensorFlow's variable store and its lazy collection item through
    ``set_attribute`` (_install._set: uninstall() puts both back)."""
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import variable_scope

    def regularization_loss(make_loss):
        """The lazy item's stand-in: the loss itself, made in ``init_scope``."""
        with ops.init_scope():
            return make_loss()

    set_attribute(variable_scope, "_LazyEvalTensor", regularization_loss)
    store = variable_scope._VariableStore
    original = store._get_single_variable
    if getattr(original, "_tf1_train_original", None) is None:
        patched = _calling_regularizers_once(original)
        patched._tf1_train_original = original
        set_attribute(store, "_get_single_variable", patched)


def _calling_regularizers_once(get_single_variable):
    @functools.wraps(get_single_variable)
    def patched(self, name, *args, regularizer=None, **kwargs):
        if regularizer:
            regularizer = _once(regularizer, name)
        return get_single_variable(self, name, *args, regularizer=regularizer, **kwargs)

    return patched


def _once(regularizer, name: str):
    """``regularizer`` run at its first call only, where TF 1.x ran it; TF
    2.21's later calls (the lazy item's) get that loss back."""
    from tensorflow.python.framework import ops

    made = []

    def run_once(variable):
        if not made:
            with ops.colocate_with(variable):
                with ops.name_scope(name + "/Regularizer/"):
                    with ops.init_scope():
                        made.append(regularizer(variable))
        return made[0]

    return run_once
