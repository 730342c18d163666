"""JAX's profiler (jax.profiler), started and stopped for tensortrace.

Starting a JAX trace initialises JAX's backends, which a program may not do yet right after
`import jax` (jax.distributed.initialize, jax_platforms set later): ours starts right after the
program's first backend initialisation instead."""
import functools

from _tensortrace.rebind import rebind


class Adapter:
    name = "jax"

    def __init__(self, module):
        self.version = str(getattr(module, "__version__", "unknown"))
        self.available = False
        self.unavailable_reason = ""
        try:
            from jax._src import profiler, xla_bridge

            self._p = profiler
            self._xb = xla_bridge
            self._start, self._stop = profiler.start_trace, profiler.stop_trace
            self.available = callable(getattr(xla_bridge, "backends", None))
            from _tensortrace import jax_params

            jax_params.watch_jit()  # the jitted calls' parameters (the scope view's params)
            if not self.available:
                self.unavailable_reason = ("jax %s: no xla_bridge.backends to wait for"
                                           % self.version)
        except Exception as e:
            self.unavailable_reason = "jax %s has no usable profiler: %s" % (self.version, e)

    def start(self, logdir, config):
        if config.python_tracer:
            from _tensortrace import tracer

            tracer.stop()  # JAX's own delivers the calls: ours would count them twice
        opts = None
        if hasattr(self._p, "ProfileOptions"):
            opts = self._p.ProfileOptions()
            opts.host_tracer_level = config.host_level
            opts.python_tracer_level = 1 if config.python_tracer else 0
            self._start(logdir, profiler_options=opts)
        else:
            self._start(logdir)
        self._logdir = logdir

    def stop(self):
        self._stop()
        from _tensortrace import jax_params

        jax_params.save(getattr(self, "_logdir", None))

    def when_ready(self, start, on_error):
        xb = self._xb

        def run():
            try:
                start()
            except Exception as e:
                on_error(e)

        try:
            if xb.backends_are_initialized():
                run()
                return
        except Exception:
            pass
        orig = xb.backends
        state = {"started": False}

        @functools.wraps(orig)
        def backends(*args, **kwargs):
            result = orig(*args, **kwargs)
            if not state["started"]:
                state["started"] = True  # before start(): it asks for the backends again
                rebind({backends: orig})
                run()
            return result

        rebind({orig: backends})

    def wrap_user_entry_points(self, step_aside):
        """jax.profiler.trace (a context manager) calls start_trace, so it is covered too."""
        def wrap(fn, what):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                step_aside(what)
                return fn(*args, **kwargs)

            return wrapper

        # A stop while ours runs would end our session: ours stops first, and the program's
        # call then fails (or not) as it would without us.
        targets = [(self._start, "jax.profiler.start_trace"),
                   (self._stop, "jax.profiler.stop_trace")]
        if hasattr(self._p, "start_server"):
            targets.append((self._p.start_server, "jax.profiler.start_server"))
        rebind({fn: wrap(fn, what) for fn, what in targets})

    def number_steps(self, step_starts, between_steps):
        """JAX numbers no step of its own; a program that marks its steps with
        jax.profiler.StepTraceAnnotation (xprof's step marker, with the program's step_num) has
        them counted: step_starts() before each and between_steps() after it, for `capture
        --steps N` and so that a due --window-s window ends between two steps. The marker
        itself is unchanged; an error of ours never reaches the program."""
        cls = getattr(self._p, "StepTraceAnnotation", None)
        enter, leave = getattr(cls, "__enter__", None), getattr(cls, "__exit__", None)
        if enter is None or leave is None or getattr(enter, "_tensortrace_step", False):
            return

        def quietly(fn):
            try:
                fn()
            except Exception:
                pass

        @functools.wraps(enter)
        def __enter__(annotation):
            quietly(step_starts)
            return enter(annotation)

        @functools.wraps(leave)
        def __exit__(annotation, *exc):
            try:
                return leave(annotation, *exc)
            finally:
                quietly(between_steps)

        __enter__._tensortrace_step = True
        cls.__enter__, cls.__exit__ = __enter__, __exit__

    def watch_rank(self):
        """JAX's process index and count, known once jax.distributed.initialize has run (its
        arguments or a cluster's environment), become the process's rank in the trace."""
        try:
            from jax._src import distributed
        except Exception:
            return
        state_cls = getattr(distributed, "State", None)
        orig = getattr(state_cls, "initialize", None)
        if orig is None:
            return

        @functools.wraps(orig)
        def initialize(state, *args, **kwargs):
            result = orig(state, *args, **kwargs)
            _set_rank(getattr(state, "process_id", None), getattr(state, "num_processes", None))
            return result

        state_cls.initialize = initialize


def _set_rank(rank, world):
    from _tensortrace.ranks import set_rank

    set_rank(rank, world, b"jax.process_index")

