"""Measured points from files users already captured: Kineto traces, Nsight Compute and Nsight Systems exports.

One module per format (``kineto``, ``ncu``, ``nsys``) and per analysis (``timeline``, ``steps``,
``shapes``, ``kernel_classes``). External vocabularies (Kineto arg keys, ncu metric names,
kernel-name patterns) live in the versioned data files under ``mappings/``.
"""
