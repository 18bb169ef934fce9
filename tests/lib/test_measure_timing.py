"""infra_calc.measure.timing and the measurements' arithmetic, with a fake clock.

The clock advances a fixed amount per reading, so every timed run lasts
exactly what the test says: nothing here depends on how fast the machine is.
"""
from __future__ import annotations

import pytest

from infra_calc import measure
from infra_calc.measure.timing import median_seconds


class FakeClock:
    """Reads ``durations[i]`` more seconds on the way out of timed run ``i`` (cycling)."""

    def __init__(self, *durations):
        self.durations = durations or (1.0,)
        self.now = 0.0
        self.reads = 0

    def __call__(self):
        if self.reads % 2 == 1:                      # the reading after a run
            self.now += self.durations[(self.reads // 2) % len(self.durations)]
        self.reads += 1
        return self.now


def test_median_of_timed_runs_after_warmup():
    calls = []
    t = median_seconds(lambda: calls.append(1), repeats=3, warmup=2, clock=FakeClock(5.0, 1.0, 3.0))
    assert t == 3.0                                   # median of 5, 1, 3
    assert len(calls) == 2 + 3                        # warm-up runs are not timed


def test_min_time_adds_runs_until_reached_and_ticks_only_the_first_repeats():
    ticks = []
    clock = FakeClock(0.25)
    t = median_seconds(lambda: None, repeats=2, warmup=0, min_time=1.0, tick=lambda: ticks.append(1),
                       clock=clock)
    assert t == 0.25 and clock.reads == 2 * 4        # four runs of 0.25 s reach 1 s
    assert len(ticks) == 2


def test_min_time_stops_at_fifty_times_repeats():
    clock = FakeClock(1e-9)
    median_seconds(lambda: None, repeats=2, warmup=0, min_time=1.0, clock=clock)
    assert clock.reads == 2 * 100


def test_sync_runs_after_every_call():
    log = []
    median_seconds(lambda: log.append("run"), sync=lambda: log.append("sync"), repeats=2, warmup=1,
                   clock=FakeClock())
    assert log == ["run", "sync", "run", "sync", "run", "sync"]


def test_triad_bandwidth_is_bytes_over_median_seconds():
    bw = measure.triad_bandwidth(n=2 ** 12, repeats=3, warmup=0, threads=1, clock=FakeClock(0.5))
    assert bw == measure.triad_bytes(2 ** 12, 4) / 0.5


def test_matmul_peak_is_best_of_sizes():
    # each size's median is 2 s: the larger size does more FLOPs in the same time
    peak = measure.matmul_peak(sizes=(16, 32), repeats=1, warmup=0, clock=FakeClock(2.0))
    assert peak == 2 * 32 ** 3 / 2.0


def test_gemm_sweep_with_a_fake_clock_is_exact():
    roof = measure.MachineRoofline(1e9, 1e8)
    sw = measure.gemm_sweep(roof, m_values=(1, 2, 4), k=16, n=16, repeats=1, warmup=0, min_time=0.0,
                            clock=FakeClock(0.001))
    assert sw.seconds == (0.001, 0.001, 0.001)
    assert sw.flops_per_second == pytest.approx(tuple(2 * m * 16 * 16 / 0.001 for m in (1, 2, 4)))


def test_run_reports_progress_steps_and_keeps_the_better_peak():
    labels = []
    run = measure.run(quick=True, m_values=(1, 2), progress=labels.append, clock=FakeClock(0.01),
                      triad_n=2 ** 12, matmul_sizes=(16,), repeats=1)
    assert run.roofline.settings["peak_rounds"] == 2
    assert run.roofline.peak_flops == 2 * 16 ** 3 / 0.01
    assert labels.count("GEMM M = 1") == 1 and "matmul (peak, again)" in labels
    assert len(labels) == measure.bench.step_count(quick=True, m_values=(1, 2), matmul_sizes=(16,),
                                                  repeats=1)


def test_gemm_seconds_is_the_median_of_its_timed_runs():
    """The GEMM really runs (a tiny one), and its time is read from the clock given."""
    t = measure.gemm_seconds(4, k=8, n=8, repeats=3, warmup=1, min_time=0.0,
                             clock=FakeClock(2.0, 7.0, 3.0))
    assert t == 3.0
