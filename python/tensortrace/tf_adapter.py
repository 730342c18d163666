"""TensorFlow's profiler (tf.profiler.experimental), started and stopped for tensortrace; and
Keras 3's steps numbered (its step functions carry no step number of their own)."""
import functools
import itertools
import os

from _tensortrace.rebind import rebind


def choose_cpu_allocator():
    """With TENSORTRACE_TF_CPU_ALLOCATOR=auto (record's default) and oneDNN off, TensorFlow's
    CPU allocator becomes a BFC allocator, as its oneDNN allocator is when oneDNN is on.

    Why: TensorFlow's default CPU allocator takes each tensor from malloc. While the profiler
    runs, the small blocks it keeps on the op threads land between a step's big buffers, so
    glibc cannot hand a freed buffer back whole: each step takes fresh pages (on the Keras CNN
    bench, a 23 MB scratch buffer of Conv2DBackpropFilter: 5,700 page faults a step and about
    20 MB more resident memory a step) and the step costs about 45% more. A BFC allocator keeps
    its regions, and reports each allocation to the profiler. TensorFlow reads the variable when
    it makes its CPU allocator, at its first op, after the import that calls this.
    Returns what was decided, for capture.json."""
    if os.environ.get("TENSORTRACE_TF_CPU_ALLOCATOR") != "auto":
        return None
    if "TF_CPU_ALLOCATOR_USE_BFC" in os.environ:
        return "the program's TF_CPU_ALLOCATOR_USE_BFC"
    try:
        from tensorflow.python.util import _pywrap_util_port

        onednn = bool(_pywrap_util_port.IsMklEnabled())
    except Exception as e:
        return "TensorFlow's (oneDNN unknown: %s)" % e
    if onednn:
        return "TensorFlow's (oneDNN on)"
    os.environ["TF_CPU_ALLOCATOR_USE_BFC"] = "true"
    return "bfc (oneDNN off)"


class Adapter:
    name = "tensorflow"

    def __init__(self, module):
        self.version = str(getattr(module, "__version__", "unknown"))
        self.cpu_allocator = choose_cpu_allocator()
        self.available = False
        self.unavailable_reason = ""
        try:
            from tensorflow.python.profiler import profiler_v2

            self._p = profiler_v2
            self._start, self._stop = profiler_v2.start, profiler_v2.stop
            self._options = profiler_v2.ProfilerOptions
            self.available = True
        except Exception as e:
            self.unavailable_reason = "tensorflow %s has no usable profiler: %s" % (self.version, e)

    def start(self, logdir, config):
        from _tensortrace import tracer

        self._logdir = logdir
        # TensorFlow's Python tracer delivers no call into its profile: ours runs instead.
        python_tracer = config.python_tracer and not tracer.running()
        if config.host_level == 2 and not python_tracer:
            # TensorFlow's defaults. Passing them anyway makes TF 2.21 log four "expects an i
            # value" lines: its Python binding turns every option value into the wrong type
            # (and then uses its defaults).
            self._start(logdir)
            return
        opts = self._options(host_tracer_level=config.host_level,
                             python_tracer_level=1 if python_tracer else 0,
                             device_tracer_level=1, delay_ms=0)
        self._start(logdir, options=opts)

    def stop(self):
        self._stop(save=True)
        from _tensortrace import tf_costs, tf_graphs, tf_params

        tf_graphs.save(getattr(self, "_logdir", None))
        tf_costs.save(getattr(self, "_logdir", None))
        tf_params.save(getattr(self, "_logdir", None))

    def when_ready(self, start, on_error):
        try:
            start()
        except Exception as e:
            on_error(e)

    def wrap_user_entry_points(self, step_aside):
        """The program's own profiler calls make ours stop first, then run unchanged.
        Profile (the context manager) calls profiler_v2.start, so it is covered too."""
        def wrap(fn, what):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                step_aside(what)
                return fn(*args, **kwargs)

            return wrapper

        # A stop while ours runs would end our session: ours stops first, and the program's
        # call then fails (or not) as it would without us.
        targets = [(self._start, "tf.profiler.experimental.start"),
                   (self._stop, "tf.profiler.experimental.stop")]
        if hasattr(self._p, "start_server"):
            targets.append((self._p.start_server, "tf.profiler.experimental.server.start"))
        rebind({fn: wrap(fn, what) for fn, what in targets})

    def number_steps(self, step_starts, between_steps):
        """Keras 3 (TensorFlow backend): each call of a model's train, test or predict function
        runs inside a TraceMe "train"/"test"/"predict" with step_num, counted from 0 over the
        process's calls (what Keras 2 wrote itself, and the position tensortrace gives the
        steps of a whole capture). So `record --steps A:B` and capture windows keep the
        program's step numbers. step_starts() runs before each step and between_steps() after
        it (a due capture window ends there, between two steps, never inside one). The
        program's results are unchanged."""
        from _tensortrace import import_hook

        try:
            from tensorflow.python.profiler.trace import Trace
        except Exception:
            return
        counter = itertools.count()

        def counted(fn, marker):
            @functools.wraps(fn)
            def step(*args, **kwargs):
                step_starts()
                try:
                    with Trace(marker, step_num=next(counter), _r=1):
                        return fn(*args, **kwargs)
                finally:
                    between_steps()

            step._tensortrace_step = True
            return step

        def wrap_maker(cls, maker_name, attr, marker):
            orig = getattr(cls, maker_name, None)
            if orig is None or getattr(orig, "_tensortrace_step", False):
                return

            @functools.wraps(orig)
            def maker(self, *args, **kwargs):
                from _tensortrace import tf_params

                tf_params.remember_model(self)  # its layers' weights (the scope view's params)
                fn = orig(self, *args, **kwargs)
                f = getattr(self, attr, None)
                if callable(f) and not getattr(f, "_tensortrace_step", False):
                    setattr(self, attr, counted(f, marker))
                return getattr(self, attr, fn) if fn is f else fn

            maker._tensortrace_step = True
            setattr(cls, maker_name, maker)

        def on_trainer(module):
            cls = getattr(module, "TensorFlowTrainer", None)
            if cls is None:
                return
            for maker_name, attr, marker in (
                    ("make_train_function", "train_function", "train"),
                    ("make_test_function", "test_function", "test"),
                    ("make_predict_function", "predict_function", "predict")):
                wrap_maker(cls, maker_name, attr, marker)

        on_trainer.__name__ = "numbering Keras steps"
        import_hook.when_imported("keras.src.backend.tensorflow.trainer", on_trainer)
        number_function_calls()
        remember_session_graphs()


