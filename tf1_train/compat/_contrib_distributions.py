"""``tf.contrib.distributions``' names that were TensorFlow's own.

TF 1.15's ``tensorflow/contrib/distributions/__init__.py`` re-exported
TensorFlow's core distributions (``tensorflow.python.ops.distributions``:
``Normal``, ``Bernoulli``, ``Categorical``, ``kl_divergence``, ...) next to
contrib's own (``MultivariateNormalDiag``, ``OneHotCategorical``,
``RelaxedOneHotCategorical``, the bijectors, ...). TensorFlow 2.21 still
ships the core ones (as ``tf.compat.v1.distributions``), so after install()
those 24 names are those very classes again; contrib's own moved to
TensorFlow Probability and raise one line saying so. This module does not
import TensorFlow until a name is read (the scanner imports it).
"""

import importlib

# name -> its module under tensorflow.python.ops.distributions
CORE = {
    "Bernoulli": "bernoulli",
    "Beta": "beta",
    "BetaWithSoftplusConcentration": "beta",
    "Categorical": "categorical",
    "Dirichlet": "dirichlet",
    "DirichletMultinomial": "dirichlet_multinomial",
    "Distribution": "distribution",
    "FULLY_REPARAMETERIZED": "distribution",
    "NOT_REPARAMETERIZED": "distribution",
    "ReparameterizationType": "distribution",
    "Exponential": "exponential",
    "ExponentialWithSoftplusRate": "exponential",
    "Gamma": "gamma",
    "GammaWithSoftplusConcentrationRate": "gamma",
    "RegisterKL": "kullback_leibler",
    "kl_divergence": "kullback_leibler",
    "Laplace": "laplace",
    "LaplaceWithSoftplusScale": "laplace",
    "Multinomial": "multinomial",
    "Normal": "normal",
    "NormalWithSoftplusScale": "normal",
    "StudentT": "student_t",
    "StudentTWithAbsDfSoftplusScale": "student_t",
    "Uniform": "uniform",
}
GONE = (
    "its core distributions (Normal, Bernoulli, Categorical, Gamma, ..., kl_divergence) are "
    "kept, as TensorFlow's tf.compat.v1.distributions objects; contrib's own "
    "(MultivariateNormalDiag, OneHotCategorical, RelaxedOneHotCategorical, Mixture, the "
    "bijectors, ...): tensorflow_probability's tfp.distributions, or the same math written out"
)


def resolve(name: str):
    """TensorFlow's object that TF 1.15 exported as ``tf.contrib.distributions.<name>``."""
    module = importlib.import_module(f"tensorflow.python.ops.distributions.{CORE[name]}")
    return getattr(module, name)
