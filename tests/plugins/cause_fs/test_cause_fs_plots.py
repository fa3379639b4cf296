import numpy as np

from macrocause.plugins.cause_fs.plots import plot_objective, plot_selected_pixels


def test_plots_write_files(tmp_path):
    p1 = plot_selected_pixels([0, 5, 10, 15], (4, 4), tmp_path / "px.png", image=np.arange(16.0))
    p2 = plot_objective([10.0, 6.0, 5.0, 4.9], tmp_path / "obj.png")
    for p in (p1, p2):
        assert p.is_file() and p.stat().st_size > 1024
