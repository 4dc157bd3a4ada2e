"""The rat race (the PPCG rat-race challenge): the genetic-algorithm challenge's controller, compiled with numba."""
from educable.learners.jit import keep_kernels_by_module

keep_kernels_by_module()        # before the race's modules decorate their kernels
