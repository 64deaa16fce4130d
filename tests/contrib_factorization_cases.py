"""What ``tf.contrib.factorization``'s k-means computed: run with TF 1.15.5's own module
(scripts/make_contrib_factorization_goldens.py writes
tests/goldens/contrib_factorization_tf115.json) and with the one
tf1_train.compat.install() serves (tests/test_compat_contrib_factorization.py).
Python 3.7 runs it too.
"""

import numpy as np

# name: (KMeans arguments, graph seed, training steps); a mini-batch step's centres differ
# from run to run on TF 1.15.5 too (its updates race with its reads): its cases compare the
# initial centres (k-MC2: a centre a run, whose loop races too when it adds several)
PLUS_PLUS_COSINE = dict(initial_clusters="kmeans_plus_plus", distance_metric="cosine",
                        use_mini_batch=True)  # fmt: skip
KMC2_SYNC = dict(initial_clusters="kmc2", use_mini_batch=True, mini_batch_steps_per_iteration=2,
                 kmc2_chain_length=60)  # fmt: skip
GRAPHS = {
    "random_full": (dict(initial_clusters="random"), None, 3),
    "random_seeded_graph": (dict(initial_clusters="random", random_seed=5), 7, 3),
    "plus_plus_full": (dict(initial_clusters="kmeans_plus_plus"), None, 3),
    "plus_plus_cosine_minibatch": (PLUS_PLUS_COSINE, 3, 0),
    "kmc2_minibatch_sync": (KMC2_SYNC, None, 0),
}


def points(seed=0, n=60):
    """Three blobs in 2-D, float32."""
    rng = np.random.RandomState(seed)
    centres = np.array([[0.0, 0.0], [4.0, 4.0], [-4.0, 3.0]])
    return (centres[rng.randint(0, 3, n)] + rng.normal(size=(n, 2))).astype(np.float32)


def graph_outcome(tf, kwargs, graph_seed, steps):
    """``KMeans(...).training_graph()`` initialised and stepped, in a graph of its own."""
    with tf.Graph().as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        x = tf.constant(points())
        kmeans = tf.contrib.factorization.KMeans(x, 3, **kwargs)
        graph = kmeans.training_graph()
        all_scores, idx, scores, initialized, init_op, train_op = (
            graph if len(graph) == 6 else graph[:4] + graph[5:])  # fmt: skip
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            found = {"init_runs": 0}
            while not sess.run(initialized) and found["init_runs"] < 10:  # kmc2: a centre a run
                sess.run(init_op)
                found["init_runs"] += 1
            for _ in range(steps):
                sess.run(train_op)
            centres = [v for v in tf.global_variables() if v.op.name == "clusters"][0]
            found["centres"] = sess.run(centres).tolist()
            found["index"] = sess.run(idx)[0].tolist()
            found["score"] = float(np.sum(sess.run(scores)[0]))
            found["all_scores"] = sess.run(all_scores)[0][:4].tolist()
    return found


def estimator_outcome(tf, model_dir, distance_metric):
    """``KMeansClustering`` trained on an input_fn, then scored and applied."""
    data = points(1, 40)

    def input_fn():
        return tf.train.limit_epochs(tf.constant(data), num_epochs=1), None

    kmeans = tf.contrib.factorization.KMeansClustering(
        num_clusters=3, model_dir=model_dir, distance_metric=distance_metric,
        initial_clusters="kmeans_plus_plus", use_mini_batch=False)  # fmt: skip
    for _ in range(4):
        kmeans.train(input_fn)
    return {
        "centres": kmeans.cluster_centers().tolist(),
        "score": float(kmeans.score(input_fn)),
        "index": [int(i) for i in kmeans.predict_cluster_index(input_fn)][:10],
        "distances": [np.asarray(d).tolist() for d in kmeans.transform(input_fn)][:3],
    }


def outcomes(tf, model_dir):
    """name -> outcome; ``tf``: the v1 API, graph mode on; ``model_dir``: an empty folder."""
    found = {name: graph_outcome(tf, *case) for name, case in GRAPHS.items()}
    for metric in ("squared_euclidean", "cosine"):
        found["estimator_" + metric] = estimator_outcome(tf, f"{model_dir}/{metric}", metric)
    return found
