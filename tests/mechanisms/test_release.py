# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""The release schema (issue 14): each policy of ``seal`` / ``write_release`` on its own."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from gazeprivacy.data import Dataset, Geometry, Recording, read_dataset
from gazeprivacy.exceptions import InvalidParameterError
from gazeprivacy.guarantees import Guarantee, Kind, Release, Status, Unit
from gazeprivacy.mechanisms import protect
from gazeprivacy.mechanisms.release import (
    Pseudonymiser,
    guarantee_path,
    protect_pupil,
    seal,
    write_release,
)

GEO = Geometry(x_min_deg=-10, x_max_deg=10, y_min_deg=-10, y_max_deg=10)
N = 200


def recording(rid: str, pid: str, *, seed: int = 0, missing: slice | None = None) -> Recording:
    g = np.random.default_rng(seed)
    x = np.clip(np.cumsum(g.normal(0, 0.3, N)), -9, 9)
    y = np.clip(np.cumsum(g.normal(0, 0.3, N)), -9, 9)
    if missing is not None:
        x[missing] = np.nan
        y[missing] = np.nan
    t = np.arange(N) / 100 + g.uniform(0, 0.002, N)  # jittered clock
    return Recording.from_arrays(
        recording=rid, participant=pid, x=x, y=y, t=t, sampling_rate_hz=100, geometry=GEO,
        pupil=3 + g.normal(0, 0.2, N), labels={"gender": f"g-{pid}", "task": "read"},
        channels={"head_yaw": g.normal(0, 1, N), "x_px": x * 40})


def dataset(**kw) -> Dataset:
    return Dataset((recording("zeta-rec", "zeta", seed=1, **kw),
                    recording("alpha-rec", "alpha", seed=2, **kw),
                    recording("alpha-rec2", "alpha", seed=3, **kw)),
                   name="secret-study", info={"site": "clinic-x"})


def kaleido(ds: Dataset, **kw) -> Release[Dataset]:
    return protect(ds, mechanism="kaleido", epsilon=1.0, radius_deg=1.0, window_samples=50,
                   seed=0, **kw)


def rng(seed: int = 5) -> np.random.Generator:
    return np.random.default_rng(seed)


# ------------------------------------------------------------------------------ columns


def test_default_release_writes_only_gaze_grid_and_pseudonyms():
    ds = dataset()
    sealed = seal(kaleido(ds), rng=rng())
    assert sealed.table.columns == ["participant", "recording", "t", "x", "y"]
    ids = set(sealed.table["participant"]) | set(sealed.table["recording"])
    assert not ids & {"zeta", "alpha", "zeta-rec", "alpha-rec", "alpha-rec2"}
    assert sealed.dataset.name == "release" and sealed.dataset.info == {}
    statuses = {c.name: c.status for c in sealed.guarantee.columns}
    for col in sealed.table.columns:
        assert statuses[col] is not Status.NOT_WRITTEN
    for dropped in ("pupil", "head_yaw", "x_px", "gender", "task"):
        assert statuses[dropped] is Status.NOT_WRITTEN
    assert statuses["x"] is Status.PROTECTED and statuses["t"] is Status.PUBLIC_BY_DESIGN


def test_the_in_memory_release_keeps_raw_ids_and_columns():
    rel = kaleido(dataset())
    seal(rel, rng=rng())
    assert rel.output[0].participant == "zeta" and rel.output[0].pupil is not None
    assert rel.output[0].labels["gender"] == "g-zeta"


def test_declared_columns_are_copied_as_is_and_the_record_says_so():
    rel = kaleido(dataset())
    sealed = seal(rel, public=["head_yaw", "gender", "t"], rng=rng())
    assert set(sealed.table.columns) == {"participant", "recording", "t", "x", "y", "head_yaw",
                                         "gender"}
    to_raw = dict(zip(sealed.id_map["pseudonym"], sealed.id_map["raw"], strict=True))
    for r in sealed.dataset:
        raw = rel.output[to_raw[r.recording]]
        np.testing.assert_array_equal(r.channels["head_yaw"], raw.channels["head_yaw"])
        np.testing.assert_array_equal(r.t, raw.t)  # raw clock, as declared
        assert r.labels == {"gender": raw.labels["gender"]}
    assert sealed.guarantee.column("head_yaw").status is Status.PUBLIC_DECLARED
    assert sealed.guarantee.column("t").status is Status.PUBLIC_DECLARED


def test_time_is_the_public_grid_unless_declared():
    sealed = seal(kaleido(dataset()), rng=rng())
    for r in sealed.dataset:
        np.testing.assert_array_equal(r.t, np.arange(N) / 100)


