"""Copy the README's gallery figures from result folders into docs/img, shrunk to gallery size.

Run after `make reproduce-all` (or after the studies named below): `make gallery`.
"""
from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

GALLERY = [
    ("heavy_top_explicit", "convergence_com.png", "explicit_convergence.png"),
    ("heavy_top_free", "newton_iterations.png", "table4_newton_iterations.png"),
    ("heavy_top", "work_precision_com.png", "heavy_top_work_precision.png"),
    ("rotor", "trajectory_1_p1_z.png", "rotor_p1_trajectory.png"),
    ("heavy_top_so3_vs_se3", "series_2_velocity_constraint_residual_constraint_residual.png",
     "so3_vs_se3_residuals.png"),
    ("heavy_top_hht", "series_2_energy.png", "modified_hht_energy.png"),
]
WIDTH = 640


def main(results: Path, target: Path) -> int:
    target.mkdir(parents=True, exist_ok=True)
    missing = 0
    for study, figure, name in GALLERY:
        source = results / study / "figures" / figure
        if not source.exists():
            print(f"missing: {source} (run the study and 'lgbench plot' first)", file=sys.stderr)
            missing += 1
            continue
        with Image.open(source) as image:
            height = round(image.height * WIDTH / image.width)
            small = image.convert("RGB").resize((WIDTH, height), Image.LANCZOS)
            small = small.quantize(colors=128, method=Image.Quantize.MEDIANCUT)
            small.save(target / name, optimize=True)
        print(target / name)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "results"), Path(__file__).parent / "img"))
