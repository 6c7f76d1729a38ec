"""The examples in the package's docstrings run and print what they show."""
import doctest
import importlib
import pkgutil

import pytest

import gpualgo

MODULES = sorted(m.name for m in pkgutil.walk_packages(gpualgo.__path__, "gpualgo.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
