"""
# A representative image per macro-variable (CAFE DBSCAN on images)

Every pixel of every image is a micro-level point `(col, row, red, green, blue)` whose
effect state is the image's label. CAFE DBSCAN's clusters of pixels are the
macro-variables; the paper's Fig. 1 draws each as the sum of its pixels. Here the images
are generated (`cafe_shapes`: the state is the colour of one disc; backgrounds and
distractor shapes are independent of it); `image_folder` reads a folder of your own.
"""

# %%
# The data: 8 images per state, 16 x 32 pixels.
from macrocause import registry
from macrocause.plugins.cafe_dbscan.plots import plot_representatives

ds = registry.create("cafe_shapes", n_per_state=8, width=16, height=32).load()
print(ds)

# %%
# The paper's Section V heuristic for all three parameters, then one call draws a
# representative image per cluster (largest first) with its effect-state distribution.
part = registry.create("cafe_dbscan", mode="heuristic").partition(ds)
print({k: part.info[k] for k in ("eps", "min_points", "tau")}, part.n_clusters, "clusters")
images = plot_representatives(ds, part, top=8)
