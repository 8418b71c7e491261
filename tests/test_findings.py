"""Findings: the "At a glance" rows as data in the study files, each verdict computed from the paper's
claims and the expectations that test them, on a result folder (report, front page) or on the record of
the last full reproduction (docs/REPRODUCTION.md, which cannot drift from the study files)."""
import re
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError
from typer.testing import CliRunner

from lgbench.analysis.expectations import CheckResult
from lgbench.analysis.findings import Finding, Verdict, assess, item_order
from lgbench.cli import app
from lgbench.exceptions import InputError
from lgbench.report.findings import replace_marked
from lgbench.runner.study import load_study

from test_cli import assert_one_line_input_error
from test_report import STUDY, table_row, write_results

ROOT = Path(__file__).resolve().parents[1]
STUDY_FILES = sorted((ROOT / "studies").glob("*.yaml"))
runner = CliRunner()

ORDER_CLAIM = {"quote": "second order", "source": "Sect. 5", "kind": "finding", "order": 2,
               "expectations": ["order-rv"]}
RUNS_CLAIM = {"quote": "Rxyz runs at every h", "source": "Table 4", "kind": "finding", "every_run": True,
              "expectations": ["rxyz-runs"]}
FIT = {"paper": "000", "item": "Fig. 3 right", "shows": "COM error vs h, generalized-alpha",
       "counterpart": "fixture -> convergence_com.png", "figures": ["convergence_com.png"],
       "summary": "order 2.00", "claims": [ORDER_CLAIM], "section": "free"}
RUNS = {"paper": "000", "item": "Table 4", "shows": "every run succeeds", "summary": "Rxyz fails at the largest h",
        "claims": [RUNS_CLAIM]}


def _study(**changes):
    study = {**STUDY, "expectations": [{**STUDY["expectations"][0], "id": "order-rv"},
                                       {**STUDY["expectations"][1], "id": "rxyz-runs"}],
             "findings": [FIT, RUNS]}
    return {**study, **changes}


def _finding(**changes) -> Finding:
    return Finding.model_validate({**FIT, **changes})


def test_the_verdict_follows_the_claims_in_the_results_given():
    findings = [_finding(), _finding(claims=[{**ORDER_CLAIM, "expectations": ["a"]}]),
                _finding(claims=[]), _finding(claims=[], computed=False)]
    passing = [CheckResult("o", "", "", True, "order-rv")]
    first, second, third, fourth = assess("s", findings, passing)
    assert first.verdict is Verdict.REPRODUCED and second.verdict is None
    assert second.verdict_text == "not checked here"
    assert third.verdict is Verdict.DRAWN and fourth.verdict is Verdict.NOT_REPRODUCED
    (failing,) = assess("s", [_finding()], [CheckResult("o", "", "", False, "order-rv")])
    assert failing.verdict is Verdict.DIFFERS and failing.failed == ("order-rv",)
    (unchecked,) = assess("s", [_finding()], None)
    assert unchecked.verdict_text == "not checked here"


@pytest.mark.parametrize("changes, message", [
    ({"verdict": "reproduced"}, "verdict"),          # verdicts are computed, not written
    ({"evidence": ["order-rv"]}, "evidence"),
    ({"paper": "0"}, "paper"),
    ({"figures": ["../x.png"]}, "figures"),
])
def test_a_finding_is_checked_when_built(changes, message):
    with pytest.raises(ValidationError, match=re.escape(message)):
        _finding(**changes)


def test_items_sort_as_in_the_paper():
    items = ["Table 5", "Fig. 10 left", "Fig. 2", "eqs. (28), (42)", "Fig. 3 right", "Fig. 3 left", "Table 4"]
    assert sorted(items, key=item_order) == ["eqs. (28), (42)", "Fig. 2", "Fig. 3 left", "Fig. 3 right",
                                             "Table 4", "Table 5", "Fig. 10 left"]


def test_evidence_names_expectations_of_the_study(tmp_path):
    path = tmp_path / "study.yaml"
    claim = {**ORDER_CLAIM, "expectations": ["order-rv", "no-such-id"]}
    path.write_text(yaml.safe_dump(_study(findings=[{**FIT, "claims": [claim]}])))
    with pytest.raises(InputError, match="'no-such-id' is the id of no expectation") as error:
        load_study(path)
    assert error.value.field == "findings[0].claims[0].expectations"
    assert "order-rv" in str(error.value.allowed)


