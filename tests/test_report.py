"""The throughput meter: warm-up excluded, mean and median-step rates."""

import pytest

from tf1_train import report


def test_median_step_rate_ignores_a_few_slow_steps(monkeypatch):
    clock = iter([0.0, 9.0, 10.0, 11.0, 12.0, 13.0, 23.0])
    monkeypatch.setattr(report.time, "perf_counter", lambda: next(clock))
    meter = report.ThroughputMeter(examples_per_step=100, warmup_steps=1, total_steps=6)
    for done in range(1, 7):  # step 1 (9 s) is warm-up; step 6 took 10 s
        meter.tick(done)
    assert meter.overall_rate() == pytest.approx(500 / 14)  # 5 steps in 14 s
    assert meter.median_step_rate() == pytest.approx(100.0)  # the typical step: 1 s


def test_no_measured_step_means_no_rate(monkeypatch):
    meter = report.ThroughputMeter(examples_per_step=10, warmup_steps=5, total_steps=3)
    for done in range(1, 4):
        meter.tick(done)
    assert meter.overall_rate() == 0.0 and meter.median_step_rate() == 0.0


def test_progress_line_says_warming_up_until_a_step_is_measured():
    assert report.progress_line(10, 600, 2.3, 0.0, 0.05, "-") == (
        "step 10/600  loss 2.3000  warming up  lr 0.05"
    )
    line = report.progress_line(20, 600, 2.1, 1234.5, 0.05, "0:01:02")
    assert line.startswith("step 20/600  loss 2.1000  examples/sec 1234.5")
