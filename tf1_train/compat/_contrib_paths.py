"""Two more ``tensorflow.contrib`` paths TF 1.x programs import, served by
install() as modules of their own:

- ``tensorflow.contrib.seq2seq.python.ops.<module>``: contrib's implementation
  modules, which code that subclassed its decoder imported directly
  (Rayhane-mamah's Tacotron-2: ``from tensorflow.contrib.seq2seq.python.ops
  import decoder, helper as helper_py``; ``...attention_wrapper import
  BahdanauAttention``). Each serves TF 1.15's public names of that module,
  the same objects as ``tf.contrib.seq2seq``'s, and the private helpers that
  TensorFlow 2.21 still computes alike (``decoder._transpose_batch_time`` was
  ``rnn._transpose_batch_time`` in TF 1.15 and is in 2.21: ``SEQ2SEQ_PRIVATE``);
  another private name (``_bahdanau_score``) raises one line.
- ``tensorflow.contrib.opt.python.training.<module>``: the same for
  ``tf.contrib.opt`` (``from tensorflow.contrib.opt.python.training import
  sign_decay``: AddSign's and PowerSign's decays were public by that path
  only), each module's kept names (``_contrib_names.OPT_TRAINING_MODULES``).
- ``tensorflow.contrib.metrics.python.ops.metric_ops`` and ``.set_ops``: the
  streaming metrics' and set ops' implementation modules, imported so by
  SSD-Tensorflow's ``tf_extended`` (``from tensorflow.contrib.metrics.python.ops
  import set_ops``); their public functions, ``tf.contrib.metrics``' objects.
- ``tensorflow.contrib.tensorboard.plugins.projector``: TensorBoard's
  ``tensorboard.plugins.projector``, which is that module moved (the same
  ``ProjectorConfig`` proto, and ``visualize_embeddings`` takes a
  ``FileWriter`` as TF 1.x's did): TensorFlow's word2vec tutorial and NLP
  code bases write their embedding projector configs with it.
"""

import importlib
import types

from tf1_train.compat._contrib_names import OPT_TRAINING_MODULES

PACKAGE = "tensorflow.contrib"
OPS = PACKAGE + ".seq2seq.python.ops"
OPT_TRAINING = PACKAGE + ".opt.python.training"
# module -> (the tf1_train.compat modules holding it, TF 1.15's public names)
SEQ2SEQ_OPS = {
    "attention_wrapper": (
        ("_contrib_attention_wrapper", "_contrib_monotonic_attention"),
        ("AttentionMechanism", "AttentionWrapper", "AttentionWrapperState",
         "BahdanauAttention", "BahdanauMonotonicAttention", "LuongAttention",
         "LuongMonotonicAttention", "hardmax", "monotonic_attention", "safe_cumprod"),
    ),
    "basic_decoder": (("_contrib_decode",), ("BasicDecoder", "BasicDecoderOutput")),
    "beam_search_decoder": (
        ("_contrib_beam_search",),
        ("BeamSearchDecoder", "BeamSearchDecoderOutput", "BeamSearchDecoderState",
         "FinalBeamSearchDecoderOutput", "tile_batch"),
    ),
    "beam_search_ops": (("_contrib_beam_search",), ("gather_tree",)),
    "decoder": (("_contrib_decode",), ("Decoder", "dynamic_decode")),
    "helper": (
        ("_contrib_decode_helpers",),
        ("CustomHelper", "GreedyEmbeddingHelper", "Helper", "InferenceHelper",
         "SampleEmbeddingHelper", "ScheduledEmbeddingTrainingHelper",
         "ScheduledOutputTrainingHelper", "TrainingHelper"),
    ),
    "loss": (("_contrib_decode",), ("sequence_loss",)),
}  # fmt: skip
# the private helpers TF 1.x code imported from those modules (OpenSeq2Seq, Tacotron
# decoders) that are the same function, or the same ops on the same arguments, in 2.21
_RNN = ("tensorflow.python.ops.rnn", "_transpose_batch_time")
SEQ2SEQ_PRIVATE = {
    "decoder": {
        "_transpose_batch_time": _RNN,
        "_zero_state_tensors": ("tensorflow.python.ops.rnn_cell_impl", "_zero_state_tensors"),
        "_create_zero_outputs": ("tf1_train.compat._contrib_decode", "_zeros"),
    },
    "helper": {
        "_transpose_batch_time": _RNN,
        "_unstack_ta": ("tf1_train.compat._contrib_decode_helpers", "_unstack"),
    },
}
METRICS_OPS = PACKAGE + ".metrics.python.ops"
SET_OPS = ("set_difference", "set_intersection", "set_size", "set_union")
PROJECTOR = PACKAGE + ".tensorboard.plugins.projector"
PROJECTOR_NAMES = ("EmbeddingInfo", "ProjectorConfig", "SpriteMetadata", "visualize_embeddings")


def projector_available() -> bool:
    return importlib.util.find_spec("tensorboard") is not None


def _ops_module(module: str) -> types.ModuleType:
    holders, names = SEQ2SEQ_OPS[module]

    def find(name: str):
        for holder in holders:
            found = getattr(importlib.import_module(f"tf1_train.compat.{holder}"), name, None)
            if found is not None:
                return found

    private = SEQ2SEQ_PRIVATE.get(module, {})

    def find_private(name: str):
        where, attribute = private[name]
        return getattr(importlib.import_module(where), attribute)

    return _served(f"{OPS}.{module}", names, find, private=(tuple(private), find_private))


