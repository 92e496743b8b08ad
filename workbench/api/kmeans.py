"""A recorded k-means run, every frame of it, and the demo's data around it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads with the codec, after the window's first frame
    import numpy as np


TUTORIAL_K = 4
"""The tutorial notebook's num_clusters: K for its points when none is given."""

@dataclass(frozen=True)
class KMeansRun:
    """Every frame of one Lloyd run of I iterations: I+1 frames (centroids[i], labels[i]).

    Frame 0 is the initial centroids and the first assignment to them; frame
    i is after i centroid updates, and the last frame (I) is the result.
    ``labels[i]`` assigns the points to ``centroids[i]``; ``centroids[i+1]`` are
    the means of those clusters. ``changed[i]`` counts points whose label
    differs from frame i-1 (all N at frame 0); ``counts[i]`` are the cluster
    sizes, 0 for an empty cluster (which keeps its centroid). Without
    recorded labels, ``labels`` holds only the final frame (shape [1, N]).

    Two distortions, both of frame i's points to their assigned centroid:
    ``inertia_mean`` is the mean *squared* distance (scikit-learn's
    ``inertia_ / N``), which Lloyd's algorithm never increases and which
    ``tol`` and the window's curve use; ``mean_distance`` is the mean
    Euclidean distance, the k-means tutorial's distortion.
    """

    centroids: np.ndarray  # [I+1, K, D] float32
    labels: np.ndarray  # [I+1, N] (or [1, N]) int8/int16/int32
    inertia_mean: np.ndarray  # [I+1] float32, mean squared distance
    mean_distance: np.ndarray  # [I+1] float32, mean Euclidean distance
    changed: np.ndarray  # [I+1] int32
    counts: np.ndarray  # [I+1, K] int32
    iterations: int
    converged: bool
    compile_s: float
    run_s: float
    per_iter_s: float
    devices: tuple[str, ...] = ()  # where it ran; several: the points were sharded over them

    @property
    def n(self) -> int:
        return int(self.labels.shape[1])

    @property
    def k(self) -> int:
        return int(self.centroids.shape[1])

    @property
    def d(self) -> int:
        return int(self.centroids.shape[2])

    @property
    def empty(self) -> np.ndarray:
        """[I+1, K] True where a cluster had no points in that frame."""
        return self.counts == 0

    @property
    def empty_clusters(self) -> tuple[tuple[int, ...], ...]:
        """Per frame, the indices of the empty clusters."""
        import numpy as np

        return tuple(tuple(int(j) for j in np.flatnonzero(row)) for row in self.empty)

    @property
    def final_centroids(self) -> np.ndarray:
        return self.centroids[-1]

    @property
    def final_labels(self) -> np.ndarray:
        return self.labels[-1]


@dataclass(frozen=True)
class KMeansDemo:
    """The data (first two columns, float32 [N, 2]), where it came from, and the run."""

    points: np.ndarray
    source: str
    init: np.ndarray  # [K, D] the starting centroids
    run: KMeansRun
