"""E1 runner: resumable results, the CLI table, and the README's code block."""

import json
import re
from pathlib import Path

import pytest

from zeronorm_opt.cli import main
from zeronorm_opt.exceptions import InputError
from zeronorm_opt.experiments.catalogue import available_problems, load_problem
from zeronorm_opt.experiments.linear_toy import E1Config, run_e1, summarise_e1

ROOT = Path(__file__).resolve().parents[2]


def test_interrupted_run_resumes_without_recomputing(tmp_path, monkeypatch):
    path = tmp_path / "e1.jsonl"
    config = E1Config(train_sizes=[12], n_trials=3, methods=["SVM", "CORR"])
    first = run_e1(config, results_path=path)
    assert len(first) == 6
    # Simulate an interruption that cut the last line in half.
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    calls = []
    import zeronorm_opt.experiments.linear_toy as lt

    original = lt.run_trial
    monkeypatch.setattr(lt, "run_trial", lambda *a: calls.append(a) or original(*a))
    second = run_e1(config, results_path=path)
    assert len(calls) == 1 and calls[0][3] == ["CORR"]  # only the lost record is redone
    assert sorted((r["trial"], r["method"]) for r in second) == sorted(
        (r["trial"], r["method"]) for r in first
    )
    same = {(r["trial"], r["method"]): r["error"] for r in first}
    assert all(same[(r["trial"], r["method"])] == r["error"] for r in second)


def test_cli_prints_the_table(capsys):
    assert (
        main(["run", "e1", "--trials", "2", "--train-sizes", "20", "--methods", "SVM", "l1-AROM"])
        == 0
    )
    out = capsys.readouterr().out
    assert "l1-AROM" in out and "m=20 error %" in out
    assert main(["list"]) == 0
    assert "e1" in capsys.readouterr().out


def test_catalogue_and_config_validation():
    assert "e1" in available_problems()
    spec = load_problem("e1")
    assert spec["n_features"] == 202 and spec["n_features_to_select"] == 2
    with pytest.raises(InputError, match="unknown"):
        load_problem("e99")
    with pytest.raises(InputError, match="unknown E1 methods"):
        E1Config(methods=["SVM", "LASSO?"])


def test_summary_counts_failures():
    config = E1Config(train_sizes=[10], n_trials=1, methods=["SVM"])
    records = [
        {
            "trial": 0,
            "n_train": 10,
            "method": "SVM",
            "error": None,
            "relevant_pair": None,
            "status": "InfeasibleError()",
        }
    ]
    assert "1 fail" in summarise_e1(records, config)


def test_readme_python_example_runs():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_results_file_is_json_lines(tmp_path):
    path = tmp_path / "r.jsonl"
    run_e1(E1Config(train_sizes=[10], n_trials=1, methods=["SVM"]), results_path=path)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    # One schema for every experiment: identity, setting, metrics, timing, versions, seed.
    assert records[0]["method"] == "SVM" and 0 <= records[0]["metrics"]["error"] <= 1
    assert records[0]["experiment"] == "e1" and records[0]["setting"] == {"n_train": 10}
    assert records[0]["trial"] == 0 and records[0]["fold"] is None and records[0]["seed"] == 0
    assert records[0]["timing"]["seconds"] > 0 and "cvxpy" in records[0]["versions"]


def test_results_store_redone_record_survives_a_cut_last_line(tmp_path):
    # An interruption cuts the last line; the record redone after it must land on a line of
    # its own (not glued to the fragment) and be there at the next load.
    from zeronorm_opt.experiments.results_store import ResultsStore

    path = tmp_path / "r.jsonl"
    store = ResultsStore(path, key_fields=("k",))
    store.append({"k": 1})
    store.append({"k": 2})
    text = path.read_text()
    path.write_text(text[: len(text) - 5])  # cut inside the second record, no newline
    store = ResultsStore(path, key_fields=("k",))
    assert [r["k"] for r in store.records] == [1]
    store.append({"k": 2})
    again = ResultsStore(path, key_fields=("k",))
    assert [r["k"] for r in again.records] == [1, 2]
    assert again.has({"k": 2})


# --- Command-line mistakes: one line on stderr, no traceback, a documented exit code. ---


def _one_error_line(capsys) -> str:
    # stderr may start with the experiment's progress lines; it ends in the one error line.
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    errors = [line for line in lines if "error:" in line]
    assert len(errors) == 1 and lines[-1] == errors[0] and "Traceback" not in err, err
    return errors[0]


def _exit_code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse errors
        return exc.code


def test_cli_unknown_experiment_suggests_close_ids(capsys):
    assert _exit_code(["run", "e99"]) == 2
    line = _one_error_line(capsys)
    assert "unknown experiment 'e99'" in line and "did you mean e9?" in line
    assert "zeronorm-opt list" in line and line.count("e11") == 1


@pytest.mark.parametrize(
    "argv, option",
    [
        (["run", "e1", "--trials", "0"], "--trials"),
        (["run", "e1", "--trials", "-3"], "--trials"),
        (["run", "e1", "--n-jobs", "0"], "--n-jobs"),
        (["run", "e1", "--n-jobs", "-2"], "--n-jobs"),
        (["run", "e1", "--train-sizes", "0"], "--train-sizes"),
        (["run", "e1", "--trials", "two"], "--trials"),
        ([], "command"),
    ],
)
def test_cli_bad_options_are_one_line_exit_2(capsys, argv, option):
    assert _exit_code(argv) == 2
    assert option in _one_error_line(capsys)


