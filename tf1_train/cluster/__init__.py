"""Between-graph training on TensorFlow's gRPC runtime: parameter servers
and workers.

* ``spec``: the cluster from flags or TF_CONFIG, task names, ports (no TensorFlow);
* ``server``: a task's gRPC server and the parameter servers' bounded life;
* ``worker``: a worker's run (the chief initialises, saves and writes summaries);
* ``sync``: ``SyncReplicasOptimizer`` wiring;
* ``launch``: a whole job on 127.0.0.1 (``python -m tf1_train.launch``).

The rest of tf1_train reaches it from two places only: ``main.dispatch``
(a ps or a worker) and ``graph.build`` (a worker's sync optimizer).
"""
