"""Benchmark suite of zeronorm_opt: ``python -m benchmarks.run [--quick] [--out DIR]``.

Every figure is a ratio to a hand-written reference measured in the same run (medians of
several runs; the first call in a fresh process is measured separately). See
``docs/about/benchmarks.rst`` and :mod:`benchmarks.run`. The older single-purpose scripts
(``bench_arom.py``, ``bench_multiclass.py``, ``bench_alignment.py``, ``bench_greedy_rls.py``)
stay runnable on their own; the suite reuses their pieces.
"""
