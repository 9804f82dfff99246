# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""DPGazeSynth's client / curator protocol: the wire message, its validation, and equality of
the protocol's release with the in-process and partition-wise runs."""

from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gazeprivacy.data import Dataset, Geometry, Recording
from gazeprivacy.data.simulate import simulate_dataset
from gazeprivacy.deploy import protocol as proto
from gazeprivacy.deploy.protocol import (
    curate_messages,
    curator_release,
    decode_client_message,
    encode_client_message,
)
from gazeprivacy.engines.local import iter_release
from gazeprivacy.engines.plan import partition_streams, plan_for
from gazeprivacy.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFormallyPrivateWarning,
)
from gazeprivacy.mechanisms import protect
from gazeprivacy.mechanisms.samples.dpgazesynth import DPGazeSynthParams, client_release
from gazeprivacy.mechanisms.samples.dpgazesynth.protocol_phases import (
    Announcement,
    ClientMessage,
    client_message,
    message_from_report,
    synthesise_message,
)
from gazeprivacy.rng import make_rng

GEO = Geometry(x_min_deg=-10, x_max_deg=10, y_min_deg=-8, y_max_deg=8)


@pytest.fixture(scope="module")
def ds() -> Dataset:
    """Three participants, two recordings each, with blinks (NaN rows); 100 Hz, so W = 50."""
    return simulate_dataset(n_participants=3, tasks=("reading", "free-viewing"), duration_s=1.7,
                            sampling_rate_hz=100, rng=np.random.default_rng(5), geometry=GEO,
                            blink_rate_hz=2.0)


def _devices(ds: Dataset) -> list[Dataset]:
    """One device per participant (all its recordings)."""
    return [Dataset(tuple(r for r in ds if r.participant == p), name=p)
            for p in ds.participants]


def _gaze(recs) -> tuple[np.ndarray, np.ndarray]:
    return (np.concatenate([r.x for r in recs]), np.concatenate([r.y for r in recs]))


def _tiny(path: str = "client-reports", **kw) -> tuple[ClientMessage, bytes]:
    x = np.linspace(-9, 9, 230)
    y = np.sin(np.linspace(0, 6, 230)) * 7
    x[40:47] = y[40:47] = np.nan
    rec = Recording.from_arrays(recording="r1", participant="alice", x=x, y=y,
                                sampling_rate_hz=100, geometry=GEO)
    rec2 = Recording.from_arrays(recording="r2", participant="alice", x=x[::-1].copy(),
                                 y=y[::-1].copy(), sampling_rate_hz=100, geometry=GEO)
    p = DPGazeSynthParams(epsilon=3.0, grid_size=5, oue_path=path, **kw)
    msg = client_message([rec, rec2], p, rng=np.random.default_rng(1))
    return msg, encode_client_message(msg)


# ------------------------------------------------------------------------------- equality


@pytest.mark.parametrize("kw", [
    {"oue_path": "client-reports"},
    {"oue_path": "curator-view"},
    {"oue_path": "client-reports", "transitions": "one-per-window"},
    {"oue_path": "curator-view", "missing": "fill"},
    {"oue_path": "client-reports", "mode": "paper"},
], ids=["client_reports", "curator_view", "one_per_window", "fill", "paper"])
def test_curator_over_messages_equals_the_partition_phases(ds, kw):
    """One device per partition: device i runs with partition i's client stream, the curator
    synthesises its rows with partition i's release stream -> the engines' release, exactly."""
    p = DPGazeSynthParams(epsilon=4.0, grid_size=6, **kw)
    parts = _devices(ds)
    streams = partition_streams(11, len(parts))
    with warnings.catch_warnings():  # paper mode warns; tested below
        warnings.simplefilter("ignore", NotFormallyPrivateWarning)
        engine = [rel.output for _, _, rel in iter_release(parts, plan_for("dpgazesynth", p),
                                                           streams)]
    wire = [encode_client_message(client_message(part, p, rng=streams.client(i)))
            for i, part in enumerate(parts)]
    msgs = [decode_client_message(w, name=f"device-{i}") for i, w in enumerate(wire)]
    model = curate_messages(wire)
    for i, (m, out) in enumerate(zip(msgs, engine, strict=True)):
        got = synthesise_message(m, model, rng=streams.release(i))
        assert [r.recording for r in got] == [r.recording for r in out]
        ex, ey = _gaze(out)
        gx, gy = _gaze(got)
        np.testing.assert_array_equal(gx, ex)
        np.testing.assert_array_equal(gy, ey)
    if p.mode == "paper":
        with pytest.warns(NotFormallyPrivateWarning, match="number of runs"):
            curator_release(wire, rng=np.random.default_rng(0))
        assert all(m.oue_n < int(np.clip(m.window_layout()[1] - 1, 0, None).sum())
                   for m in msgs)  # m - 1 reports per window: fewer than the sound padding
    if p.missing == "keep":  # the gaps were sent, and kept
        assert np.isnan(_gaze(ds)[0]).sum() == sum(np.isnan(_gaze(o)[0]).sum() for o in engine)


