"""TensorFlow's profiler (tf.profiler.experimental), started and stopped for tensortrace."""
import functools

from _tensortrace.rebind import rebind


class Adapter:
    name = "tensorflow"

    def __init__(self, module):
        self.version = str(getattr(module, "__version__", "unknown"))
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
        if config.host_level == 2 and not config.python_tracer:
            # TensorFlow's defaults. Passing them anyway makes TF 2.21 log four "expects an i
            # value" lines: its Python binding turns every option value into the wrong type
            # (and then uses its defaults).
            self._start(logdir)
            return
        opts = self._options(host_tracer_level=config.host_level,
                             python_tracer_level=1 if config.python_tracer else 0,
                             device_tracer_level=1, delay_ms=0)
        self._start(logdir, options=opts)

    def stop(self):
        self._stop(save=True)

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
