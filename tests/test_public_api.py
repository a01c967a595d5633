import denoise
import denoise.site
import kwx
import mining


def isort_key(name: str) -> tuple[int, str]:
    """Constants, then classes, then functions: the order ruff keeps ``__all__`` in."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_public_names_are_exported_sorted_and_importable():
    for package in (denoise, denoise.site, kwx, mining):
        assert package.__all__ == sorted(package.__all__, key=isort_key)
        for name in package.__all__:
            assert getattr(package, name) is not None, name


def test_every_error_the_toolkit_raises_on_purpose_is_in_denoise_errors():
    # one tree: an exception class defined anywhere else in the runtime packages is a
    # second home for errors
    import ast
    from pathlib import Path

    import denoise.errors

    root = Path(denoise.__file__).resolve().parents[1]
    elsewhere = []
    for package in ("denoise", "kwx", "mining", "engine", "commands"):
        for path in (root / package).rglob("*.py"):
            if path == Path(denoise.errors.__file__).resolve():
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and any(
                        getattr(base, "id", "").endswith(("Error", "Exception"))
                        for base in node.bases) and not node.name.startswith("_"):
                    elsewhere.append(f"{path.relative_to(root)}: {node.name}")
    assert elsewhere == []
    for name in denoise.errors.__all__:
        assert getattr(denoise, name, None) is getattr(denoise.errors, name) or name == (
            "not_fitted")


def test_unfitted_estimators_raise_scikit_learns_not_fitted_error(tmp_path):
    import numpy as np
    import pytest
    from sklearn.exceptions import NotFittedError

    from denoise.model import TemplateModel
    from denoise.site import FingerprintMethod
    from kwx.ranker import KeywordRanker
    from mining.classify import PageClassifier

    for call in (lambda: KeywordRanker().predict_proba(np.zeros((1, 3))),
                 lambda: PageClassifier().predict(["a text"]),
                 lambda: TemplateModel().save(tmp_path / "never.npz"),
                 lambda: FingerprintMethod().label(None)):
        with pytest.raises(NotFittedError, match="not fitted yet"):
            call()
