"""The top-level problems/ catalogue: validation of the specs and runs from a spec's path."""

from pathlib import Path

import pytest

from zeronorm_opt.cli import experiment_of, main
from zeronorm_opt.exceptions import InputError
from zeronorm_opt.experiments.catalogue import (
    PROBLEMS_DIR,
    available_problems,
    load_problem,
    load_spec_file,
)

ROOT = Path(__file__).resolve().parents[2]
E1 = ROOT / "problems" / "e1_linear_toy.toml"


def test_catalogue_is_the_top_level_problems_folder():
    assert PROBLEMS_DIR.resolve() == (ROOT / "problems").resolve()
    assert list(available_problems()) == [f"e{i}" for i in range(1, 12)]


@pytest.mark.parametrize("path", sorted((ROOT / "problems").glob("*.toml")), ids=lambda p: p.name)
def test_every_spec_validates(path):
    spec = load_spec_file(path)
    assert spec["title"] and experiment_of(spec).runner == spec["runner"]
    assert load_problem(spec["id"]) == spec


def _edited(tmp_path, old, new, name="broken.toml"):
    text = E1.read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    ("old", "new", "pattern"),
    [
        ('n_trials = 100', 'n_trials = 0', r"key 'n_trials' must be a positive integer; got 0"),
        ('n_trials = 100', 'n_trials = "many"', r"key 'n_trials' must be a positive integer"),
        ("train_sizes = [10, 20, 30]", "train_sizes = [10, -2]",
         r"key 'train_sizes' must be a non-empty list of positive integers"),
        ('methods = ["SVM"', 'methods = [1, "SVM"', r"key 'methods' must be a non-empty list"),
        ('n_trials = 100', 'seed = 1.5\nn_trials = 100', r"key 'seed' must be an integer"),
        ('title = "', 'titel = "', r"missing key 'title'"),
        ('n_test = 500', '', r"missing key 'n_test', read by runner 'linear_toy'"),
        ('runner = "linear_toy"', 'runner = "os"', r"key 'runner' must name a built-in"),
        ('runner = "linear_toy"', '', r"missing key 'runner'"),
        ('runner = "linear_toy"', 'runner = "pipeline"', r"key 'runner' must name a built-in"),
        ("n_test = 500", "n_tset = 500", r"unknown key 'n_tset' .*did you mean 'n_test'"),
    ],
)
def test_broken_spec_names_file_and_key(tmp_path, old, new, pattern):
    path = _edited(tmp_path, old, new)
    with pytest.raises(InputError, match=pattern) as info:
        load_spec_file(path)
    assert str(info.value).startswith(f"{path}: ")


def test_catalogue_errors_name_the_problems_path():
    from zeronorm_opt.experiments.catalogue import validate_spec

    spec = load_problem("e1") | {"n_trials": 0}
    with pytest.raises(InputError, match=r"^problems/e1_linear_toy.toml: key 'n_trials'"):
        validate_spec(spec, E1)


def test_own_spec_runs_from_its_path(tmp_path, capsys):
    path = _edited(tmp_path, "n_trials = 100", "n_trials = 1", name="my.toml")
    path.write_text(path.read_text().replace("train_sizes = [10, 20, 30]", "train_sizes = [10]"))
    assert main(["run", str(path), "--methods", "SVM", "CORR"]) == 0
    out = capsys.readouterr().out
    assert "m=10 error %" in out and "CORR" in out and "m=20" not in out


def test_broken_own_spec_is_a_one_line_error(tmp_path, capsys):
    path = _edited(tmp_path, "n_trials = 100", "n_trials = 0")
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "broken.toml: key 'n_trials'" in err and len(err.strip().splitlines()) == 1
    assert main(["run", str(tmp_path / "absent.toml")]) == 3
