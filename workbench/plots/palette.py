"""Colour-blind-safe colours shared by every plot, so a plotted function or a cluster keeps
its colour."""

from __future__ import annotations

import numpy as np
from PySide6 import QtGui

# Okabe & Ito (2008) without black, which vanishes on dark backgrounds.
OKABE_ITO = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
)
# Paul Tol's "muted" set extends the clusters past seven.
TOL_MUTED = (
    "#332288", "#88CCEE", "#44AA99", "#117733", "#999933",
    "#DDCC77", "#CC6677", "#882255", "#AA4499",
)
CLUSTER_COLOURS = OKABE_ITO + TOL_MUTED
EMPTY_COLOUR = "#FF2020"


def function_colour(index: int) -> QtGui.QColor:
    """The colour of the ``index``-th function on a plot; its derivatives share it (they differ
    by line style), so selu and sigmoid never differ by dash pattern alone."""
    return QtGui.QColor(OKABE_ITO[index % len(OKABE_ITO)])


def cluster_colour(k: int) -> QtGui.QColor:
    return QtGui.QColor(CLUSTER_COLOURS[k % len(CLUSTER_COLOURS)])


def cluster_lut(alpha: int = 255, size: int = 256, background: int = 255) -> np.ndarray:
    """A ``size`` x 4 uint8 RGBA table: entry k is cluster k's colour, ``background`` is clear."""
    lut = np.zeros((size, 4), dtype=np.uint8)
    for k in range(size):
        c = cluster_colour(k)
        lut[k] = (c.red(), c.green(), c.blue(), alpha)
    lut[background] = 0
    return lut
