"""Lloyd's algorithm as JAX kernels: the assignment, the centroid update, and the whole run.

Why this formulation (measured at N=1e6, D=2, K=8 on a 2-core CPU): the
textbook ``vmap`` distances + ``argmin`` materialises an [N, K] matrix and is
slower than scikit-learn. Here the assignment keeps a running minimum over
the K centroids (K is static, so the loop unrolls into one fused elementwise
pass over the points) and the update is one ``segment_sum`` (a scatter-add)
of a loop-invariant operand [x - mean, 1, |x - mean|^2] prepared once per
run. That one scatter also yields the cluster sizes, the mean squared
distance (scikit-learn's inertia / N) and the number of points that changed
cluster, so an iteration reads the points twice: once to assign, once to add.

What XLA on CPU makes of it decides the rest (measured per kernel with
``jax.profiler`` traces, old and new code alternating in one process):

* The scatter is one loop on one thread at about 4 ns a row, whatever the
  row's width (4, 8 or 16 floats). Rows of ``group`` consecutive points (two
  at D=2, K=8: 8 floats) halve its rows; a row's cell is the combination of
  its points' digits (``Layout``). It is still about half of an iteration.
* XLA does not compute two outputs in one loop: a fusion that writes the
  labels and one that writes the distances each redo the K distances. Up to
  PACK_LIMIT clusters one pass writes a float32 per point, the distance with
  the point's digit in its lowest mantissa bits (``assign_packed``); the
  labels, the cells and the mean distance (a plain sum) are read from it.
* The digit is 2 * label + (label changed since the last pass): the scatter
  then also counts the changed points, and since the assignment reads the
  previous labels itself, XLA writes the new labels over them in the loop's
  carry (no copy of either, where a separate read cost two 1 MB copies).
* A reduction that XLA fuses with its producer runs element by element (5 ms
  for a float32 sum of 2e6 products); a sum of a materialised array goes to
  its YNNPACK kernels (0.1-0.3 ms). Hence the materialised assignment (a
  conditional's result) and the plain sums. One-hot matrix products, bf16
  or int8 dots and reductions of [N, K] one-hot arrays were all 3-20x slower
  than the scatter.
* XLA hoists loop-invariant work out of the ``while_loop``, including the
  lane and block numbers of the cells (two int32 arrays every pass then reads
  back); ``cell_ids`` / ``row_ids`` take a loop-carried zero to prevent it.

Accuracy: float32 sums of 1e5 points drift (a plain scatter-add is off by
1e-4 on data far from the origin, enough to flip labels at 1e6 points). The
operand is centred on the data mean, and each row goes to one of the lanes
of its cell (its row number mod 8, mod 4 with rows of two points) in its block
of 2**16 consecutive points, so a float32 accumulator sums at most 8192 rows;
the cells are added at the end.
At N=1e6 the final centroids are then within 6e-6 of a float64 Lloyd with
identical labels (scikit-learn's float32: 1e-4, 5 labels off). The packed
distance is off by at most 2**(label_bits - 22) relative (4e-6 at K=16).

Sharded over devices (``sharded.py``), the same code runs on each device's
rows inside ``jax.shard_map`` with a ``Shard``: the assignment and the scatter
stay local, and what sums over points (the data mean, the [2K, W] cluster
sums, the mean distance) is added across devices with one ``lax.psum`` each.
Without a ``Shard`` nothing here changes: the one-device run traces to the
same program as before sharding existed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

# Above this many K*D terms the loop over centroids is a fori_loop, not
# unrolled, so that compile time stays small for large K.
UNROLL_LIMIT = 256
# Up to this K a point's digit in its scatter cell is 2 * label + (label changed
# since the last pass), so the number of points that changed cluster comes out
# of the same scatter; above it, the digit is the label and a separate count.
PAIR_LIMIT = 128
# Consecutive points go to the scatter as rows of ``group`` points (group * W
# floats): XLA's scatter costs about the same per row for 4, 8 or 16 floats. A
# row's cell is the combination of its points' digits, so the group grows while
# the row stays within ROW_LIMIT floats and the combinations within COMBO_LIMIT.
# Up to LANES lanes interleave consecutive rows (fewer where the cells of a
# block would pass BLOCK_CELLS).
ROW_LIMIT = 16
COMBO_LIMIT = 256
LANES = 8
# Cells per block of consecutive points, and in all (accumulators stay in cache).
BLOCK_CELLS = 1024
MAX_CELLS = 1 << 16
# Up to this K a pass computes one float32 per point, the distance to the
# nearest centroid with the point's digit in its lowest mantissa bits (at most
# 5, a relative change below 4e-6), instead of two arrays from two passes over
# the points: XLA on CPU computes each output of a loop in a fusion of its own.
PACK_LIMIT = 16
# Points per block: at least 2**16 (at N=1e6, blocks of 2**20 drifted off the
# float64 trajectory, 2**14 cost more); at most 2**23 keeps counts exact.
MIN_BLOCK_LOG2, MAX_BLOCK_LOG2 = 16, 23


class Shard(NamedTuple):
    """This device's rows in a sharded run: sums over points end in ``lax.psum(axis)``.

    ``n`` counts the points on all devices; the rows here may end in padding (the
    points are padded to a multiple of the devices), which ``valid`` masks out.
    """

    axis: str
    n: int
    valid: jax.Array | None  # bool per local row; None when nothing is padding

    @classmethod
    def of(cls, axis: str, n: int, rows: int, devices: int) -> Shard:
        """Inside ``shard_map``: this device holds global rows [index * rows, ...)."""
        if rows * devices == n:
            return cls(axis, n, None)
        first = lax.axis_index(axis).astype(jnp.int32) * rows
        return cls(axis, n, first + jnp.arange(rows, dtype=jnp.int32) < n)

    def total(self, per_row: jax.Array) -> jax.Array:
        """The sum over every real point on every device of ``per_row`` ([rows, ...])."""
        if self.valid is not None:
            mask = self.valid.reshape(self.valid.shape + (1,) * (per_row.ndim - 1))
            per_row = jnp.where(mask, per_row, 0)
        return lax.psum(jnp.sum(per_row, axis=0), self.axis)


def label_dtype(k: int) -> np.dtype:
    """The smallest signed integer type that holds labels 0..k-1."""
    for dt in (np.int8, np.int16, np.int32):
        if k - 1 <= np.iinfo(dt).max:
            return np.dtype(dt)
    raise ValueError(f"k={k} is too large")


class Layout(NamedTuple):
    """Where each point is added: rows of ``group`` consecutive points, a cell a row.

    A point's digit is 2 * label + changed with ``flags``, else its label (``base``
    values). A row's cell is ((block * C + combination) * R + lane): the combination
    of its points' digits (C = base ** group of them), R lanes interleaving
    consecutive rows, blocks of 2**shift consecutive points.
    """

    n: int  # points (this device's rows when sharded)
    k: int
    flags: bool
    group: int
    lanes: int
    blocks: int
    shift: int

    @classmethod
    def of(cls, n: int, k: int, d: int = 2) -> Layout:
        flags = k <= PAIR_LIMIT
        base = 2 * k if flags else k
        group, width = 1, operand_width(d)
        while 2 * group * width <= ROW_LIMIT and base ** (2 * group) <= COMBO_LIMIT:
            group *= 2
        lanes = LANES
        while lanes > 1 and base**group * lanes > BLOCK_CELLS:
            lanes //= 2
        per_block = base**group * lanes
        max_blocks = max(1, MAX_CELLS // per_block)
        shift = max(MIN_BLOCK_LOG2, (-(-n // max_blocks) - 1).bit_length())
        shift = min(shift, MAX_BLOCK_LOG2)
        return cls(n, k, flags, group, lanes, -(-n // (1 << shift)), shift)

    @property
    def base(self) -> int:
        return 2 * self.k if self.flags else self.k

    @property
    def combos(self) -> int:
        return self.base**self.group

    @property
    def per_block(self) -> int:
        return self.combos * self.lanes

    @property
    def cells(self) -> int:
        return self.blocks * self.per_block

    def padded(self, n: int) -> int:
        """n rounded up to whole rows."""
        return -(-n // self.group) * self.group


def operand_width(d: int) -> int:
    """Columns of the scatter operand: d coordinates, the count, the squared norm, padded."""
    need = d + 2
    return 1 << (need - 1).bit_length() if need <= 8 else -(-need // 8) * 8


def columns(x: jax.Array) -> tuple[jax.Array, ...]:
    """[N, D] points as D contiguous columns (what the fused assignment reads)."""
    return tuple(x[:, j] for j in range(x.shape[1]))


def scatter_operand(x: jax.Array, shard: Shard | None = None,
                    lay: Layout | None = None) -> tuple[jax.Array, jax.Array]:
    """The operand [x - mean, 1, |x - mean|^2, 0...] and the mean it is centred on.

    [N, W], or with a layout [rows, group * W]: zero points pad N to whole rows
    (a free reshape of the padded [N, W]). Sharded, the mean is of all the points
    and padding rows are all zero (no count).
    """
    n, d = x.shape
    mu = jnp.mean(x, axis=0) if shard is None else shard.total(x) / shard.n
    xc = x - mu
    parts = [xc, jnp.ones((n, 1), x.dtype), jnp.sum(xc * xc, axis=1, keepdims=True)]
    pad = operand_width(d) - d - 2
    if pad:
        parts.append(jnp.zeros((n, pad), x.dtype))
    z = jnp.concatenate(parts, axis=1)
    if shard is not None and shard.valid is not None:
        z = jnp.where(shard.valid[:, None], z, 0)
    if lay is None:
        return z, mu
    rows = lay.padded(n)
    if rows != n:
        z = jnp.concatenate([z, jnp.zeros((rows - n, z.shape[1]), z.dtype)])
    return z.reshape(rows // lay.group, -1), mu


def assign(cols: Sequence[jax.Array], c: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Nearest centroid of every point (int32) and its squared distance.

    The distance is the direct sum of squared differences, not the expanded
    ||x||^2 - 2 x.c + ||c||^2, which cancels badly in float32 and flips labels
    of points near a boundary. Ties go to the lower index, as with argmin.
    """
    k, d = c.shape

    def dist(ck):
        acc = (cols[0] - ck[0]) ** 2
        for j in range(1, d):
            acc = acc + (cols[j] - ck[j]) ** 2
        return acc

    best = dist(c[0])
    lab = jnp.zeros(best.shape, jnp.int32)
    if k * d <= UNROLL_LIMIT:
        for kk in range(1, k):
            dk = dist(c[kk])
            better = dk < best
            best = jnp.where(better, dk, best)
            lab = jnp.where(better, kk, lab)
        return lab, best

    def body(kk, state):
        best, lab = state
        dk = dist(c[kk])
        better = dk < best
        return jnp.where(better, dk, best), jnp.where(better, kk, lab)

    best, lab = lax.fori_loop(1, k, body, (best, lab))
    return lab, best


