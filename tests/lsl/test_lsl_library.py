# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The LSL filter as a library (:mod:`gazeprivacy.deploy.lsl`), run from Python on loopback:
source outlet -> :class:`LSLFilter` -> protected outlet -> a reader, without the command line."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from gazeprivacy.deploy.lsl import Filter, Halt, LSLFilter, open_filter
from gazeprivacy.mechanisms.samples.kaleido import KaleidoParams

SRC = Path(__file__).resolve().parents[2] / "src"
RATE = 200.0
CHANNELS = ["x", "y", "counter"]
N = 300


def test_the_library_imports_without_the_command_line():
    code = ("import sys; from gazeprivacy.deploy.lsl import LSLFilter; "
            "print(sorted(m for m in sys.modules if m.startswith('gazeprivacy.cli')))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120, check=True)
    assert res.stdout.strip() == "[]"
    assert Filter is LSLFilter


def test_lsl_filter_protects_a_loopback_stream_from_python(pylsl):
    tag = uuid.uuid4().hex[:8]
    src_name, out_name = f"gp-lib-gaze-{tag}", f"gp-lib-protected-{tag}"
    info = pylsl.StreamInfo(src_name, "Gaze", len(CHANNELS), RATE, pylsl.cf_float32, "")
    chans = info.desc().append_child("channels")
    for label in CHANNELS:
        chans.append_child("channel").append_child_value("label", label)
    source = pylsl.StreamOutlet(info)
    g = np.random.default_rng(3)
    xy = np.clip(np.cumsum(g.normal(0, 0.3, (N, 2)), 0), -15, 15)
    data = np.column_stack([xy, np.arange(N)]).astype(np.float32)

    filt = open_filter(pylsl, inlet=src_name, outlet=out_name,
                       params=KaleidoParams(epsilon=1.0, radius_deg=2.0, window_s=0.5),
                       geometry=None, x_channel="x", y_channel="y", public=["counter"],
                       confidence_channel=None, min_confidence=None, timestamps="nominal",
                       resolve_timeout=60.0, seed=0, halt=Halt())
    assert isinstance(filt, LSLFilter)
    runner = threading.Thread(target=filt.run, args=(120.0,), daemon=True)
    runner.start()
    try:
        found = pylsl.resolve_byprop("name", out_name, 1, 60.0)
        assert found, "the filter's outlet did not appear"
        inlet = pylsl.StreamInlet(found[0], max_buflen=120)
        inlet.open_stream(timeout=30.0)
        assert source.wait_for_consumers(30.0)
        time.sleep(0.3)
        for start in range(0, N, 10):  # chunks of 10 at about the source's rate
            source.push_chunk(data[start:start + 10])
            time.sleep(10 / RATE)
        rows: list[list[float]] = []
        end = time.monotonic() + 60.0
        while len(rows) < N and time.monotonic() < end:
            chunk, _ = inlet.pull_chunk(timeout=0.2, max_samples=1024)
            rows += chunk
    finally:
        filt.halt.flag = True
        runner.join(10.0)
    assert not runner.is_alive() and filt.stop_reason == "interrupted"
    out = np.asarray(rows, dtype=np.float64)
    assert out.shape == (N, 3)  # every sample arrives, once
    np.testing.assert_array_equal(out[:, 2], np.arange(N))  # the public counter, in order
    raw = data.astype(np.float64)
    assert not (out[:, 0] == raw[:, 0]).any() and not (out[:, 1] == raw[:, 1]).any()
    rec = filt.record("start")
    assert rec["samples_released"] == filt.released == N
    # ceil(300 / 100) w-windows at epsilon 1
    assert rec["per_session_epsilon_bound"] == pytest.approx(3.0)
