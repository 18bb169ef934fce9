"""``python -m infra_calc measure [--json FILE] [--quick] [--device {cpu,cuda}] [--no-progress]``."""
from __future__ import annotations

import os
import time

from .._parser import Parser
from .backends import check_device, gpu_note
from .bench import run, step_count
from .progress import ProgressBar

__all__ = ["main"]


def main(argv=None) -> int:
    """Measure, print the report, optionally write the JSON; returns the exit status."""
    p = Parser(prog="python -m infra_calc measure",
                                description="Measure this machine's roofline (STREAM-style triad, "
                                            "matmul peak) and the J13 Q-projection GEMM for M = 1..1024.")
    p.add_argument("--json", metavar="FILE", help="write the measurement to FILE (JSON)")
    p.add_argument("--quick", action="store_true", help="smaller arrays, fewer repeats (a few seconds)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                   help="cpu (float32, NumPy) or cuda (BF16, PyTorch); default cpu")
    p.add_argument("--no-progress", action="store_true", help="do not draw the progress bar")
    args = p.parse_args(argv)
    folder = os.path.dirname(os.path.abspath(args.json or "."))
    if args.json and not os.path.isdir(folder):  # before the minutes of measuring, not after
        p.error(f"--json {args.json}: there is no folder {folder!r} to write it in")
    device = check_device(args.device)
    bar = None if args.no_progress else ProgressBar(step_count(quick=args.quick, device=device))
    t0 = time.perf_counter()
    try:
        result = run(quick=args.quick, device=device, progress=bar.step if bar else None)
    finally:
        if bar:
            bar.close()
    print("\n".join(result.report()))
    if device == "cpu":
        print(gpu_note())
    print(f"Measured in {time.perf_counter() - t0:.1f} s.")
    if args.json:
        result.to_json(args.json)
        print(f"wrote {args.json}")
    return 0