@pytest.mark.parametrize("path", ["client-reports", "curator-view"])
def test_one_device_equals_protect_in_one_process(ds, path):
    """protect() runs one block of clients (the dataset is far below a block's size) with the
    streams spawn(3) -> (clients, OUE, synthesis); a device holding all recordings and given
    those streams sends what protect's clients computed, and the curator releases the same."""
    p = DPGazeSynthParams(epsilon=2.0, grid_size=8, oue_path=path)
    ref = protect(ds, mechanism="dpgazesynth", params=p, seed=2026)
    rc, rcur, rs = (g.spawn(1)[0] for g in make_rng(2026).spawn(3))
    report = client_release(ds.recordings, p, rc)
    wire = encode_client_message(message_from_report(ds.recordings, p, report, rng=rcur))
    msg = decode_client_message(wire)
    out = synthesise_message(msg, curate_messages([wire]), rng=rs)
    for a, b in zip(out, ref.output, strict=True):
        np.testing.assert_array_equal(a.x, b.x)
        np.testing.assert_array_equal(a.y, b.y)
        np.testing.assert_array_equal(a.t, np.arange(b.n_samples) / b.sampling_rate_hz)
    rel = curator_release([wire], rng=np.random.default_rng(0))
    assert rel.guarantee.epsilon == ref.guarantee.epsilon
    assert ({k: v.epsilon for k, v in rel.guarantee.per_participant.items()}
            == {k: v.epsilon for k, v in ref.guarantee.per_participant.items()})


def test_round_trip_keeps_every_field_and_no_raw_gaze():
    msg, wire = _tiny()
    back = decode_client_message(wire)
    assert back.announcement == msg.announcement
    assert (back.recordings, back.participants) == (("r1", "r2"), ("alice", "alice"))
    for f in ("n_samples", "gap_start", "gap_length", "start_cell", "runs_per_window",
              "run_length", "reports_per_window", "oue_bits"):
        np.testing.assert_array_equal(getattr(back, f), getattr(msg, f))
    np.testing.assert_array_equal(back.gap_start, [40, 230 + 183])
    np.testing.assert_array_equal(back.gap_length, [7, 7])
    # the table holds ids, counts, cells, lengths and bits: no floating-point column at all
    payload = pa.ipc.open_stream(pa.py_buffer(wire[proto._HEADER:])).read_all()
    assert not any(pa.types.is_floating(f.type) or pa.types.is_floating(
        getattr(f.type, "value_type", pa.null())) for f in payload.schema)
    assert back.column_sums()[msg.announcement.epsilon_per_report][1] == back.oue_n


def test_fill_sends_no_gaps_and_curator_view_sends_sums():
    _, wire = _tiny("curator-view", missing="fill")
    back = decode_client_message(wire)
    assert back.gap_start.size == 0 and back.oue_bits is None
    assert back.oue_sums.shape == (8 * 25 + 1,)
    assert back.oue_n == 2 * (230 - 5)  # W_v - 1 per window; 5 windows of W = 50 each


# ----------------------------------------------------------------------------- validation


def _reencode(msg: ClientMessage, **changes) -> bytes:
    return encode_client_message(replace(msg, **changes))


