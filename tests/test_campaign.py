"""`lgbench reproduce`: studies side by side, each run, plotted, reported and checked; a summary and an index."""
from typer.testing import CliRunner

from lgbench.cli import app

STUDY = """name: {name}
model: heavy_top
t_end: 0.1
formulations: [RV]
integrators: [RK44]
steps: {{values: [2.0e-3, 1.0e-3, 5.0e-4]}}
reference: {{formulation: RV, integrator: RK67, h: 1.0e-4}}
errors: [{{quantity: com, measure: norm_at_t_end}}]
expectations:
  - {{kind: order, method: RV-RK44, expected: {order}, tolerance: 0.3}}
"""


def test_reproduce_runs_reports_and_checks_every_study_and_says_which_failed(tmp_path):
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(STUDY.format(name="good", order=4))
    bad.write_text(STUDY.format(name="bad", order=7))      # RK44 is not of order 7: the check fails
    results = tmp_path / "results"
    outcome = CliRunner().invoke(app, ["reproduce", str(good), str(bad), "--results", str(results), "--jobs", "2"])
    assert outcome.exit_code == 1, outcome.output
    summary = (results / "campaign.md").read_text()
    assert "| good |" in summary and "| ok |" in summary
    assert "| bad |" in summary and "failed: check" in summary
    for name in ("good", "bad"):
        assert (results / name / "report.html").exists()
        assert (results / name / "figures" / "convergence_com.png").exists()
    index = (results / "index.md").read_text()
    assert "[good](good/report.md)" in index and "[bad](bad/report.md)" in index
    assert "min wall time" in outcome.output


def test_on_a_cold_cache_the_campaign_compiles_every_studys_engine_first_on_all_slots(tmp_path, monkeypatch):
    """Two studies starting together on an empty cache would compile the same entry points twice."""
    from lgbench import campaign

    calls = []
    monkeypatch.setattr(campaign, "compile_notice", lambda: "compiling the engine for this machine, once")
    monkeypatch.setattr(campaign, "precompile", lambda specs, workers, progress: calls.append((list(specs), workers)))
    monkeypatch.setattr(campaign, "_run_study",
                        lambda path, study, out, jobs: campaign.StudyOutcome(study.name, out, 0))
    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    one.write_text(STUDY.format(name="one", order=4))
    implicit = STUDY.format(name="two", order=2).replace("[RK44]", "[generalized-alpha]")
    two.write_text(implicit.replace("RV-RK44", "RV-generalized-alpha"))
    lines = []
    campaign.run_campaign([one, two], tmp_path / "results", 2, announce=lines.append)
    specs, workers = calls[0]
    assert workers == 2 and {spec.integrator for spec in specs} == {"RK44", "RK67", "generalized-alpha"}
    assert len(specs) == 2 * (1 + 3) and lines[0] == "compiling the engine for this machine, once"
