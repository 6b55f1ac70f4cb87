"""ipywidgets dashboards for topicsup sessions (shipped as ``topicsup.widgets``).

This layer composes a Session, controls and the Altair views of ``topicsup.views``; it is the
only layer that imports ipywidgets. The live dashboard is built on the Session's block-wise
stop requests and GIL-free kernels (see ``topicsup.session``).
"""
