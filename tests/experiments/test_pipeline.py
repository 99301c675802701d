"""The shared experiment pipeline: record schema, store, backends, kill-and-resume, report, CLI."""

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zeronorm_opt.cli import main
from zeronorm_opt.exceptions import InputError
from zeronorm_opt.experiments.catalogue import available_problems, load_problem
from zeronorm_opt.experiments.pipeline import RECORD_KEY, config_from_spec, parse_assignments
from zeronorm_opt.experiments.results_store import ResultsStore
from zeronorm_opt.experiments.runner import Progress, RichProgress

ROOT = Path(__file__).resolve().parents[2]
# A few E1 trials with a selector that takes a noticeable time per unit.
E1_SMALL = ["run", "e1", "--trials", "5", "--train-sizes", "20", "--methods", "SVM", "l1-AROM"]


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _comparable(records: list[dict]) -> list[tuple]:
    """Records without their timing, in a canonical order (backends finish in any order)."""
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k != "timing"}
        out.append(json.dumps(r, sort_keys=True))
    return sorted(out)


# ---------------------------------------------------------------------------------------------
# One protocol: every experiment, one schema, spec keys = settings
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pid", list(available_problems()))
def test_every_spec_fills_its_configuration_generically(pid):
    from zeronorm_opt.cli import experiment_of

    spec = load_problem(pid)
    experiment = experiment_of(spec)
    config = config_from_spec(experiment, spec)
    # Every key of the spec that is a setting reaches the configuration unchanged.
    for field in experiment.config_class.__dataclass_fields__:
        if field in spec and field not in ("gene_counts", "methods"):
            value = getattr(config, field)
            assert list(value) == spec[field] if isinstance(value, tuple) else value == spec[field]
    assert experiment.trials_key in spec
    # More trials are the same configuration (earlier records are reused), another constant not.
    more = config_from_spec(experiment, spec, {experiment.trials_key: 99})
    assert experiment.fingerprint(more) == experiment.fingerprint(config)
    # The spec's settings and the configuration's defaults are the same configuration.
    defaults = experiment.config_class()
    same = all(getattr(defaults, k) == getattr(config, k) for k in spec if hasattr(defaults, k))
    if same:
        assert experiment.fingerprint(defaults) == experiment.fingerprint(config)


def test_set_overrides_with_a_did_you_mean():
    assert parse_assignments(["n_test=100", "train_sizes=[10, 20]", "x=colon"]) == {
        "n_test": 100, "train_sizes": [10, 20], "x": "colon",
    }  # fmt: skip
    with pytest.raises(InputError, match="key=value"):
        parse_assignments(["n_test"])


def test_every_record_has_the_one_schema(tmp_path):
    from zeronorm_opt.experiments.nonlinear_52d import E6Config, run_e6

    path = tmp_path / "r.jsonl"
    run_e6(E6Config(train_sizes=[60], n_runs=1, n_test=50), results_path=path)
    assert main(["run", "e1", "--trials", "1", "--train-sizes", "10", "--methods", "SVM",
                 "--results", str(path), "--quiet"]) == 0  # fmt: skip
    records = _records(path)
    assert {r["experiment"] for r in records} == {"e1", "e6"}
    for r in records:
        assert set(RECORD_KEY) <= set(r) and {"metrics", "timing", "versions", "status"} <= set(r)
        assert r["setting"] == {"n_train": r["settings"]["train_sizes"][0]}


# ---------------------------------------------------------------------------------------------
# Store: atomic lines, torn tail, corrupt middle line
# ---------------------------------------------------------------------------------------------
def test_store_skips_a_corrupt_middle_line_and_ignores_a_torn_tail(tmp_path):
    path = tmp_path / "r.jsonl"
    store = ResultsStore(path, key_fields=("k",))
    for k in range(4):
        store.append({"k": k})
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:5] + "#garbage"
    path.write_text("\n".join(lines) + "\n" + '{"k": 9, "cut')
    again = ResultsStore(path, key_fields=("k",))
    assert [r["k"] for r in again.records] == [0, 2, 3]
    assert again.skipped_lines == [2]  # the torn last line is not reported
    again.append({"k": 1})
    assert [r["k"] for r in ResultsStore(path, key_fields=("k",)).records] == [0, 2, 3, 1]


def test_run_and_report_name_the_skipped_line(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    argv = ["run", "e1", "--trials", "3", "--train-sizes", "10", "--methods", "SVM"]
    assert main([*argv, "--results", str(path), "--quiet"]) == 0
    first = _records(path)
    lines = path.read_text().splitlines()
    lines[1] = "{not json"
    path.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["report", str(path)]) == 4
    captured = capsys.readouterr()
    assert "line 2 of" in _one_error_line(captured.err) and "| SVM | 10 | 2 |" in captured.out
    assert main([*argv, "--results", str(path), "--quiet"]) == 4  # the lost record is redone
    assert "line 2 of" in _one_error_line(capsys.readouterr().err)
    good = [r for r in _records_lenient(path)]
    assert _comparable(good) == _comparable(first)


