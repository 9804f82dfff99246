# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Deployment: where gaze is recorded, as libraries usable without the CLI.

:mod:`~gazeprivacy.deploy.protocol` is DPGazeSynth's device / curator wire format (message
framing, validation against the announced parameters); :mod:`~gazeprivacy.deploy.lsl` is the
live Lab Streaming Layer filter (optional extra ``stream``). Both sit at the engines' layer: they
reach the mechanisms only through their public phases (client report, curate, synthesise).
See docs/architecture.md, docs/protocol.md and docs/streaming.md.
"""

__all__: list[str] = []
