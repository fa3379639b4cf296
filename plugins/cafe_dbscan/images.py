"""Micro-level data from labelled images: one point per pixel (position and colour), as in Section VII."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, DataSource, Params
from macrocause.framework.errors import DataValidationError
from macrocause.framework.paths import find_data_path
from macrocause.framework.roles import Example

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".ppm", ".tif", ".tiff")
COLUMNS = ("col", "row", "red", "green", "blue")


class ImageFolderParams(Params):
    path: str = Field(..., description="Folder with one subfolder of images per effect state.")
    width: int = Field(32, ge=1, description="Images are resized to width x height pixels.")
    height: int = Field(64, ge=1, description="Images are resized to width x height pixels.")
    max_per_state: int | None = Field(None, ge=1, description="Use at most this many images per state.")
    draw: Literal["random", "first"] = Field(
        "random", description="Which max_per_state images: a seeded random draw per state, or the first by name."
    )
    noise_ratio: float = Field(
        0.0, ge=0, le=1, description="Add ratio * U[-255, 255] to each channel of each pixel (clipped), as in Sec. VII."
    )
    seed: int = Field(0, description="Seed of the draw of images and of the pixel noise.")


class ImageFolder(DataSource):
    """Micro-level points from a folder of labelled images: one point per pixel, the image's label as effect state.

    ``path`` holds one subfolder per effect state (its name is the state); each
    image is converted to RGB and resized to ``width`` x ``height``; every pixel
    becomes a point ``(col, row, red, green, blue)`` (pixel units and 0-255
    intensities) whose effect state is the image's label. With ``max_per_state``,
    that many images per state are drawn at random (``seed``; kept in name order)
    or, with ``draw="first"``, the first by name. Optional pixel noise as in the
    paper's Section VII. ``truth["image"]`` is the image index of each
    point (a Partition, for bookkeeping, not a clustering target).

    References
    ----------
    Weber, Miklautz, Kumar, Grosse-Wentrup, Plant. CAFE DBSCAN. ICDM 2023, Sec. VII.
    """

    name = "image_folder"
    Params = ImageFolderParams
    paper = "Weber et al., ICDM 2023 (CAFE DBSCAN), Sec. VII"

    @classmethod
    def example(cls) -> Example:
        # a fresh private folder (mkdtemp: unpredictable name, mode 0700), never a fixed
        # name in /tmp that someone else could have planted a symlink at
        folder = Path(tempfile.mkdtemp(prefix="macrocause_images_"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        write_example_images(folder, n_per_state=2, width=8, height=16)
        return Example({"path": str(folder), "width": 8, "height": 16}, Dataset(np.zeros((1, 1))))

    def _load(self) -> Dataset:
        p = self.params
        root = find_data_path(p.path, "image_folder", folder=True)  # the rule of macrocause.framework.paths
        return image_points(root, p.max_per_state, p.draw, p.width, p.height, p.noise_ratio, p.seed, "image_folder")


TRAFFIC_LIGHT_FOLDER = Path("shared") / "data" / "traffic_light"


class TrafficLightsParams(Params):
    path: str | None = Field(
        None, description="Folder of the images, one subfolder per state (None: ../shared/data/traffic_light/training, "
        "looked up from the working directory, then from the repository).")
    per_class: int = Field(33, ge=1, description="Images drawn per state (the paper: 33).")
    width: int = Field(32, ge=1, description="Images are resized to width x height pixels (the paper: 32 x 64).")
    height: int = Field(64, ge=1, description="Images are resized to width x height pixels (the paper: 32 x 64).")
    noise_ratio: float = Field(
        0.0, ge=0, le=1, description="Add ratio * U[-255, 255] to each channel of each pixel (clipped), as in Sec. VII."
    )
    seed: int = Field(0, description="Seed of the draw of images and of the pixel noise.")


class TrafficLights(DataSource):
    """The paper's traffic-light images (Sec. VII) as micro-level pixels: one point per pixel, the lamp state as effect.

    Reads the training split of the *Traffic Light Classifier Project* (endymioncheung/
    iSDC-P5-traffic-light-classifier, the paper's footnote 3; 429 green, 35 yellow, 723 red JPEGs,
    CC BY-SA 4.0, see the README beside them) from ``../shared/data/traffic_light/training``
    (relative to the working directory, then to the repository's folder) or ``path``. Draws
    ``per_class`` images per state with ``seed`` (which 33 the paper used is not stated), resizes
    each to ``width`` x ``height`` and makes every pixel a point ``(col, row, red, green, blue)``
    whose effect state is the image's state: 33 x 3 images of 32 x 64 pixels give the paper's
    202,752 points. ``truth["image"]``: the image index of each point (bookkeeping). Nothing is
    downloaded.

    References
    ----------
    Weber, Miklautz, Kumar, Grosse-Wentrup, Plant. CAFE DBSCAN. ICDM 2023, Sec. VII and Fig. 1.
    """

    name = "traffic_lights"
    Params = TrafficLightsParams
    paper = "Weber et al., ICDM 2023 (CAFE DBSCAN), Sec. VII; images: endymioncheung/iSDC-P5-traffic-light-classifier"

    @classmethod
    def example(cls) -> Example:
        folder = Path(tempfile.mkdtemp(prefix="macrocause_lights_"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        write_example_images(folder, n_per_state=2, width=8, height=16)
        return Example({"path": str(folder), "per_class": 2, "width": 8, "height": 16}, Dataset(np.zeros((1, 1))))

    def _load(self) -> Dataset:
        p = self.params
        root = traffic_light_folder(p.path)
        return image_points(root, p.per_class, "random", p.width, p.height, p.noise_ratio, p.seed, "traffic_lights",
                            name="traffic_lights")


def traffic_light_folder(path: str | None) -> Path:
    """The folder ``path`` names, or the shared images' training split: ``../shared/data/traffic_light``
    from the working directory, then beside the repository; an error names every folder looked in."""
    if path is not None:
        root = Path(path).expanduser()
        if not root.is_dir():
            raise DataValidationError(f"traffic_lights: path={path!r} is not a folder (give the folder with one "
                                      "subfolder of images per state).")
        return root
    repo = Path(__file__).resolve().parents[2]
    looked = []
    for base in (Path.cwd().parent, repo.parent):
        folder = base / TRAFFIC_LIGHT_FOLDER
        looked.append(str(folder))
        if folder.is_dir():
            return folder / "training" if (folder / "training").is_dir() else folder
    raise DataValidationError(
        f"traffic_lights: the images are not in {' nor in '.join(looked)}; give path= the folder with one "
        "subfolder of images per state (green, red, yellow).")


def image_points(root: Path, per_state: int | None, draw: str, width: int, height: int, noise_ratio: float,
                 seed: int, source: str, name: str | None = None) -> Dataset:
    """One point ``(col, row, red, green, blue)`` per pixel of the images in ``root``'s subfolders (one
    per effect state), each resized to ``width`` x ``height``; ``per_state`` images per state drawn with
    ``seed`` (``draw="random"``, kept in name order) or the first by name; pixel noise as in Sec. VII."""
    from PIL import Image

    from macrocause.framework import Partition

    states = sorted(d.name for d in root.iterdir() if d.is_dir() and not d.name.startswith("."))
    if len(states) < 2:
        raise DataValidationError(f"{source}: {root} needs one subfolder per effect state (at least 2), found {states}.")
    rows, cols = np.mgrid[0:height, 0:width]
    pos = np.column_stack([cols.ravel(), rows.ravel()]).astype(np.float64)
    rng = np.random.default_rng(seed)
    draw_rng = np.random.default_rng([seed, 1])
    X, y, img = [], [], []
    for state in states:
        files = sorted(f for f in (root / state).iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise DataValidationError(f"{source}: no images in {root / state}.")
        if per_state is not None and len(files) > per_state:
            if draw == "random":
                files = [files[i] for i in np.sort(draw_rng.choice(len(files), per_state, replace=False))]
            else:
                files = files[:per_state]
        for f in files:
            with Image.open(f) as im:
                rgb = np.asarray(im.convert("RGB").resize((width, height)), dtype=np.float64)
            rgb = rgb.reshape(-1, 3)
            if noise_ratio > 0:
                rgb = np.clip(rgb + noise_ratio * rng.uniform(-255, 255, rgb.shape), 0, 255)
            X.append(np.column_stack([pos, rgb]))
            y.extend([state] * rgb.shape[0])
            img.append(np.full(rgb.shape[0], len(img)))
    return Dataset(
        np.concatenate(X), names=COLUMNS, target=np.array(y), discrete=False,
        truth={"image": Partition(np.concatenate(img))}, name=name or root.name,
    )


def write_example_images(folder: Path | str, n_per_state: int = 3, width: int = 16, height: int = 32, seed: int = 0) -> Path:
    """Write small synthetic traffic-light images: states red/yellow/green, a lamp lit in the top,
    middle or bottom third on a dark or bright background (brightness at random)."""
    from PIL import Image

    folder = Path(folder)
    rng = np.random.default_rng(seed)
    lamps = {"red": (0, (255, 0, 0)), "yellow": (1, (255, 200, 0)), "green": (2, (0, 220, 0))}
    for state, (slot, colour) in lamps.items():
        (folder / state).mkdir(parents=True, exist_ok=True)
        for i in range(n_per_state):
            bg = 40 if rng.random() < 0.5 else 170
            a = np.full((height, width, 3), bg, dtype=np.uint8)
            a[:, width // 4 : width - width // 4] = 20  # the housing
            third = height // 3
            cy, cx, r = slot * third + third // 2, width // 2, max(1, min(width // 4, third // 2) - 1)
            yy, xx = np.mgrid[0:height, 0:width]
            a[(yy - cy) ** 2 + (xx - cx) ** 2 <= r * r] = colour
            Image.fromarray(a).save(folder / state / f"{state}_{i}.png")
    return folder
