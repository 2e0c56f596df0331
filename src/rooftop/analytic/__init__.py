"""The analytic source: a ModelSpec and a Workload become per-operator roofline points."""
