"""Restamping the main-content model: its parameters change, its arrays do not."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from corpora.train_main_content import PARAMS, restamp
from denoise.arrayfile import read_arrays, write_arrays
from denoise.detector import repetition_model_path
from denoise.main_content import MainContentExtractor, main_content_model_path
from denoise.model import FORMAT_KIND, FORMAT_VERSION


def test_a_restamped_model_carries_todays_parameters_and_its_own_arrays(tmp_path):
    path = tmp_path / "main_content.npz"
    header, arrays = read_arrays(main_content_model_path(), FORMAT_KIND, FORMAT_VERSION,
                                 what="model", rebuild="")
    old = {**PARAMS, "lead": not PARAMS["lead"], "short": 150}
    write_arrays(path, {**header, "main_content": old}, arrays)
    assert MainContentExtractor.load(content=path).short == 150
    restamp(path)
    again, kept = read_arrays(path, FORMAT_KIND, FORMAT_VERSION, what="model", rebuild="")
    assert json.loads(json.dumps(again["main_content"])) == PARAMS
    assert {k: v for k, v in again.items() if k != "main_content"} == {
        k: v for k, v in header.items() if k != "main_content"}
    assert kept.keys() == arrays.keys()
    assert all(np.array_equal(kept[k], arrays[k]) for k in arrays)
    extractor = MainContentExtractor.load(content=path)
    assert extractor.lead == PARAMS["lead"] and extractor.short == PARAMS["short"]


def test_only_a_main_content_model_is_restamped(tmp_path):
    path = tmp_path / "template.npz"
    shutil.copy(repetition_model_path(), path)
    before = path.read_bytes()
    with pytest.raises(SystemExit, match="not a main-content model"):
        restamp(path)
    assert path.read_bytes() == before
