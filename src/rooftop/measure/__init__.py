"""Measured source: sustained roofs from micro-benchmarks and live profiles of real PyTorch models.

torch and transformers import lazily inside functions (``pip install 'rooftop[measure]'``).
"""
