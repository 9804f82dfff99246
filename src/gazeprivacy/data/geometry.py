# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Viewing geometry and unit conversions (pixels, VR direction vectors -> degrees)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from gazeprivacy._validation import check_positive
from gazeprivacy.exceptions import InvalidParameterError

__all__ = ["Geometry", "GeometryKind", "ScreenSetup", "direction_to_angles_deg",
           "pixels_per_degree", "px_to_deg"]


class GeometryKind(StrEnum):
    """What the degrees of a :class:`Geometry` are measured on."""

    SCREEN = "screen"
    IMAGE = "image"
    VR = "vr"                      # angles of a direction vector
    SCENE_CAMERA = "scene-camera"  # head-mounted world camera (e.g. GazeGraph)
    EYE_CAMERA = "eye-camera"      # uncalibrated pupil positions in pseudo-degrees


@dataclass(frozen=True, slots=True, kw_only=True)
class Geometry:
    """The valid region of gaze in degrees, and (optionally) the pixel grid it maps to.

    ``x`` grows to the right and ``y`` downwards for screens (pixel convention), upwards for VR
    angles; the mechanisms only need the bounds. Screen mechanisms clamp off-screen points to the
    nearest valid point (post-processing) and document it.

    Parameters
    ----------
    x_min_deg, x_max_deg, y_min_deg, y_max_deg : float
        Bounds of the valid region in degrees of visual angle.
    width_px, height_px : int, optional
        Pixel grid of the screen or image, for pixel-defined mechanisms (heatmaps).
    kind : GeometryKind or str
        ``"screen"``, ``"image"``, ``"vr"`` (angles of a direction vector), ``"scene-camera"``
        (head-mounted world camera, e.g. GazeGraph) or ``"eye-camera"``
        (uncalibrated, e.g. MPIIDPEye pupil positions scaled to pseudo-degrees).

    Examples
    --------
    >>> g = Geometry.screen_px(width_px=1024, height_px=768, px_per_deg=60.0)
    >>> round(g.width_deg, 3), round(g.height_deg, 3)
    (17.067, 12.8)
    """

    x_min_deg: float
    x_max_deg: float
    y_min_deg: float
    y_max_deg: float
    width_px: int | None = None
    height_px: int | None = None
    kind: GeometryKind = GeometryKind.SCREEN

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "kind", GeometryKind(self.kind))
        except ValueError:
            valid = ", ".join(repr(k.value) for k in GeometryKind)
            raise InvalidParameterError(f"kind must be one of {valid}, got {self.kind!r}") from None
        for name in ("x_min_deg", "x_max_deg", "y_min_deg", "y_max_deg"):
            if not math.isfinite(getattr(self, name)):
                raise InvalidParameterError(f"{name} must be finite, got {getattr(self, name)!r}")
        if not (self.x_max_deg > self.x_min_deg and self.y_max_deg > self.y_min_deg):
            raise InvalidParameterError(
                "Geometry needs x_max_deg > x_min_deg and y_max_deg > y_min_deg, got "
                f"x [{self.x_min_deg}, {self.x_max_deg}], y [{self.y_min_deg}, {self.y_max_deg}]"
            )

    @classmethod
    def screen_px(cls, *, width_px: int, height_px: int, px_per_deg: float,
                  kind: GeometryKind | str = GeometryKind.SCREEN) -> Geometry:
        """A screen of ``width_px x height_px`` with origin top-left, ``px_per_deg`` pixels/deg."""
        check_positive(px_per_deg=px_per_deg)
        return cls(x_min_deg=0.0, x_max_deg=width_px / px_per_deg, y_min_deg=0.0,
                   y_max_deg=height_px / px_per_deg, width_px=width_px, height_px=height_px,
                   kind=kind)

    @property
    def width_deg(self) -> float:
        return self.x_max_deg - self.x_min_deg

    @property
    def height_deg(self) -> float:
        return self.y_max_deg - self.y_min_deg

    def contains(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Boolean mask of points inside the region (NaN -> False)."""
        x = np.asarray(x)
        y = np.asarray(y)
        return ((x >= self.x_min_deg) & (x <= self.x_max_deg)
                & (y >= self.y_min_deg) & (y <= self.y_max_deg))

    def clamp(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest valid point (NaN stays NaN): post-processing, never resampling."""
        return (np.clip(x, self.x_min_deg, self.x_max_deg),
                np.clip(y, self.y_min_deg, self.y_max_deg))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Geometry:
        return cls(**d)


@dataclass(frozen=True, slots=True, kw_only=True)
class ScreenSetup:
    """A flat screen in physical units, to convert pixels to degrees of visual angle exactly
    (``atan``, pymovements' ``pix2deg``; the CLI's ``--screen-px W,H --screen-cm W,H
    --distance-cm D``), instead of a linear ``px_per_deg``.

    Degrees are measured from the screen's centre (0, 0), ``x`` right and ``y`` down, as
    pymovements measures them; pixels from the top-left corner. ``width_px`` / ``height_px``
    may come from the export (Tobii's recording resolution, EyeLink's ``DISPLAY_COORDS``).

    >>> s = ScreenSetup(width_cm=38.0, height_cm=30.0, distance_cm=68.0, width_px=1280,
    ...                 height_px=1024)
    >>> g = s.geometry()
    >>> round(g.x_min_deg, 2), round(g.x_max_deg, 2), g.width_px
    (-15.6, 15.62, 1280)
    """

    width_cm: float
    height_cm: float
    distance_cm: float
    width_px: int | None = None
    height_px: int | None = None

    def __post_init__(self) -> None:
        check_positive(width_cm=self.width_cm)
        check_positive(height_cm=self.height_cm)
        check_positive(distance_cm=self.distance_cm)
        if (self.width_px is None) != (self.height_px is None):
            raise InvalidParameterError("give the screen's width_px and height_px together")
        if self.width_px is not None:
            check_positive(width_px=self.width_px)
            check_positive(height_px=self.height_px)

    def with_pixels(self, width_px: int, height_px: int) -> ScreenSetup:
        """This screen with its pixel grid (kept when it has one already)."""
        if self.width_px is not None:
            return self
        return ScreenSetup(width_cm=self.width_cm, height_cm=self.height_cm,
                           distance_cm=self.distance_cm, width_px=int(width_px),
                           height_px=int(height_px))

    def _pixels(self) -> tuple[int, int]:
        if self.width_px is None or self.height_px is None:
            raise InvalidParameterError(
                "the screen's size in pixels is unknown (the file does not say it): pass "
                "screen=ScreenSetup(..., width_px=..., height_px=...)")
        return self.width_px, self.height_px

    def to_deg(self, x_px: np.ndarray, y_px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixels (origin top-left) to degrees (origin at the centre), with pymovements'
        ``pix2deg``; NaN stays NaN."""
        from pymovements.transforms.numpy import pix2deg

        w, h = self._pixels()
        xy = np.column_stack([np.asarray(x_px, dtype=np.float64),
                              np.asarray(y_px, dtype=np.float64)])
        if xy.shape[0] == 0:
            return xy[:, 0], xy[:, 1]
        out = pix2deg(xy, screen_px=(w, h), screen_cm=(self.width_cm, self.height_cm),
                      distance_cm=self.distance_cm, origin="upper left")
        return out[:, 0], out[:, 1]

    def geometry(self) -> Geometry:
        """The screen's bounds in degrees (its corners through :meth:`to_deg`) and pixel
        grid."""
        w, h = self._pixels()
        x, y = self.to_deg(np.array([0.0, float(w)]), np.array([0.0, float(h)]))
        return Geometry(x_min_deg=float(x[0]), x_max_deg=float(x[1]), y_min_deg=float(y[0]),
                        y_max_deg=float(y[1]), width_px=w, height_px=h)


def pixels_per_degree(*, screen_width_px: int, screen_width_cm: float, distance_cm: float) -> float:
    """Pixels per degree at the screen centre for a flat screen at ``distance_cm``.

    >>> round(pixels_per_degree(screen_width_px=1920, screen_width_cm=53.0, distance_cm=60.0), 2)
    37.94
    """
    check_positive(screen_width_px=screen_width_px)
    check_positive(screen_width_cm=screen_width_cm)
    check_positive(distance_cm=distance_cm)
    cm_per_px = screen_width_cm / screen_width_px
    deg_per_px = math.degrees(2 * math.atan2(cm_per_px / 2, distance_cm))
    return 1.0 / deg_per_px


def px_to_deg(px: np.ndarray, *, px_per_deg: float) -> np.ndarray:
    """Linear pixel -> degree conversion (valid near the centre, as all five papers assume)."""
    check_positive(px_per_deg=px_per_deg)
    return np.asarray(px, dtype=np.float64) / px_per_deg


def direction_to_angles_deg(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """VR gaze direction vectors ``(n, 3)`` -> (horizontal, vertical) angles in degrees.

    ``theta_H = atan2(x, z)``, ``theta_V = atan2(y, sqrt(x^2 + z^2))`` (SPEC section 1). Zero or
    non-finite vectors give NaN (tracking loss).

    >>> h, v = direction_to_angles_deg(np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]))
    >>> h.round(1).tolist(), v.round(1).tolist()
    ([0.0, 45.0], [0.0, 0.0])
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != 3:
        raise InvalidParameterError(f"direction vectors must have shape (n, 3), got {v.shape}")
    x, y, z = v[:, 0], v[:, 1], v[:, 2]
    norm = np.sqrt(x * x + y * y + z * z)
    bad = ~np.isfinite(norm) | (norm == 0)
    h = np.degrees(np.arctan2(x, z))
    vert = np.degrees(np.arctan2(y, np.sqrt(x * x + z * z)))
    h[bad] = np.nan
    vert[bad] = np.nan
    return h, vert
