"""The rat race (the PPCG rat-race challenge): the genetic-algorithm challenge's controller, compiled with numba."""