def digits(lab: jax.Array, prev: jax.Array, lay: Layout) -> jax.Array:
    """Every point's digit (int32): 2 * label + (label != previous label) with flags."""
    digit = lab.astype(jnp.int32)
    if lay.flags:
        digit = 2 * digit + (lab != prev).astype(jnp.int32)
    return digit


def row_ids(digit: jax.Array, lay: Layout, zero: jax.Array | None = None) -> jax.Array:
    """The scatter cell of every row of ``lay.group`` points from their digits (int32).

    Inside a loop pass a loop-carried ``zero``: the row index then depends on it, or
    XLA hoists the lane and block numbers out of the loop into two int32 arrays that
    every pass reads back (8 MB at N=1e6).
    """
    n = digit.shape[0]
    padded = lay.padded(n)
    if padded != n:
        digit = jnp.pad(digit, (0, padded - n))
    rows = padded // lay.group
    per_row = digit.reshape(rows, lay.group)
    ids = per_row[:, 0]
    for g in range(1, lay.group):
        ids = ids * lay.base + per_row[:, g]
    r = jnp.arange(rows, dtype=jnp.int32)
    if zero is not None:
        r = r + zero
    if lay.lanes > 1:
        ids = ids * lay.lanes + (r & (lay.lanes - 1))
    if lay.blocks > 1:
        ids = ids + lay.per_block * (r >> (lay.shift - (lay.group.bit_length() - 1)))
    return ids


