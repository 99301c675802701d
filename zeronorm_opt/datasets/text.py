"""Bag-of-words data for experiment E8 (Català and Martin §4): a synthetic Zipf corpus and a loader.

Català and Martin compare iFSA / osFSA with information gain on text categorisation (one class
against the rest). No newsgroup corpus ships offline, so :func:`make_zipf_corpus` draws a corpus
whose word frequencies follow Zipf's law, with *planted* words that are more frequent in the target
class — the relevant features, known by construction. :func:`load_text_corpus` reads a real
corpus from a folder of text files (one sub-folder per class, the layout of 20 Newsgroups) when
one is at hand.
"""

from __future__ import annotations

import numbers
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_files
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.utils import check_random_state

from .._validation import check_positive
from ..exceptions import InputError
from .synthetic_linear import _check_count

__all__ = ["load_text_corpus", "make_zipf_corpus"]


def make_zipf_corpus(
    n_documents: int = 500,
    vocabulary_size: int = 2000,
    *,
    n_indicative: int = 20,
    n_topics: int = 5,
    positive_fraction: float = 0.2,
    mean_length: float = 80.0,
    zipf_exponent: float = 1.1,
    boost: float = 8.0,
    random_state=None,
    return_indicative: bool = False,
):
    """Word counts of a synthetic one-class-against-the-rest corpus.

    Every document belongs to one of ``n_topics`` topics; topic 0 is the target class (a
    fraction ``positive_fraction`` of the documents, label +1), the others form "the rest"
    (label −1, spread evenly). Word ``k`` (0-based rank) has background probability
    ``∝ (k + 1)^(−zipf_exponent)``. Each topic has ``n_indicative`` planted words drawn from
    the middle of the frequency range (ranks ``[50, vocabulary_size/2)``: neither stop words
    nor hapaxes) whose probability is multiplied by ``boost`` in that topic's documents. A
    document has ``Poisson(mean_length)`` words (at least 1).

    Parameters
    ----------
    n_documents, vocabulary_size : int
    n_indicative : int, default=20
        Planted words per topic.
    n_topics : int, default=5
        Topics, the target class included (at least 2).
    positive_fraction : float in (0, 1), default=0.2
        Share of target-class documents (unbalanced, as one newsgroup against the rest).
    mean_length : float, default=80.0
    zipf_exponent : float, default=1.1
    boost : float, default=8.0
        Frequency multiplier of a topic's planted words in its documents.
    random_state : int, RandomState instance or None
    return_indicative : bool, default=False
        Also return the planted words of the target class.

    Returns
    -------
    counts : scipy.sparse.csr_matrix of shape (n_documents, vocabulary_size)
        Word counts (turn them into tf-idf with
        :class:`sklearn.feature_extraction.text.TfidfTransformer`).
    y : ndarray of shape (n_documents,)
        +1 for the target class, −1 for the rest.
    indicative : ndarray of shape (n_indicative,)
        Only with ``return_indicative=True``.

    Examples
    --------
    >>> counts, y, words = make_zipf_corpus(200, 1000, random_state=0, return_indicative=True)
    >>> counts.shape, int((y > 0).sum()), words.size
    ((200, 1000), 40, 20)
    >>> bool(counts[y > 0][:, words].mean() > 3 * counts[y < 0][:, words].mean())
    True
    """
    n_documents = _check_count(n_documents, "n_documents", 2)
    vocabulary_size = _check_count(vocabulary_size, "vocabulary_size", 100)
    n_indicative = _check_count(n_indicative, "n_indicative", 1)
    n_topics = _check_count(n_topics, "n_topics", 2)
    low, high = 50, vocabulary_size // 2
    if n_topics * n_indicative > high - low:
        raise InputError(
            f"{n_topics} topics × {n_indicative} planted words do not fit in the mid-frequency "
            f"ranks [{low}, {high}); use a larger vocabulary_size or fewer words."
        )
    if not isinstance(positive_fraction, numbers.Real) or not 0 < positive_fraction < 1:
        raise InputError(f"positive_fraction must be in (0, 1); got {positive_fraction!r}.")
    mean_length = check_positive(mean_length, "mean_length")
    zipf_exponent = check_positive(zipf_exponent, "zipf_exponent")
    if not isinstance(boost, numbers.Real) or boost < 1:
        raise InputError(f"boost must be a number >= 1; got {boost!r}.")
    rng = check_random_state(random_state)
    background = (np.arange(vocabulary_size) + 1.0) ** -zipf_exponent
    planted = rng.choice(np.arange(low, high), size=(n_topics, n_indicative), replace=False)
    topic_probs = np.tile(background, (n_topics, 1))
    for k in range(n_topics):
        topic_probs[k, planted[k]] *= boost
    topic_probs /= topic_probs.sum(axis=1, keepdims=True)
    n_pos = min(n_documents - 1, max(1, round(positive_fraction * n_documents)))
    topics = np.concatenate(
        [np.zeros(n_pos, int), 1 + np.arange(n_documents - n_pos) % (n_topics - 1)]
    )
    rng.shuffle(topics)
    lengths = np.maximum(1, rng.poisson(mean_length, size=n_documents))
    # Row by row into CSR: a dense stack would hold n_documents × vocabulary_size integers
    # (8 GB for 20 000 documents over 50 000 words) for a corpus of about 80 words a document.
    indptr, indices, data = [0], [], []
    for i in range(n_documents):
        row = rng.multinomial(lengths[i], topic_probs[topics[i]])
        words = np.flatnonzero(row)
        indices.append(words)
        data.append(row[words])
        indptr.append(indptr[-1] + words.size)
    counts = sp.csr_matrix(
        (np.concatenate(data), np.concatenate(indices), np.asarray(indptr)),
        shape=(n_documents, vocabulary_size),
    )
    y = np.where(topics == 0, 1, -1)
    if return_indicative:
        return counts, y, np.sort(planted[0])
    return counts, y


