"""The rat race (seed 003): the genetic-algorithm challenge's controller, compiled with numba."""
