"""Progress bar of a measurement: ``tqdm.auto`` (a widget in Jupyter, text in a terminal)."""
from __future__ import annotations

from .._validate import check_int

__all__ = ["ProgressBar"]


class ProgressBar:
    """A progress bar whose :meth:`step` takes the label of what runs next.

    Drawn by :mod:`tqdm.auto` on ``stream`` (stderr by default); imported on
    first use, so ``import infra_calc.measure`` does not import tqdm.
    """

    def __init__(self, total, stream=None, label="measuring"):
        try:
            from tqdm.auto import tqdm
        except ImportError:
            raise ImportError("the measurement's progress bar needs tqdm: "
                              "pip install 'infra_calc[measure]'") from None

        self.total = check_int(total, "total", "steps")
        self.bar = tqdm(total=self.total, desc=label, file=stream, unit="step", leave=True,
                        dynamic_ncols=True)

    @property
    def done(self) -> int:
        """Steps done so far (at most ``total``)."""
        return int(self.bar.n)

    def step(self, label=None):
        """Count one step; ``label`` (if given) names what runs now."""
        if label is not None:
            self.bar.set_description_str(label, refresh=False)
        if self.bar.n < self.total:
            self.bar.update(1)

    def close(self):
        self.bar.close()
