"""ipywidgets dashboards for topicsup sessions (shipped as ``topicsup.widgets``).

Nothing is here yet: the live dashboard (run / pause / step, live views) is its own issue. It
will be the only layer that imports ipywidgets, and it will build on what the Session already
offers for it: block-wise ``request_stop`` from another thread and kernels that release the GIL
(see ``topicsup.session``).
"""
