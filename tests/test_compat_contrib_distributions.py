"""tf.contrib.distributions after tf1_train.compat.install()
(tf1_train/compat/_contrib_distributions.py): TF 1.15's names that were
TensorFlow's own distributions are those classes again, held here to the
closed forms a VAE or a policy gradient reads from them; contrib's own raise
one line naming TensorFlow Probability.
"""

import importlib

import numpy as np
import pytest
import tensorflow as tf

from tf1_train.compat import _contrib_distributions

v1 = tf.compat.v1

# TF 1.15's tensorflow/contrib/distributions/__init__.py: _allowed_symbols.
TF115 = """auto_correlation bijectors Cauchy ConditionalDistribution
ConditionalTransformedDistribution FULLY_REPARAMETERIZED NOT_REPARAMETERIZED
ReparameterizationType Distribution Autoregressive BatchReshape Bernoulli Beta Binomial
BetaWithSoftplusConcentration Categorical Chi2 Chi2WithAbsDf Deterministic VectorDeterministic
Exponential ExponentialWithSoftplusRate VectorExponentialDiag Gamma
GammaWithSoftplusConcentrationRate Geometric HalfNormal Independent InverseGamma
InverseGammaWithSoftplusConcentrationRate Kumaraswamy Laplace LaplaceWithSoftplusScale Logistic
NegativeBinomial Normal NormalWithSoftplusScale Poisson PoissonLogNormalQuadratureCompound
SeedStream SinhArcsinh StudentT StudentTWithAbsDfSoftplusScale Uniform MultivariateNormalDiag
MultivariateNormalFullCovariance MultivariateNormalTriL MultivariateNormalDiagPlusLowRank
MultivariateNormalDiagWithSoftplusScale Dirichlet DirichletMultinomial Multinomial
VectorDiffeomixture VectorLaplaceDiag VectorSinhArcsinhDiag WishartCholesky WishartFull
TransformedDistribution QuantizedDistribution Mixture MixtureSameFamily
ExpRelaxedOneHotCategorical OneHotCategorical RelaxedBernoulli RelaxedOneHotCategorical
kl_divergence RegisterKL fill_triangular fill_triangular_inverse matrix_diag_transform
reduce_weighted_logsumexp softplus_inverse tridiag normal_conjugates_known_scale_posterior
normal_conjugates_known_scale_predictive percentile assign_moving_mean_variance
assign_log_moving_mean_exp moving_mean_variance estimator_head_distribution_regression
quadrature_scheme_softmaxnormal_gauss_hermite quadrature_scheme_softmaxnormal_quantiles
quadrature_scheme_lognormal_gauss_hermite quadrature_scheme_lognormal_quantiles""".split()


def test_each_tf_1_15_name_is_tensorflows_class_or_one_line(installed):
    module = importlib.import_module("tensorflow.contrib.distributions")
    assert module is v1.contrib.distributions
    kept = []
    for name in TF115:
        if hasattr(v1.distributions, name) or name in _contrib_distributions.CORE:
            value = getattr(module, name)
            if hasattr(v1.distributions, name):
                assert value is getattr(v1.distributions, name), name
            kept.append(name)
        else:
            with pytest.raises(AttributeError, match=f"{name} was removed.*tfp.distributions"):
                getattr(module, name)
    assert sorted(kept) == sorted(_contrib_distributions.CORE)  # 24 of 84


def test_a_vaes_normal_samples_scores_and_kl_are_the_closed_forms(installed):
    from tensorflow.contrib import distributions as tfd

    mu, sigma = np.array([0.5, -1.0], np.float32), np.array([2.0, 0.5], np.float32)
    with tf.Graph().as_default():
        v1.set_random_seed(3)
        posterior = tfd.Normal(loc=mu, scale=sigma)
        prior = tfd.Normal(loc=np.zeros(2, np.float32), scale=np.ones(2, np.float32))
        z = posterior.sample(20000)
        kl = tfd.kl_divergence(posterior, prior)
        log_p = posterior.log_prob(tf.constant([[1.0, 0.0]]))
        assert posterior.reparameterization_type is tfd.FULLY_REPARAMETERIZED
        grad = tf.gradients(tf.reduce_sum(z), posterior.loc)  # reparameterized
        with v1.Session() as sess:
            z, kl, log_p, grad = sess.run([z, kl, log_p, grad])
    np.testing.assert_allclose(z.mean(0), mu, atol=0.05)
    np.testing.assert_allclose(z.std(0), sigma, rtol=0.03)
    want_kl = np.log(1 / sigma) + (sigma**2 + mu**2) / 2 - 0.5
    np.testing.assert_allclose(kl, want_kl, rtol=1e-6)
    want_lp = -0.5 * ((np.array([1.0, 0.0]) - mu) / sigma) ** 2 - np.log(sigma * np.sqrt(2 * np.pi))
    np.testing.assert_allclose(log_p[0], want_lp, rtol=1e-6)
    np.testing.assert_allclose(grad[0], [20000, 20000])


def test_a_policys_categorical_gives_the_softmax_log_probabilities(installed):
    logits = np.array([[1.0, 2.0, 0.5]], np.float32)
    with tf.Graph().as_default():
        pi = tf.contrib.distributions.Categorical(logits=logits)
        got = v1.Session().run([pi.log_prob([1]), pi.entropy()])
    p = np.exp(logits) / np.exp(logits).sum()
    np.testing.assert_allclose(got[0], np.log(p[0, 1]), rtol=1e-6)
    np.testing.assert_allclose(got[1], -(p * np.log(p)).sum(), rtol=1e-6)
