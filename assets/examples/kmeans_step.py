"""One Lloyd iteration of k-means: assign each point to its nearest centroid, then average."""


def assign(points, centroids):
    distances = jnp.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    return jnp.argmin(distances, axis=1), jnp.min(distances, axis=1)


def kmeans_step(points, centroids):
    labels, distances = assign(points, centroids)
    k = centroids.shape[0]
    sums = jax.ops.segment_sum(points, labels, num_segments=k)
    counts = jax.ops.segment_sum(jnp.ones_like(distances), labels, num_segments=k)
    new_centroids = jnp.where(counts[:, None] > 0, sums / counts[:, None], centroids)
    return new_centroids, jnp.mean(distances)
