"""pgmpy requires huggingface_hub (with hf-xet, httpx2, ...) for its model and data downloads;
nothing here downloads, and a hill-climb run on pgmpy never imports it (the install cannot drop it:
pgmpy >= 1.1 has no extra without it)."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_a_hill_climb_run_imports_no_download_client():
    code = ("import sys; from macrocause.framework import registry; ds = registry.load_data('discrete_bn', n_variables=4, "
            "n_samples=300); registry.create('hill_climb', backend='pgmpy').search(ds); "
            "print(sorted(m for m in ('huggingface_hub', 'hf_xet', 'httpx2', 'httpx') if m in sys.modules), "
            "'pgmpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "[] True", out.stderr
