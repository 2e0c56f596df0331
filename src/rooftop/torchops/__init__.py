"""The torch profiler's vocabulary, shared by the live profile (``measure``) and trace import (``ingest``).

One module per job: ``formulas`` (FLOPs and output shape of each operator family, causal masking a
parameter of attention), ``dtype_names`` (Kineto ``Input type`` names -> rooftop dtypes and bytes),
``cost`` (FLOPs and bytes of one recorded aten op from its Kineto ``args``), ``kernel_classes``
(kernel name -> operator class). Which ops are covered, where their operands sit, the type names and
the kernel-name patterns are versioned data under ``mappings/``.
"""
