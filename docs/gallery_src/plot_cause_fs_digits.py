"""
# CAUSE-FS's selected pixels on the digits

CAUSE-FS selects features for clustering by learning feature groups of different
granularity. On scikit-learn's 8 x 8 digits it picks 20 of the 64 pixels; the
selection is drawn on the image grid over the mean digit
(`examples/cause_fs_digits.yaml`).
"""

# %%
from macrocause import registry
from macrocause.framework.plotting import plot

ds = registry.create("digits").load()
print(ds)

# %%
fs = registry.create("cause_fs", n_select=20, n_clusters=10, max_iter=10).partition(ds)
print(fs)
fig = plot(fs, ds, title="CAUSE-FS: 20 selected pixels")

# %%
# k-means on the 20 selected pixels alone, rated against the digit labels.
selected = ds.select(fs.info["selected"])
km = registry.create("kmeans", n_clusters=10, seed=0).partition(selected)
truth = ds.truth["labels"]
for metric in ("nmi", "clustering_accuracy"):
    print(metric, round(registry.create(metric).evaluate(selected, km, truth).value, 3))
