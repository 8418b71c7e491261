"""See the motion (issue 20 item 5): ``lgbench animate`` draws a run's bodies and joints.

Claims: the drawn slider-crank is the mechanism in its state (its joints' points meet in every frame, the
slider's point stays on its line); the image shows each body where the projection puts it (pixels of the
connecting rod's colour at its centre, the crank pin's circle at the pin); the GIF has the frames asked
for and they change as the crank turns; the HTML viewer is one self-contained file; bad options are one
line.
"""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from lgbench.cli import app
from lgbench.plots.animation import BODY_COLOURS, draw_frame, project
from lgbench.runner.motion import motion_of
from lgbench.runner.single_run import RunSpec
from test_cli import assert_one_line_input_error

runner = CliRunner()
SPEC = RunSpec("slider_crank", "RV", "RK44-index1", 1e-3, 1.0)


@pytest.fixture(scope="module")
def motion():
    return motion_of(SPEC, 21)


def test_the_drawn_joints_hold_in_every_frame(motion):
    assert motion.status == "ok" and motion.times.shape == (21,)
    revolute, spherical, universal, prismatic = motion.links     # the point primitives, in joint order
    for first, second in (revolute, spherical, universal):
        assert np.abs(motion.points[:, first] - motion.points[:, second]).max() < 1e-9
    slider_point = motion.points[:, prismatic[1]]
    assert np.abs(slider_point[:, 1:]).max() < 1e-9 and np.ptp(slider_point[:, 0]) > 0.05   # slides along x
    assert np.ptp(motion.centres[:, 1, :], axis=0).max() > 0.01                               # the rod moves


def _pixel(figure, ax, point):
    """Row and column of the image pixel where the global ``point`` is drawn."""
    x, y = ax.transData.transform(project(point, "iso"))
    height = figure.canvas.get_width_height()[1]
    return int(round(height - y)), int(round(x))


def test_each_body_is_drawn_where_the_projection_puts_it(motion):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb

    figure, ax = plt.subplots(figsize=(5, 5), dpi=80)
    draw_frame(ax, motion, 10, "iso")
    figure.canvas.draw()
    image = np.asarray(figure.canvas.buffer_rgba())[:, :, :3].astype(float) / 255
    rod = to_rgb(BODY_COLOURS[1])
    row, column = _pixel(figure, ax, motion.centres[10, 1])
    assert np.abs(image[row - 1:row + 2, column - 1:column + 2] - rod).sum(axis=-1).min() < 0.05
    pin = motion.points[10, motion.links[1, 0]]          # the crank pin: the spherical joint's point
    row, column = _pixel(figure, ax, pin)
    patch = image[row - 2:row + 3, column - 2:column + 3]
    assert (patch.sum(axis=-1) < 0.6).any() or (patch.sum(axis=-1) > 2.9).any()   # the circle's ring or its face
    empty_row, empty_column = 5, 5                           # the frame's corner stays blank
    assert image[empty_row, empty_column].sum() > 2.9
    plt.close(figure)


def test_animate_writes_a_gif_whose_frames_follow_the_motion(tmp_path):
    out = tmp_path / "slider_crank.gif"
    result = runner.invoke(app, ["animate", "slider_crank", "-f", "RV", "-i", "RK44-index1", "--step", "1e-3",
                                 "--t-end", "0.5", "--frames", "12", "--out", str(out)])
    assert result.exit_code == 0, result.output
    with Image.open(out) as gif:
        assert gif.n_frames == 12
        frames = []
        for k in (0, 6, 11):
            gif.seek(k)
            frames.append(np.asarray(gif.convert("RGB"), dtype=float))
    assert np.abs(frames[0] - frames[1]).sum() > 0 and np.abs(frames[1] - frames[2]).sum() > 0


