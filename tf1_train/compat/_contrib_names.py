"""The names each kept ``tensorflow.contrib`` submodule serves after
install(), by submodule (tf1_train/compat/_contrib.py serves them; the
scanner's path table, tf1_train/port/paths.py, reads them)."""

# tf.compat.v1.nn.rnn_cell's names (TensorFlow 1.15 and 2.21's v1 API alike).
RNN_CELL_NAMES = (
    "BasicLSTMCell",
    "BasicRNNCell",
    "DeviceWrapper",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "MultiRNNCell",
    "RNNCell",
    "ResidualWrapper",
)
# contrib's own cells, kept on what TensorFlow 2.21 still has (_contrib_rnn.py).
RNN_KEPT = (
    "AttentionCellWrapper",
    "Conv1DLSTMCell",
    "Conv2DLSTMCell",
    "Conv3DLSTMCell",
    "ConvLSTMCell",
    "EmbeddingWrapper",
    "InputProjectionWrapper",
    "OutputProjectionWrapper",
    "GRUBlockCell",
    "GRUBlockCellV2",
    "LSTMBlockCell",
    "LayerNormBasicLSTMCell",
    "LSTMBlockFusedCell",
    "TimeReversedFusedRNN",
    # the research cells (_contrib_research_cells.py)
    "IndRNNCell", "IndyGRUCell", "IndyLSTMCell", "IntersectionRNNCell", "NASCell", "UGRNNCell",
)  # fmt: skip
# tf.contrib.legacy_seq2seq's names kept (_contrib_seq2seq.py, _contrib_seq2seq_attention.py)
SEQ2SEQ_KEPT = (
    "attention_decoder",
    "basic_rnn_seq2seq",
    "embedding_attention_decoder",
    "embedding_attention_seq2seq",
    "embedding_rnn_decoder",
    "embedding_rnn_seq2seq",
    "embedding_tied_rnn_seq2seq",
    "model_with_buckets",
    "one2many_rnn_seq2seq",
    "rnn_decoder",
    "sequence_loss",
    "sequence_loss_by_example",
    "tied_rnn_seq2seq",
)
# tf.contrib.seq2seq's names, all kept: {compat module: its names}
DYNAMIC_SEQ2SEQ = {
    "_contrib_decode": ("BasicDecoder", "BasicDecoderOutput", "Decoder", "dynamic_decode",
                        "sequence_loss"),
    "_contrib_decode_helpers": ("CustomHelper", "GreedyEmbeddingHelper", "Helper",
                                "InferenceHelper", "SampleEmbeddingHelper",
                                "ScheduledEmbeddingTrainingHelper",
                                "ScheduledOutputTrainingHelper", "TrainingHelper"),
    "_contrib_attention_wrapper": ("AttentionMechanism", "AttentionWrapper",
                                   "AttentionWrapperState", "BahdanauAttention",
                                   "LuongAttention"),
    "_contrib_monotonic_attention": ("BahdanauMonotonicAttention", "LuongMonotonicAttention",
                                     "hardmax", "monotonic_attention", "safe_cumprod"),
    "_contrib_beam_search": ("BeamSearchDecoder", "BeamSearchDecoderOutput",
                             "BeamSearchDecoderState", "FinalBeamSearchDecoderOutput",
                             "gather_tree", "tile_batch"),
}  # fmt: skip
# tf.contrib.training's HParams (_contrib_hparams.py) and bucketing queues (_contrib_bucket.py)
HPARAMS_KEPT = ("HParams", "parse_values")
TRAINING_KEPT = HPARAMS_KEPT + ("bucket", "bucket_by_sequence_length")
# tf.contrib.signal's names in TF 1.15, all tf.signal's own functions there and in 2.21
# (its remove_undocumented() dropped the `frames` alias the module defined)
SIGNAL_KEPT = ("frame", "hamming_window", "hann_window", "inverse_stft", "inverse_stft_window_fn",
               "linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms",
               "overlap_and_add", "stft")  # fmt: skip
# tf.contrib.crf's names, all kept (_contrib_crf.py)
CRF_KEPT = ("CrfDecodeBackwardRnnCell", "CrfDecodeForwardRnnCell", "CrfForwardRnnCell",
            "crf_binary_score", "crf_decode", "crf_log_likelihood", "crf_log_norm",
            "crf_multitag_sequence_score", "crf_sequence_score", "crf_unary_score",
            "viterbi_decode")  # fmt: skip
