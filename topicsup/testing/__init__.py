"""Test utilities shipped with topicsup so every kernel (ours or a user's) can be checked
against its exact target: see ``topicsup.testing.exact``."""