def remember_session_graphs():
    """Each tf.compat.v1 Session's graph is remembered (weakly) when the Session is made, and
    saved at the profiler's stop (replay's edges). Once per Session, not per run; the program's
    results are unchanged."""
    try:
        from tensorflow.python.client import session
    except Exception:
        return
    from _tensortrace import tf_graphs

    cls = session.BaseSession
    orig = cls.__init__
    if getattr(orig, "_tensortrace_graph", False):
        return

    @functools.wraps(orig)
    def init(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        tf_graphs.remember_session(self)

    init._tensortrace_graph = True
    cls.__init__ = init


def number_function_calls():
    """A custom loop's step is its repeated tf.function call, which carries no number: each
    call's TraceMe (TensorFlow's, named after the function) gets the argument tensortrace_call,
    the function's calls counted from 0 in this process, so that a call lost between two capture
    windows leaves its number missing instead of shifting the others'. The program's results
    are unchanged."""
    import threading
    import types

    try:
        from tensorflow.python.eager.polymorphic_function import polymorphic_function as pf
        from tensorflow.python.profiler import trace
    except Exception:
        return
    cls = getattr(pf, "Function", None)
    if cls is None or getattr(cls.__call__, "_tensortrace_step", False) or pf.trace is not trace:
        return
    pending = threading.local()  # the number of the call whose TraceMe opens next

    class NumberedTrace(trace.Trace):
        def __init__(self, name, **kwargs):
            n = getattr(pending, "n", None)
            if n is not None:
                pending.n = None
                kwargs["tensortrace_call"] = n
            super().__init__(name, **kwargs)

    from _tensortrace import tf_graphs

    orig = cls.__call__

    @functools.wraps(orig)
    def call(self, *args, **kwargs):
        tf_graphs.remember(self)  # its graphs are saved at the profiler's stop (replay's edges)
        n = getattr(self, "_tensortrace_calls", 0)
        self._tensortrace_calls = n + 1
        pending.n = n
        return orig(self, *args, **kwargs)

    call._tensortrace_step = True
    # The module's own name for the profiler's trace module, with Trace numbered (what else
    # the module reads from it, as it was).
    numbered = types.ModuleType(trace.__name__)
    numbered.__dict__.update(trace.__dict__)
    numbered.Trace = NumberedTrace
    pf.trace = numbered
    cls.__call__ = call
