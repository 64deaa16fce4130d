"""Trigger and twin snippets (rule, trigger, clean) for the rules on models that
cast themselves to float16 (tf1_train/port/self_cast_rules.py), joined to
tests/port_scan_cases.py's CASES. Snippets are never run."""

V1 = "import tensorflow.compat.v1 as tf\n"

# A float32-storage getter handing the layers a cast to the dtype they asked
# for, under a scope asking for {half}.
GETTER = (
    V1 + "def keep_float32(getter, name, dtype=None, *args, **kwargs):{mark}\n"
    "    var = getter(name, *args, dtype=tf.float32, **kwargs)\n"
    "    return tf.cast(var, dtype) if dtype == tf.{half} else var\n"
    "with tf.variable_scope('net', dtype=tf.{half}, custom_getter=keep_float32):\n"
    "    w = tf.get_variable('w', [3])\n"
)
# NVIDIA's getter copies the variable's `_ref` onto its cast.
REF_GETTER = (
    V1 + "def keep_float32(next_getter, name, *args, **kwargs):\n"
    "    var = next_getter(name, *args, **kwargs)\n"
    "    cast = tf.cast(var, tf.float16)\n"
    "{line}"
    "    return cast\n"
    "class Staged:\n"
    "    def _ref(self):\n"
    "        return self.var\n"
    "    def value(self):\n"
    "        return self._ref()\n"
)

SELF_CAST = [
    (
        "float16-custom-getter",
        GETTER.format(mark="  # expect: float16-custom-getter", half="float16"),
        # the twin: the same getter in TPU code, casting to bfloat16 (no loss scale needed)
        GETTER.format(mark="", half="bfloat16"),
    ),
    (
        "variable-ref",
        REF_GETTER.format(line="    cast._ref = var._ref  # expect: variable-ref\n"),
        REF_GETTER.format(line=""),
    ),
]
