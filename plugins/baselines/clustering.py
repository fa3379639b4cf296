"""Sample-clustering baselines from scikit-learn, as partitioners."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from macrocause.framework import Dataset, Params, Partition, Partitioner
from macrocause.framework.memory import MemoryEstimate


class DBSCANParams(Params):
    eps: float = Field(0.5, gt=0, description="Radius of the epsilon-neighbourhood.")
    min_samples: int = Field(5, ge=1, description="Points (the point included) that make a core point.")
    metric: Literal["euclidean", "manhattan", "chebyshev"] = Field("euclidean", description="Distance.")


class DBSCAN(Partitioner):
    """DBSCAN density clustering (scikit-learn); noise is -1.

    References
    ----------
    Ester, Kriegel, Sander, Xu. A density-based algorithm for discovering
    clusters in large spatial databases with noise. KDD 1996.
    """

    name = "dbscan"
    axis = "samples"
    Params = DBSCANParams
    paper = "Ester et al., KDD 1996"

    def _partition(self, data: Dataset) -> Partition:
        from sklearn.cluster import DBSCAN as SkDBSCAN

        p = self.params
        labels = SkDBSCAN(eps=p.eps, min_samples=p.min_samples, metric=p.metric).fit_predict(data.X)
        return Partition(labels, axis="samples")


class HDBSCANParams(Params):
    min_cluster_size: int = Field(5, ge=2, description="Smallest group of points that counts as a cluster.")
    min_samples: int | None = Field(
        None, ge=1, description="Neighbours that make a core point; None = min_cluster_size."
    )
    cluster_selection_epsilon: float = Field(
        0.0, ge=0, description="Clusters closer than this distance are merged."
    )
    cluster_selection_method: Literal["eom", "leaf"] = Field(
        "eom", description="Excess of mass ('eom') or the leaves of the cluster tree ('leaf')."
    )


class HDBSCAN(Partitioner):
    """HDBSCAN hierarchical density clustering (scikit-learn); noise is -1.

    ``info["probabilities"]`` holds each point's membership strength.

    References
    ----------
    Campello, Moulavi, Sander. Density-based clustering based on hierarchical
    density estimates. PAKDD 2013.
    """

    name = "hdbscan"
    scale_invariant = "global"
    axis = "samples"
    Params = HDBSCANParams
    paper = "Campello, Moulavi, Sander, PAKDD 2013"

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=self.params.min_cluster_size)

    def scale_invariance(self):
        """Invariant to one common scale unless ``cluster_selection_epsilon`` (a distance) is set."""
        return "global" if self.params.cluster_selection_epsilon == 0 else None

    def _partition(self, data: Dataset) -> Partition:
        from sklearn.cluster import HDBSCAN as SkHDBSCAN

        p = self.params
        model = SkHDBSCAN(
            min_cluster_size=p.min_cluster_size,
            min_samples=p.min_samples,
            cluster_selection_epsilon=p.cluster_selection_epsilon,
            cluster_selection_method=p.cluster_selection_method,
            copy=True,
        ).fit(data.X)
        return Partition(model.labels_, axis="samples", info={"probabilities": model.probabilities_})


class KMeansParams(Params):
    n_clusters: int = Field(3, ge=1, description="Number of clusters.")
    n_init: int = Field(10, ge=1, description="Restarts from k-means++ seeds; the lowest inertia wins.")
    max_iter: int = Field(300, ge=1, description="Lloyd iterations per restart.")
    seed: int = Field(0, description="Random seed.")
    backend: Literal["macrocause", "scikit-learn"] = Field(
        "macrocause",
        description="'macrocause' = our NumPy k-means (scikit-learn's draws, steps and labels, "
        "without importing scikit-learn); 'scikit-learn' = its KMeans, the reference.",
    )


class KMeans(Partitioner):
    """k-means clustering (k-means++ seeding, best of n_init restarts), as scikit-learn's.

    ``info`` holds ``"centers"`` (k x d) and ``"inertia"``. By default our NumPy copy of
    scikit-learn's Lloyd k-means runs (:mod:`._kmeans`: the same labels; centres and
    inertia equal up to the last bits); ``backend="scikit-learn"`` runs scikit-learn.

    References
    ----------
    Lloyd. Least squares quantization in PCM. IEEE Trans. Inf. Theory 28(2), 1982.
    Arthur, Vassilvitskii. k-means++: the advantages of careful seeding. SODA 2007.
    """

    name = "kmeans"
    scale_invariant = "global"
    axis = "samples"
    Params = KMeansParams
    paper = "Lloyd 1982; Arthur & Vassilvitskii, SODA 2007"

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=self.params.n_clusters)

    def _partition(self, data: Dataset) -> Partition:
        p = self.params
        if p.backend == "macrocause":
            from ._kmeans import kmeans

            labels, centers, inertia = kmeans(data.X, p.n_clusters, n_init=p.n_init, max_iter=p.max_iter,
                                              seed=p.seed)
            return Partition(labels, axis="samples", info={"centers": centers, "inertia": inertia})
        from sklearn.cluster import KMeans as SkKMeans

        model = SkKMeans(
            n_clusters=p.n_clusters, n_init=p.n_init, max_iter=p.max_iter, random_state=p.seed
        ).fit(data.X)
        info = {"centers": model.cluster_centers_, "inertia": float(model.inertia_)}
        return Partition(model.labels_, axis="samples", info=info)


class GaussianMixtureParams(Params):
    n_components: int = Field(3, ge=1, description="Number of mixture components.")
    covariance_type: Literal["full", "tied", "diag", "spherical"] = Field(
        "full", description="Form of the component covariances."
    )
    n_init: int = Field(5, ge=1, description="EM restarts; the one with the highest likelihood bound wins.")
    max_iter: int = Field(200, ge=1, description="EM iterations per restart.")
    tol: float = Field(1e-3, gt=0, description="Convergence threshold on the per-sample bound.")
    reg_covar: float = Field(1e-6, ge=0, description="Added to the covariance diagonals.")
    seed: int = Field(0, description="Random seed (k-means initialisation of each restart).")


class GaussianMixtureEM(Partitioner):
    """Gaussian mixture fitted by EM (scikit-learn), best of n_init restarts; hard labels.

    Each sample gets the component of highest posterior probability. ``info``
    holds ``"log_likelihood"`` (total over the samples), ``"bic"``, ``"aic"``,
    ``"converged"``, ``"n_iter"``, ``"means"`` (k x d), ``"weights"`` (k) and
    ``"probabilities"`` (n x k posteriors).

    References
    ----------
    Dempster, Laird, Rubin. Maximum likelihood from incomplete data via the EM
    algorithm. J. R. Stat. Soc. B 39(1), 1977.
    """

    name = "gmm_em"
    scale_invariant = "global"
    axis = "samples"
    Params = GaussianMixtureParams
    paper = "Dempster, Laird, Rubin, JRSS-B 1977"

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=max(2, self.params.n_components))

    def _partition(self, data: Dataset) -> Partition:
        import warnings

        from sklearn.exceptions import ConvergenceWarning
        from sklearn.mixture import GaussianMixture

        p = self.params
        gm = GaussianMixture(
            n_components=p.n_components,
            covariance_type=p.covariance_type,
            n_init=p.n_init,
            max_iter=p.max_iter,
            tol=p.tol,
            reg_covar=p.reg_covar,
            random_state=p.seed,
        )
        X = data.X
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            gm.fit(X)
        proba = gm.predict_proba(X)
        info = {
            "log_likelihood": float(gm.score(X) * X.shape[0]),
            "bic": float(gm.bic(X)),
            "aic": float(gm.aic(X)),
            "converged": bool(gm.converged_),
            "n_iter": int(gm.n_iter_),
            "means": gm.means_,
            "weights": gm.weights_,
            "probabilities": proba,
        }
        return Partition(proba.argmax(axis=1), axis="samples", info=info)


class AgglomerativeParams(Params):
    n_clusters: int = Field(2, ge=1, description="Number of clusters (the tree is cut there).")
    linkage: Literal["ward", "complete", "average", "single"] = Field(
        "ward", description="Merge rule: least increase of within-cluster variance ('ward'), or the "
        "largest / mean / smallest distance between the two clusters."
    )


class Agglomerative(Partitioner):
    """Agglomerative hierarchical clustering (scikit-learn), Ward's linkage by default.

    Builds the full merge tree on Euclidean distances (about 8 n^2 bytes: refused past
    the memory budget) and cuts it into ``n_clusters`` groups. Deterministic.

    References
    ----------
    Ward. Hierarchical grouping to optimize an objective function. JASA 58(301), 1963.
    """

    name = "agglomerative"
    scale_invariant = "global"
    axis = "samples"
    Params = AgglomerativeParams
    paper = "Ward, JASA 1963"

    def memory_estimate(self, data: Dataset) -> MemoryEstimate:
        """About 8 n^2 bytes: the pairwise distances (measured 8.1-8.2 at n = 3,000 and 6,000)."""
        n = data.n_samples
        return MemoryEstimate(8.0 * n * n, "about 8 n^2 bytes, the pairwise distances",
                              "subsample, or use kmeans or hdbscan")

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=max(2, self.params.n_clusters))

    def _partition(self, data: Dataset) -> Partition:
        from sklearn.cluster import AgglomerativeClustering

        p = self.params
        labels = AgglomerativeClustering(n_clusters=p.n_clusters, linkage=p.linkage).fit_predict(data.X)
        return Partition(labels, axis="samples")


class SpectralParams(Params):
    n_clusters: int = Field(2, ge=1, description="Number of clusters.")
    n_neighbors: int = Field(10, ge=1, description="Neighbours of each point in the affinity graph.")
    assign_labels: Literal["kmeans", "discretize", "cluster_qr"] = Field(
        "kmeans", description="How the spectral embedding is turned into labels."
    )
    seed: int = Field(0, description="Random seed (eigensolver start and k-means).")


class Spectral(Partitioner):
    """Spectral clustering on the symmetrised k-nearest-neighbour graph (scikit-learn).

    The affinity is the k-nearest-neighbour connectivity graph, invariant to a common
    scale of the data (scikit-learn's default RBF kernel with ``gamma=1`` is not); the
    other defaults are scikit-learn's. A graph with several connected components is
    clustered all the same (scikit-learn's warning about it is silenced).

    References
    ----------
    Ng, Jordan, Weiss. On spectral clustering: analysis and an algorithm. NIPS 2001.
    von Luxburg. A tutorial on spectral clustering. Statistics and Computing 17, 2007.
    """

    name = "spectral"
    scale_invariant = "global"
    axis = "samples"
    Params = SpectralParams
    paper = "Ng, Jordan, Weiss, NIPS 2001; von Luxburg 2007"

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=max(2, self.params.n_clusters, self.params.n_neighbors + 1))

    def _partition(self, data: Dataset) -> Partition:
        import warnings

        from sklearn.cluster import SpectralClustering

        p = self.params
        model = SpectralClustering(n_clusters=p.n_clusters, affinity="nearest_neighbors", n_neighbors=p.n_neighbors,
                                   assign_labels=p.assign_labels, random_state=p.seed)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Graph is not fully connected", category=UserWarning)
            labels = model.fit_predict(data.X)
        return Partition(labels, axis="samples")