def _records_lenient(path: Path) -> list[dict]:
    return ResultsStore(path, key_fields=RECORD_KEY).records


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    errors = [line for line in lines if "error:" in line]
    assert len(errors) == 1 and lines[-1] == errors[0] and "Traceback" not in err, err
    return errors[0]


# ---------------------------------------------------------------------------------------------
# Backends: identical records for n_jobs 1, 2 and Dask
# ---------------------------------------------------------------------------------------------
def test_same_records_with_one_two_jobs_and_dask(tmp_path, capsys):
    files = {}
    for name, extra in {
        "seq": ["--n-jobs", "1", "--quiet"],
        "par": ["--n-jobs", "2", "--quiet"],
        "dask": ["--backend", "dask", "--n-jobs", "2"],
    }.items():
        files[name] = tmp_path / f"{name}.jsonl"
        assert main([*E1_SMALL, *extra, "--results", str(files[name])]) == 0
    seq = _comparable(_records(files["seq"]))
    assert len(seq) == 10
    assert _comparable(_records(files["par"])) == seq
    assert _comparable(_records(files["dask"])) == seq
    # The local cluster says where it is: scheduler, dashboard, workers.
    assert re.search(
        r"^dask: scheduler tcp://127\.0\.0\.1:\d+ \(a local cluster\), 2 workers \(2 threads\); "
        r"dashboard http://127\.0\.0\.1:\d+/status", capsys.readouterr().err, flags=re.M,
    )  # fmt: skip


def test_dask_on_an_existing_scheduler(tmp_path):
    from urllib.request import urlopen

    from dask.distributed import LocalCluster

    from zeronorm_opt.experiments.linear_toy import E1Config, run_e1

    config = E1Config(train_sizes=[12], n_trials=2, methods=["SVM", "CORR"])
    lines = []
    with LocalCluster(
        n_workers=1, threads_per_worker=1, dashboard_address="127.0.0.1:0"
    ) as cluster:
        remote = run_e1(config, backend="dask", scheduler=cluster.scheduler_address,
                        progress=lines.append)  # fmt: skip
        # Where the run went: this cluster's address, its workers and its live dashboard.
        said = [line for line in lines if line.startswith("dask:")]
        assert len(said) == 1
        assert f"scheduler {cluster.scheduler_address} (an existing cluster), 1 worker " in said[0]
        link = re.search(r"dashboard (\S+)", said[0])[1]
        assert link == cluster.dashboard_link and urlopen(link, timeout=30).status == 200
    local = run_e1(config)
    strip = lambda rs: [{k: v for k, v in r.items() if k != "seconds"} for r in rs]  # noqa: E731
    assert strip(remote) == strip(local)


# ---------------------------------------------------------------------------------------------
# Kill -9 at several moments, resume: exactly the records of an uninterrupted run
# ---------------------------------------------------------------------------------------------
def _start(results: Path) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "zeronorm_opt", *E1_SMALL, "--results", str(results), "--quiet"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_sigkill_at_several_moments_then_resume(tmp_path):
    reference = tmp_path / "reference.jsonl"
    assert main([*E1_SMALL, "--results", str(reference), "--quiet"]) == 0
    path = tmp_path / "killed.jsonl"
    kills = 0
    for target in (1, 4, 7):  # kill once the file has grown to about this many lines
        proc = _start(path)
        deadline = time.monotonic() + 120
        while proc.poll() is None and _lines(path) < target and time.monotonic() < deadline:
            time.sleep(0.005)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 2
    assert _lines(path) < 10  # the kills did interrupt the run
    proc = _start(path)  # the final, uninterrupted resume
    assert proc.wait(timeout=300) == 0
    records = _records_lenient(path)
    keys = [ResultsStore(None, RECORD_KEY).key(r) for r in records]
    assert len(keys) == len(set(keys)) == 10  # none missing, none duplicated
    assert _comparable(records) == _comparable(_records(reference))


