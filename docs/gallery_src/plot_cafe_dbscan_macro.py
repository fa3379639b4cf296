"""
# A macro-variable from CAFE DBSCAN feeding PC

CAFE DBSCAN groups micro-level points by their effect-state distribution; the
clusters become a discrete macro-variable `Z`, and PC learns a graph over the
micro-level coordinates and `Z` (the pipeline of `examples/cafe_dbscan_macro.yaml`).
"""

# %%
# The data: `cafe_ds2`, points in the plane whose class sets the distribution of
# the effect (the target).
from macrocause import registry
from macrocause.framework.plotting import plot

ds = registry.create("cafe_ds2", seed=0).load()
print(ds)

# %%
# CAFE DBSCAN's clusters, rated against the true classes.
part = registry.create("cafe_dbscan", eps=0.27, min_points=50, tau=0.4).partition(ds)
truth = ds.truth["labels"]
for metric in ("nmi", "ari"):
    print(metric, round(registry.create(metric).evaluate(ds, part, truth).value, 3))
fig = plot(part, ds, title="CAFE DBSCAN clusters (noise in grey)")

# %%
# The clusters become the macro-variable `Z`; PC searches a graph over `x`, `y` and `Z`.
macro = ds.with_partition(part, "Z")
graph = registry.create("pc", alpha=0.01).search(macro)
print(graph)
fig = plot(graph, title="PC with the macro-variable Z")
