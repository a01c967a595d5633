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
