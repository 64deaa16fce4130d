"""TensorBoard 1.x's summary functions under ``tensorboard.summary`` again.

TF 1.x programs built TensorBoard's plugin summaries with ``from tensorboard
import summary as summary_lib``: ``summary_lib.custom_scalar_pb(layout)`` for
a custom-scalars layout (NVIDIA's StyleGAN writes one with its first
summaries), ``pr_curve``, ``scalar_pb``, ``image_pb``, ... TensorBoard 2 made
``tensorboard.summary`` its TF 2 API and moved those functions, unchanged, to
``tensorboard.summary.v1``: the program stops with ``AttributeError: module
'tensorboard.summary' has no attribute 'custom_scalar_pb'``. install() puts
back the twelve names ``tensorboard.summary`` lost, as the same functions.
The five both modules have (``scalar``, ``histogram``, ``image``, ``audio``,
``text``) stay TensorBoard 2's: ``tensorboard.summary.v1.scalar`` is TF 1.x's.
"""

MOVED = (
    "audio_pb",
    "custom_scalar",
    "custom_scalar_pb",
    "histogram_pb",
    "image_pb",
    "pr_curve",
    "pr_curve_pb",
    "pr_curve_raw_data_op",
    "pr_curve_raw_data_pb",
    "pr_curve_streaming_op",
    "scalar_pb",
    "text_pb",
)


def install(set_attribute) -> None:
    """The moved names on ``tensorboard.summary``, through ``set_attribute``
    (_install._set); nothing when TensorBoard is not installed."""
    try:
        import tensorboard.summary as summary
        from tensorboard.summary import v1
    except ImportError:
        return
    for name in MOVED:
        if not hasattr(summary, name):
            set_attribute(summary, name, getattr(v1, name))