def _bad_cases() -> list:
    msg, _ = _tiny()
    cv, _ = _tiny("curator-view")
    bits = msg.oue_bits.copy()
    bits[0, -1] |= 0b10  # entry 8 * 25 + 1 lies outside the domain
    runs = msg.run_length.copy()
    runs[0] += 1
    cells = msg.start_cell.copy()
    cells[0] = 25
    per = msg.reports_per_window.copy()
    per[0] -= 1
    sums = cv.oue_sums.copy()
    sums[3] = cv.oue_n + 1
    return [
        (msg, {"start_cell": cells}, "start cells must be in"),
        (msg, {"run_length": runs}, "run lengths of window 0 sum to"),
        (msg, {"runs_per_window": msg.runs_per_window[:-1]}, "windows of W = 50"),
        (msg, {"n_samples": msg.n_samples + 100}, "windows of W = 50"),
        (msg, {"oue_bits": bits}, "outside the domain"),
        (msg, {"reports_per_window": per}, "reports per window must be"),
        (msg, {"oue_bits": msg.oue_bits[1:], "oue_n": msg.oue_n - 1}, "OUE reports; the"),
        (msg, {"gap_start": np.array([40, 45]), "gap_length": np.array([7, 7])}, "disjoint"),
        (msg, {"gap_start": np.array([-5]), "gap_length": np.array([7])}, "within the"),
        (msg, {"recordings": ("r1", "r1")}, "repeat"),
        (msg, {"participants": ("alice",)}, "one of each per recording"),
        (msg, {"oue_sums": cv.oue_sums}, "sends reports_per_window and oue_bits"),
        (cv, {"oue_sums": sums}, "counts in"),
        (cv, {"announcement": replace(cv.announcement, missing="fill")}, "must not carry gaps"),
        (cv, {"announcement": replace(cv.announcement, window_samples=40)}, "inconsistent"),
    ]


@pytest.mark.parametrize("case", range(15))
def test_inconsistent_messages_are_refused_by_name(case):
    base, changes, match = _bad_cases()[case]
    with pytest.raises(InvalidDataError, match=f"client message 'dev-7' refused: .*{match}"):
        decode_client_message(_reencode(base, **changes), name="dev-7")


def test_other_parameters_than_announced_are_refused():
    msg, wire = _tiny()
    other = Announcement.of(DPGazeSynthParams(epsilon=2.0, grid_size=5,
                                              oue_path="client-reports"),
                            sampling_rate_hz=100, geometry=GEO)
    with pytest.raises(InvalidDataError, match=r"'a.bin' refused: parameters differ .*"
                                               r"epsilon=3\.0 \(expected 2\.0\)"):
        decode_client_message(wire, name="a.bin", announced=other)
    # without an announcement, the first message's is the one the others must equal
    wire2 = encode_client_message(replace(msg, recordings=("r3", "r4"), announcement=replace(
        msg.announcement, epsilon=2.5)))
    with pytest.raises(InvalidDataError, match="'#1' refused: parameters differ"):
        curate_messages([wire, wire2])


def test_a_recording_reported_twice_is_refused():
    _, wire = _tiny()
    with pytest.raises(InvalidDataError, match="recording 'r1' was already reported by "
                                               "message 'first'"):
        curate_messages([wire, wire], names=["first", "second"])


def test_version_protocol_and_schema_are_checked():
    _, wire = _tiny()
    newer = proto._FRAME.pack(proto.MAGIC, 2, bytes(6), len(wire) - proto._HEADER) + wire[24:]
    with pytest.raises(InvalidDataError, match="format version 2; this curator reads version 1"):
        decode_client_message(newer)
    with pytest.raises(InvalidDataError, match="not a DPGazeSynth client message"):
        decode_client_message(b"PAR1" + wire[4:])

    def framed(table: pa.Table) -> bytes:
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as w:
            w.write_table(table)
        p = sink.getvalue().to_pybytes()
        return (proto._FRAME.pack(proto.MAGIC, 1, bytes(6), len(p))
                + hashlib.blake2b(p, digest_size=16).digest() + p)

    table = pa.ipc.open_stream(pa.py_buffer(wire[proto._HEADER:])).read_all()
    meta = dict(table.schema.metadata)
    with pytest.raises(InvalidDataError, match="schema version '2', expected 1"):
        decode_client_message(framed(table.replace_schema_metadata({**meta, b"version": b"2"})))
    with pytest.raises(InvalidDataError, match="protocol 'other'"):
        decode_client_message(framed(table.replace_schema_metadata({**meta,
                                                                    b"protocol": b"other"})))
    with pytest.raises(InvalidDataError, match="schema differs"):
        decode_client_message(framed(table.drop_columns(["oue_n"])))
    ann = json.loads(meta[b"announcement"])
    ann["grid_size"] = 5.0
    with pytest.raises(InvalidDataError, match="announcement is not valid: expected an integer"):
        decode_client_message(framed(table.replace_schema_metadata(
            {**meta, b"announcement": json.dumps(ann).encode()})))
    with pytest.raises(InvalidDataError, match="one row, got 2"):
        decode_client_message(framed(pa.concat_tables([table, table])))


