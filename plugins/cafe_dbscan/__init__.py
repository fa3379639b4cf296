"""CAFE DBSCAN: density-based causal feature learning, the two-step CFL baseline, DS1-DS3 and image data."""

from macrocause.framework import hookimpl


@hookimpl
def macrocause_register_plugins(register):
    from .evaluators import EffectInformation
    from .partitioner import CafeDBSCAN
    from .two_step import CFLTwoStep

    register(CafeDBSCAN)
    register(CFLTwoStep)
    register(EffectInformation)


@hookimpl
def macrocause_register_data_sources(register):
    from .image_sets import CafeDigits, CafeShapes
    from .images import ImageFolder, TrafficLights
    from .simulate import CafeDS1, CafeDS2, CafeDS3

    for cls in (CafeDS1, CafeDS2, CafeDS3, ImageFolder, TrafficLights, CafeShapes, CafeDigits):
        register(cls)
