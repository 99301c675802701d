"""E8: the synthetic Zipf corpus, the text-folder loader and the text-selection runner."""

import numpy as np
import pytest

from zeronorm_opt import InputError
from zeronorm_opt.cli import main
from zeronorm_opt.datasets import load_text_corpus, make_zipf_corpus
from zeronorm_opt.experiments.text_selection import (
    E8Config,
    _ifsa_prefixes,
    run_e8,
    summarise_e8,
)
from zeronorm_opt.fast.alignment import ideal_target, incremental_selection

SMALL = dict(n_documents=150, vocabulary_size=500, n_indicative=6, n_repeats=1)


def test_zipf_corpus_is_built_sparse():
    """The corpus never exists densely: a dense stack of 1000 × 20 000 counts would be 160 MB;
    about 80 words a document are 1 MB of CSR arrays."""
    import tracemalloc

    tracemalloc.start()
    try:
        counts, _ = make_zipf_corpus(1000, 20_000, random_state=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    dense = 8 * 1000 * 20_000
    assert counts.nnz < 100 * 1000 and peak < dense / 10, f"peak {peak / 1e6:.1f} MB"


def test_zipf_corpus_follows_zipf_and_plants_class_words():
    counts, y, words = make_zipf_corpus(
        400, 1500, zipf_exponent=1.1, random_state=1, return_indicative=True
    )
    counts = counts.toarray()
    assert counts.shape == (400, 1500) and set(np.unique(y)) == {-1, 1}
    assert (y > 0).sum() == 80  # positive_fraction 0.2
    assert np.all((words >= 50) & (words < 750)) and np.unique(words).size == 20
    # Zipf's law on the words no topic boosts: log frequency falls ~linearly in log rank.
    freq = counts.sum(axis=0).astype(float)
    ranks = np.arange(1, 201)
    slope = np.polyfit(np.log(ranks), np.log(freq[:200] + 0.5), 1)[0]
    assert -1.3 < slope < -0.9
    # Planted words: far more frequent in the target class than in the rest.
    pos = counts[y > 0][:, words].mean()
    neg = counts[y < 0][:, words].mean()
    assert pos > 4 * neg


def test_zipf_corpus_input_errors():
    with pytest.raises(InputError, match="positive_fraction"):
        make_zipf_corpus(100, 1000, positive_fraction=1.0)
    with pytest.raises(InputError, match="do not fit"):
        make_zipf_corpus(100, 200, n_indicative=40)
    with pytest.raises(InputError, match="boost"):
        make_zipf_corpus(100, 1000, boost=0.5)
    with pytest.raises(InputError, match="mean_length"):
        make_zipf_corpus(100, 1000, mean_length=float("nan"))


def test_text_folder_loader(tmp_path):
    texts = {"space": "orbit rocket launch nasa", "cars": "engine wheel road", "med": "doctor"}
    for cls, words in texts.items():
        (tmp_path / cls).mkdir()
        for i in range(4):
            (tmp_path / cls / f"{i}.txt").write_text(f"{words} common word{i % 2}")
    X, y, vocab = load_text_corpus(tmp_path, "space", min_df=1)
    assert X.shape[0] == 12 and (y > 0).sum() == 4
    rows = np.asarray(X[y > 0][:, list(vocab).index("rocket")].todense()).ravel()
    assert np.all(rows > 0)
    assert np.allclose(np.asarray(X.multiply(X).sum(axis=1)).ravel(), 1.0)  # l2-normalised tf-idf
    with pytest.raises(InputError, match="no class 'sport'"):
        load_text_corpus(tmp_path, "sport")
    with pytest.raises(InputError, match="not a folder"):
        load_text_corpus(tmp_path / "nothing", "space")


def test_ifsa_prefixes_are_the_shortest_prefixes_reaching_each_fraction():
    counts, y = make_zipf_corpus(120, 400, n_indicative=5, random_state=3)
    X = counts.toarray().astype(float)
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
    order, prefix = _ifsa_prefixes(X, y, [0.85, 0.9, 1.0])
    ref_order, path, _ = incremental_selection(X, ideal_target(y, True), "linear")
    assert order == ref_order and prefix[1.0] == len(order)
    for f, r in prefix.items():
        assert path[r - 1] >= f * path[-1]
        assert r == 1 or path[r - 2] < f * path[-1]


def test_e8_runner_resumes_and_recovers_planted_words(tmp_path, monkeypatch):
    path = tmp_path / "e8.jsonl"
    config = E8Config(
        **SMALL,
        C_grid=[10.0, 1000.0],
        fractions=[0.9, 1.0],
        corpus_options={"boost": 20.0},
    )
    first = run_e8(config, results_path=path)
    assert sorted(r["method"] for r in first) == ["IG", "iFSA", "noFS", "osFSA"]
    by = {r["method"]: r for r in first}
    assert all(r["status"] == "ok" and 0.5 <= r["accuracy"] <= 1.0 for r in first)
    assert by["noFS"]["n_features"] == 500 and by["noFS"]["recall"] is None
    assert by["iFSA"]["parameter"] in (0.9, 1.0)
    # With strongly planted words a few of them separate the classes: the validation picks few
    # features, and those are planted words.
    for method in ("IG", "osFSA", "iFSA"):
        assert by[method]["precision"] >= 0.9 and by[method]["n_features"] <= 6
    import zeronorm_opt.experiments.text_selection as e8

    calls = []
    monkeypatch.setattr(e8, "run_repeat", lambda *a: calls.append(a) or [])
    again = run_e8(config, results_path=path)
    assert calls == [] and len(again) == 4  # nothing recomputed
    assert "iFSA" in summarise_e8(again, config)


def test_e8_configuration_and_cli_errors(capsys):
    with pytest.raises(InputError, match="unknown E8 methods"):
        E8Config(methods=["IG", "chi2"])
    with pytest.raises(InputError, match="corpus_dir and positive_class"):
        E8Config(corpus_dir="/tmp")
    with pytest.raises(InputError, match="fractions"):
        E8Config(fractions=[0.5, 1.5])
    assert main(["run", "e8", "--train-sizes", "50"]) == 2
    assert "no training sizes" in capsys.readouterr().err


def test_e8_on_the_sparse_tfidf_equals_the_densified_run(monkeypatch):
    # The experiment keeps the tf-idf matrix sparse end to end (information gain, the linear
    # alignments, liblinear): the same records as on the densified matrix, so the sparse path
    # changes the cost only — the selected words, the chosen parameters and every figure agree.
    import scipy.sparse as sp

    import zeronorm_opt.experiments.text_selection as e8

    config = E8Config(**SMALL, C_grid=[10.0, 1e5], fractions=[0.9, 1.0])
    X, _, _ = e8.load_corpus(config, 0)
    assert sp.issparse(X)
    sparse_records = e8.run_repeat(config, 0, config.methods)
    load = e8.load_corpus

    def densified(config, repeat):
        X, y, planted = load(config, repeat)
        return X.toarray(), y, planted

    monkeypatch.setattr(e8, "load_corpus", densified)
    dense_records = e8.run_repeat(config, 0, config.methods)
    for record in sparse_records + dense_records:
        record.pop("seconds")
    assert all(r["status"] == "ok" for r in sparse_records)
    assert sparse_records == dense_records
