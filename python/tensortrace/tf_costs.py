"""The FLOPs and bytes of the matrix products and convolutions of the program's tf.functions.

TensorFlow's profile names each op that ran but holds no shape, and a Keras step is traced with
its batch dimension unknown. At each profiler stop this writes, for every node of the graphs
tf_graphs remembers whose op is a matrix product or a convolution, its FLOPs, output bytes and
input bytes to DIR/xspace/<pid>/tf_op_cost.tsv (docs/trace-format.md):

    # rows BYTES
    NODE<TAB>OP<TAB>FLOPS<TAB>OUTPUT_BYTES<TAB>INPUT_BYTES<TAB>METHOD

A number is a count ("1234"), or, where the node's shapes are known but for their first
dimension, a count per row of the batch ("1234/row"), plus a fixed part for bytes
("256+1234/row": a weight's and a batch's); empty where unknown. "# rows BYTES" gives the bytes one row of an
IteratorGetNext's outputs takes (the batch's rows = the element's bytes, which the profile's
IteratorGetNextOp::DoCompute event states, over it). METHOD is "framework" where TensorFlow's
own statistic (ops.get_stats_for_node_def(graph, node_def, "flops"), its RegisterStatistics)
gave the count, "shape formula" where ours did (2*M*N*K for a product; 2 * output elements *
filter height * width * input channels for a convolution and both its gradients, where
TensorFlow's count of a gradient takes every input position at every filter tap). A node whose
shapes are not known enough is left out (its op's FLOPs are unknown, never 0).
The program's results are unchanged: the graphs are only read."""
import os

