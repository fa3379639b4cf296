"""mkdocs hook: the API reference loads the package under its import name, ``macrocause``.

The repository root is the package ``macrocause`` (setuptools' package-dir mapping),
so no folder of that name exists for griffe to find; a temporary folder holding a
link named ``macrocause`` to the root is put first on ``sys.path`` (griffe searches
it) for the build.
"""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from pathlib import Path

from mkdocs.plugins import event_priority


@event_priority(100)  # before mkdocstrings builds its handlers (their search paths copy sys.path)
def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    tmp = Path(tempfile.mkdtemp(prefix="macrocause-api-"))
    (tmp / "macrocause").symlink_to(root, target_is_directory=True)
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    sys.path.insert(0, str(tmp))
    return config