def _opt_module(module: str) -> types.ModuleType:
    from tf1_train.compat import _contrib_opt

    return _served(f"{OPT_TRAINING}.{module}", OPT_TRAINING_MODULES[module], _contrib_opt.resolve)


def _served(full: str, names, find, private=((), None), gone: str = "") -> types.ModuleType:
    """A module serving ``names`` (``find(name)``) and the private helpers
    ``private`` = (names, find), refusing the others in one line (``gone``:
    where the public ones went)."""
    served = types.ModuleType(full, f"TF 1.15's {full}: its public names (tf1_train.compat)")
    private_names, find_private = private

    def __getattr__(name: str):
        if name in names:
            return find(name)
        if name in private_names:
            return find_private(name)
        if name.startswith("__"):
            raise AttributeError(name)
        what = f"public names only ({', '.join(names)})"
        if private_names:
            what = f"public names ({', '.join(names)}) and the private {', '.join(private_names)}"
        why = (
            "TF 1.15's other private helpers are not kept (TensorFlow 2.21 has no copy), "
            "so copy the one you need into your code"
        )
        if not name.startswith("_"):
            why = gone or "the rest went with tf.contrib in TensorFlow 2.0"
        raise AttributeError(
            f"{full}.{name} is not served: tf1_train.compat serves this module's {what}; {why}"
        )

    served.__getattr__ = __getattr__
    served.__all__ = list(names)  # what dir() and `import *` see
    served.__dir__ = lambda: list(names) + list(private_names)
    return served


def _package(name: str, **children) -> types.ModuleType:
    package = types.ModuleType(name, "a package level of a TF 1.x contrib path (tf1_train.compat)")
    package.__path__ = []
    for child, module in children.items():
        setattr(package, child, module)
    return package


def sys_modules() -> dict:
    """{module name: module} for install() to put in sys.modules."""
    ops = {m: _ops_module(m) for m in SEQ2SEQ_OPS}
    modules = {f"{OPS}.{m}": module for m, module in ops.items()}
    modules[OPS] = _package(OPS, **ops)
    modules[PACKAGE + ".seq2seq.python"] = _package(PACKAGE + ".seq2seq.python", ops=modules[OPS])
    training = {m: _opt_module(m) for m in OPT_TRAINING_MODULES}
    modules.update({f"{OPT_TRAINING}.{m}": module for m, module in training.items()})
    modules[OPT_TRAINING] = _package(OPT_TRAINING, **training)
    opt_python = PACKAGE + ".opt.python"
    modules[opt_python] = _package(opt_python, training=modules[OPT_TRAINING])
    modules.update(_metrics_modules())
    if projector_available():
        projector = importlib.import_module("tensorboard.plugins.projector")
        plugins = _package(PACKAGE + ".tensorboard.plugins", projector=projector)
        modules[PROJECTOR] = projector
        modules[PACKAGE + ".tensorboard.plugins"] = plugins
        modules[PACKAGE + ".tensorboard"] = _package(PACKAGE + ".tensorboard", plugins=plugins)
    return modules


def _metrics_modules() -> dict:
    from tf1_train.compat import _contrib_metrics

    names = {"metric_ops": _contrib_metrics.metric_ops_names(), "set_ops": SET_OPS}
    ops = {m: _served(f"{METRICS_OPS}.{m}", n, _contrib_metrics.resolve) for m, n in names.items()}
    modules = {f"{METRICS_OPS}.{m}": module for m, module in ops.items()}
    modules[METRICS_OPS] = _package(METRICS_OPS, **ops)
    modules[PACKAGE + ".metrics.python"] = _package(
        PACKAGE + ".metrics.python", ops=modules[METRICS_OPS]
    )
    return modules


def serves(submodule: str) -> bool:
    """Whether this module serves paths under ``tensorflow.contrib.<submodule>``."""
    return submodule == "tensorboard" and projector_available()


def kept(submodule: str, rest) -> bool:
    """Whether ``tensorflow.contrib.<submodule>.<rest...>`` works after install(),
    for the paths this module serves (seq2seq's, opt's and metrics' ``python``
    levels, tensorboard)."""
    if submodule == "seq2seq":
        served = {m: (*n, *SEQ2SEQ_PRIVATE.get(m, ())) for m, (_, n) in SEQ2SEQ_OPS.items()}
        return _level_kept(rest, "ops", served)
    if submodule == "metrics":
        from tf1_train.compat._contrib_metrics import metric_ops_names

        return _level_kept(rest, "ops", {"metric_ops": metric_ops_names(), "set_ops": SET_OPS})
    if submodule == "opt":
        return _level_kept(rest, "training", OPT_TRAINING_MODULES)
    levels = ["plugins", "projector"]
    return rest[:2] == levels[: len(rest[:2])] and (len(rest) < 3 or rest[2] in PROJECTOR_NAMES)


def _level_kept(rest, level: str, modules) -> bool:
    """Whether ``python[.<level>[.<module>[.<name>]]]`` is served: ``modules``
    maps each module under ``python.<level>`` to its names."""
    if len(rest) <= 2:
        return rest in (["python"], ["python", level])
    names = modules.get(rest[2]) if rest[:2] == ["python", level] else None
    return names is not None and (len(rest) == 3 or rest[3] in names)