# tf.contrib.rnn's names kept after install(): the core TensorFlow objects it
# re-exported, the fused cells and the two stack_bidirectional functions,
# built on the core ones again.
RNN_FROM_CORE = (
    RNN_CELL_NAMES
    + RNN_KEPT
    + (
        "LayerRNNCell",
        "stack_bidirectional_dynamic_rnn",
        "stack_bidirectional_rnn",
        "static_bidirectional_rnn",
        "static_rnn",
        "static_state_saving_rnn",
    )
)
# tf.contrib.opt's names kept: SciPy's minimizers (_contrib_opt.py), the Adam family
# (_contrib_opt_adam.py), the wrappers (_contrib_opt_wrappers.py), the sign optimizers
# (_contrib_opt_sign.py), those on other core kernels (_contrib_opt_kernels.py) and
# elastic and model averaging for ps/worker programs (_contrib_opt_elastic.py,
# _contrib_opt_model_average.py)
OPT_SCIPY_KEPT = ("ExternalOptimizerInterface", "ScipyOptimizerInterface")
OPT_ADAM_KEPT = ("AdaMaxOptimizer", "AdamWOptimizer", "DecoupledWeightDecayExtension",
                 "LazyAdamOptimizer", "MomentumWOptimizer", "NadamOptimizer",
                 "extend_with_decoupled_weight_decay")  # fmt: skip
OPT_WRAPPERS_KEPT = ("DropStaleGradientOptimizer", "MovingAverageOptimizer",
                     "MultitaskOptimizerWrapper", "VariableClippingOptimizer",
                     "clip_gradients_by_global_norm")  # fmt: skip
OPT_SIGN_KEPT = ("AddSignOptimizer", "PowerSignOptimizer")
OPT_KERNELS_KEPT = ("AdamGSOptimizer", "LARSOptimizer", "LazyAdamGSOptimizer",
                    "RegAdagradOptimizer")  # fmt: skip
OPT_ELASTIC_KEPT = ("ElasticAverageCustomGetter", "ElasticAverageOptimizer")
OPT_MODEL_AVERAGE_KEPT = ("ModelAverageCustomGetter", "ModelAverageOptimizer")
OPT_KEPT = tuple(sorted(OPT_SCIPY_KEPT + OPT_ADAM_KEPT + OPT_WRAPPERS_KEPT + OPT_SIGN_KEPT
                        + OPT_KERNELS_KEPT + OPT_ELASTIC_KEPT
                        + OPT_MODEL_AVERAGE_KEPT))  # fmt: skip
