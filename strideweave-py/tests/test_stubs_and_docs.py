"""The package's promises to editors and readers: the `.pyi` stubs name exactly the public
API that exists at run time, and every docstring example runs and prints what it says."""

import ast
import doctest
import inspect
import pathlib

import pytest

import strideweave
from strideweave import _numpy, _strideweave

PACKAGE = pathlib.Path(strideweave.__file__).parent


def stub_classes(path):
    tree = ast.parse(path.read_text())
    classes = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
            classes[node.name] = names
    return classes, tree


def test_stubs_match_the_native_module():
    classes, tree = stub_classes(PACKAGE / "_strideweave.pyi")
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    runtime_public = {n for n in dir(_strideweave) if not n.startswith("_")}
    stub_public = set(classes) | functions | {
        n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    assert runtime_public <= stub_public, runtime_public - stub_public
    for cls, names in classes.items():
        runtime = getattr(_strideweave, cls)
        public = {n for n in dir(runtime) if not n.startswith("_") and n not in dir(object)}
        if issubclass(runtime, BaseException):
            public -= set(dir(BaseException))
        assert public <= names | {"rule"}, (cls, public - names)
        for name in names:
            if name.startswith("__") or (name == "rule" and issubclass(runtime, BaseException)):
                continue  # protocols (iteration by __getitem__) and instance attributes
            assert hasattr(runtime, name), (cls, name)


def test_numpy_helper_stubs_match():
    tree = ast.parse((PACKAGE / "_numpy.pyi").read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert stubbed == {"numpy_dtype", "spec_of", "pack", "unpack"}
    for name in stubbed:
        assert callable(getattr(_numpy, name))


def doc_of(obj):
    return (obj.__doc__ if inspect.isclass(obj) else inspect.getdoc(obj)) or ""


def documented_objects():
    """Every public object (and member) whose docstring holds an example."""
    for name, obj in all_objects():
        if ">>>" in doc_of(obj):
            yield name, obj


# `eval` is public but left out of `__all__`: `from strideweave import *` must not
# replace Python's built-in `eval`.
PUBLIC = [*strideweave.__all__, "eval"]


def test_star_import_keeps_the_builtin_eval():
    assert "eval" not in strideweave.__all__
    scope = {}
    exec("from strideweave import *", scope)
    assert "eval" not in scope
    assert strideweave.eval("size(4:1)") == 4


def all_objects():
    yield "strideweave", strideweave
    for name in PUBLIC:
        obj = getattr(strideweave, name)
        if inspect.isclass(obj) or callable(obj):
            yield name, obj
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("__") and getattr(member, "__doc__", None):
                    yield f"{name}.{attr}", member


@pytest.mark.parametrize("name, obj", list(documented_objects()), ids=lambda x: x if isinstance(x, str) else "")
def test_docstring_examples_run(name, obj):
    doc = doc_of(obj)
    globs = {n: getattr(strideweave, n) for n in PUBLIC}
    test = doctest.DocTestParser().get_doctest(doc, globs, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} failing example(s)"


def test_examples_cover_the_main_entry_points():
    names = {n for n, _ in documented_objects()}
    for name in ["strideweave", "Shape", "Layout", "Tree", "Node", "TensorSpec", "prepare", "pack", "Layout.complement", "Layout.zipped_divide", "Layout.permute", "Swizzle", "ComposedLayout", "CoordLayout", "Tensor", "IdentityTensor", "local_tile", "local_partition", "copy", "copy_if", "fill", "zipped_divide"]:
        assert name in names, name


def test_public_classes_and_functions_have_docstrings():
    for name in PUBLIC:
        obj = getattr(strideweave, name)
        if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj):
            assert (obj.__doc__ or "").strip(), name


def test_the_user_guide_examples_run():
    """docs/python.md: every `>>>` example prints what the page says."""
    guide = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"
    if not guide.exists():
        pytest.skip("docs/python.md is not beside this checkout")
    failures, tried = doctest.testfile(str(guide), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert tried > 10 and failures == 0


@pytest.mark.parametrize("readme", ["README.md", "strideweave-py/README.md"])
def test_readme_python_examples_run(readme):
    path = pathlib.Path(__file__).resolve().parents[2] / readme
    if not path.exists():
        pytest.skip(f"{readme} is not beside this checkout")
    import re

    blocks = re.findall(r"```python\n(.*?)```", path.read_text(), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, readme, "exec"), {})


def test_version_is_the_crate_version():
    assert strideweave.__version__.count(".") == 2


def test_stubs_pass_mypy_stubtest():
    """mypy's stubtest compares the `.pyi` stubs with the runtime signatures."""
    pytest.importorskip("mypy")
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "strideweave._strideweave", "strideweave._numpy"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
