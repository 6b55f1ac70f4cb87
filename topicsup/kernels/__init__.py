"""numba kernels: pure functions over arrays of state. No Python objects, pandas or widgets.

A kernel mutates state arrays in place and fills an int64 info record; the layers above
(``topicsup.models``, ``topicsup.session``) choose kernels and own the state.
"""
