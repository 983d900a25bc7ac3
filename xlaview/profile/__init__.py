"""Measured time beside the estimate: ``jax.profiler`` traces read and joined
to a dump's modules (pure Python, no Qt)."""
