"""The kernels a second process compiles ahead of the dense generalized-alpha entry point
(lgbench/runner/compile_plan.py) are compiled for the very signatures the entry point calls them with."""
import inspect

import pytest
from numba.core.registry import CPUDispatcher

from lgbench.runner.compile_plan import ITERATION_MATRIX_KERNELS, argument_types, cached_signatures, signature
from lgbench.runner.single_run import RunSpec

SPEC = RunSpec("heavy_top", "RV", "generalized-alpha", 1e-3, 1e-3)


@pytest.fixture(scope="module")
def vocabulary():
    return argument_types(SPEC)


@pytest.mark.parametrize("kernel", ITERATION_MATRIX_KERNELS, ids=lambda kernel: kernel.name)
def test_every_planned_kernel_is_a_compiled_kernel_with_one_type_per_parameter(kernel, vocabulary):
    dispatcher = kernel.dispatcher()
    assert isinstance(dispatcher, CPUDispatcher)
    words = kernel.arguments.split()
    assert set(words) <= set(vocabulary), f"unknown words {set(words) - set(vocabulary)}"
    assert len(words) == len(inspect.signature(dispatcher.py_func).parameters)


def test_the_vocabulary_does_not_depend_on_the_model(vocabulary):
    other = argument_types(RunSpec("slider_crank", "EP", "generalized-alpha", 1e-3, 1e-3))
    assert other == vocabulary


@pytest.mark.parametrize("kernel", ITERATION_MATRIX_KERNELS, ids=lambda kernel: kernel.name)
def test_the_entry_point_compiled_no_other_signature_than_the_planned_one(kernel, vocabulary):
    """After `lgbench compile` (the first step of `make test`) the kernel's cache index holds the planned
    signature and no other: a second one would be the entry point's own, the plan stale."""
    found = cached_signatures(kernel)
    if not found:
        pytest.skip("the compile cache holds no code of these sources yet (make test compiles it first)")
    words = {value: word for word, value in vocabulary.items()}
    spelled = [" ".join(words.get(t, str(t)) for t in sig) for sig in found]
    assert found == [signature(kernel, vocabulary)], (
        f"{kernel.label} is compiled for {spelled}; set its arguments in ITERATION_MATRIX_KERNELS to the "
        f"signature integrate_implicit calls it with")


def test_an_entry_that_no_longer_fits_its_kernel_is_skipped_never_a_failed_compile():
    from lgbench.runner.compile_plan import PlannedKernel, compile_planned_kernels

    stale = (PlannedKernel("lgbench.mbs.dense", "lu_solve", "bool bool bool"),
             PlannedKernel("lgbench.mbs.dense", "no_such_kernel", "vector"),
             PlannedKernel("lgbench.mbs.dense", "lu_solve", "matrix index_vector no_such_word"),
             PlannedKernel("lgbench.mbs.dense", "lu_solve", "matrix index_vector vector"))
    assert compile_planned_kernels(SPEC, stale) == 1
