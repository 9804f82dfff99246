# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Small eye-tracker export files with the vendors' headers, for the reader and CLI tests."""

from __future__ import annotations

__all__ = ["asc_file", "asc_trials_file", "pupil_core_recording", "tobii_file"]

TOBII_HEADER = [
    "Recording timestamp", "Computer timestamp", "Sensor", "Participant name", "Recording name",
    "Recording date", "Recording resolution height", "Recording resolution width",
    "Eyetracker timestamp", "Event", "Event value", "Gaze point X", "Gaze point Y",
    "Gaze point left X", "Gaze point left Y", "Gaze point right X", "Gaze point right Y",
    "Pupil diameter left", "Pupil diameter right", "Validity left", "Validity right",
    "Presented Stimulus name", "Eye movement type",
]


def tobii_file(tmp_path, *, comma: bool = False, n: int = 40, malformed: bool = False,
               rate_column: str | None = None):
    """A Tobii Pro Lab export of two 120 Hz recordings with millisecond ``Recording timestamp``
    (intervals of 8 and 9 ms); ``malformed``: a word in one gaze value and in one timestamp;
    ``rate_column``: a sampling-rate column of that name (120)."""
    rows = []
    for part, rec in (("P01", "Recording1"), ("P02", "Recording2")):
        rows.append([0, 9_000_000, "", part, rec, "11/25/2026", 1080, 1920, "",
                     "ImageStimulusStart", "img1", *[""] * 12])
        for i in range(n):
            gx, gy = 960.0 + 4 * i, 540.0 - 2 * i
            blink = i == 10
            rows.append([round(i * 1000 / 120), 9_000_000 + i, "Eye Tracker", part, rec,
                         "11/25/2026", 1080, 1920, 1_732_600_000_000_000 + 8333 * i, "", "",
                         *(["", ""] if blink else [gx, gy]), gx - 3, gy, gx + 3, gy,
                         3.1, 3.3, "Invalid" if blink else "Valid", "Valid", "img1",
                         "Fixation"])
    header = list(TOBII_HEADER)
    if malformed:
        rows[3][11] = "n/a"       # a gaze value that is no number
        rows[5][0] = "(pause)"    # a timestamp that is none
    if rate_column:
        header.append(rate_column)
        rows = [[*r, 120] for r in rows]
    text = "\n".join("\t".join(str(v) for v in r) for r in [header, *rows]) + "\n"
    if comma:
        text = text.replace(".", ",").replace("11/25/2026", "25-11-2026")
    path = tmp_path / "export.tsv"
    path.write_text(text, encoding="utf-8")
    return path


ASC = """** CONVERTED FROM D:\\data\\sub07.edf using edfapi 4.2.1 Jan 19 2022
** DATE: Wed Nov 25 10:00:00 2026
** TYPE: EDF_FILE BINARY EVENT SAMPLE TAGGED
** VERSION: EYELINK II 1
** SOURCE: EYELINK CL
** EYELINK II CL v6.12 Feb  1 2018 (EyeLink Portable Duo)
** CAMERA: EyeLink USBCAM Version 1.01
** SERIAL NUMBER: CLU-DAB50
** CAMERA_CONFIG: DAB50200.SCD
**

MSG	2095865 DISPLAY_COORDS 0 0 1279 1023
MSG	2095865 RECCFG CR 1000 2 1 L
MSG	2095865 GAZE_COORDS 0.00 0.00 1279.00 1023.00
START	2095870 	LEFT	SAMPLES	EVENTS
PRESCALER	1
VPRESCALER	1
PUPIL	AREA
EVENTS	GAZE	LEFT	RATE	1000.00	TRACKING	CR	FILTER	2
SAMPLES	GAZE	LEFT	RATE	1000.00	TRACKING	CR	FILTER	2	INPUT
{samples}END	{end} 	SAMPLES	EVENTS	RES	  38.54	  31.12
"""


def asc_file(tmp_path):
    lines = []
    for i in range(30):
        t = 2095870 + i
        lines.append(f"{t}\t  .\t  .\t    0.0\t    0.0\t...\n" if i == 5 else
                     f"{t}\t {640.0 + i:7.1f}\t {512.0 - i:7.1f}\t {1000.0 + i:7.1f}\t"
                     "    0.0\t...\n")
    path = tmp_path / "sub07.asc"
    path.write_text(ASC.format(samples="".join(lines), end=2095900))
    return path


ASC_TRIALS_HEAD = """** CONVERTED FROM D:\\data\\s12.edf using edfapi 4.2.1 Jan 19 2022
** DATE: Wed Nov 25 10:00:00 2026
** TYPE: EDF_FILE BINARY EVENT SAMPLE TAGGED
** SOURCE: EYELINK CL
**

MSG	1000 DISPLAY_COORDS 0 0 1919 1079
"""