def test_a_claim_citing_an_expectation_wider_than_its_precision_is_refused(tmp_path):
    path = tmp_path / "study.yaml"
    loose = [{**STUDY["expectations"][0], "id": "order-rv", "tolerance": 0.5}, STUDY["expectations"][1]]
    path.write_text(yaml.safe_dump(_study(expectations=loose, findings=[FIT])))
    result = runner.invoke(app, ["validate", str(path)])
    assert_one_line_input_error(result, "expectation 'order-rv' cannot test this claim: its window [1.5, 2.5] "
                                        "is wider than the claim's precision [1.7, 2.3]")


def test_expectation_ids_are_unique(tmp_path):
    path = tmp_path / "study.yaml"
    twice = [{**item, "id": "same"} for item in STUDY["expectations"]]
    path.write_text(yaml.safe_dump(_study(expectations=twice, findings=[])))
    result = runner.invoke(app, ["validate", str(path)])
    assert_one_line_input_error(result, "already that of expectations[0]")


def test_a_profile_cannot_replace_the_findings(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(_study(profiles={"quick": {"findings": []}})))
    result = runner.invoke(app, ["validate", str(path)])
    assert_one_line_input_error(result, "'findings' cannot be set by a profile")


def test_a_quick_profile_with_fewer_expectations_leaves_its_findings_unchecked(tmp_path):
    """The copy of a profiled study keeps the study's findings; those citing expectations the profile
    does not have are shown as not checked, not as errors."""
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(_study(profiles={"quick": {"expectations": [STUDY["expectations"][0]]}})))
    load_study(path)
    folder = write_results(tmp_path / "results")
    from lgbench.runner.execute import write_study_copy
    write_study_copy(load_study(path, "quick"), folder)
    result = runner.invoke(app, ["report", str(folder)])
    assert result.exit_code == 0, result.output
    markdown = (folder / "report.md").read_text()
    assert "not checked here" in markdown


