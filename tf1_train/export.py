"""Export a TF1 training checkpoint as a SavedModel for serving and for TF2.

The serving graph is built fresh (inference mode: batch norm uses its moving
statistics), the checkpoint restored into it by name, and saved with a
``serving_default`` signature that ``tf.saved_model.load`` understands:

    loaded = tf.saved_model.load(export_dir)
    out = loaded.signatures["serving_default"](images=batch)  # float32 NHWC in [0, 1]
    out["logits"], out["probabilities"], out["classes"]
"""

from __future__ import annotations

import os
from typing import Tuple

import tensorflow as tf

from tf1_train import models, warm_start
from tf1_train.errors import UserError
from tf1_train.models import calls
from tf1_train.models import outputs as model_outputs

v1 = tf.compat.v1

SIGNATURE = "serving_default"


def _serving_forward(model: str, images: tf.Tensor, num_classes: int):
    """The model as served: ``is_training=False`` and, for a model that takes
    labels, ``labels=None`` (Estimator's PREDICT: a request carries none)."""
    model_fn = models.checked(models.get_model(model), model)
    try:
        return calls.call_model(model_fn, images, False, num_classes, None)
    except UserError as e:
        if not calls.takes_labels(model_fn):
            raise
        raise UserError(
            f"{e} (the export calls it with labels=None, as Estimator's PREDICT did: a "
            "request has no labels; compute the logits without them when labels is None)"
        ) from None


def export_saved_model(
    checkpoint_path: str,
    model: str,
    image_shape: Tuple[int, int, int],
    num_classes: int,
    export_dir: str,
) -> str:
    """Writes the SavedModel; ``export_dir`` must not exist yet (never overwritten).
    ``checkpoint_path``: a prefix, or a train_dir (its checkpoint of the highest step)."""
    if os.path.exists(export_dir):
        raise UserError(f"--export_dir={export_dir}: already exists; choose a new directory")
    checkpoint_path = warm_start.resolve(checkpoint_path, "checkpoint")
    graph = tf.Graph()
    with graph.as_default():
        images = v1.placeholder(tf.float32, [None, *image_shape], name="images")
        out = _serving_forward(model, images, num_classes)
        # float32 whatever the model computes in (one that casts itself to
        # float16, model_casts.py): the softmax and the signature, as its loss.
        logits = tf.cast(model_outputs.logits_of(out), tf.float32)
        outputs = {
            "logits": logits,
            "probabilities": tf.nn.softmax(logits),
            "classes": tf.argmax(logits, axis=1, output_type=tf.int32),
        }
        saver = v1.train.Saver()
        with v1.Session(graph=graph) as sess:
            saver.restore(sess, checkpoint_path)
            builder = v1.saved_model.Builder(export_dir)
            signature = v1.saved_model.predict_signature_def({"images": images}, outputs)
            builder.add_meta_graph_and_variables(
                sess,
                [v1.saved_model.tag_constants.SERVING],
                signature_def_map={SIGNATURE: signature},
            )
            builder.save()
    return export_dir