FILE = "tf_op_cost.tsv"
FRAMEWORK, FORMULA = "framework", "shape formula"
MATMULS = ("MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
CONVS = ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative")
_done = {}  # concrete function name -> its lines


def _dims(shape):
    """A shape's dimensions (None where unknown), or None where its rank is unknown."""
    try:
        return list(shape.as_list())
    except (ValueError, AttributeError):
        return None


def _batched(dims, rows):
    """The dims with an unknown first dimension set to rows; None if another is unknown."""
    if dims is None:
        return None
    out = [rows if (i == 0 and d is None) else d for i, d in enumerate(dims)]
    return None if any(d is None for d in out) else out


def _prod(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def _attr(op, name, default):
    try:
        return op.get_attr(name)
    except (ValueError, AttributeError):
        return default


def _channels_last(op):
    fmt = _attr(op, "data_format", b"NHWC")
    return (fmt.decode() if isinstance(fmt, bytes) else str(fmt)).endswith("C")


def _matmul_flops(op, a, b):
    ta = _attr(op, "transpose_a", False) or _attr(op, "adj_x", False)
    tb = _attr(op, "transpose_b", False) or _attr(op, "adj_y", False)
    m, k = (a[-1], a[-2]) if ta else (a[-2], a[-1])
    n = b[-2] if tb else b[-1]
    batch = max(_prod(a[:-2]), _prod(b[:-2]))  # broadcast batch dimensions
    return 2 * batch * m * n * k


def _flops(op, ins, out):
    """The op's FLOPs from its input and output shapes (every dimension known)."""
    t = op.type
    if t in MATMULS:
        return _matmul_flops(op, ins[0], ins[1])
    if t in ("Conv2D", "DepthwiseConv2dNative"):
        kh, kw, cin = ins[1][0], ins[1][1], ins[1][2]
        per = kh * kw * (1 if t == "DepthwiseConv2dNative" else cin)
        return 2 * _prod(out) * per
    if t == "Conv2DBackpropInput":  # (input_sizes, filter, out_backprop)
        kh, kw, cin = ins[1][0], ins[1][1], ins[1][2]
        return 2 * _prod(ins[2]) * kh * kw * cin
    if t == "Conv2DBackpropFilter":  # (input, filter_sizes, out_backprop) -> the filter
        kh, kw, cin = out[0], out[1], out[2]
        return 2 * _prod(ins[2]) * kh * kw * cin
    return None


def _tensor_bytes(tensor, dims):
    try:
        return _prod(dims) * tensor.dtype.size
    except Exception:
        return None


def _cost_at(op, rows):
    """(flops, output bytes, input bytes) with unknown first dimensions set to rows."""
    ins = [_batched(_dims(t.shape), rows) for t in op.inputs]
    out = _batched(_dims(op.outputs[0].shape), rows)
    gradient = op.type.startswith("Conv2DBackprop")
    used = [ins[i] for i in ((1, 2) if gradient else (0, 1)) if i < len(ins)]
    if out is None or len(used) < 2 or any(d is None for d in used):
        return None
    flops = _flops(op, ins, out)
    in_bytes = 0
    for t, d in zip(op.inputs, ins):
        if d is not None and t.dtype.name != "resource":
            in_bytes += _tensor_bytes(t, d) or 0
    return flops, _tensor_bytes(op.outputs[0], out), in_bytes


def _framework_flops(graph, op):
    """TensorFlow's own count (RegisterStatistics "flops"), where it has one."""
    from tensorflow.python.framework import ops as tf_ops

    try:
        stats = tf_ops.get_stats_for_node_def(graph, op.node_def, "flops")
        return stats.value
    except Exception:
        return None


def _affine(one, two):
    """The count "FIXED+PER/row" of values at 1 and 2 rows ("N" where fixed); None if unknown
    or not of that form."""
    if one is None or two is None:
        return ""
    per = two - one
    fixed = one - per
    if per < 0 or fixed < 0:
        return None
    if not per:
        return "%d" % fixed
    return ("%d+%d/row" % (fixed, per)) if fixed else ("%d/row" % per)


def _node_line(graph, op):
    one, two = _cost_at(op, 1), _cost_at(op, 2)
    if one is None or two is None or one[0] is None:
        return None
    method = FORMULA
    if one == two:  # every dimension known
        # TensorFlow's count of a convolution's gradients takes every position of the input,
        # the filter's taps at the borders included: ours, the forward's, counts those taken.
        ours = None if op.type.startswith("Conv2DBackprop") else _framework_flops(graph, op)
        if ours is not None:
            one = two = (int(ours),) + one[1:]
            method = FRAMEWORK
    text = [_affine(a, b) for a, b in zip(one, two)]
    if any(t is None for t in text) or not text[0] or "+" in text[0]:
        return None  # the FLOPs: a count, or a count per row
    return "\t".join([op.name, op.type] + text + [method])


def _row_bytes(op):
    """The bytes one row of an IteratorGetNext's outputs takes (first dimensions unknown)."""
    total = 0
    for t in op.outputs:
        dims = _dims(t.shape)
        if not dims or dims[0] is not None or any(d is None for d in dims[1:]):
            return None
        total += _prod(dims[1:]) * t.dtype.size
    return total or None


def _function_lines(graph):
    lines = []
    for op in graph.get_operations():
        if op.type in MATMULS or op.type in CONVS:
            line = _node_line(graph, op)
            if line:
                lines.append(line)
        elif op.type in ("IteratorGetNext", "IteratorGetNextAsOptional", "OptionalGetValue"):
            rb = _row_bytes(op)
            if rb:
                lines.append("# rows %d" % rb)
    return lines


def save(logdir):
    """Writes the costs of the functions tf_graphs remembers (atomically; never raises)."""
    if not logdir:
        return
    try:
        from _tensortrace import tf_graphs

        for function in tf_graphs._copy(tf_graphs._functions):
            for cf in tf_graphs._concrete(function):
                key = tf_graphs._name(cf)
                if key not in _done and len(_done) < tf_graphs.MAX_FUNCTIONS:
                    _done[key] = _function_lines(cf.graph)
        lines = list(dict.fromkeys(line for v in _done.values() for line in v))
        if not lines:
            return
        os.makedirs(logdir, exist_ok=True)
        tmp = os.path.join(logdir, "." + FILE + ".tmp")
        with open(tmp, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, os.path.join(logdir, FILE))
    except Exception:
        pass  # no costs: the ops' FLOPs are unknown, as without it
