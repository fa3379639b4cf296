"""Micro-level data from labelled images: one point per pixel (position and colour), as in Section VII."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import Field

from framework import Dataset, DataSource, Params
from framework.errors import DataValidationError
from framework.paths import find_data_path
from framework.roles import Example

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
        from PIL import Image

        p = self.params
        root = find_data_path(p.path, "image_folder", folder=True)  # the rule of framework.paths
        states = sorted(d.name for d in root.iterdir() if d.is_dir() and not d.name.startswith("."))
        if len(states) < 2:
            raise DataValidationError(
                f"image_folder: {root} needs one subfolder per effect state (at least 2), found {states}."
            )
        rows, cols = np.mgrid[0 : p.height, 0 : p.width]
        pos = np.column_stack([cols.ravel(), rows.ravel()]).astype(np.float64)
        rng = np.random.default_rng(p.seed)
        draw_rng = np.random.default_rng([p.seed, 1])
        X, y, img = [], [], []
        for state in states:
            files = sorted(f for f in (root / state).iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
            if not files:
                raise DataValidationError(f"image_folder: no images in {root / state}.")
            if p.max_per_state is not None and len(files) > p.max_per_state:
                if p.draw == "random":
                    files = [files[i] for i in np.sort(draw_rng.choice(len(files), p.max_per_state, replace=False))]
                else:
                    files = files[: p.max_per_state]
            for f in files:
                with Image.open(f) as im:
                    rgb = np.asarray(im.convert("RGB").resize((p.width, p.height)), dtype=np.float64)
                rgb = rgb.reshape(-1, 3)
                if p.noise_ratio > 0:
                    rgb = np.clip(rgb + p.noise_ratio * rng.uniform(-255, 255, rgb.shape), 0, 255)
                X.append(np.column_stack([pos, rgb]))
                y.extend([state] * rgb.shape[0])
                img.append(np.full(rgb.shape[0], len(img)))
        from framework import Partition

        return Dataset(
            np.concatenate(X), names=COLUMNS, target=np.array(y), discrete=False,
            truth={"image": Partition(np.concatenate(img))}, name=root.name,
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