@pytest.mark.parametrize(("public", "message"), [
    (["weight"], "public names weight are neither columns"),
    (["x"], "x is the protected gaze and is always written"),
], ids=["unknown_column_names_the_valid_ones", "gaze_cannot_be_declared"])
def test_bad_public_names_raise(public, message):
    with pytest.raises(InvalidParameterError, match=message):
        seal(kaleido(dataset()), public=public, rng=rng())


# ------------------------------------------------------------------------------ ids


def test_pseudonyms_are_keyed_random_and_the_map_is_ordered_by_pseudonym():
    rel = kaleido(dataset())
    key = bytes(range(32))
    a, b = (seal(rel, rng=rng(s), pseudonym_key=key) for s in (1, 2))
    assert a.table["recording"].to_list() == b.table["recording"].to_list()
    # without the test-only key: OS entropy, whatever the generator (a seed never fixes it)
    c, d = (seal(rel, rng=rng(1)) for _ in range(2))
    assert set(c.table["recording"]) != set(d.table["recording"])
    assert set(a.table["recording"]) != set(c.table["recording"])
    assert c.guarantee.formally_private and not a.guarantee.formally_private
    m = a.id_map
    assert m["pseudonym"].to_list() == sorted(m["pseudonym"])
    assert set(m.filter(pl.col("kind") == "participant")["raw"]) == {"zeta", "alpha"}
    # rows are in pseudonym order, not in the input's order
    keys = [(r.participant, r.recording) for r in a.dataset]
    assert keys == sorted(keys)
    # the per-participant budgets are keyed by pseudonym
    assert set(a.guarantee.per_participant) == set(a.table["participant"])


def test_one_pseudonymiser_gives_the_same_pseudonym_across_partitions():
    p = Pseudonymiser()
    rel = kaleido(dataset())
    first = seal(Release(Dataset(rel.output.recordings[:2]), rel.guarantee), rng=rng(1),
                 pseudonymiser=p)
    second = seal(Release(Dataset(rel.output.recordings[2:]), rel.guarantee), rng=rng(2),
                  pseudonymiser=p)
    alpha = p("participant", "alpha")
    assert alpha in set(first.table["participant"]) and alpha in set(second.table["participant"])


def test_declared_public_ids_stay_raw():
    sealed = seal(kaleido(dataset()), public=["participant"], rng=rng())
    assert set(sealed.table["participant"]) == {"zeta", "alpha"}
    assert set(sealed.id_map["kind"]) == {"recording"}


# ------------------------------------------------------------------------------ mask


def test_nan_rows_at_input_gaps_need_a_declared_mask():
    ds = dataset(missing=slice(20, 30))
    rel = kaleido(ds)
    with pytest.raises(InvalidParameterError, match="releases the missing-sample mask"):
        seal(rel, source=ds, rng=rng())
    sealed = seal(rel, source=ds, public=["mask"], rng=rng())
    assert sealed.guarantee.column("mask").status is Status.PUBLIC_DECLARED


def test_nan_rows_the_mechanism_made_are_its_output_and_no_nan_writes_no_mask():
    ds = dataset()
    record = Guarantee(mechanism="m", kind=Kind.PURE_DP, unit=Unit.RECORDING, epsilon=1.0)
    suppressed = ds.map(lambda r: r.with_gaze(np.where(np.arange(N) < 10, np.nan, r.x),
                                              np.where(np.arange(N) < 10, np.nan, r.y)))
    own = seal(Release(suppressed, record), source=ds, rng=rng())
    assert own.guarantee.column("mask").status is Status.PROTECTED
    with pytest.raises(InvalidParameterError, match="missing-sample mask"):
        seal(Release(suppressed, record), rng=rng())  # without the source: conservative
    full = seal(Release(ds, record), rng=rng())
    assert full.guarantee.column("mask").status is Status.NOT_WRITTEN


# ------------------------------------------------------------------------------ pupil


def test_protected_pupil_has_the_laplace_scale_per_block():
    pupil = np.zeros(4000 * 10)
    out = protect_pupil(pupil, block_samples=10, epsilon_per_block=100.0,
                        pupil_range=(-1000.0, 1000.0), rng=rng(0))
    blocks = out.reshape(4000, 10)
    assert (blocks == blocks[:, :1]).all()  # one value per block
    std, expected = blocks[:, 0].std(), np.sqrt(2) * 2000 / 100
    assert abs(std - expected) < 4 * expected / np.sqrt(2 * 4000)  # 4 standard errors


