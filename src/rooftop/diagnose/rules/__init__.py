"""One diagnosis rule per module; each registers itself with ``@rule``."""
