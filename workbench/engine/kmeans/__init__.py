"""k-means in JAX for the animated demo: data, initialisations, recorded runs, stepping."""

from workbench.engine.kmeans.data import (
    TUTORIAL_BAD_INIT,
    TUTORIAL_K,
    blobs,
    load_points,
    tutorial_points,
    validate_points,
)
from workbench.engine.kmeans.inits import METHODS, init_centroids
from workbench.engine.kmeans.reference import lloyd_reference
from workbench.engine.kmeans.run import KMeansRun, run_kmeans
from workbench.engine.kmeans.step import KMeansStepper, StepState

__all__ = [
    "METHODS",
    "TUTORIAL_BAD_INIT",
    "TUTORIAL_K",
    "KMeansRun",
    "KMeansStepper",
    "StepState",
    "blobs",
    "init_centroids",
    "load_points",
    "lloyd_reference",
    "run_kmeans",
    "tutorial_points",
    "validate_points",
]
