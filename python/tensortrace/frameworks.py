"""The frameworks whose own profiler the bootstrap starts: one entry per framework, the only
list of them. A new framework is one entry here and one adapter module (see tf_adapter.py).
Loaded at every traced Python process's start: it imports nothing."""


class Framework:
    __slots__ = ("name", "module", "adapter", "modules")

    def __init__(self, name, module, adapter, modules):
        self.name = name  # its name in capture.json ("framework") and in messages
        self.module = module  # the top-level module whose import starts it (import_hook.py)
        self.adapter = adapter  # this package's module that starts/stops it (capture.py)
        self.modules = modules  # prefixes of modules that may hold its profiler (rebind.py)


FRAMEWORKS = (
    Framework("tensorflow", "tensorflow", "tf_adapter", ("tensorflow", "keras", "tf_keras")),
    Framework("jax", "jax", "jax_adapter", ("jax", "jaxlib", "flax")),
    Framework("torch", "torch", "torch_adapter", ("torch",)),
)


def by_name(name):
    """The entry named `name`."""
    return next(f for f in FRAMEWORKS if f.name == name)
