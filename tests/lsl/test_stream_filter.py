# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``gazeprivacy stream`` end to end on loopback: a simulated 200 Hz gaze source (irregular
chunks, missing samples, a confidence channel, a drop and reconnection), the filter in a
subprocess stopped by Ctrl-C, and a reader of the protected stream."""

from __future__ import annotations

import configparser
import json
import math
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from gazeprivacy.cli.app import app
from gazeprivacy.deploy.lsl import LOOPBACK_CONFIG, Layout, NominalClock
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.guarantees import Guarantee

HERE = Path(__file__).resolve().parent
RATE = 200.0
CHANNELS = ["x", "y", "pupil", "confidence", "counter"]


def test_the_lsl_config_keeps_all_traffic_on_this_machine():
    text = (HERE / "lsl_api.cfg").read_text()
    assert LOOPBACK_CONFIG.read_text() == text  # the copy shipped with the package
    cfg = configparser.ConfigParser(inline_comment_prefixes=(";",))
    cfg.read_string(text)
    assert cfg["ports"]["IPv6"] == "disable"
    assert cfg["multicast"]["ResolveScope"] == "machine"
    assert cfg["multicast"]["MachineAddresses"] == "{127.0.0.1}"
    assert cfg["multicast"]["AddressesOverride"] == "{127.0.0.1}"
    assert cfg["lab"]["KnownPeers"] == "{127.0.0.1}"


def test_privacy_parameters_have_no_defaults():
    res = CliRunner().invoke(app, ["stream", "--inlet", "a", "--outlet", "b", "--mechanism",
                                   "kaleido", "--radius-deg", "2", "--window-s", "0.5"])
    assert res.exit_code == 2 and "--epsilon" in res.output


def test_an_existing_record_is_refused_before_any_work(tmp_path):
    rec = tmp_path / "r.json"
    rec.write_text("{}")
    res = CliRunner().invoke(app, ["stream", "--inlet", "a", "--outlet", "b", "--mechanism",
                                   "kaleido", "--epsilon", "1", "--radius-deg", "2",
                                   "--window-s", "0.5", "--record", str(rec)])
    assert res.exit_code != 0 and "--overwrite" in str(res.exception)
    assert rec.read_text() == "{}"


def test_channel_layout_releases_only_what_is_declared():
    labels = ["gx", "gy", "pupil", "conf", "counter"]
    lay = Layout.build(labels, x="gx", y="1", public=["counter"], confidence="conf")
    assert (lay.x, lay.y, lay.public, lay.confidence) == (0, 1, (4,), 3)
    assert lay.unreleased() == ["pupil", "conf"]
    with pytest.raises(InvalidParameterError, match="it has: gx, gy, pupil, conf, counter"):
        Layout.build(labels, x="x", y="gy", public=[], confidence=None)
    with pytest.raises(InvalidParameterError, match="never as is"):
        Layout.build(labels, x="gx", y="gy", public=["gy"], confidence=None)


def test_nominal_clock_counts_samples_and_reanchors_only_after_a_drift():
    c = NominalClock(200.0)
    a = c.stamps(4, now=10.0)
    np.testing.assert_allclose(a, 10.0 - np.arange(3, -1, -1) / 200.0)
    b = c.stamps(2, now=10.5)  # late arrival: still the nominal grid (within 1 s)
    np.testing.assert_allclose(b, a[-1] + np.array([1, 2]) / 200.0)
    d = c.stamps(1, now=20.0)  # after a long gap: anchored again, counted
    assert d[0] == 20.0 and c.anchors == 2


def gaze_source(n: int, seed: int) -> np.ndarray:
    """``n`` samples of (x, y, pupil, confidence, counter); ~5 % NaN, ~3 % low confidence."""
    g = np.random.default_rng(seed)
    xy = np.clip(np.cumsum(g.normal(0, 0.3, (n, 2)), 0), -15, 15)  # inside the screen
    xy[g.random(n) < 0.05] = np.nan
    conf = np.where(g.random(n) < 0.03, 0.2, 0.9)
    return np.column_stack([xy, g.normal(3.5, 0.2, n), conf, np.arange(n)]).astype(np.float32)


def make_outlet(pylsl, name: str, source_id: str):
    info = pylsl.StreamInfo(name, "Gaze", len(CHANNELS), RATE, pylsl.cf_float32, source_id)
    chans = info.desc().append_child("channels")
    for label in CHANNELS:
        chans.append_child("channel").append_child_value("label", label)
    return pylsl.StreamOutlet(info)


def replay(outlet, data: np.ndarray, rng: np.random.Generator) -> None:
    """Push ``data`` at RATE in irregular chunks (1 to 12 samples), paced by the clock."""
    t0, sent = time.monotonic(), 0
    while sent < len(data):
        due = min(len(data), int((time.monotonic() - t0) * RATE) + 1)
        if due > sent:
            k = min(due - sent, int(rng.integers(1, 13)))
            outlet.push_chunk(data[sent:sent + k])
            sent += k
        time.sleep(0.002)


class Sink(threading.Thread):
    """Reads the protected stream into lists (with receipt times) until told to stop."""

    def __init__(self, inlet) -> None:
        super().__init__(daemon=True)
        self.inlet, self.rows, self.stamps, self.receipt = inlet, [], [], []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            rows, ts = self.inlet.pull_chunk(timeout=0.1, max_samples=1024)
            now = time.monotonic()
            self.rows += rows
            self.stamps += ts
            self.receipt += [now] * len(ts)


def start_filter(src: str, out: str, record: Path, env: dict[str, str]) -> subprocess.Popen:
    cmd = [sys.executable, "-c", "from gazeprivacy.cli.app import main; main()", "stream",
           "--inlet", src, "--outlet", out, "--mechanism", "kaleido", "--epsilon", "1.0",
           "--radius-deg", "2.0", "--window-s", "0.5", "--geometry", "-20,20,-15,15",
           "--public", "counter", "--confidence-channel", "confidence", "--min-confidence",
           "0.5", "--record", str(record), "--duration", "120", "--resolve-timeout", "60"]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def check_layout(info) -> None:
    assert info.channel_count() == 3 and info.nominal_srate() == RATE
    labels, status = [], []
    ch = info.desc().child("channels").child("channel")
    while not ch.empty():
        labels.append(ch.child_value("label"))
        status.append(ch.child_value("status"))
        ch = ch.next_sibling("channel")
    assert labels == ["x", "y", "counter"]
    assert status[0] == status[1] == ("protected: kaleido [sound] (epsilon,w,r)-DP, epsilon = "
                                      "1 per w = 100 samples, r = 2 deg")
    assert status[2].startswith("public")
    meta = info.desc().child("gazeprivacy")
    g = Guarantee.from_json(meta.child_value("guarantee"))
    assert g.epsilon == 1.0 and g.parameters["window_samples"] == 100 and g.formally_private
    assert meta.child_value("not_released") == "pupil, confidence"
    assert "t0 + i / nominal rate" in meta.child_value("timestamps")


@pytest.mark.parametrize("source_ids", [("same", "same"), ("", ""), ("old", "new")],
                         ids=["source_id", "no_source_id", "new_source_id"])
def test_filter_end_to_end_on_loopback(pylsl, lsl_env, tmp_path, source_ids):
    """With a source id liblsl itself recovers the source after the drop; without one the
    inlet reports it lost and the filter resolves it again by name; a source back under a new
    id (a restarted device) is found by name after a stall."""
    tag = uuid.uuid4().hex[:8]
    src_name, out_name = f"gp-test-gaze-{tag}", f"gp-test-protected-{tag}"
    source_id = f"{source_ids[0]}-{tag}" if source_ids[0] else ""
    n1, n2 = 200, 200
    data = gaze_source(n1 + n2, seed=1)
    outlet = make_outlet(pylsl, src_name, source_id)
    record = tmp_path / "stream-record.json"
    proc = start_filter(src_name, out_name, record, lsl_env)
    try:
        found, end = [], time.monotonic() + 90.0
        while not found and proc.poll() is None and time.monotonic() < end:
            found = pylsl.resolve_byprop("name", out_name, 1, 2.0)
        if not found:
            proc.kill()
            pytest.fail("the filter's outlet did not appear: " + proc.communicate()[0])
        inlet = pylsl.StreamInlet(found[0], max_buflen=120)
        inlet.open_stream(timeout=30.0)
        assert outlet.wait_for_consumers(30.0)
        check_layout(inlet.info(timeout=10.0))
        sink = Sink(inlet)
        sink.start()
        time.sleep(0.5)
        rng = np.random.default_rng(2)
        replay(outlet, data[:n1], rng)
        # let the last chunk through before the drop: an outlet destroyed under load may take
        # samples that no inlet pulled yet with it (a source's loss, not the filter's)
        end = time.monotonic() + 30.0
        while len(sink.rows) < n1 and time.monotonic() < end:
            time.sleep(0.05)
        del outlet  # the source drops ...
        time.sleep(0.5)
        source_id = f"{source_ids[1]}-{tag}" if source_ids[1] else ""
        outlet = make_outlet(pylsl, src_name, source_id)  # ... and comes back
        assert outlet.wait_for_consumers(60.0), "the filter did not reconnect"
        time.sleep(0.3)
        replay(outlet, data[n1:], rng)
        end = time.monotonic() + 30.0
        while len(sink.rows) < n1 + n2 and time.monotonic() < end:
            time.sleep(0.1)
        sink.done.set()
        sink.join(5.0)
        proc.send_signal(signal.SIGINT)  # Ctrl-C: the filter's normal stop
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, output
    assert "Traceback" not in output
    out = np.asarray(sink.rows, dtype=np.float64)
    # count and order: every sample exactly once (the public counter)
    np.testing.assert_array_equal(out[:, 2], np.arange(n1 + n2))
    # rate: the first connection's samples arrived at the source's rate (Theil-Sen slope of
    # receipt time over sample index: robust to a stall of the loaded machine)
    slope = stats.theilslopes(sink.receipt[:n1], np.arange(n1))[0]
    assert 0.8 * RATE <= 1 / slope <= 1.25 * RATE, 1 / slope
    assert np.median(np.diff(sink.stamps[:n1])) == pytest.approx(1 / RATE)
    # missing samples (NaN or low confidence) stay missing; nothing else equals the raw gaze
    raw = data.astype(np.float64)
    missing = np.isnan(raw[:, 0]) | (raw[:, 3] < 0.5)
    assert missing.sum() > 10
    assert np.isnan(out[missing, :2]).all() and not np.isnan(out[~missing, :2]).any()
    assert not (out[~missing, 0] == raw[~missing, 0]).any()
    assert not (out[~missing, 1] == raw[~missing, 1]).any()
    assert ((out[~missing, 0] >= -20) & (out[~missing, 0] <= 20)).all()
    rec = json.loads(record.read_text())
    assert rec["samples_released"] == n1 + n2 and rec["stop"] == "interrupted"
    assert rec["reconnections"] == (0 if source_ids == ("same", "same") else 1)
    assert rec["samples_missing"] == int(missing.sum())
    assert rec["epsilon_per_w_window"] == 1.0 and rec["window_samples"] == 100
    assert rec["per_session_epsilon_bound"] == pytest.approx(math.ceil((n1 + n2) / 100) * 1.0)
    assert [c["label"] for c in rec["channels"]] == ["x", "y", "counter"]
    assert rec["guarantee"]["per_participant"]["session"]["epsilon"] == pytest.approx(
        rec["per_session_epsilon_bound"])