def test_cli_case_insensitive_id_and_no_results_none(capsys):
    argv = ["run", "E1", "--trials", "1", "--train-sizes", "10", "--methods", "SVM"]
    assert main(argv + ["--n-jobs", "-1"]) == 0
    captured = capsys.readouterr()
    assert "SVM" in captured.out
    assert "None" not in captured.err and "results not saved" in captured.err


def test_cli_keyboard_interrupt_is_exit_130(capsys, monkeypatch):
    import zeronorm_opt.experiments.linear_toy as lt

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(lt, "run_trial", interrupted)
    assert main(["run", "e1", "--trials", "1"]) == 130
    assert "interrupted; rerun with the same --results file to resume" in _one_error_line(capsys)


def test_cli_zero_norm_error_is_exit_2(capsys):
    assert main(["run", "e1", "--trials", "1", "--methods", "LASSO?"]) == 2
    assert "LASSO?" in _one_error_line(capsys)


def test_cli_missing_microarray_data_is_exit_3(capsys, monkeypatch, tmp_path):
    import zeronorm_opt.datasets.microarray as ma

    monkeypatch.setenv("ZERONORM_OPT_DATA", str(tmp_path))
    monkeypatch.setattr(ma, "candidate_data_dirs", lambda data_dir=None: [tmp_path])
    assert main(["run", "e2", "--trials", "1"]) == 3
    line = _one_error_line(capsys)
    assert "colon.npz" in line and "ZERONORM_OPT_DATA" in line


def test_cli_unwritable_results_is_exit_3(capsys, monkeypatch, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    assert main(["run", "e1", "--trials", "1", "--results", str(blocker / "r.jsonl")]) == 3
    assert "--results" in _one_error_line(capsys)
    # An OSError while the experiment writes (read-only folder, disk full) is one line too.
    import zeronorm_opt.experiments.linear_toy as lt

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / "r.jsonl"))

    monkeypatch.setattr(lt, "run_trial", denied)
    assert main(["run", "e1", "--trials", "1", "--results", str(tmp_path / "r.jsonl")]) == 3
    assert "Permission denied" in _one_error_line(capsys)


def test_python_dash_m_version():
    import subprocess
    import sys

    from zeronorm_opt import __version__

    done = subprocess.run(
        [sys.executable, "-m", "zeronorm_opt", "--version"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == f"zeronorm-opt {__version__}"


# --- Runs that say when they failed: each cause once, exit 5 when a method never succeeded. ---


def _failed_statuses(path: Path) -> list[str]:
    return [r["status"] for r in map(json.loads, path.read_text().splitlines())
            if r["status"] != "ok"]  # fmt: skip


def test_run_where_every_unit_of_a_method_failed_exits_5_with_each_cause_once(capsys, tmp_path):
    from zeronorm_opt.experiments.runner import _readable_cause

    path = tmp_path / "r.jsonl"
    argv = ["run", "e1", "--trials", "1", "--train-sizes", "10", "20", "--methods", "SVM",
            "CORR", "FSV", "--set", "n_features_to_select=500", "--results", str(path)]  # fmt: skip
    assert main(argv) == 5
    captured = capsys.readouterr()
    assert "SVM" in captured.out  # the table is still printed
    statuses = _failed_statuses(path)
    assert len(statuses) == 4 and len(set(statuses)) < len(statuses)
    # Every distinct cause, once: the budget 500 is larger than the 202 features.
    for cause in set(statuses):
        assert captured.err.count(_readable_cause(cause)) == 1
        assert "500" in cause and "202 features" in cause
    assert "4 of 6 records failed (CORR 2 of 2, FSV 2 of 2)" in captured.err
    last = captured.err.strip().splitlines()[-1]
    assert last == "zeronorm-opt: error: every unit of CORR, FSV failed (the causes above)"
    assert "Traceback" not in captured.err


def test_partial_failures_are_counted_and_exit_0(capsys, tmp_path):
    # Two training points: some draws have a single class (a recorded failure), others not.
    path = tmp_path / "r.jsonl"
    argv = ["run", "e1", "--trials", "6", "--train-sizes", "2", "--methods", "SVM", "--quiet"]
    assert main([*argv, "--results", str(path)]) == 0
    err = capsys.readouterr().err
    failed = _failed_statuses(path)
    assert 0 < len(failed) < 6
    assert f"e1: {len(failed)} of 6 records failed (SVM {len(failed)} of 6)" in err
    assert err.count("single class") == 1 and "error:" not in err


def test_exit_code_5_is_documented():
    from zeronorm_opt import cli

    assert "5 every unit of a method failed" in " ".join(cli.EPILOG.split())
    docs = (ROOT / "docs" / "formulations" / "experiments.rst").read_text()
    assert "5     ``run``: every unit of at least one method failed" in docs


# --- report --plots DIR that cannot be written: one line, exit 3. ---


@pytest.mark.parametrize("where", ["/proc/nope", "a_file", "a_file/sub"])
def test_report_plots_folder_that_cannot_be_written(capsys, tmp_path, where):
    path = tmp_path / "r.jsonl"
    assert main(["run", "e1", "--trials", "2", "--train-sizes", "10", "--methods", "SVM",
                 "--results", str(path), "--quiet"]) == 0  # fmt: skip
    (tmp_path / "a_file").write_text("")
    folder = where if where.startswith("/") else str(tmp_path / where)
    capsys.readouterr()
    assert main(["report", str(path), "--plots", folder]) == 3
    line = _one_error_line(capsys)
    assert f"--plots {folder!r}" in line and "file not found" not in line
    assert "cannot create or write this folder" in line or "is a file, not a folder" in line
