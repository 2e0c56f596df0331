"""Measured points from files users already captured: Kineto traces, Nsight Compute and Nsight Systems exports.

One module per format (``kineto``, ``ncu``, ``nsys``) and per analysis (``timeline``, ``steps``,
``trace_points``). External vocabularies (Kineto arg keys, ncu metric names) live in the
versioned data files under ``mappings/``; the torch profiler's op formulas, type names and
kernel-name classes, shared with ``measure``, in ``rooftop.torchops``.
"""
