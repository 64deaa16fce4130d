"""A TF 1.x graph convolutional network in the manner of tkipf/gcn (2016)
and the many graph models forked from it: ``import tensorflow as tf`` as on
TF 1.x, a SciPy sparse adjacency matrix normalized as D^-1/2 (A + I) D^-1/2,
Chebyshev polynomials scaled by the largest eigenvalue from ``eigsh``
(imported, as there, from ``scipy.sparse.linalg.eigen.arpack``, a path
SciPy no longer has), sparse features fed through ``tf.sparse_placeholder``,
``tf.sparse_tensor_dense_matmul``, masked softmax cross entropy, and weight
decay on the first layer. Written for tf1_train's tests, not taken from
gcn; on a graph of two communities it must find the communities from 10
labelled nodes (``--model=gcn``; the Chebyshev model also passes each
node's own features through T0 = I, fits the 10 nodes' noisy features and
generalizes less here). Runs through ``python -m tf1_train.compat --v1``.
"""

import numpy as np
import scipy.sparse as sp
import tensorflow as tf
from scipy.sparse.linalg.eigen.arpack import eigsh

flags = tf.app.flags
flags.DEFINE_integer("epochs", 100, "training epochs")
flags.DEFINE_string("model", "gcn_cheby", "gcn (renormalized adjacency) or gcn_cheby")
flags.DEFINE_integer("max_degree", 2, "Chebyshev polynomial degree")
FLAGS = flags.FLAGS


def community_graph(n=120, seed=4):
    """Two communities of n/2 nodes: dense inside, sparse across; bag-of-words
    features that only lean to a node's community."""
    rng = np.random.RandomState(seed)
    labels = np.arange(n) >= n // 2
    same = labels[:, None] == labels[None, :]
    edges = np.triu(rng.rand(n, n) < np.where(same, 0.3, 0.01), 1)
    own = np.arange(16)[None, :] // 8 == labels[:, None]  # each community's words, noisily
    features = sp.csr_matrix((rng.rand(n, 16) < np.where(own, 0.25, 0.1)).astype(np.float32))
    return sp.coo_matrix(edges + edges.T, dtype=np.float32), features, labels.astype(int)


def normalize_adj(adj):
    adj = sp.coo_matrix(adj)
    d_inv_sqrt = np.power(np.array(adj.sum(1)).flatten(), -0.5)
    d_inv_sqrt[np.isinf(d_inv_sqrt)] = 0.0
    d_mat = sp.diags(d_inv_sqrt)
    return adj.dot(d_mat).transpose().dot(d_mat).tocoo()


def chebyshev_polynomials(adj, k):
    laplacian = sp.eye(adj.shape[0]) - normalize_adj(adj)
    largest_eigval, _ = eigsh(laplacian, 1, which="LM")
    scaled = (2.0 / largest_eigval[0]) * laplacian - sp.eye(adj.shape[0])
    t_k = [sp.eye(adj.shape[0]), scaled]
    for _ in range(2, k + 1):
        t_k.append(2 * sp.csr_matrix(scaled).dot(t_k[-1]) - t_k[-2])
    print(f"largest_eigval = {largest_eigval[0]:.6f}")  # ARPACK's, and LAPACK's on the dense one
    print(f"dense_largest_eigval = {np.linalg.eigvalsh(laplacian.toarray())[-1]:.6f}")
    return [sparse_to_tuple(t) for t in t_k]


def sparse_to_tuple(matrix):
    matrix = sp.coo_matrix(matrix)
    return np.vstack((matrix.row, matrix.col)).transpose(), matrix.data, matrix.shape


def graph_conv(x, supports, out_dim, name, sparse_inputs=False, act=tf.nn.relu):
    with tf.variable_scope(name):
        total = 0
        for i, support in enumerate(supports):
            in_dim = x.get_shape()[1]
            w = tf.get_variable(f"weights_{i}", [in_dim, out_dim],
                                initializer=tf.glorot_uniform_initializer())  # fmt: skip
            pre = tf.sparse_tensor_dense_matmul(x, w) if sparse_inputs else tf.matmul(x, w)
            total += tf.sparse_tensor_dense_matmul(support, pre)
        return act(total)


def main(_):
    tf.set_random_seed(0)
    adj, features, labels = community_graph()
    n = adj.shape[0]
    if FLAGS.model == "gcn":
        supports_np = [sparse_to_tuple(normalize_adj(adj + sp.eye(n)))]
    else:
        supports_np = chebyshev_polynomials(adj, FLAGS.max_degree)
    train_mask = np.zeros(n, bool)
    train_mask[[0, 1, 2, 3, 4, n - 1, n - 2, n - 3, n - 4, n - 5]] = True
    test_mask = ~train_mask
    supports = [tf.sparse_placeholder(tf.float32) for _ in supports_np]
    x = tf.sparse_placeholder(tf.float32, shape=features.shape)
    y = tf.placeholder(tf.float32, [None, 2])
    mask = tf.placeholder(tf.float32, [None])
    hidden = graph_conv(x, supports, 16, "gc1", sparse_inputs=True)
    logits = graph_conv(hidden, supports, 2, "gc2", act=lambda t: t)
    losses = tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits)
    loss = tf.reduce_mean(losses * mask / tf.reduce_mean(mask))
    loss += 5e-4 * tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables("gc1")])
    correct = tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1)), tf.float32)
    accuracy = tf.reduce_mean(correct * mask / tf.reduce_mean(mask))
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    feed = {s: t for s, t in zip(supports, supports_np)}
    feed.update({x: sparse_to_tuple(features), y: np.eye(2)[labels]})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(FLAGS.epochs):
            _, cost = sess.run([train_op, loss], {**feed, mask: train_mask})
            if epoch == 0:
                print(f"first_loss = {cost:.4f}")
        print(f"last_loss = {cost:.4f}")
        print(f"test_accuracy = {sess.run(accuracy, {**feed, mask: test_mask}):.4f}")


if __name__ == "__main__":
    tf.app.run()
