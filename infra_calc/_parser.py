"""The argument parser of every ``python -m infra_calc`` command: an error is one line."""
from __future__ import annotations

import argparse
import re

__all__ = ["Parser"]


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        # a flag is spelled whole: "--kv-bytes" is not "--kv-bytes-per-element"
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        # -1e-5 and -inf are values to check, not unknown options
        self._negative_number_matcher = re.compile(r"^-(\d|\.\d|inf|nan)", re.IGNORECASE)

    def error(self, message):  # one clear line, exit status 2
        self.exit(2, f"{self.prog}: error: {message}\n")
