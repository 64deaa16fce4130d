"""A TF 1.x Q-learning program in the manner of OpenAI baselines (2017-20):
a ``tf_util.function`` that turns placeholders, outputs and update ops into
a Python callable and checks ``type(inpt) is tf.Tensor`` of every input
(baselines' DQN, DDPG, TRPO and GAIL build all their training calls so),
flat-vector parameter helpers (``GetFlat``/``SetFromFlat``, as TRPO's line
search uses), a target network synced by assign ops, an epsilon-greedy
policy, and a replay buffer, trained on a small chain walk of its own
(no gym). Written for tf1_train's tests, not taken from baselines.

Runs through ``python -m tf1_train.compat --v1``; it prints one JSON line:
the greedy policy's return before and after training, the loss at the
first and last updates, and how GetFlat/SetFromFlat round-tripped.
"""

import argparse
import json

import numpy as np
import tensorflow as tf


class Function:
    """Placeholders in, outputs out, the update ops run alongside."""

    def __init__(self, inputs, outputs, updates=()):
        for inpt in inputs:
            if not (type(inpt) is tf.Tensor and len(inpt.op.inputs) == 0):
                raise AssertionError("inputs should all be placeholders or constants")
        self.inputs, self.outputs = inputs, list(outputs)
        self.update = tf.group(*updates)

    def __call__(self, *values):
        feed = dict(zip(self.inputs, values))
        return tf.get_default_session().run(self.outputs + [self.update], feed)[:-1]


def numel(v):
    return int(np.prod(v.get_shape().as_list()))


class GetFlat:
    def __init__(self, var_list):
        self.op = tf.concat([tf.reshape(v, [numel(v)]) for v in var_list], axis=0)

    def __call__(self):
        return tf.get_default_session().run(self.op)


class SetFromFlat:
    def __init__(self, var_list):
        self.theta = tf.placeholder(tf.float32, [sum(numel(v) for v in var_list)])
        start, assigns = 0, []
        for v in var_list:
            size = numel(v)
            piece = tf.reshape(self.theta[start : start + size], v.get_shape().as_list())
            assigns.append(tf.assign(v, piece))
            start += size
        self.op = tf.group(*assigns)

    def __call__(self, theta):
        tf.get_default_session().run(self.op, {self.theta: theta})


class Chain:
    """States 0..n-1, actions left/right; reward 1 at the right end, -0.01 a step."""

    def __init__(self, n, horizon):
        self.n, self.horizon = n, horizon

    def reset(self):
        self.state, self.t = 0, 0
        return self.observe()

    def observe(self):
        return np.eye(self.n, dtype=np.float32)[self.state]

    def step(self, action):
        self.state = max(0, min(self.n - 1, self.state + (1 if action == 1 else -1)))
        self.t += 1
        done = self.state == self.n - 1 or self.t >= self.horizon
        return self.observe(), (1.0 if self.state == self.n - 1 else -0.01), done


def q_network(obs, scope, actions, hidden):
    with tf.variable_scope(scope):
        h = tf.layers.dense(obs, hidden, activation=tf.nn.relu, name="fc")
        return tf.layers.dense(h, actions, name="q")


def greedy_return(env, act):
    obs, total, done = env.reset(), 0.0, False
    while not done:
        obs, reward, done = env.step(int(act(obs[None])[0][0]))
        total += reward
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=6)
    parser.add_argument("--updates", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.RandomState(args.seed)
    tf.set_random_seed(args.seed)
    env = Chain(args.states, horizon=3 * args.states)

    obs = tf.placeholder(tf.float32, [None, args.states], name="obs")
    act = tf.placeholder(tf.int32, [None], name="act")
    rew = tf.placeholder(tf.float32, [None], name="rew")
    obs_next = tf.placeholder(tf.float32, [None, args.states], name="obs_next")
    done = tf.placeholder(tf.float32, [None], name="done")
    q = q_network(obs, "q_func", 2, 32)
    q_next = q_network(obs_next, "target_q_func", 2, 32)
    target = rew + 0.95 * (1.0 - done) * tf.reduce_max(q_next, axis=1)
    chosen = tf.reduce_sum(q * tf.one_hot(act, 2), axis=1)
    loss = tf.reduce_mean(tf.square(chosen - tf.stop_gradient(target)))
    q_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="q_func")
    target_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="target_q_func")
    optimize = tf.train.AdamOptimizer(1e-2).minimize(loss, var_list=q_vars)
    sync = [tf.assign(t, v) for v, t in zip(q_vars, target_vars)]

    train = Function([obs, act, rew, obs_next, done], [loss], updates=[optimize])
    act_greedy = Function([obs], [tf.argmax(q, axis=1)])
    update_target = Function([], [], updates=sync)
    get_flat, set_from_flat = GetFlat(q_vars), SetFromFlat(q_vars)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        update_target()
        before = greedy_return(env, act_greedy)
        theta = get_flat()
        set_from_flat(theta + 1.0)
        shifted = float(np.max(np.abs(get_flat() - theta - 1.0)))
        set_from_flat(theta)
        buffer, losses, state = [], [], env.reset()
        for step in range(args.updates):
            eps = max(0.05, 1.0 - step / (0.5 * args.updates))
            a = rng.randint(2) if rng.rand() < eps else int(act_greedy(state[None])[0][0])
            nxt, r, d = env.step(a)
            buffer.append((state, a, r, nxt, float(d)))
            state = env.reset() if d else nxt
            batch = [buffer[i] for i in rng.randint(len(buffer), size=32)]
            losses.append(float(train(*[np.array(x) for x in zip(*batch)])[0]))
            if step % 50 == 0:
                update_target()
        after = greedy_return(env, act_greedy)
    print(json.dumps({"return_before": before, "return_after": after, "loss_first": losses[0],
                      "loss_last": losses[-1], "flat_params": int(theta.size),
                      "flat_roundtrip": shifted}))  # fmt: skip


if __name__ == "__main__":
    main()