def load_text_corpus(
    path, positive_class: str, *, min_df: int = 2, max_features: int | None = 5000
):
    """A corpus of text files as tf-idf features, one class against the rest.

    ``path`` holds one sub-folder per class with one document per file (the layout of the
    20 Newsgroups archives; read with :func:`sklearn.datasets.load_files`).

    Parameters
    ----------
    path : str or path-like
    positive_class : str
        The sub-folder of the target class (label +1; every other class is −1).
    min_df : int, default=2
        Ignore words in fewer documents.
    max_features : int or None, default=5000
        Keep the most frequent words only (the alignment search stores the data densely).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_words)
        tf-idf (:class:`sklearn.feature_extraction.text.TfidfVectorizer`).
    y : ndarray of shape (n_documents,)
    words : ndarray of str
        The word of each column.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for cls, text in [("space", "orbit rocket launch"), ("cars", "engine wheel road")]:
    ...     for i in range(3):
    ...         (root / cls).mkdir(exist_ok=True)
    ...         _ = (root / cls / f"{i}.txt").write_text(f"{text} doc{i}")
    >>> X, y, words = load_text_corpus(root, "space", min_df=1)
    >>> X.shape, sorted(y.tolist())
    ((6, 9), [-1, -1, -1, 1, 1, 1])
    """
    root = Path(path)
    if not root.is_dir():
        raise InputError(f"{root} is not a folder; pass a folder with one sub-folder per class.")
    bunch = load_files(str(root), encoding="latin-1", decode_error="replace", shuffle=False)
    if positive_class not in bunch.target_names:
        raise InputError(
            f"no class {positive_class!r} in {root}; its classes are {bunch.target_names}."
        )
    if len(bunch.target_names) < 2:
        raise InputError(f"{root} holds a single class; one against the rest needs two.")
    vectorizer = TfidfVectorizer(min_df=min_df, max_features=max_features)
    X = vectorizer.fit_transform(bunch.data)
    y = np.where(bunch.target == bunch.target_names.index(positive_class), 1, -1)
    return X.tocsr(), y, vectorizer.get_feature_names_out()
