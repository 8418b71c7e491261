"""See the motion (issue 20 item 5): ``lgbench animate`` draws a run's bodies and joints.

Claims: the drawn slider-crank is the mechanism in its state (its joints' points meet in every frame, the
slider's point stays on its line); the image shows each body where the projection puts it (pixels of the
connecting rod's colour at its centre, the crank pin's circle at the pin); the GIF has the frames asked
for and they change as the crank turns; the HTML viewer is one self-contained file; bad options are one
line.
"""
from __future__ import annotations

import re

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
    (["--out", "m.gif", "--view", "top"], "allowed: auto, iso, xz, yz, xy"),
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


EXTERNAL = ("http:", "https:", "ftp:", "url(", "@import", "<link", "@font-face")
"""What would make a browser fetch something: a URL, a stylesheet link or import, a web font (or, below, an
attribute naming anything but inline data or an anchor)."""


def test_the_html_viewer_needs_no_network(tmp_path, motion):
    """Its play and step buttons were blank offline: their icons came from a web font on a CDN."""
    from lgbench.plots.animation import ICONS, animate

    text = animate(motion, tmp_path / "motion.html", fps=10).read_text()
    assert not [marker for marker in EXTERNAL if marker in text]
    assert not re.findall(r"""\s(?:src|href|action)=["']?(?!data:|#)[^"'\s>]""", text)      # HTML attributes
    assert text.count("<svg ") == len(ICONS) and 'class="fa' not in text
    assert "play_animation()" in text and "next_frame()" in text     # matplotlib's viewer, buttons and all


def _plane_motion(normal, in_plane):
    """A motion whose points all lie in the plane through the origin with ``normal``: two bodies swinging in
    it (``in_plane`` two directions spanning it), a joint point at the origin."""
    from lgbench.store.motion import Motion

    first, second = (np.asarray(d, dtype=float) for d in in_plane)
    angles = np.linspace(0.0, 1.0, 5)[:, None]
    centres = np.stack([np.cos(angles) * first + np.sin(angles) * second,
                        2 * np.cos(2 * angles) * first + 0.5 * np.sin(angles) * second], axis=1)
    points = np.stack([np.zeros_like(centres[:, 0]), centres[:, 0] * 2], axis=1)
    assert np.allclose(np.concatenate([centres, points], axis=1) @ normal, 0.0)
    return Motion("plane", "ok", angles[:, 0], centres, np.tile(np.eye(3), (5, 2, 1, 1)), points,
                  np.array([-1, 0]), np.array([[0, 1]]))


@pytest.mark.parametrize("view", ["xz", "yz", "xy"])
def test_the_default_view_of_a_planar_motion_is_face_on(view):
    """The GIF's default view was iso, which shows a mechanism moving in a plane obliquely."""
    from lgbench.plots.animation import VIEWS, screen_axes

    right, up = VIEWS[view]
    motion = _plane_motion(np.cross(right, up), (right, up))
    axes = screen_axes(motion, "auto")
    assert np.allclose(axes, (right, up), atol=1e-12)


def test_a_tilted_plane_is_seen_face_on_with_z_up():
    from lgbench.plots.animation import screen_axes

    normal = np.array([1.0, -2.0, 0.5]) / np.linalg.norm([1.0, -2.0, 0.5])
    first = np.cross(normal, [0.0, 0.0, 1.0])
    first /= np.linalg.norm(first)
    right, up = screen_axes(_plane_motion(normal, (first, np.cross(normal, first))), "auto")
    assert abs(right @ normal) < 1e-12 and abs(up @ normal) < 1e-12 and up[2] > 0.8


def test_a_spatial_motion_is_drawn_iso(motion):
    """The IFToMM slider-crank moves in three dimensions: no plane to face."""
    from lgbench.plots.animation import VIEWS, screen_axes

    assert np.allclose(screen_axes(motion, "auto"), VIEWS["iso"])