def test_protected_pupil_is_clipped_to_the_range_and_has_no_gaps():
    pupil = np.r_[np.full(5, np.nan), np.full(5, 50.0)]
    out = protect_pupil(pupil, block_samples=5, epsilon_per_block=1e9, pupil_range=(2.0, 8.0),
                        rng=rng())
    np.testing.assert_allclose(out, np.r_[np.full(5, 5.0), np.full(5, 8.0)], atol=1e-6)


def test_pupil_epsilon_adds_to_the_window_totals():
    ds = dataset()
    rel = protect(ds, mechanism="dpgazesynth", epsilon=1.0, grid_size=10, seed=0)
    sealed = seal(rel, pupil_epsilon=0.5, pupil_range=(1.0, 6.0), rng=rng())
    g = sealed.guarantee
    assert g.epsilon == pytest.approx(1.5)
    assert g.column("pupil").status is Status.PROTECTED and g.column("pupil").epsilon_share == 0.5
    for budget in g.per_participant.values():  # one block per window
        assert budget.epsilon == pytest.approx(1.5 * budget.units)
    raw = dict(zip(sealed.id_map["pseudonym"], sealed.id_map["raw"], strict=True))
    for r in sealed.dataset:
        assert not np.allclose(r.pupil, rel.output[raw[r.recording]].pupil)


def test_pupil_epsilon_on_a_w_window_unit_counts_two_blocks():
    sealed = seal(kaleido(dataset()), pupil_epsilon=0.4, pupil_range=(1.0, 6.0), rng=rng())
    g = sealed.guarantee
    assert g.epsilon == pytest.approx(1.4)
    assert g.parameters["pupil_epsilon_per_block"] == pytest.approx(0.2)
    p_alpha = next(k for k, b in g.per_participant.items() if b.units == 8)  # 2 x 200 / 50
    assert g.per_participant[p_alpha].epsilon == pytest.approx(8 * 1.0 + 8 * 0.2)


@pytest.mark.parametrize(("kw", "message"), [
    ({"pupil_epsilon": 1.0}, "needs pupil_range"),
    ({"pupil_range": (1, 2)}, "pupil_range is given without pupil_epsilon"),
    ({"pupil_epsilon": 1.0, "pupil_range": (2, 1)}, "lo < hi"),
    ({"pupil_epsilon": 1.0, "pupil_range": (1, 2), "public": ["pupil"]}, "choose one"),
], ids=["no_range", "range_alone", "empty_range", "public_and_protected"])
def test_bad_pupil_policies_raise(kw, message):
    with pytest.raises(InvalidParameterError, match=message):
        seal(kaleido(dataset()), rng=rng(), **kw)


def test_pupil_epsilon_is_refused_for_a_recording_level_mechanism():
    record = Guarantee(mechanism="k-same-synth", kind=Kind.K_ANONYMITY, unit=Unit.RECORDING, k=2)
    with pytest.raises(InvalidParameterError, match="drop pupil .* or declare it public"):
        seal(Release(dataset(), record), pupil_epsilon=1.0, pupil_range=(1, 6), rng=rng())


# ------------------------------------------------------------------------------ metadata


def test_mechanism_counts_go_to_the_report_and_info_only_when_declared():
    ds = dataset()
    record = Guarantee(mechanism="event-synth-pd", kind=Kind.PLAUSIBLE_DENIABILITY,
                       unit=Unit.EVENT, k=2, gamma=2.0)
    out = Dataset(ds.recordings, name=ds.name, info={**ds.info, "event-synth-pd": {"failed": 3}})
    sealed = seal(Release(out, record), source=ds, rng=rng())
    assert sealed.report == {"event-synth-pd": {"failed": 3}} and sealed.dataset.info == {}
    declared = seal(Release(out, record), source=ds, public=["info", "name"], rng=rng())
    assert declared.dataset.info == {"site": "clinic-x"}
    assert declared.dataset.name == "secret-study"


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_write_release_is_atomic_and_writes_the_map_only_when_asked(tmp_path, suffix):
    ds = dataset()
    out = tmp_path / f"out.{suffix}"
    write_release(kaleido(ds), out, rng=rng())
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [out.name, guarantee_path(out).name] + ([out.name + ".meta.json"] if suffix == "csv"
                                                else []))
    text = "".join(p.read_text(errors="replace") for p in tmp_path.iterdir()
                   if p.suffix in (".csv", ".json"))
    for raw in ("zeta", "alpha", "g-zeta", "secret-study", "clinic-x"):
        assert raw not in text
    back = read_dataset(out)
    assert back.n_samples == ds.n_samples and all(r.geometry == GEO for r in back)
    record = Guarantee.from_json(guarantee_path(out).read_text())
    assert {c.name for c in record.columns} >= set(back.to_table().columns)
    write_release(kaleido(ds), tmp_path / f"again.{suffix}", id_map_path=tmp_path / "ids.csv",
                  rng=rng())
    ids = pl.read_csv(tmp_path / "ids.csv")
    assert ids.columns == ["kind", "pseudonym", "raw"] and len(ids) == 5
    assert json.loads(guarantee_path(tmp_path / f"again.{suffix}").read_text())["columns"]


