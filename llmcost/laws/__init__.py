"""laws: compute-optimal scaling (Chinchilla fits and their uncertainty, repeated data, the
inference-adjusted optimum; ``moe``: mixture-of-experts fits and over-training)."""