# tensorflow.contrib.opt.python.training.<module>: the kept names each module held
# (sign_decay's functions were reachable by that path only)
OPT_TRAINING_MODULES = {
    "adam_gs_optimizer": ("AdamGSOptimizer",),
    "adamax": ("AdaMaxOptimizer",),
    "addsign": ("AddSignOptimizer",),
    "drop_stale_gradient_optimizer": ("DropStaleGradientOptimizer",),
    "elastic_average_optimizer": OPT_ELASTIC_KEPT,
    "external_optimizer": OPT_SCIPY_KEPT,
    "lars_optimizer": ("LARSOptimizer",),
    "lazy_adam_gs_optimizer": ("LazyAdamGSOptimizer",),
    "lazy_adam_optimizer": ("LazyAdamOptimizer",),
    "model_average_optimizer": OPT_MODEL_AVERAGE_KEPT,
    "moving_average_optimizer": ("MovingAverageOptimizer",),
    "multitask_optimizer_wrapper": ("MultitaskOptimizerWrapper", "clip_gradients_by_global_norm"),
    "nadam_optimizer": ("NadamOptimizer",),
    "powersign": ("PowerSignOptimizer",),
    "reg_adagrad_optimizer": ("RegAdagradOptimizer",),
    "sign_decay": ("get_cosine_decay_fn", "get_linear_decay_fn", "get_restart_decay_fn"),
    "variable_clipping_optimizer": ("VariableClippingOptimizer",),
    "weight_decay_optimizers": ("AdamWOptimizer", "DecoupledWeightDecayExtension",
                                "MomentumWOptimizer", "extend_with_decoupled_weight_decay"),
}  # fmt: skip
OPT_GONE = (
    "ScipyOptimizerInterface, ExternalOptimizerInterface, the Adam family (LazyAdam, "
    "Nadam, AdaMax, AdamW, MomentumW, AdamGS, LazyAdamGS), LARS, AddSign, PowerSign, "
    "RegAdagrad, the MovingAverage, VariableClipping, Multitask and DropStaleGradient "
    "wrappers, clip_gradients_by_global_norm, elastic and model averaging (ElasticAverage's "
    "and ModelAverage's getters and optimizers) are kept (TF 1.15's numbers); for the "
    "others (AGN, GGT, Shampoo): tf.compat.v1.train's "
    "optimizers, keras.optimizers or an optimizer of your own"
)
# tensorflow.contrib.cudnn_rnn (_contrib_cudnn.py): TF 1.15.5's constants of
# python.ops.cudnn_rnn_ops, its two CPU cells, and the cuDNN-only names, which raise when used
CUDNN_CONSTANTS = {
    "CUDNN_RNN_UNIDIRECTION": "unidirectional", "CUDNN_RNN_BIDIRECTION": "bidirectional",
    "CUDNN_LSTM": "lstm", "CUDNN_GRU": "gru", "CUDNN_RNN_RELU": "rnn_relu",
    "CUDNN_RNN_TANH": "rnn_tanh", "CUDNN_LSTM_PARAMS_PER_LAYER": 8,
    "CUDNN_GRU_PARAMS_PER_LAYER": 6, "CUDNN_RNN_TANH_PARAMS_PER_LAYER": 2,
    "CUDNN_RNN_RELU_PARAMS_PER_LAYER": 2, "CUDNN_INPUT_LINEAR_MODE": "linear_input",
    "CUDNN_INPUT_SKIP_MODE": "skip_input", "CUDNN_INPUT_AUTO_MODE": "auto_select",
}  # fmt: skip
CUDNN_CELLS = ("CudnnCompatibleGRUCell", "CudnnCompatibleLSTMCell")
CUDNN_LAYERS = ("CudnnGRU", "CudnnGRUSaveable", "CudnnLSTM", "CudnnLSTMSaveable",
                "CudnnParamsFormatConverterGRU", "CudnnParamsFormatConverterLSTM",
                "CudnnParamsFormatConverterRelu", "CudnnParamsFormatConverterTanh",
                "CudnnRNNRelu", "CudnnRNNReluSaveable", "CudnnRNNTanh",
                "CudnnRNNTanhSaveable")  # fmt: skip
CUDNN_GPU_ONLY = CUDNN_LAYERS + (
    "CudnnOpaqueParamsSaveable", "CudnnParamsFormatConverter", "CudnnParamsFormatConverterBasic",
    "cudnn_gru", "cudnn_lstm", "cudnn_rnn_canonical_to_opaque_params",
    "cudnn_rnn_opaque_params_size", "cudnn_rnn_opaque_params_to_canonical", "cudnn_rnn_relu",
    "cudnn_rnn_tanh",
)  # fmt: skip
# tensorflow.contrib.cudnn_rnn's names (TF 1.15.5's remove_undocumented list) and those of
# its python.ops.cudnn_rnn_ops module
CUDNN_KEPT = CUDNN_CELLS + CUDNN_LAYERS
CUDNN_OPS_KEPT = tuple(sorted((*CUDNN_CONSTANTS, *CUDNN_CELLS, *CUDNN_GPU_ONLY)))
# tensorflow.contrib.image (_contrib_image.py, _contrib_image_warp.py)
IMAGE_KEPT = (
    "angles_to_projective_transforms", "compose_transforms", "dense_image_warp",
    "flat_transforms_to_matrices", "matrices_to_flat_transforms", "rotate", "transform",
    "translate", "translations_to_projective_transforms",
)  # fmt: skip
IMAGE_GONE = (
    "rotate, translate, transform, their transform builders and dense_image_warp are kept "
    "(TF 1.15's numbers); sparse_image_warp, interpolate_spline, connected_components, "
    "bipartite_match and single_image_random_dot_stereograms: tensorflow-addons' tfa.image "
    "(unmaintained) or ops of your own"
)
