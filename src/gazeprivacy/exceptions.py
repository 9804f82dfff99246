# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Typed exceptions and warnings. Library code raises these; only the CLI turns them into exits."""

__all__ = [
    "DataPolicyWarning",
    "DiskFullError",
    "GazePrivacyError",
    "ImplausibleEventsWarning",
    "InvalidDataError",
    "InvalidParameterError",
    "LowExpectedUtilityWarning",
    "MissingDependencyError",
    "NotFormallyPrivateWarning",
    "ReleaseRefusedError",
    "Terminated",
]


class GazePrivacyError(Exception):
    """Base class of every error that gazeprivacy raises on purpose."""


class InvalidDataError(GazePrivacyError, ValueError):
    """Input data break a rule of the data model (the message names recording and row)."""


class InvalidParameterError(GazePrivacyError, ValueError):
    """A parameter is out of its valid range (the message names parameter, rule and value)."""


class ReleaseRefusedError(InvalidDataError):
    """A mechanism refuses to release *this input*, by a documented rule about the data, not
    because of a wrong call or a bug: e.g. the event mechanisms' plausibility gate (implausible
    detected events), fewer participants than k, fewer windows than a participant-level
    release must report. The message is one line: why, and the way out. ``gazeprivacy
    evaluate`` records such a refusal as the cell's outcome and goes on with the other
    releases; any other error is a failed cell (written to ``failures.json``, left out of the
    results, computed again by a rerun), and the run ends with a non-zero exit."""


class MissingDependencyError(GazePrivacyError, ImportError):
    """An optional dependency is needed; the message names the extra to install."""


class NotFormallyPrivateWarning(UserWarning):
    """A step reads the private data or follows a paper's unproven path (see the Flag)."""


class DataPolicyWarning(UserWarning):
    """A documented data policy changed or set aside rows (e.g. NaN samples, clamped points)."""


class LowExpectedUtilityWarning(UserWarning):
    """A release's utility, predicted from public parameters before it runs, is poor."""


class ImplausibleEventsWarning(UserWarning):
    """Detected events are implausible for human gaze (e.g. > 30 % of samples in saccades,
    where human coders label 5-10 %): the detector's thresholds do not fit the data."""


class DiskFullError(GazePrivacyError, OSError):
    """The disk (or quota) is full: nothing was written and an earlier output is unchanged."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised by the command line's handler so that clean-up runs as on Ctrl-C."""