def cell_ids(lab: jax.Array, prev: jax.Array, lay: Layout,
             zero: jax.Array | None = None) -> jax.Array:
    """The scatter cell of every row of points labelled ``lab`` (``prev`` the pass before)."""
    return row_ids(digits(lab, prev, lay), lay, zero)


def assign_labels(cols: Sequence[jax.Array], c: jax.Array) -> jax.Array:
    """Labels (smallest int type) of the points' nearest centroids."""
    return assign(cols, c)[0].astype(label_dtype(c.shape[0]))


def assign_with_distance(cols: Sequence[jax.Array], c: jax.Array,
                         shard: Shard | None = None) -> tuple[jax.Array, jax.Array]:
    """Labels (as ``assign_labels``) and the mean Euclidean distance to the nearest centroid.

    The mean distance is the k-means tutorial's distortion. A plain float32
    ``jnp.sum`` is enough: XLA's reduction keeps partial sums (at N=1e6 it is
    within 1e-8 of float64).
    """
    lab, best = assign(cols, c)
    return lab.astype(label_dtype(c.shape[0])), mean_of(jnp.sqrt(best), shard)


def label_bits(k: int) -> int:
    """Bits of a label 0..k-1."""
    return max(1, (k - 1).bit_length())


def assign_packed(cols: Sequence[jax.Array], c: jax.Array, prev: jax.Array) -> jax.Array:
    """Distance to the nearest centroid (float32) with the point's digit in its low bits.

    The digit is 2 * label + (label != ``prev``), as ``digits`` with flags, in the
    lowest label_bits(K) + 1 mantissa bits. The distance is at least 0, so the
    packed value still is, within a relative 2**(label_bits - 22) of it (the square
    root is taken here, in the assignment's loop, so that its mean is a plain sum).
    Infinity is clamped to the largest float first, where the bits would make a NaN.
    """
    lab, best = assign(cols, c)
    dist = jnp.minimum(jnp.sqrt(best), jnp.finfo(best.dtype).max)
    digit = 2 * lab + (lab != prev.astype(lab.dtype)).astype(lab.dtype)
    mask = (1 << (label_bits(c.shape[0]) + 1)) - 1
    bits = lax.bitcast_convert_type(dist, jnp.uint32)
    bits = (bits & jnp.uint32(0xFFFFFFFF ^ mask)) | digit.astype(jnp.uint32)
    return lax.bitcast_convert_type(bits, dist.dtype)


