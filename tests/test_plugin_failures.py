"""A plugin cannot end the program: whatever it raises while it is imported or read (SystemExit and
KeyboardInterrupt too, which are not Exceptions) is one line naming its package and entry point, exit 2,
for every command; ``lgbench check`` never exits 0 without having checked. A real Ctrl-C stays an interrupt.

The fake plugin is a module installed as an installer would (tests/test_plugins.py): the module and a
``*.dist-info`` folder with its metadata and entry points; lgbench runs in a subprocess with it on PYTHONPATH.
"""
from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
import yaml

from lgbench import plugins
from lgbench.exceptions import InputError

ROOT = Path(__file__).resolve().parent.parent
STUDY = {
    "name": "tiny", "model": "heavy_top", "t_end": 0.01, "formulations": ["RV"], "integrators": ["RK44"],
    "steps": {"values": [1e-3]}, "reference": {"formulation": "RV", "integrator": "RK67", "h": 1e-4},
    "errors": [{"quantity": "com", "measure": "norm_at_t_end"}],
    "expectations": [{"kind": "succeeds", "method": "RV-RK44", "h_range": [1e-3, 1e-3]}],
}
RUNS = ("run_id,model,formulation,integrator,variant,h,t_end,status,message,steps,cpu_s,t_final\n"
        "RV-RK44-h1e-03,heavy_top,RV,RK44,,0.001,0.01,ok,,10,0.001,0.01\n")


def fake_plugin(site: Path, code: str, group: str = "lgbench.models", target: str = "fake_plugin:ENTRY") -> Path:
    """The package fake-plugin 1.0: module fake_plugin holding ``code``, entry point 'fake' = ``target``."""
    site.mkdir(parents=True, exist_ok=True)
    (site / "fake_plugin.py").write_text(code)
    info = site / "fake_plugin-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\nfake = {target}\n")
    return site


def lgbench(site: Path, *arguments: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "lgbench", *arguments], capture_output=True, text=True,
                          env=environment, cwd=ROOT, timeout=300)


def result_folder(tmp_path: Path) -> Path:
    """A result folder that ``lgbench check`` passes without plugins."""
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "runs.csv").write_text(RUNS)
    (folder / "errors.csv").write_text("run_id,quantity,measure,value\nRV-RK44-h1e-03,com,norm_at_t_end,1e-7\n")
    (folder / "study.yaml").write_text(yaml.safe_dump(STUDY))
    return folder


RAISES_AT_IMPORT = {
    "exit-0": "raise SystemExit(0)",
    "sys-exit": "import sys\nsys.exit()",
    "exit-text": "raise SystemExit('goodbye')",
    "keyboard-interrupt": "raise KeyboardInterrupt",
    "base-exception": "raise BaseException('odd')",
    "generator-exit": "raise GeneratorExit",
    "runtime-error": "raise RuntimeError('boom')",
}


def assert_one_line_naming_the_plugin(done: subprocess.CompletedProcess, target: str, kind: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, (done.returncode, done.stdout, done.stderr)
    assert f"plugin fake-plugin 1.0 (entry point fake = {target})" in lines[0] and kind in lines[0], lines[0]


def test_the_result_folder_is_checked_without_the_plugin(tmp_path):
    done = lgbench(tmp_path / "empty-site", "check", str(result_folder(tmp_path)))
    assert done.returncode == 0 and "1 passed, 0 failed" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("code", RAISES_AT_IMPORT.values(), ids=RAISES_AT_IMPORT.keys())
def test_check_with_a_plugin_that_raises_at_import_is_one_line_and_exit_2(tmp_path, code):
    site = fake_plugin(tmp_path / "site", code)
    done = lgbench(site, "check", str(result_folder(tmp_path)))
    kind = code.split("raise ")[-1].split("(")[0] if "raise" in code else "SystemExit"
    assert_one_line_naming_the_plugin(done, "fake_plugin:ENTRY", kind)
    assert "passed" not in done.stdout and "repair" not in done.stderr    # the plugin is to blame, not the copy


READ_FAILURES = {
    "model-list-exits": ("lgbench.models", "fake_plugin:ENTRY",
                         "class Exits(list):\n    def __iter__(self):\n        raise SystemExit(0)\nENTRY = Exits()",
                         "SystemExit"),
    "integrator-attribute-interrupts": ("lgbench.integrators", "fake_plugin:ENTRY",
                                        "class Odd:\n    def __getattr__(self, name):\n        raise KeyboardInterrupt\n"
                                        "ENTRY = Odd()", "KeyboardInterrupt"),
    "measure-lookup-exits": ("lgbench.error_measures", "fake_plugin:MISSING",
                             "def __getattr__(name):\n    raise SystemExit(3)", "SystemExit"),
}


@pytest.mark.parametrize("group, target, code, kind", READ_FAILURES.values(), ids=READ_FAILURES.keys())
@pytest.mark.parametrize("command", ["list", "validate", "check"])
def test_a_plugin_that_raises_when_it_is_read_is_one_line_and_exit_2(tmp_path, group, target, code, kind, command):
    site = fake_plugin(tmp_path / "site", code, group, target)
    folder = result_folder(tmp_path)
    arguments = {"list": ["list", group.rpartition(".")[2].replace("error_", "")],
                 "validate": ["validate", str(folder / "study.yaml")], "check": ["check", str(folder)]}[command]
    assert_one_line_naming_the_plugin(lgbench(site, *arguments), target, kind)


@pytest.mark.parametrize("command", [["list", "models"], ["validate", "STUDY"], ["run", "STUDY"],
                                     ["simulate", "heavy_top", "-f", "RV", "-i", "RK44", "--step", "1e-3",
                                      "--t-end", "0.01"]], ids=["list", "validate", "run", "simulate"])
def test_every_command_reports_a_plugin_that_exits_at_import(tmp_path, command):
    site = fake_plugin(tmp_path / "site", "raise SystemExit(0)")
    study = result_folder(tmp_path) / "study.yaml"
    arguments = [str(study) if argument == "STUDY" else argument for argument in command]
    assert_one_line_naming_the_plugin(lgbench(site, *arguments, *(["--out", str(tmp_path / "out")]
                                                                  if command[0] == "run" else [])),
                                      "fake_plugin:ENTRY", "SystemExit")


def test_a_ctrl_c_while_a_plugin_is_imported_is_still_an_interrupt(tmp_path):
    site = fake_plugin(tmp_path / "site", "import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\n"
                                          "time.sleep(30)\n")
    done = lgbench(site, "list", "models")
    assert done.returncode == 130 and done.stderr.strip() == "interrupted", done.stderr


def test_a_plugin_that_failed_fails_every_later_read_of_its_registry(tmp_path, monkeypatch):
    (tmp_path / "exiting_plugin.py").write_text("raise SystemExit(0)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugins, "entry_points",
                        lambda group: [EntryPoint("fake", "exiting_plugin:ENTRY", group)])
    registry = plugins.Registry({"built-in": 1}, ("lgbench.fake", lambda name, loaded: {name: loaded}))
    for _ in range(2):
        with pytest.raises(InputError, match=r"entry point fake = exiting_plugin:ENTRY\) cannot be loaded: "
                                             r"SystemExit: 0"):
            registry.get("built-in")
