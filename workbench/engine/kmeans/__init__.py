"""k-means in JAX for the animated demo: data, initialisations, recorded runs."""

from workbench.api.kmeans import TUTORIAL_K
from workbench.engine.kmeans.data import (
    TUTORIAL_BAD_INIT,
    blobs,
    load_points,
    tutorial_points,
    validate_points,
)
from workbench.engine.kmeans.inits import METHODS, init_centroids
from workbench.engine.kmeans.run import KMeansRun, run_kmeans

__all__ = [
    "METHODS",
    "TUTORIAL_BAD_INIT",
    "TUTORIAL_K",
    "KMeansRun",
    "blobs",
    "init_centroids",
    "load_points",
    "run_kmeans",
    "tutorial_points",
    "validate_points",
]