def asc_trials_file(tmp_path, *, n_trials: int = 3, per_trial: int = 50, rate: bool = True,
                    malformed: int = 0, between: int = 5, name: str = "s12.asc"):
    """A binocular 500 Hz EyeLink ASC file (Data Viewer's message conventions): each trial
    opens with ``TRIALID``, loads its image with ``!V IMGLOAD``, ends with ``!V TRIAL_VAR``
    lines and ``TRIAL_RESULT``; ``between`` samples lie between trials (outside every trial);
    the first ``malformed`` sample lines of the first trial are broken."""
    out = [ASC_TRIALS_HEAD + ("MSG\t1000 RECCFG CR 500 2 1 LR\n" if rate else "")]
    t = 2000
    rate_text = "\tRATE\t 500.00" if rate else ""
    for k in range(n_trials):
        out.append(f"MSG\t{t} TRIALID {k + 1}\n")
        out.append(f"START\t{t} \tLEFT\tRIGHT\tSAMPLES\tEVENTS\n")
        out.append(f"SAMPLES\tGAZE\tLEFT\tRIGHT{rate_text}\tTRACKING\tCR\tFILTER\t2\n")
        out.append(f"MSG\t{t} -2 !V IMGLOAD FILL images/scene{k + 1}.png\n")
        for i in range(per_trial):
            xl, y = 900.0 + i, 500.0 + k
            if k == 0 and i < malformed:
                out.append(f"{t}\t {xl:.1f}\t oops\n")
            elif i == 7:  # the left eye lost, the right one seen
                out.append(f"{t}\t   .\t   .\t    0.0\t {xl + 20:.1f}\t {y:.1f}\t 1100.0\t.....\n")
            else:
                out.append(f"{t}\t {xl:.1f}\t {y:.1f}\t 1000.0\t {xl + 20:.1f}\t {y:.1f}\t"
                           " 1100.0\t.....\n")
            t += 2
        out.append(f"END\t{t} \tSAMPLES\tEVENTS\tRES\t 38.54\t 31.12\n")
        out.append(f"MSG\t{t} !V TRIAL_VAR condition {'easy' if k % 2 else 'hard'}\n")
        out.append(f"MSG\t{t} !V TRIAL_VAR block_no {k // 2 + 1}\n")
        out.append(f"MSG\t{t} TRIAL_RESULT 0\n")
        for _ in range(between):
            t += 2
            out.append(f"{t}\t 1.0\t 1.0\t 1000.0\t 1.0\t 1.0\t 1100.0\t.....\n")
        t += 100
    path = tmp_path / name
    path.write_text("".join(out))
    return path


def pupil_core_recording(tmp_path, *, folder: str = "000", three_d: str = "full",
                         info: dict | None = None, n: int = 60):
    """Pupil Capture's layout: ``RECORDING/info.player.json`` and the Pupil Player export
    ``RECORDING/exports/000/gaze_positions.csv``; ``three_d``: "full" (3-D pipeline), "empty"
    (the 2-D pipeline's empty columns) or "none"."""
    import json

    import numpy as np
    import polars as pl

    rec = tmp_path / "recordings" / "2026_11_25" / folder
    exp = rec / "exports" / "000"
    exp.mkdir(parents=True)
    (rec / "info.player.json").write_text(json.dumps(info if info is not None else {
        "duration_s": n / 120, "meta_version": "2.3", "min_player_version": "2.0",
        "recording_name": "2026_11_25", "recording_software_name": "Pupil Capture",
        "recording_uuid": "0b0f2c7e", "start_time_synced_s": 5321.25}))
    angle = np.radians(np.linspace(-10, 10, n))
    cols = {
        "gaze_timestamp": 5321.25 + np.arange(n) / 120.0,
        "world_index": pl.Series(np.arange(n) // 4, dtype=pl.Int64),
        "confidence": [0.3 if i == 7 else 0.95 for i in range(n)],
        "norm_pos_x": 0.5 + angle / 3, "norm_pos_y": np.full(n, 0.5),
        "base_data": [f"{5321.2 + i / 120:.4f}-0" for i in range(n)],
    }
    if three_d == "full":
        cols |= {"gaze_point_3d_x": np.tan(angle) * 500, "gaze_point_3d_y": np.full(n, 0.0),
                 "gaze_point_3d_z": np.full(n, 500.0)}
    elif three_d == "empty":
        cols |= {c: pl.Series([None] * n, dtype=pl.Float64)
                 for c in ("gaze_point_3d_x", "gaze_point_3d_y", "gaze_point_3d_z")}
    path = exp / "gaze_positions.csv"
    pl.DataFrame(cols).write_csv(path)
    return path