def test_animate_writes_a_self_contained_html_viewer_of_a_mechanism_file(tmp_path):
    out = tmp_path / "pendulum.html"
    result = runner.invoke(app, ["animate", "studies/mechanisms/double_pendulum.yaml", "-f", "SE3", "-i",
                                 "generalized-alpha", "--step", "1e-2", "--t-end", "0.2", "--frames", "5",
                                 "--view", "xz", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.count("data:image/png;base64") == 5 and "<script" in text and "src=\"http" not in text


@pytest.mark.parametrize("arguments, fragment", [
    (["--out", "motion.mp4"], "allowed: .gif, .html"),
    (["--out", "m.gif", "--view", "top"], "allowed: iso, xz, yz, xy"),
    (["--out", "m.gif", "--frames", "1"], "field '--frames'"),
], ids=["format", "view", "frames"])
def test_bad_animate_options_are_one_line(tmp_path, arguments, fragment):
    arguments = [a if not a.startswith("m") or "." not in a else str(tmp_path / a) for a in arguments]
    result = runner.invoke(app, ["animate", "slider_crank", "-f", "RV", "-i", "RK44-index1", "--step", "1e-3",
                                 "--t-end", "0.1", *arguments])
    assert_one_line_input_error(result, fragment)


STUDY_MOTION = {"method": "RV-RK44-index1", "h": 1e-3, "frames": 6}
"""A study's motion figure (paper 001 Fig. 2): the constrained top under RKMK with projection."""


def _motion_study(tmp_path, **motion):
    from test_cli import write_study

    return write_study(tmp_path, model="heavy_top_constrained", t_end=0.05, formulations=["RV"],
                       integrators=["RK44-index1"], reference={"formulation": "RV", "integrator": "RK67-index1", "h": 1e-4},
                       motion={**STUDY_MOTION, **motion})


def test_a_study_stores_the_poses_of_its_motion_figure_once_and_plot_draws_them(tmp_path):
    from lgbench.plots.figures import draw_figures
    from lgbench.store.motion import MOTION_FILE, read_motion

    out = tmp_path / "results"
    result = runner.invoke(app, ["run", str(_motion_study(tmp_path)), "--out", str(out)])
    assert result.exit_code == 0, result.output
    motion = read_motion(out / MOTION_FILE)
    assert motion.status == "ok" and np.allclose(motion.times, np.linspace(0.0, 0.05, 6))
    fixed_point, body_point = motion.links[0]        # the spherical joint: ground point and the top's tip
    assert np.abs(motion.points[:, fixed_point] - motion.points[:, body_point]).max() < 1e-12
    assert np.ptp(motion.centres[:, 0], axis=0).max() > 1e-3                     # the top moves
    stamp = (out / MOTION_FILE).stat().st_mtime_ns
    assert runner.invoke(app, ["run", str(tmp_path / "study.yaml"), "--out", str(out)]).exit_code == 0
    assert (out / MOTION_FILE).stat().st_mtime_ns == stamp                       # kept, not computed again
    [path] = draw_figures(out, ["motion"])
    assert path.name == "motion_sequence.png"
    width, height = Image.open(path).size
    assert width > 1.5 * height                                                   # six frames, four to a row, two rows


def test_the_motion_file_reads_back_as_written(tmp_path, motion):
    from lgbench.store.motion import read_motion, write_motion

    again = read_motion(write_motion(tmp_path / "m.npz", motion))
    assert again.title == motion.title and again.status == motion.status
    for name in ("times", "centres", "rotations", "points", "point_body", "links"):
        assert np.array_equal(getattr(again, name), getattr(motion, name))


@pytest.mark.parametrize("motion, fragment", [
    ({"method": "RV-RK67-index1"}, "field 'motion.method'"),
    ({"h": 3e-3}, "field 'motion.h'"),
    ({"view": "top"}, "motion.view"),
    ({"frames": 1}, "motion.frames"),
], ids=["method", "h", "view", "frames"])
def test_a_motion_figure_names_a_run_of_the_grid(tmp_path, motion, fragment):
    result = runner.invoke(app, ["validate", str(_motion_study(tmp_path, **motion))])
    assert_one_line_input_error(result, fragment)


def test_a_motion_figure_takes_a_step_size_of_its_own_method(tmp_path):
    """h = 2.5e-4 is a step of the grid (DOPRI5-index1 runs there) but not of RK44-index1's own steps:
    no run to draw, so the study is refused rather than drawn without its figure."""
    from test_cli import write_study

    study = write_study(tmp_path, model="heavy_top_constrained", t_end=0.05, formulations=["RV"],
                        integrators=[{"name": "RK44-index1", "steps": {"values": [1e-3]}}, "DOPRI5-index1"],
                        reference={"formulation": "RV", "integrator": "RK67-index1", "h": 1e-4},
                        motion={"method": "RV-RK44-index1", "h": 2.5e-4})
    assert_one_line_input_error(runner.invoke(app, ["validate", str(study)]), "field 'motion.h'",
                                "not a step size of method RV-RK44-index1", "allowed: 0.001")