def packed_digits(packed: jax.Array, k: int) -> jax.Array:
    """The digits (int32) in ``assign_packed``'s result."""
    bits = lax.bitcast_convert_type(packed, jnp.uint32)
    return (bits & jnp.uint32((1 << (label_bits(k) + 1)) - 1)).astype(jnp.int32)


def unpack_labels(packed: jax.Array, k: int) -> jax.Array:
    """The labels (smallest int type) in ``assign_packed``'s result."""
    bits = lax.bitcast_convert_type(packed, jnp.uint32) >> 1
    return (bits & jnp.uint32((1 << label_bits(k)) - 1)).astype(label_dtype(k))


def mean_of(per_row: jax.Array, shard: Shard | None = None) -> jax.Array:
    """The mean over the points of a [rows] array (sharded: over every device's real rows)."""
    if shard is None:
        return jnp.sum(per_row) / per_row.shape[0]
    return shard.total(per_row) / shard.n


class Stats(NamedTuple):
    """One frame's statistics, all from one scatter of the points into their cells."""

    new_centroids: jax.Array  # [K, D] means of the clusters (empty ones keep theirs)
    counts: jax.Array  # [K] int32
    distortion: jax.Array  # mean squared distance to the frame's centroids (inertia / N)
    changed: jax.Array | None  # points whose label changed (None without flags)