def test_kaleido_hold_mode_needs_the_mask_declared_public():
    # hold mode writes no NaN row, but where it publishes reveals the input's gaps (issue 14.6)
    import numpy as np

    from gazeprivacy.data import Dataset, Geometry, Recording
    from gazeprivacy.exceptions import InvalidParameterError
    from gazeprivacy.guarantees import Status
    from gazeprivacy.mechanisms import protect
    from gazeprivacy.mechanisms.release import seal

    geo = Geometry(x_min_deg=-10, x_max_deg=10, y_min_deg=-10, y_max_deg=10)
    x = np.linspace(-5, 5, 200)
    x[50:70] = np.nan
    rec = Recording.from_arrays(recording="r", participant="p", x=x, y=x / 2,
                                sampling_rate_hz=100, geometry=geo)
    ds = Dataset((rec,))
    rel = protect(ds, mechanism="kaleido", epsilon=1.0, radius_deg=2.0, window_samples=50,
                  missing="hold", seed=1)
    assert not np.isnan(rel.output[0].x).any()
    with pytest.raises(InvalidParameterError, match="--public mask"):
        seal(rel, source=ds, rng=np.random.default_rng(0))
    sealed = seal(rel, source=ds, public=["mask"], rng=np.random.default_rng(0))
    assert sealed.guarantee.column("mask").status is Status.PUBLIC_DECLARED
    full = Dataset((rec.with_gaze(np.nan_to_num(x), np.zeros(200)),))  # no gaps: no mask
    rel = protect(full, mechanism="kaleido", epsilon=1.0, radius_deg=2.0, window_samples=50,
                  missing="hold", seed=1)
    assert seal(rel, source=full, rng=np.random.default_rng(0)).guarantee.column(
        "mask").status is Status.NOT_WRITTEN


def test_a_sealed_feature_table_lists_every_written_column_and_drops_labels():
    import numpy as np
    import polars as pl

    from gazeprivacy.features.ranges import FeatureRange
    from gazeprivacy.mechanisms.release import seal_series_table
    from gazeprivacy.mechanisms.series import protect_series
    from gazeprivacy.mechanisms.series.lpa import LPAParams

    tab = pl.DataFrame({"participant": ["Quill"] * 4, "recording": ["Quill-r1"] * 4,
                        "t_start": [100.0, 100.5, 101.0, 101.5], "ratio": [0.1, 0.2, 0.3, 0.4],
                        "gender": ["f"] * 4})
    params = LPAParams(epsilon=1.0, ranges={"ratio": FeatureRange(0, 1, "natural", "")})
    rel = protect_series(tab, "series-lpa", params, rng=np.random.default_rng(0))
    sealed = seal_series_table(rel.output, rel.guarantee, rng=np.random.default_rng(1))
    listed = {c.name: c.status for c in sealed.guarantee.columns}
    assert set(sealed.table.columns) <= set(listed)
    assert "gender" not in sealed.table.columns and listed["gender"] is Status.NOT_WRITTEN
    assert listed["ratio"] is Status.PROTECTED
    assert sealed.table["t_start"].to_list() == [0.0, 0.5, 1.0, 1.5]  # the public grid
    text = sealed.table.write_csv()
    assert "Quill" not in text and "Quill" not in sealed.guarantee.to_json()


def test_a_column_only_the_release_carries_is_in_the_record_when_written():
    # a custom mechanism's release may add a column the input does not have: declared public,
    # it is written and the record lists it; undeclared, it is not written
    rel = kaleido(dataset())
    extra = rel.output.map(lambda r: r.with_gaze(r.x, r.y, channels={
        **r.channels, "foo": np.zeros(r.n_samples)}))
    src = dataset()
    for public in (["foo"], iter(["foo"])):  # a generator too: seal reads `public` twice
        sealed = seal(Release(extra, rel.guarantee), source=src, public=public, rng=rng())
        assert "foo" in sealed.table.columns
        statuses = {c.name: c.status for c in sealed.guarantee.columns}
        assert statuses["foo"] is Status.PUBLIC_DECLARED
    sealed = seal(Release(extra, rel.guarantee), source=src, rng=rng())
    assert "foo" not in sealed.table.columns
    assert all(c.name != "foo" or c.status is Status.NOT_WRITTEN
               for c in sealed.guarantee.columns)