def test_client_refuses_a_recording_at_another_rate():
    rec = Recording.from_arrays(recording="r", participant="p", x=np.zeros(100),
                                y=np.zeros(100), sampling_rate_hz=100, geometry=GEO)
    a = Announcement.of(DPGazeSynthParams(epsilon=1.0), sampling_rate_hz=200, geometry=GEO)
    with pytest.raises(InvalidParameterError, match="sampled at 100 Hz but the announcement "
                                                    "says 200 Hz"):
        client_message(rec, a, rng=np.random.default_rng(0))


# ----------------------------------------------------------------------------------- fuzz

_WIRE = {"client-reports": _tiny()[1], "curator-view": _tiny("curator-view")[1]}
_FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _refused_or_consistent(data: bytes) -> None:
    """A decode either refuses with the named error or returns a message that the checks
    pass and the curator can synthesise: never another exception, never inconsistent data."""
    try:
        msg = decode_client_message(data, name="fuzz")
    except InvalidDataError as exc:
        assert "client message 'fuzz' refused" in str(exc)
        return
    proto.validate_message(msg)
    out = synthesise_message(msg, curate_messages([msg]), rng=np.random.default_rng(0))
    assert [r.n_samples for r in out] == msg.n_samples.tolist()
    _, n_valid = msg.window_layout()
    assert sum(int((~np.isnan(r.x)).sum()) for r in out) == int(n_valid.sum())


@_FUZZ
@given(st.binary(max_size=4096))
def test_fuzz_random_bytes_are_refused(data):
    with pytest.raises(InvalidDataError, match="client message 'fuzz' refused"):
        decode_client_message(data, name="fuzz")


@pytest.mark.parametrize("kind", ["client-reports", "curator-view"])
@_FUZZ
@given(data=st.data())
def test_fuzz_truncated_messages_are_refused(kind, data):
    wire = _WIRE[kind]
    cut = data.draw(st.integers(0, len(wire) - 1))
    with pytest.raises(InvalidDataError, match="client message 'fuzz' refused"):
        decode_client_message(wire[:cut], name="fuzz")


@pytest.mark.parametrize("kind", ["client-reports", "curator-view"])
@_FUZZ
@given(data=st.data())
def test_fuzz_bit_flips_are_refused(kind, data):
    wire = _WIRE[kind]
    pos = data.draw(st.integers(0, 8 * len(wire) - 1))
    flipped = bytearray(wire)
    flipped[pos // 8] ^= 1 << (pos % 8)
    with pytest.raises(InvalidDataError, match="client message 'fuzz' refused"):
        decode_client_message(bytes(flipped), name="fuzz")


@pytest.mark.parametrize("kind", ["client-reports", "curator-view"])
@_FUZZ
@given(data=st.data())
def test_fuzz_reframed_payload_mutations_never_pass_inconsistent_data(kind, data):
    wire = _WIRE[kind]
    """A sender that recomputes the digest over a mutated payload (bit flips, truncation,
    random bytes spliced in) gets past the frame; the Arrow and consistency checks remain."""
    payload = bytearray(wire[proto._HEADER:])
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, 8 * len(payload) - 1))
        payload[pos // 8] ^= 1 << (pos % 8)
    if data.draw(st.booleans()):
        a = data.draw(st.integers(0, len(payload)))
        payload[a:a + data.draw(st.integers(0, 64))] = data.draw(st.binary(max_size=64))
    p = bytes(payload)
    _refused_or_consistent(proto._FRAME.pack(proto.MAGIC, 1, bytes(6), len(p))
                           + hashlib.blake2b(p, digest_size=16).digest() + p)
