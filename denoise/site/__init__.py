"""Site-level template detectors: fit on a site's pages, label every block of each page."""

from denoise.site.base import REASONS, Label, LabeledPage, SiteMethod
from denoise.site.counts import MemoryCounts, SiteStore
from denoise.site.fingerprint import FingerprintMethod
from denoise.site.shingle import ShingleMethod
from denoise.site.style_offset import StyleOffsetMethod
from denoise.site.table_chunk import TableChunkMethod

#: The methods by command-line name.
METHODS: dict[str, type[SiteMethod]] = {
    FingerprintMethod.name: FingerprintMethod,
    TableChunkMethod.name: TableChunkMethod,
    ShingleMethod.name: ShingleMethod,
    StyleOffsetMethod.name: StyleOffsetMethod,
}

__all__ = [
    "METHODS",
    "REASONS",
    "FingerprintMethod",
    "Label",
    "LabeledPage",
    "MemoryCounts",
    "ShingleMethod",
    "SiteMethod",
    "SiteStore",
    "StyleOffsetMethod",
    "TableChunkMethod",
]
