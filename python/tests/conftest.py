"""pytest configuration: GPU tests are marked `gpu` and skipped where no device is present.

The host tests (everything not marked) run on any machine and are part of CI through CTest
(test_python). On the GPU machine the same command runs both kinds."""

import pytest

import ndcuda


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device")


def pytest_collection_modifyitems(config, items):
    if ndcuda.is_available():
        return
    skip = pytest.mark.skip(reason="no CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