def tally(z: jax.Array, mu: jax.Array, ids: jax.Array, c: jax.Array, lay: Layout,
          shard: Shard | None = None) -> Stats:
    """Per-cluster sums of [x - mean, 1, |x - mean|^2] and what follows from them.

    ``z`` is the [rows, group * W] operand and ``ids`` the rows' cells. The cells are
    added over blocks and lanes, then each of a row's points gives its cluster the
    sums over the combinations where its digit is that cluster's. The distortion
    comes from the same sums: sum |x - c|^2 over a cluster is Q - 2 (c - mean).S +
    n |c - mean|^2, so no second pass over the points. Sharded, each device sums
    its rows and the [base, W] sums are added across devices: the only
    per-iteration all-reduce of a sharded run besides scalars.
    """
    k, d = c.shape
    n = lay.n if shard is None else shard.n
    s = jax.ops.segment_sum(z, ids, lay.cells)
    s = s.reshape(lay.blocks, lay.combos, lay.lanes, lay.group, -1).sum(axis=(0, 2))
    s = s.reshape((lay.base,) * lay.group + (lay.group, -1))
    # [base, W]: each of a row's points adds to its digit's sums.
    per_digit = sum(s[..., g, :].sum(axis=tuple(a for a in range(lay.group) if a != g))
                    for g in range(1, lay.group))
    per_digit = s[..., 0, :].sum(axis=tuple(range(1, lay.group))) + per_digit
    if shard is not None:
        per_digit = lax.psum(per_digit, shard.axis)
    changed = None
    if lay.flags:
        per_digit = per_digit.reshape(k, 2, -1)
        changed = jnp.round(per_digit[:, 1, d].sum()).astype(jnp.int32)
        per_digit = per_digit.sum(axis=1)
    sums, counts, sq = per_digit[:, :d], per_digit[:, d], per_digit[:, d + 1]
    cm = c - mu
    per_cluster = sq - 2 * jnp.sum(cm * sums, axis=1) + counts * jnp.sum(cm * cm, axis=1)
    dist = jnp.maximum(jnp.sum(per_cluster), 0) / n
    mean = sums / jnp.maximum(counts, 1)[:, None] + mu
    new_c = jnp.where(counts[:, None] > 0, mean, c)
    return Stats(new_c, counts.astype(jnp.int32), dist, changed)


class History(NamedTuple):
    """What one compiled run returns (device arrays; ``run.py`` turns them into numpy)."""

    passes: jax.Array  # number of assignment passes made (iterations + 1)
    converged: jax.Array
    centroids: jax.Array  # [max_iter + 1, K, D]
    labels: jax.Array  # [max_iter + 1, N], or [1, N] with the final labels only
    inertia_mean: jax.Array  # [max_iter + 1] mean squared distance (scikit-learn's inertia / N)
    mean_distance: jax.Array  # [max_iter + 1] mean Euclidean distance
    changed: jax.Array  # [max_iter + 1]
    counts: jax.Array  # [max_iter + 1, K]


def _count_changed(lab: jax.Array, prev: jax.Array, shard: Shard | None) -> jax.Array:
    """Points whose label differs from the last pass (where K is too large for pair cells)."""
    if shard is None:
        return jnp.sum(lab != prev, dtype=jnp.int32)
    return shard.total((lab != prev).astype(jnp.int32))


