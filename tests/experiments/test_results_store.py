"""Results files that heal: kill -9 at random moments, torn tails and corrupt lines, then resume.

After a resume every line of the file is a complete record, the records are those of an
uninterrupted run, and ``zeronorm-opt report`` exits 0.
"""

import json
import multiprocessing
import random
import signal
import time
from pathlib import Path

import pytest

from zeronorm_opt.cli import main
from zeronorm_opt.exceptions import InputError
from zeronorm_opt.experiments.results_store import ResultsStore

# 24 units of two fast rows: 48 records written a few milliseconds apart.
E1_MANY = ["run", "e1", "--trials", "24", "--train-sizes", "10", "--methods", "SVM", "CORR"]
N_RECORDS = 48


def _run(path: Path) -> int:
    return main([*E1_MANY, "--results", str(path), "--quiet"])


def _strict_records(path: Path) -> list[dict]:
    """The file's records; every line must be a complete JSON record ending in a newline."""
    data = path.read_bytes()
    assert data.endswith(b"\n")
    records = [json.loads(line) for line in data.decode().split("\n")[:-1]]
    assert all(isinstance(r, dict) for r in records)
    return records


def _comparable(records: list[dict]) -> list[str]:
    """Records without their timing, in a canonical order."""
    return sorted(
        json.dumps({k: v for k, v in r.items() if k != "timing"}, sort_keys=True) for r in records
    )


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("reference") / "reference.jsonl"
    assert _run(path) == 0
    assert len(_strict_records(path)) == N_RECORDS
    return path


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_kill_9_at_random_moments_then_resume(tmp_path, reference, capsys):
    # Each run is a process forked from a server that has imported the package once, so a
    # dozen kills cost no dozen interpreter start-ups; SIGKILL gives it no chance to clean up.
    # A kill leaves whole lines (the kernel finishes a write() it has begun); a write torn in
    # the middle is a power cut's trace, made here by cutting the file's tail.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["zeronorm_opt.cli", "zeronorm_opt.experiments.linear_toy"])
    path = tmp_path / "killed.jsonl"
    rng = random.Random(28)
    kills = 0
    for attempt in range(12):
        if attempt in (4, 8):  # a power cut: the last write reached the disk only in part
            data = path.read_bytes()
            path.write_bytes(data[: len(data) - rng.randint(2, 200)])
        before = _lines(path)
        target = before + rng.randint(0, 4)  # 0: while loading or repairing the file
        process = context.Process(
            target=main, args=([*E1_MANY, "--results", str(path), "--quiet"],)
        )
        process.start()
        deadline = time.monotonic() + 60
        while process.is_alive() and _lines(path) < target and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(rng.uniform(0.0, 0.02))  # anywhere between (or inside) two writes
        process.kill()
        process.join()
        kills += process.exitcode == -signal.SIGKILL
    assert kills >= 10
    assert _lines(path) < N_RECORDS  # the kills did interrupt the run
    capsys.readouterr()
    assert _run(path) == 0  # the final, uninterrupted resume
    assert _comparable(_strict_records(path)) == _comparable(_strict_records(reference))
    assert main(["report", str(path)]) == 0
    assert "error" not in capsys.readouterr().err


@pytest.mark.parametrize("keep", [1, 2, 0.5, -1])  # bytes of the last line left by the cut
def test_a_torn_tail_is_dropped_and_redone(tmp_path, reference, capsys, keep):
    path = tmp_path / "torn.jsonl"
    data = reference.read_bytes()
    last = data.rstrip(b"\n").rfind(b"\n") + 1  # where the last line starts
    length = len(data) - 1 - last
    cut = last + (int(keep * length) if isinstance(keep, float) else keep % length)
    path.write_bytes(data[:cut])
    capsys.readouterr()
    assert _run(path) == 0
    err = capsys.readouterr().err
    assert f"dropped line {N_RECORDS} (torn by an interruption)" in err
    assert _comparable(_strict_records(path)) == _comparable(_strict_records(reference))
    assert main(["report", str(path)]) == 0


def test_a_corrupt_middle_line_and_a_torn_tail_are_dropped(tmp_path, reference, capsys):
    path = tmp_path / "corrupt.jsonl"
    lines = reference.read_bytes().split(b"\n")[:-1]
    lines[9] = lines[9][: len(lines[9]) // 2] + b"\x00\xff garbage"  # a damaged sector
    path.write_bytes(b"\n".join(lines[:-1]) + b"\n" + lines[-1][:-7])  # and a torn tail
    capsys.readouterr()
    assert _run(path) == 4  # a damaged line is worth a non-zero code, once
    err = capsys.readouterr().err
    assert f"dropped line 10 (not a JSON record) and line {N_RECORDS} (torn" in err
    assert _comparable(_strict_records(path)) == _comparable(_strict_records(reference))
    assert main(["report", str(path)]) == 0
    assert _run(path) == 0  # healed: nothing left to say


def test_repair_keeps_every_complete_record_byte_for_byte(tmp_path):
    path = tmp_path / "r.jsonl"
    store = ResultsStore(path, key_fields=("k",))
    for k in range(6):
        store.append({"k": k, "x": 0.1 * k})
    good = path.read_bytes().split(b"\n")[:-1]
    damaged = [good[0], b"", good[1], b"{not json", good[2], b"[1, 2]", *good[3:]]
    path.write_bytes(b"\n".join(damaged) + b"\n" + b'{"k": 6, "x"')
    store = ResultsStore(path, key_fields=("k",))
    assert (store.skipped_lines, store.torn_line) == ([4, 6], 10)
    assert store.repair() == 3
    assert path.read_bytes() == b"\n".join(good) + b"\n"
    assert store.repair() == 0  # once is enough
    assert not list(tmp_path.glob(".*repairing"))  # the file beside it was renamed into place


def test_a_file_without_any_record_is_not_rewritten(tmp_path, capsys):
    path = tmp_path / "notes.txt"
    path.write_text("my notes\nnot results\n")
    with pytest.raises(InputError, match="not a results file"):
        ResultsStore(path, key_fields=("k",)).repair()
    assert main([*E1_MANY, "--results", str(path), "--quiet"]) == 2
    assert "not a results file" in capsys.readouterr().err
    assert path.read_text() == "my notes\nnot results\n"


def test_the_python_runner_heals_the_file_too(tmp_path):
    from zeronorm_opt.experiments.linear_toy import E1Config, run_e1

    config = E1Config(train_sizes=[10], n_trials=3, methods=["SVM"])
    path = tmp_path / "r.jsonl"
    first = run_e1(config, results_path=path)
    data = path.read_bytes()
    path.write_bytes(data[:-10])
    said = []
    again = run_e1(config, results_path=path, progress=said.append)
    assert any("dropped line 3 (torn by an interruption)" in line for line in said)
    assert len(_strict_records(path)) == 3
    strip = lambda rs: [{k: v for k, v in r.items() if k != "seconds"} for r in rs]  # noqa: E731
    assert strip(again) == strip(first)
