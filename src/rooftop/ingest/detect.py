"""Which reader a file needs: Kineto trace, Nsight Compute CSV or Nsight Systems summary.

Decided by content, not by extension: gzip magic or a leading '{'/'[' is a Chrome trace; an
``"ID",...,"Kernel Name"`` header is Nsight Compute; a ``Total Time`` column is an nsys summary.
"""

from __future__ import annotations

from pathlib import Path

from rooftop.errors import TraceFormatError

KINETO, NCU, NSYS = "kineto", "ncu", "nsys"
_SNIFF_BYTES = 65536


def detect(path: str | Path) -> str:
    """'kineto', 'ncu' or 'nsys'; anything else raises TraceFormatError naming what was expected."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            head = f.read(_SNIFF_BYTES)
    except OSError as exc:
        raise TraceFormatError(f"{p}: cannot read: {exc.strerror or exc}") from exc
    if head[:2] == b"\x1f\x8b":
        return KINETO
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    if text.lstrip()[:1] in ("{", "["):
        return KINETO
    if '"Kernel Name"' in text and ('"ID"' in text or "\nID," in text or text.startswith("ID,")):
        return NCU
    if "Total Time" in text and ("Instances" in text or "Calls" in text):
        return NSYS
    raise TraceFormatError(
        f"{p}: not a Kineto trace (.json/.json.gz), Nsight Compute CSV (--csv --page raw|details) "
        "or nsys kernel summary (nsys stats --report cuda_gpu_kern_sum --format csv)"
    )