def run(x: jax.Array, c0: jax.Array, tol: jax.Array, max_iter: int, record_labels: bool,
        shard: Shard | None = None) -> History:
    """The whole Lloyd run in one ``lax.while_loop`` writing into preallocated history.

    Pass i assigns the points to c_i (labels_i, distortion d_i) and computes
    c_{i+1}. It stops after pass i (i >= 1) when converged, that is no label
    changed (a fixed point) or, for tol > 0, d_{i-1} - d_i <= tol; or when
    i == max_iter. A negative tol never converges. c_{i+1} of the last pass
    is discarded so that every recorded frame (c_i, labels_i, d_i) agrees.

    With a ``shard``, ``x`` is this device's rows and the labels recorded are
    theirs; every other part of the history comes out the same on every device.
    """
    rows_here = x.shape[0]
    n = rows_here if shard is None else shard.n
    k, d = c0.shape
    ldt = label_dtype(k)
    cols = columns(x)
    lay = Layout.of(rows_here, k, d)
    z, mu = scatter_operand(x, shard, lay)
    rows = max_iter + 1
    hist = History(
        passes=jnp.int32(0),
        converged=jnp.bool_(False),
        centroids=jnp.zeros((rows, k, d), x.dtype).at[0].set(c0),
        labels=jnp.zeros((rows if record_labels else 0, rows_here), ldt),
        inertia_mean=jnp.zeros((rows,), x.dtype),
        mean_distance=jnp.zeros((rows,), x.dtype),
        changed=jnp.zeros((rows,), jnp.int32),
        counts=jnp.zeros((rows, k), jnp.int32),
    )
    init = (c0, jnp.zeros((rows_here,), ldt), jnp.array(jnp.inf, x.dtype), jnp.bool_(False),
            hist)
    packs = k <= PACK_LIMIT and lay.flags
    assign_fn = (assign_with_distance if shard is None
                 else functools.partial(assign_with_distance, shard=shard))

    def cond(state):
        return jnp.logical_not(state[3])

    def body(state):
        # The previous labels travel in the carry: reading them from the last
        # history row instead makes XLA copy the whole history every iteration.
        c, prev_lab, prev_d, _, h = state
        i = h.passes
        # A conditional's result is a buffer: this materialises the labels once
        # instead of letting XLA recompute the distances in every consumer.
        # jnp.minimum(i, 0) is 0, but XLA cannot hoist what depends on it.
        zero = jnp.minimum(i, 0)
        if packs:
            # The previous labels are read inside the assignment: XLA then writes the
            # new ones over them in the carry (no copy of either).
            packed = lax.cond(i >= 0, assign_packed, assign_packed, cols, c, prev_lab)
            lab, mean_dist = unpack_labels(packed, k), mean_of(packed, shard)
            ids = row_ids(packed_digits(packed, k), lay, zero)
        else:
            lab, mean_dist = lax.cond(i >= 0, assign_fn, assign_fn, cols, c)
            ids = cell_ids(lab, prev_lab, lay, zero)
        st = tally(z, mu, ids, c, lay, shard)
        changed = st.changed if st.changed is not None else _count_changed(lab, prev_lab, shard)
        changed = jnp.where(i == 0, n, changed)
        dist = st.distortion
        # A fixed point (no label changed) is exact; the distortion test only
        # applies for tol > 0 (float32 noise in it must not stop a tol=0 run).
        conv = (i > 0) & (tol >= 0) & ((changed == 0) | ((tol > 0) & (prev_d - dist <= tol)))
        done = conv | (i >= max_iter)
        next_c = jnp.where(done, c, st.new_centroids)
        slot = jnp.minimum(i + 1, max_iter)
        h = History(
            passes=i + 1,
            converged=conv,
            centroids=lax.dynamic_update_index_in_dim(h.centroids, next_c, slot, 0),
            labels=(
                lax.dynamic_update_index_in_dim(h.labels, lab, i, 0) if record_labels else h.labels
            ),
            inertia_mean=h.inertia_mean.at[i].set(dist),
            mean_distance=h.mean_distance.at[i].set(mean_dist),
            changed=h.changed.at[i].set(changed),
            counts=h.counts.at[i].set(st.counts),
        )
        return next_c, lab, dist, done, h

    _, last_lab, _, _, h = lax.while_loop(cond, body, init)
    return h if record_labels else h._replace(labels=last_lab[None])
