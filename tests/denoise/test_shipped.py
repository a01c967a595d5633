"""The shipped models: one folder, every file in its manifest with a matching digest."""

from __future__ import annotations

import hashlib

from denoise.shipped import MODELS, manifest, shipped


def test_every_shipped_file_is_in_the_manifest_with_its_digest_and_rebuild_command():
    entries = manifest()
    files = {path.name for path in MODELS.glob("*.npz")}
    assert files == set(entries)
    for name, entry in entries.items():
        assert {"what", "trained_on", "rebuild", "sha256"} <= set(entry), name
        digest = hashlib.sha256(shipped(name).read_bytes()).hexdigest()
        assert digest == entry["sha256"], f"{name} changed: update the manifest"


def test_runtime_finds_its_models_in_the_one_folder():
    from denoise.detector import repetition_model_path
    from denoise.main_content import listing_model_path, main_content_model_path
    from denoise.model import default_model_path

    assert default_model_path().parent == main_content_model_path().parent == MODELS
    assert repetition_model_path().parent == listing_model_path().parent == MODELS
    assert repetition_model_path().exists() and listing_model_path().exists()


def test_each_mode_names_the_models_it_reads_so_sketches_of_others_are_refused():
    from denoise.cleaning import PAGE_RECALL, models_used
    from denoise.detector import repetition_model_path
    from denoise.main_content import listing_model_path, main_content_model_path
    from denoise.model import default_model_path

    def digest(*paths):
        return hashlib.sha256(b"".join(path.read_bytes() for path in paths)).hexdigest()[:16]

    main = (repetition_model_path(), main_content_model_path(), listing_model_path())
    assert models_used("main") == f"sha256:{digest(*main)}"
    assert models_used("page") == f"sha256:{digest(default_model_path())} at recall {PAGE_RECALL}"
    assert models_used("none") is None
