"""Rules for the ``tf.contrib`` submodules tf1_train.compat keeps: a program
that calls ``legacy_seq2seq``, ``seq2seq``, ``crf``, ``opt`` or ``metrics`` breaks on
TensorFlow 2 until it calls ``install()``, which brings TF 1.15's ops back
(tf1_train/compat/_contrib_seq2seq.py, _contrib_decode.py, _contrib_crf.py). Their paths, matched
before the generic ``contrib`` rule, are in tf1_train/port/paths.py.
"""

from tf1_train.port.rules import BREAKS, _rule

ROW_SEQ2SEQ = "`tf.contrib.legacy_seq2seq`"
ROW_CRF = "`tf.contrib.crf`"
ROW_DYNAMIC_SEQ2SEQ = "`tf.contrib.seq2seq`"
ROW_OPT = "`tf.contrib.opt`"
ROW_METRICS = "`tf.contrib.metrics`"

_rule(
    "legacy-seq2seq",
    BREAKS,
    "tf1_train.compat.install() at the top of the program brings back all of tf.contrib."
    "legacy_seq2seq (TF 1.15's ops under its scopes); in TF2: tf1_train.tf2.seq2seq's "
    "RNNDecoder, AttentionDecoder, EmbeddingAttentionSeq2Seq and sequence losses on TF1's "
    "names (the checkpoint restores), or a Keras RNN layer (your own loop over the cell for "
    "a loop_function; tf.keras.layers.AdditiveAttention for the attention) and, for "
    "sequence_loss_by_example, the sum over steps of weight * sparse cross-entropy divided "
    "by the summed weights",
    "ERROR 'cannot be converted automatically' on tf.contrib.X uses",
    ROW_SEQ2SEQ,
)
_rule(
    "contrib-crf",
    BREAKS,
    "tf1_train.compat.install() at the top of the program brings back tf.contrib.crf "
    "(crf_log_likelihood and its transitions variable, crf_decode, viterbi_decode, ...: "
    "TF 1.15's ops); in TF2 no maintained package has it (TensorFlow Addons' copy ended "
    "with Addons): tf1_train.tf2.crf has the same functions and a CRF holding the "
    "transitions under TF1's name, so the TF1 checkpoint restores",
    "ERROR 'cannot be converted automatically' on tf.contrib.X uses",
    ROW_CRF,
)
_rule(
    "contrib-seq2seq",
    BREAKS,
    "tf1_train.compat.install() at the top of the program brings back all of "
    "tf.contrib.seq2seq (dynamic_decode, the helpers, AttentionWrapper with Bahdanau/Luong "
    "attention, BeamSearchDecoder, sequence_loss: TF 1.15's ops under its variable names, "
    "so the checkpoint restores); in TF2: tf1_train.tf2.decode and tf1_train.tf2.attention "
    "(BasicDecoder with teacher forcing or greedy decoding, AttentionWrapper with Luong or "
    "Bahdanau attention, sequence_loss, on TF1's names) and tf1_train.tf2.beam_search "
    "(BeamSearchDecoder with GNMT's penalties, tile_batch, gather_tree: the same beams and "
    "scores), or a Keras RNN layer for teacher forcing and your own loop over the cell for "
    "decoding (no maintained package has beam search with GNMT's penalties: TensorFlow "
    "Addons' port ended with Addons)",
    "ERROR 'cannot be converted automatically' on tf.contrib.X uses",
    ROW_DYNAMIC_SEQ2SEQ,
)
_rule(
    "contrib-opt",
    BREAKS,
    "tf1_train.compat.install() at the top of the program brings back ScipyOptimizerInterface "
    "(each point SciPy asks for is assigned to the variables: TF 1.15 fed it to them, which "
    "TensorFlow 2's resource variables ignore) and LazyAdam, Nadam, AdaMax, AdamW, MomentumW "
    "and extend_with_decoupled_weight_decay, MovingAverageOptimizer (its swapping_saver "
    "too), VariableClippingOptimizer, MultitaskOptimizerWrapper, LARS, AddSign, PowerSign "
    "(and python.training.sign_decay), RegAdagrad, AdamGS, LazyAdamGS, "
    "DropStaleGradientOptimizer, ElasticAverageOptimizer and ModelAverageOptimizer with "
    "their custom getters as TF 1.15 computed them; in TF2: "
    "tf1_train.tf2.scipy_optimizer.ScipyMinimizer (the same SciPy call over a loss function), "
    "keras.optimizers.AdamW with weight_decay divided by the learning rate and epsilon=1e-8 "
    "(Keras multiplies the two, contrib did not), keras.optimizers.Adamax(epsilon=1e-8); "
    "Keras's Nadam is another algorithm and Keras has no LazyAdam; "
    "tf.train.ExponentialMovingAverage for MovingAverageOptimizer's averages, "
    "keras.optimizers.Adam(epsilon=1e-8) for AdamGS; Keras has no LARS, AddSign or PowerSign",
    "ERROR 'cannot be converted automatically' on tf.contrib.X uses",
    ROW_OPT,
)
_rule(
    "contrib-metrics",
    BREAKS,
    "tf1_train.compat.install() at the top of the program brings back every name of "
    "tf.contrib.metrics as TF 1.15 computed it, the streaming metrics that were tf.metrics' "
    "own with TF 1.15's argument order (predictions first); in TF2: "
    "tf.compat.v1.metrics.X(labels, predictions, ...) with the two swapped (keeping the "
    "positional order computes another number without an error), tf.keras.metrics for "
    "the Keras route (its RecallAtPrecision and PrecisionAtRecall read other thresholds "
    "than contrib's), tf.math.confusion_matrix, tf.sets",
    "ERROR 'cannot be converted automatically' on tf.contrib.X uses",
    ROW_METRICS,
)
