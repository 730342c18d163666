"""tf_costs.py: the FLOPs and bytes of a real tf.function's products and convolutions, written
as DIR/xspace/<pid>/tf_op_cost.tsv: TensorFlow's own count where every shape is known (equal to
the textbook formula), the formula per row of the batch where the batch is unknown, the bytes
per row of an iterator's elements."""
import weakref

import pytest

from _tensortrace import tf_costs, tf_graphs

tf = pytest.importorskip("tensorflow")


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(tf_graphs, "_functions", weakref.WeakSet())
    monkeypatch.setattr(tf_costs, "_done", {})


def rows(tmp_path):
    out = {}
    for line in (tmp_path / tf_costs.FILE).read_text().splitlines():
        f = line.split("\t")
        out[f[0]] = f[1:]
    return out


def step(x, w, f, a, b):
    y = tf.matmul(x, w, transpose_b=True, name="dense")
    c = tf.nn.conv2d(f, tf.ones([3, 3, 4, 6]), strides=2, padding="SAME", name="conv")
    return y, c, tf.matmul(a, b, name="bmm")


def test_every_shape_known_gives_tensorflows_own_count(tmp_path):
    fn = tf.function(step, input_signature=[
        tf.TensorSpec([8, 32]), tf.TensorSpec([16, 32]), tf.TensorSpec([2, 10, 10, 4]),
        tf.TensorSpec([5, 3, 7]), tf.TensorSpec([5, 7, 2])])
    fn.get_concrete_function()
    tf_graphs.remember(fn)
    tf_costs.save(str(tmp_path))
    r = rows(tmp_path)
    assert r["dense"] == ["MatMul", str(2 * 8 * 16 * 32), str(8 * 16 * 4),
                          str((8 * 32 + 16 * 32) * 4), "framework"]
    # SAME, stride 2: a 5x5 output of 6 channels, 3x3x4 taps each.
    assert r["conv"][:2] == ["Conv2D", str(2 * 2 * 5 * 5 * 6 * 3 * 3 * 4)]
    assert r["conv"][-1] == "framework"
    assert r["bmm"][:2] == ["BatchMatMulV2", str(2 * 5 * 3 * 2 * 7)]


def test_an_unknown_batch_counts_per_row(tmp_path):
    fn = tf.function(lambda x, w: tf.matmul(x, w, name="dense"),
                     input_signature=[tf.TensorSpec([None, 32]), tf.TensorSpec([32, 16])])
    fn.get_concrete_function()
    tf_graphs.remember(fn)
    tf_costs.save(str(tmp_path))
    assert rows(tmp_path)["dense"] == ["MatMul", "%d/row" % (2 * 16 * 32), "%d/row" % (16 * 4),
                                       "%d+%d/row" % (32 * 16 * 4, 32 * 4), "shape formula"]


def test_an_iterators_bytes_per_row(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices((tf.zeros([10, 3, 5]), tf.zeros([10], tf.int32)))
    ds = ds.batch(4)

    @tf.function
    def first(it):
        x, y = next(it)
        return tf.reduce_sum(x) + tf.cast(tf.reduce_sum(y), tf.float32)

    first(iter(ds))
    tf_graphs.remember(first)
    tf_costs.save(str(tmp_path))
    text = (tmp_path / tf_costs.FILE).read_text()
    assert "# rows %d\n" % (3 * 5 * 4 + 4) in text
