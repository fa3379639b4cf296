"""CIC: the Clustering Information Criterion and the greedy cluster-DAG search (Niu, Li, Li, IJCAI 2022)."""

from macrocause.framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .evaluate import DependenceCarried, ScoreGap
    from .exhaustive import CICExhaustive
    from .scorers import CIC
    from .search import CICGreedy

    for cls in (CIC, CICGreedy, CICExhaustive, DependenceCarried, ScoreGap):
        register(cls)


@hookimpl
def macrocause_register_data_sources(register):
    from .simulate import CICRandom, CICScenario, CICXor

    for cls in (CICScenario, CICXor, CICRandom):
        register(cls)
