"""``numba.njit`` that imports numba on first use, so that a command which never runs a kernel
(``educable --help``, ``query``, ``show``) does not pay numba's 0.15-0.4 s import.

``@njit(cache=True)`` on a module-level function leaves a stand-in in its
module.  The first call of any stand-in of a module imports numba and puts
the compiled function in place of every stand-in of that module, so kernels
calling each other by name see numba's dispatchers.  A kernel may only call
kernels of its own module (a stand-in imported into another module still
works from Python, but not from another kernel).
"""
from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

CACHE_ENV = "EDUCABLE_CACHE"

_pending: dict[str, list[_Kernel]] = {}      # module name -> its stand-ins not yet compiled
_lock = threading.Lock()


class _Kernel:
    """A kernel before its module's first kernel call."""

    def __init__(self, fn: Callable, options: dict[str, Any]) -> None:
        self.fn, self.options, self.compiled = fn, options, None
        self.__name__, self.__doc__, self.__wrapped__ = fn.__name__, fn.__doc__, fn

    def __call__(self, *args: Any) -> Any:
        if self.compiled is None:
            _compile_module(self.fn.__module__)
        assert self.compiled is not None        # noqa: S101  (narrows a type for mypy; true by construction); _compile_module compiled every function of the module
        return self.compiled(*args)

    def __reduce__(self) -> tuple:
        return _by_name, (self.fn.__module__, self.fn.__name__)     # pickled by name, like a function


def _by_name(module: str, name: str) -> Any:
    __import__(module)
    return getattr(sys.modules[module], name)


def cache_folder() -> Path:
    """The folder of what educable remembers between commands (EDUCABLE_CACHE, else ~/.cache/educable)."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "educable")


def keep_kernels_by_module() -> None:
    """Keep educable's compiled kernels in ``cache_folder()/numba/MODULE``, not in ``__pycache__``
    beside their sources: numba stamps a cached kernel with its source file's content (a hash), and
    its index with the module's and function's names, but places it by the source file's path, so
    every clone, new virtual environment or reinstalled wheel compiled them all again (62 s of CPU,
    the most of a fresh clone's set-up) although not a byte of them had changed.  Kept by module
    name and stamped with all of learners/ (learners_hash), they are loaded wherever the same
    source is.  NUMBA_CACHE_DIR, where set, is numba's own and still wins; a folder that cannot be
    written leaves numba its own places.  Call it before any kernel is decorated
    (learners/race/__init__.py, _compile_module)."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl        # (its name before numba 0.61)
    classes = impl._locator_classes
    if any(getattr(c, "educable", False) for c in classes):
        return

    class ByModule(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        educable = True

        def __init__(self, py_func: Callable, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(cache_folder() / "numba" / py_func.__module__)

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> str:
            return learners_hash()

        @classmethod
        def from_function(cls, py_func: Callable, py_file: str) -> Any:
            if not py_func.__module__.startswith("educable."):
                return None
            locator = super().from_function(py_func, py_file)
            if locator is not None:
                _only_sound_files(locator.get_cache_path())
            return locator

    classes.insert(1, ByModule)          # after numba's NUMBA_CACHE_DIR, before its __pycache__


@functools.cache
def _only_sound_files(folder: str) -> None:
    """Remove from a kernel folder what numba could not read back: what is not a regular file (a FIFO,
    a device, a link: numba opens its index with a plain open, and a FIFO in an index's place blocked
    the first kernel call for ever) and a file that does not start as numba's pickles do (bytes of
    something else there stopped every kernel call with an UnpicklingError).  The folder is educable's
    own; numba writes what it needs anew."""
    import stat
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    os.rmdir(entry.path)
                elif not stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):
                    os.unlink(entry.path)
                elif entry.name.endswith((".nbi", ".nbc")):
                    with open(entry.path, "rb") as kept:
                        if kept.read(2)[:1] != b"\x80":           # a pickle's protocol mark
                            os.unlink(entry.path)
            except OSError:
                pass


@functools.cache
def learners_hash() -> str:
    """Each kernel's stamp: the SHA-256 of every source file of learners/ (names and bytes), where all
    of educable's kernels live.  A kernel inlines kernels of other modules (the race's players take
    rand.py's), and numba's own stamp, its file's alone, kept a kernel compiled with another version
    of them; shared between clones, any change to learners/ compiles them all anew."""
    import hashlib
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _compile_module(module: str) -> None:
    import numba

    keep_kernels_by_module()
    with _lock:
        for kernel in _pending.pop(module, []):
            kernel.compiled = numba.njit(**kernel.options)(kernel.fn)
            setattr(sys.modules[module], kernel.fn.__name__, kernel.compiled)


def njit(**options: Any) -> Callable[[Callable], Any]:
    """``numba.njit(**options)``, applied when the module's first kernel is called."""
    def wrap(fn: Callable) -> _Kernel:
        kernel = _Kernel(fn, options)
        _pending.setdefault(fn.__module__, []).append(kernel)
        return kernel
    return wrap


def load_cached() -> int:
    """Put in place every kernel of the modules imported so far that numba's cache holds for this
    machine and this code, loaded from the cache (nothing is compiled anew); returns how many
    signatures it loaded.  A process that forks others to run commands (the test suite's fork
    server) does this once, and each child finds the kernels ready: a command's first kernel call
    otherwise spends about 0.7 s of CPU in numba's machinery loading them."""
    from numba.core.registry import CPUDispatcher

    loaded = 0
    for name in list(_pending):
        _compile_module(name)
        for kernel in list(vars(sys.modules[name]).values()):
            cache = getattr(kernel, "_cache", None) if isinstance(kernel, CPUDispatcher) else None
            if cache is None or not hasattr(cache, "_cache_file"):       # not cached (cache=False)
                continue
            codegen = kernel.targetctx.codegen()
            for key in cache._cache_file._load_index():
                if cache._index_key(key[0], codegen) == key:          # this machine's, this code's
                    kernel.compile(key[0])
                    loaded += 1
    return loaded
