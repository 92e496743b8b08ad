"""Lloyd's algorithm by hand, for the tests: one iteration, or only its assign or update half.

The stepper keeps the points on the device and uses the same kernels as the
compiled run, so stepping from the same start reproduces ``run_kmeans``
frame by frame (tests/engine/test_kmeans_run.py checks it), and the window's
playback of a recorded run half-step by half-step (tests/ui/test_kmeans_panel.py).
Test code only: the product records whole runs and never steps.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from workbench.engine.errors import UsageError
from workbench.engine.kmeans.data import validate_points
from workbench.engine.kmeans.inits import check_given

if TYPE_CHECKING:
    from workbench.engine.kmeans.lloyd import Stats


@dataclass(frozen=True)
class StepState:
    """Where the stepper stands: frame ``iteration`` after its last half-step.

    ``phase`` is ``"start"`` (centroids only), ``"assigned"`` (labels belong to
    ``centroids``) or ``"updated"`` (centroids moved; ``labels`` are the ones
    they were computed from).
    """

    iteration: int
    phase: str
    centroids: np.ndarray
    labels: np.ndarray | None
    distortion: float | None
    changed: int | None
    counts: np.ndarray | None
    converged: bool

    @property
    def empty_clusters(self) -> tuple[int, ...]:
        if self.counts is None:
            return ()
        return tuple(int(j) for j in np.flatnonzero(self.counts == 0))


@functools.cache
def _kernels():
    import jax
    import jax.numpy as jnp

    from workbench.engine.kmeans import lloyd

    @jax.jit
    def assign(x, z, mu, c, prev, first):
        (n, d), k = x.shape, c.shape[0]
        lay = lloyd.Layout.of(n, k, d)
        lab = lloyd.assign_labels(lloyd.columns(x), c)
        st = lloyd.tally(z, mu, lloyd.cell_ids(lab, prev, lay), c, lay)
        changed = st.changed if st.changed is not None else jnp.sum(lab != prev, dtype=jnp.int32)
        return lab, st._replace(changed=jnp.where(first, n, changed))

    @functools.partial(jax.jit, static_argnums=1)
    def operand(x, k):
        n, d = x.shape
        return lloyd.scatter_operand(x, None, lloyd.Layout.of(n, k, d))

    return operand, assign, lloyd.label_dtype


class KMeansStepper:
    """Step Lloyd's algorithm by hand from given centroids (see ``init_centroids``)."""

    def __init__(self, points: np.ndarray, centroids: np.ndarray, tol: float = 1e-5):
        import jax.numpy as jnp

        x = validate_points(points)
        c = check_given(np.asarray(centroids), None, x.shape[0], x.shape[1])
        make_z, self._assign, label_dtype = _kernels()
        self._x = jnp.asarray(x)
        self._z, self._mu = make_z(self._x, c.shape[0])
        self._c = jnp.asarray(c)
        self._tol = float(tol)
        self._lab = jnp.zeros(x.shape[0], label_dtype(c.shape[0]))
        self._stats: Stats | None = None
        self._state = StepState(0, "start", c, None, None, None, None, False)

    @property
    def state(self) -> StepState:
        return self._state

    def assign(self) -> StepState:
        """Assign every point to its nearest centroid (the E half-step)."""
        s = self._state
        if s.phase == "assigned":
            return s
        first = s.phase == "start"
        lab, st = self._assign(self._x, self._z, self._mu, self._c, self._lab, first)
        dist, changed = float(st.distortion), int(st.changed)
        converged = (
            not first
            and self._tol >= 0
            and (
                changed == 0
                or (self._tol > 0 and s.distortion is not None and s.distortion - dist <= self._tol)
            )
        )
        self._lab, self._stats = lab, st
        self._state = StepState(
            0 if first else s.iteration + 1,
            "assigned",
            np.asarray(self._c),
            np.asarray(lab),
            dist,
            changed,
            np.asarray(st.counts),
            bool(converged),
        )
        return self._state

    def update(self) -> StepState:
        """Move every centroid to the mean of its points (the M half-step)."""
        s = self._state
        if s.phase != "assigned":
            raise UsageError("update needs labels: assign first (or use step)")
        assert self._stats is not None  # set by assign, which "assigned" follows
        self._c = self._stats.new_centroids
        self._state = StepState(
            s.iteration,
            "updated",
            np.asarray(self._c),
            s.labels,
            s.distortion,
            s.changed,
            s.counts,
            s.converged,
        )
        return self._state

    def step(self) -> StepState:
        """One full iteration: frame 0 is the first assignment; later ones update then assign."""
        if self._state.phase == "assigned":
            self.update()
        return self.assign()
