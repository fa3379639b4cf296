"""The data sources' CPDAG truth comes from CausalGraph.cpdag (tests/framework/test_equivalence.py tests it
against brute force and pgmpy; test_bnlearn.py has asia's by hand), so loading them needs no pgmpy graph code."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def test_sources_load_without_importing_pgmpy():
    code = ("import sys; from macrocause.framework import registry; registry.load_data('discrete_bn'); "
            "registry.load_data('linear_gaussian'); print('pgmpy' in sys.modules); "
            # bnlearn finds its files in pgmpy's package folder, which imports pgmpy's root only
            "ds = registry.load_data('bnlearn', network='alarm', n_samples=10); "
            "print(len(ds.truth['cpdag'].undirected), 'pgmpy.base' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["False", "4", "False"], out.stderr
