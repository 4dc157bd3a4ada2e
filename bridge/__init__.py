"""educable's library: the Prolog engine, games, agents and learners' glue, shared by both front ends."""
import os

# numpy's OpenBLAS starts a thread per core as numpy is imported, which costs about 0.06-0.09 s
# of CPU in every process that imports it: each command, each Dask worker, each command a test
# starts. educable's arrays are indexed and summed, never multiplied as large matrices, so one
# thread loses nothing. A user's own setting is kept. (Dask's nanny sets the same for workers.)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