# ---------------------------------------------------------------------------------------------
# Report: tables with the paper's column, plots
# ---------------------------------------------------------------------------------------------
def test_report_prints_the_paper_column_and_writes_plots(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    assert main(["run", "e6", "--trials", "2", "--train-sizes", "100", "--set", "n_test=100",
                 "--results", str(path), "--quiet"]) == 0  # fmt: skip
    assert main([*E1_SMALL, "--results", str(path), "--quiet"]) == 0
    capsys.readouterr()
    plots = tmp_path / "plots"
    assert main(["report", str(path), "--plots", str(plots)]) == 0
    out = capsys.readouterr().out
    assert "mean ± standard error of the mean" in out
    row = next(line for line in out.splitlines() if line.startswith("| dFSA | 100 |"))
    paper = "recall % 100 / features kept 2.4 / exact {x1, x2} % 95.9 | Català & Martin, Table 4"
    assert paper in row
    assert "| l1-AROM | 20 | 5 |" in out and "E1 linear toy" in out
    names = sorted(p.name for p in plots.iterdir())
    assert names == [
        "e1_error_vs_train_size.png", "e1_selection_frequency.png",
        "e6_adaptive_scaling_scales.png", "e6_selection_frequency.png", "e6_table_4.png",
    ]  # fmt: skip
    assert all((plots / n).read_bytes()[:4] == b"\x89PNG" for n in names)
    assert main(["report", str(path), "--format", "html"]) == 0
    assert "<table>" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# Command line: list, show, progress, mistakes
# ---------------------------------------------------------------------------------------------
def test_list_and_show(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "data: microarray" in out and "cost:" in out and out.count("\tdata:") == 11
    assert main(["show", "e6"]) == 0
    out = capsys.readouterr().out
    assert "adaptive_scaling_sigma0 = 0.1" in out and "--trials sets n_runs" in out
    assert "Català & Martin, Table 4" in out


@pytest.mark.parametrize(
    ("argv", "code", "needle"),
    [
        (["run", "e1", "--set", "n_trial=3"], 2, "did you mean n_trials?"),
        (["run", "e1", "--set", "n_test=0"], 2, "n_test"),
        (["run", "e1", "--set", "n_test"], 2, "key=value"),
        (["run", "e1", "--set", "n_test=many"], 2, "'n_test' must be an integer; got 'many'"),
        (["run", "e1", "--set", "train_sizes=[10, 2.5]"], 2, "must be a list of integers"),
        (["run", "e1", "--set", "methods=SVM"], 2, "'methods' must be a list"),
        (["run", "e1", "--set", "final_svm_C=-1"], 2, "final_svm_C must be > 0"),
        (["run", "e1", "--scheduler", "tcp://x:1"], 2, "--backend dask"),
        (["run", "e1", "--backend", "spark"], 2, "--backend"),
        (["run", "e8", "--train-sizes", "10"], 2, "--train-sizes does not apply"),
        (["report", "absent.jsonl"], 3, "absent.jsonl"),
        (["show", "e77"], 2, "did you mean e7?"),
    ],
)
def test_cli_mistakes_are_one_line(capsys, argv, code, needle):
    try:
        got = main(argv)
    except SystemExit as exc:  # argparse
        got = exc.code
    assert got == code
    assert needle in _one_error_line(capsys.readouterr().err)


def test_an_unexpected_error_is_one_line_exit_1(capsys, monkeypatch):
    import zeronorm_opt.experiments.linear_toy as lt

    def broken(*args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(lt, "run_trial", broken)
    assert main(["run", "e1", "--trials", "1", "--quiet"]) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert "unexpected ZeroDivisionError" in line and "ZERONORM_OPT_DEBUG" in line


def test_report_of_a_file_that_is_not_results(tmp_path, capsys):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n')
    assert main(["report", str(path)]) == 2
    assert "not a results file" in _one_error_line(capsys.readouterr().err)


def test_run_help_is_the_run_help(capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "e1", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "--set KEY=VALUE" in out and "--backend" in out and "--scheduler" in out


def test_quiet_prints_no_progress(capsys):
    argv = ["run", "e1", "--trials", "1", "--train-sizes", "10", "--methods", "SVM"]
    assert main([*argv, "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "SVM" in captured.out
    assert main(argv) == 0
    assert "1/1 units done, elapsed" in capsys.readouterr().err


def test_progress_lines_and_bar():
    lines = []
    p = Progress(lines.append)
    p.start(20, "e1")
    for _ in range(20):
        p.advance()
    assert len(lines) == 10 and lines[-1].startswith("e1: 20/20 units done, elapsed")
    from rich.console import Console

    buffer = io.StringIO()
    bar = RichProgress(Console(file=buffer, force_terminal=True, width=100))
    bar.start(3, "e1")
    for _ in range(3):
        bar.advance()
    bar.stop()
    text = buffer.getvalue()
    assert "3/3" in text and "ETA" in text and "elapsed" in text


@pytest.mark.slow
@pytest.mark.parametrize("backend", [["--n-jobs", "2"], ["--backend", "dask", "--n-jobs", "2"]])
def test_ctrl_c_in_a_terminal_is_one_line(tmp_path, backend):
    # Ctrl-C reaches the whole process group (the workers too): one line, exit 130, and the
    # records written so far are kept for the resume.
    path = tmp_path / "r.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "zeronorm_opt", "run", "e1", "--trials", "20", *backend,
         "--results", str(path)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while proc.poll() is None and _lines(path) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == (
        "zeronorm-opt: error: interrupted; rerun with the same --results file to resume"
    )
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert len(_records_lenient(path)) >= 2