def test_the_report_and_the_index_show_the_verdicts_computed_in_the_results(tmp_path):
    folder = write_results(tmp_path / "fixture")
    (folder / "study.yaml").write_text(yaml.safe_dump(_study()))
    (folder / "figures").mkdir()
    (folder / "figures" / "convergence_com.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    result = runner.invoke(app, ["report", str(folder), "--index", str(tmp_path / "index")])
    assert result.exit_code == 0, result.output
    report = (folder / "report.md").read_text()
    assert "expectations that test them here: 1 reproduced, 1 differs; 2 claims: 1 hold, 1 not met" in report
    assert "| rxyz-runs: Rxyz-generalized-alpha succeeds" in report and "| claim not met |" in report
    index = (tmp_path / "index.md").read_text()
    assert table_row(index, "Fig. 3 right")[4] == "reproduced"
    assert table_row(index, "Table 4")[4] == "**differs**"
    assert "[![convergence_com.png](fixture/figures/convergence_com.png)](fixture/figures/convergence_com.png)" in index
    assert "2 published figures and tables: 1 reproduced, 1 differs; 2 claims: 1 hold, 1 not met" in index
    assert table_row(index, "Table 4")[-1].startswith("rxyz-runs: ") and table_row(index, "Table 4")[-1].endswith(
        " (not met)")
    html = (tmp_path / "index.html").read_text()
    assert '<td class="bad">differs</td>' in html
    assert '<td class="good">reproduced</td>' in html
    assert '<img alt="convergence_com.png" src="fixture/figures/convergence_com.png">' in html


def test_check_grades_the_claims_and_fails_only_on_a_regression_check(tmp_path):
    """A claim that does not come out is a result (the finding differs), not a regression; an uncited
    expectation that fails is one."""
    from test_check import STUDY as TINY

    third_order = {"kind": "order", "id": "order-3", "method": "RV-RK44", "expected": 3, "tolerance": 0.1}
    claim = {**ORDER_CLAIM, "order": 3, "expectations": ["order-3"]}
    finding = {**FIT, "claims": [claim]}
    study = tmp_path / "tiny_top.yaml"
    study.write_text(yaml.safe_dump({**TINY, "expectations": [third_order], "findings": [finding]}))
    out = tmp_path / "out"
    assert runner.invoke(app, ["run", str(study), "--out", str(out)]).exit_code == 0
    result = runner.invoke(app, ["check", str(out)])
    assert result.exit_code == 0, result.output
    assert "claim not met" in result.output and "1 differs" in result.output
    assert "tiny_top: 0 passed, 0 failed" in result.output
    guard = {**third_order, "id": "guard"}
    result = runner.invoke(app, ["check", str(out), "--study", str(_write(tmp_path, {
        **TINY, "expectations": [third_order, guard], "findings": [finding]}))])
    assert result.exit_code == 1 and "REGRESSION" in result.output


def _write(tmp_path, data) -> Path:
    path = tmp_path / "other.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_markers_are_replaced_and_unmarked_keys_reported():
    text = "a\n<!-- findings 000: note -->\nold\n<!-- end findings 000 -->\nb\n"
    replaced, unmarked, unknown = replace_marked(text, {"000": ["new 1", "new 2"], "001": ["x"]})
    assert replaced == "a\n<!-- findings 000: note -->\nnew 1\nnew 2\n<!-- end findings 000 -->\nb\n"
    assert unmarked == ["001"] and unknown == []
    assert replace_marked(text, {})[2] == ["000"]


def test_reproduction_document_is_written_from_the_study_files(monkeypatch):
    """docs/REPRODUCTION.md's tables and the README's counts are the study files' findings graded on the
    record of the last full reproduction."""
    monkeypatch.chdir(ROOT)
    files = [str(path.relative_to(ROOT)) for path in STUDY_FILES]
    result = runner.invoke(app, ["findings", *files, "--evidence", "docs/evidence.json",
                                 "--check", "docs/REPRODUCTION.md", "--check", "README.md",
                                 "--check", "docs/findings.md"])
    assert result.exit_code == 0, result.output


def test_every_shipped_finding_links_a_section_of_the_reproduction_document():
    """A finding's ``section`` is a link key defined in docs/REPRODUCTION.md ("[free]: #anchor"), and the
    anchor is a heading of the document."""
    document = (ROOT / "docs" / "REPRODUCTION.md").read_text()
    links = dict(re.findall(r"^\[(\w+)\]: #([\w-]+)$", document, re.M))
    anchors = {re.sub(r"[^\w\- ]", "", heading).strip().lower().replace(" ", "-")
               for heading in re.findall(r"^#+ (.+)$", document, re.M)}
    findings = [(path.stem, finding) for path in STUDY_FILES for finding in load_study(path).findings]
    assert len(findings) >= 70
    for study, finding in findings:
        if finding.section:
            assert finding.section in links, (study, finding.item, finding.section)
            assert links[finding.section] in anchors, (study, finding.section, links[finding.section])


@pytest.mark.parametrize("where, message", [
    ({"expectations": [{**STUDY["expectations"][0], "id": "Order RV"}]}, "not a usable expectation id"),
    ({"findings": [{**FIT, "paper": "0"}]}, "not a usable paper number"),
    ({"findings": [{**FIT, "claims": [{**ORDER_CLAIM, "expectations": ["order-rv", "Bad Id"]}]}]},
     "not a usable expectation id"),
])
def test_a_malformed_id_or_paper_is_named_for_what_it_is(tmp_path, where, message):
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(_study(**where)))
    assert_one_line_input_error(runner.invoke(app, ["validate", str(path)]), message)


def test_writing_into_a_document_without_its_markers_is_one_line(tmp_path):
    document = tmp_path / "doc.md"
    document.write_text("# Reproduction\n<!-- findings 000: x -->\n<!-- end findings 000 -->\n")
    study = str(ROOT / "studies" / "heavy_top_explicit.yaml")
    result = runner.invoke(app, ["findings", study, "--write", str(document)])
    assert_one_line_input_error(result, "no markers for studies, open, claims, counts")
    assert document.read_text().count("\n") == 3
