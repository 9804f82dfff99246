# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Small eye-tracker export files with the vendors' headers, for the reader and CLI tests."""

from __future__ import annotations

__all__ = ["asc_file", "tobii_file"]

TOBII_HEADER = [
    "Recording timestamp", "Computer timestamp", "Sensor", "Participant name", "Recording name",
    "Recording date", "Recording resolution height", "Recording resolution width",
    "Eyetracker timestamp", "Event", "Event value", "Gaze point X", "Gaze point Y",
    "Gaze point left X", "Gaze point left Y", "Gaze point right X", "Gaze point right Y",
    "Pupil diameter left", "Pupil diameter right", "Validity left", "Validity right",
    "Presented Stimulus name", "Eye movement type",
]


def tobii_file(tmp_path, *, comma: bool = False):
    rows = []
    for part, rec in (("P01", "Recording1"), ("P02", "Recording2")):
        rows.append([0, 9_000_000, "", part, rec, "11/25/2026", 1080, 1920, "",
                     "ImageStimulusStart", "img1", *[""] * 12])
        for i in range(40):
            gx, gy = 960.0 + 4 * i, 540.0 - 2 * i
            blink = i == 10
            rows.append([round(i * 1000 / 120), 9_000_000 + i, "Eye Tracker", part, rec,
                         "11/25/2026", 1080, 1920, 1_732_600_000_000_000 + 8333 * i, "", "",
                         *(["", ""] if blink else [gx, gy]), gx - 3, gy, gx + 3, gy,
                         3.1, 3.3, "Invalid" if blink else "Valid", "Valid", "img1",
                         "Fixation"])
    text = "\n".join("\t".join(str(v) for v in r) for r in [TOBII_HEADER, *rows]) + "\n"
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
