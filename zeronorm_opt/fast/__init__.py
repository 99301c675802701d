"""Solver-specific fast paths, each checked against its declarative formulation.

Import each from its module (``zeronorm_opt.fast.highs_lp``, ``zeronorm_opt.fast.greedy_rls``
…): the package imports none of them, so a light one (greedy RLS, ISTA, the alignment updates)
does not load cvxpy and HiGHS with it.
"""
