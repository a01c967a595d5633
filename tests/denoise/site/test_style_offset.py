"""Tests of the ``style-offset`` method (Chen, Ye & Li 2006) on small hand-written sites."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from denoise.blocks import PageBlocks
from denoise.page import Page
from denoise.site.base import REASON, Label, LabeledPage
from denoise.site.style_offset import (
    StyleOffsetMethod,
    _own_words,
    _signatures,
    offset_signature,
    overlap,
)

WORDS = (
    "river mountain valley forest garden harbor bridge castle market village "
    "winter summer autumn spring morning evening silver golden quiet bright "
    "ancient modern gentle stormy narrow distant hidden famous lonely crowded"
).split()

NAV = (
    '<div class="nav"><a href="/">Home</a> <a href="/news">News</a> '
    '<a href="/sport">Sport</a> <a href="/weather">Weather</a> <a href="/about">About us</a></div>'
)
FOOTER = '<div class="footer"><p>Copyright 2024 Example Corp. All rights reserved.</p></div>'


def article_text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def make_page(index: int, rng: random.Random) -> Page:
    title = article_text(rng, 5)
    body = article_text(rng, rng.randint(40, 80))
    html = (
        f"<html><head><title>{title}</title></head><body>{NAV}"
        f'<div class="article"><h1>{title}</h1><p>{body}</p></div>{FOOTER}</body></html>'
    )
    return Page(id=f"page-{index}.html", html=html, site="example.org")


def make_site(pages: int, seed: int = 7) -> list[PageBlocks]:
    rng = random.Random(seed)
    method = StyleOffsetMethod()
    return [method.segment(make_page(i, rng)) for i in range(pages)]


def blocks_holding(labeled: LabeledPage, needle: str) -> list[int]:
    """Blocks with own words whose text contains ``needle``, innermost first."""
    page = labeled.blocks
    own = {int(b) for b in page.chunk_block if b >= 0}
    return [b.index for b in page.blocks if needle in b.text and b.index in own]


def label_of(labeled: LabeledPage, needle: str) -> Label:
    found = blocks_holding(labeled, needle)
    assert len(found) == 1, found
    return Label(int(labeled.labels[found[0]]))


def test_nav_and_footer_are_template_articles_content():
    site = make_site(8)
    method = StyleOffsetMethod().fit(iter(site))  # an iterator is enough
    assert method.pages_ == 8
    for page in site:
        labeled = method.label(page)
        assert label_of(labeled, "Weather") == Label.TEMPLATE
        assert label_of(labeled, "Copyright") == Label.TEMPLATE
        article = page.blocks[blocks_holding(labeled, page.chunks[-2])[0]]  # the <p> body
        assert article.tag == "p"
        assert labeled.labels[article.index] == Label.CONTENT
        assert labeled.reasons[article.index] == REASON["few-template-words"]
        heading = next(b for b in page.blocks if b.tag == "h1")
        assert labeled.labels[heading.index] == Label.CONTENT
        nav = blocks_holding(labeled, "Weather")[0]
        assert labeled.reasons[nav] == REASON["offset"]
        assert labeled.support[nav] == pytest.approx(1.0)
        assert labeled.support.dtype == np.float32
        # Blocks without own words (body, the footer and article <div>) are unknown.
        for block in page.blocks:
            if block.tag in ("body",) or block.attrs in ("class=footer", "class=article"):
                assert labeled.labels[block.index] == Label.UNKNOWN
                assert labeled.reasons[block.index] == REASON["short"]
        assert np.array_equal(labeled.example, labeled.labels != Label.UNKNOWN)
        template, total = labeled.template_share()
        assert 0 < template < total


def test_fewer_pages_than_min_blocks_finds_no_template():
    site = make_site(4)
    method = StyleOffsetMethod().fit(site)
    for page in site:
        labels = method.label(page).labels
        assert not (labels == Label.TEMPLATE).any()
        assert (labels == Label.CONTENT).any()


def test_new_page_of_the_site_gets_its_template():
    site = make_site(9, seed=3)
    method = StyleOffsetMethod().fit(site[:8])
    labeled = method.label(site[8])
    assert label_of(labeled, "Weather") == Label.TEMPLATE
    assert label_of(labeled, "Copyright") == Label.TEMPLATE
    assert not any(labeled.labels[b] == Label.TEMPLATE
                   for b in blocks_holding(labeled, site[8].chunks[-2]))


def test_same_words_elsewhere_are_not_template():
    """The nav words in another style cluster (a sidebar) are not template there."""
    site = make_site(8)
    method = StyleOffsetMethod().fit(site)
    html = site[0].page.html.replace(
        '<div class="article">', f'<div class="article"><div class="side">{NAV[17:-6]}</div>')
    labeled = method.label(method.segment(Page(id="other.html", html=html)))
    side = next(b for b in labeled.blocks.blocks if b.attrs == "class=side")
    assert labeled.labels[side.index] == Label.CONTENT


def test_duplicate_page_ids_count_once():
    site = make_site(4)
    method = StyleOffsetMethod().fit(site + site)
    assert method.pages_ == 4
    assert not any((method.label(p).labels == Label.TEMPLATE).any() for p in site)


def test_changed_nav_link_order_breaks_offsets():
    """A nav whose words moved is no longer similar, so not template."""
    site = make_site(8)
    method = StyleOffsetMethod().fit(site)
    html = site[0].page.html.replace(
        '<a href="/">Home</a> <a href="/news">News</a>',
        '<a href="/news">News</a> <a href="/">Home</a> <a href="/x">Extra links here</a>')
    labeled = method.label(method.segment(Page(id="moved.html", html=html)))
    assert label_of(labeled, "Weather") == Label.CONTENT


def test_offset_signature_bits():
    # Positions 3, 40, 41: offsets 3, 37, 1 -> segments 0, 1, 2; 37 % 32 = 5.
    assert offset_signature([3, 40, 41]).tolist() == [1 << 3, 1 << 5, 1 << 1, 0]
    # Five offsets: segments of 2, 1, 1, 1; bits merge within a segment.
    signature = offset_signature([0, 2, 3, 35, 36])
    assert signature.dtype == np.uint32
    assert signature.tolist() == [(1 << 0) | (1 << 2), 1 << 1, 1 << 0, 1 << 1]
    # Eight offsets (31, 1, 31, 1, ...): two per segment; bit 31 is usable.
    assert offset_signature([31, 32, 63, 64, 95, 96, 127, 128]).tolist() == [
        (1 << 31) | (1 << 1)] * 4


def test_page_signatures_match_the_reference():
    page = make_site(1)[0]
    words, blocks, positions = _own_words(page)
    vocabulary: dict[str, int] = {}
    ids = np.array([vocabulary.setdefault(w, len(vocabulary)) for w in words], dtype=np.int64)
    item_block, item_word, sigs = _signatures(blocks, ids, positions, len(vocabulary))
    names = {i: w for w, i in vocabulary.items()}
    for block, word, signature in zip(item_block, item_word, sigs, strict=True):
        own = [p for p, b, w in zip(positions, blocks, ids, strict=True)
               if b == block and w == word]
        assert signature.tolist() == offset_signature(own).tolist(), names[int(word)]


def test_overlap_threshold():
    a = np.array([0b11111, 0, 0, 0], dtype=np.uint32)  # 5 bits
    four_of_five = np.array([0b01111, 0, 0, 0], dtype=np.uint32)
    three_of_five = np.array([0b00111, 0, 0, 0], dtype=np.uint32)
    assert overlap(a, a) == 1.0
    assert overlap(a, four_of_five) == pytest.approx(0.8)
    assert overlap(four_of_five, a) == pytest.approx(0.8)  # symmetric
    assert overlap(a, three_of_five) == pytest.approx(0.6)
    assert overlap(a, np.array([0, 0b11111, 0, 0], dtype=np.uint32)) == 0.0  # other segment


def test_similarity_threshold_in_clustering():
    """Two pages whose nav differs by one offset bit in five still cluster at 0.8, not 0.9."""
    base = "<html><body><div class='nav'>{}</div><p>{}</p></body></html>"
    nav = " ".join(["go"] * 8)  # offsets 0,1,1,1,1,1,1,1: bits {0,1}, {1}, {1}, {1}
    moved = "x " + " ".join(["go"] * 8)  # first offset 1: bits {1}, {1}, {1}, {1}
    pages = [StyleOffsetMethod().segment(Page(id=f"{i}", html=base.format(n, f"unique{i}")))
             for i, n in enumerate([nav, moved])]
    # 'go': popcounts 5 and 4, overlap 4/5 = 0.8.
    loose = StyleOffsetMethod(min_blocks=2, min_df=1, similarity=0.8).fit(pages)
    strict = StyleOffsetMethod(min_blocks=2, min_df=1, similarity=0.9).fit(pages)
    nav_block = next(b.index for b in pages[0].blocks if b.attrs == "class=nav")
    assert loose.label(pages[0]).labels[nav_block] == Label.TEMPLATE
    assert strict.label(pages[0]).labels[nav_block] == Label.CONTENT


def test_label_before_fit_raises():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match="fit"):
        StyleOffsetMethod().label(make_site(1)[0])


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("min_blocks", 0),
        ("min_blocks", 2.5),
        ("similarity", 0.0),
        ("similarity", 1.5),
        ("template_ratio", -0.1),
        ("early_exit", 0.0),
        ("min_df", 0),
        ("max_clusters", 0),
    ],
)
def test_invalid_parameters(name, value):
    with pytest.raises(ValueError, match=name):
        StyleOffsetMethod(**{name: value}).fit([])


def test_empty_fit_labels_content():
    method = StyleOffsetMethod().fit([])
    assert method.pages_ == 0
    labels = method.label(make_site(1)[0]).labels
    assert not (labels == Label.TEMPLATE).any()
    assert (labels == Label.CONTENT).any()


def test_max_clusters_reuses_single_block_clusters():
    """With one cluster per (BSC, word), the template still forms from later pages."""
    site = make_site(8)
    method = StyleOffsetMethod(max_clusters=1).fit(site)
    assert label_of(method.label(site[0]), "Weather") == Label.TEMPLATE


def reference_labels(pages: list[PageBlocks], method: StyleOffsetMethod) -> list[np.ndarray]:
    """The paper's procedure written plainly: position tuples, a list of clusters per
    (BSC, word), and the word-by-word check with its early exit."""

    def units(page: PageBlocks) -> list[tuple[tuple, dict[str, list[int]]]]:
        position: list[tuple[int, ...]] = []
        ranks: dict[int, int] = {}
        for block in page.blocks:
            ranks[block.parent] = ranks.get(block.parent, 0) + 1
            up = position[block.parent] if block.parent >= 0 else ()
            position.append((*up, ranks[block.parent]))
        words: list[list[str]] = [[] for _ in page.blocks]
        for chunk, block in zip(page.chunks, page.chunk_block.tolist(), strict=True):
            if block >= 0:
                words[block].extend(re.findall(r"\w+", chunk.lower()))
        result = []
        for block in page.blocks:
            occurrences: dict[str, list[int]] = {}
            for at, word in enumerate(words[block.index]):
                occurrences.setdefault(word, []).append(at)
            result.append(((position[block.index], block.attrs), occurrences))
        return result

    def first_similar(found: list[list], signature: np.ndarray) -> list | None:
        return next((c for c in found if overlap(c[0], signature) >= method.similarity - 1e-9),
                    None)

    clusters: dict[tuple, list[list]] = {}
    df: dict[str, int] = {}
    for page in pages:
        seen_words: set[str] = set()
        for style, occurrences in units(page):
            for word, at in occurrences.items():
                seen_words.add(word)
                signature = offset_signature(at)
                found = clusters.setdefault((style, word), [])
                cluster = first_similar(found, signature)
                if cluster is None:
                    found.append([signature, {page.page.id}])
                else:
                    cluster[1].add(page.page.id)
        for word in seen_words:
            df[word] = df.get(word, 0) + 1
    results = []
    for page in pages:
        labels = []
        for style, occurrences in units(page):
            if not occurrences:
                labels.append(Label.UNKNOWN)
                continue
            template = non_template = 0
            exited = False
            for word, at in occurrences.items():
                cluster = first_similar(clusters.get((style, word), []), offset_signature(at))
                if (df[word] >= method.min_df and cluster is not None
                        and len(cluster[1]) >= method.min_blocks):
                    template += 1
                else:
                    non_template += 1
                    if non_template > method.early_exit * len(occurrences):
                        exited = True  # content: no need to check the rest
                        break
            ratio = template / len(occurrences)
            is_template = not exited and ratio >= method.template_ratio - 1e-9
            labels.append(Label.TEMPLATE if is_template else Label.CONTENT)
        results.append(np.array(labels, dtype=np.int8))
    return results


def varied_site(pages: int, seed: int) -> list[PageBlocks]:
    """Pages whose navigation, related links and footers vary, so ratios spread out."""
    rng = random.Random(seed)
    sections = ["Home", "News", "Sport", "Weather", "Travel", "Money", "Culture", "Science"]
    headlines = [article_text(random.Random(i), 6) for i in range(6)]
    method = StyleOffsetMethod()
    site = []
    for index in range(pages):
        nav = " ".join(f"<a>{s}</a>" for s in sections if rng.random() < 0.9)
        related = "".join(f"<li>{h}</li>" for h in rng.sample(headlines, 3))
        extra = "<p>Breaking news alert</p>" if rng.random() < 0.5 else ""
        body = " ".join(f"<p>{article_text(rng, rng.randint(5, 40))}</p>" for _ in range(3))
        html = (f"<html><body><div class='nav'>{nav}</div>{extra}<div class='main'>{body}"
                f"<ul class='related'>{related}</ul></div>"
                f"<div class='footer'>Copyright 2024 {rng.choice(sections)} desk</div>"
                "</body></html>")
        site.append(method.segment(Page(id=f"{index}.html", html=html)))
    return site


@pytest.mark.slow
@pytest.mark.parametrize(
    "params",
    [{}, {"min_blocks": 3, "min_df": 1}, {"template_ratio": 0.6, "early_exit": 0.4},
     {"similarity": 0.5, "early_exit": 0.1}],
)
def test_matches_the_plain_procedure(params):
    site = varied_site(30, seed=11)
    method = StyleOffsetMethod(**params).fit(site)
    expected = reference_labels(site, method)
    labels = [method.label(page).labels for page in site]
    assert sum(int((lab == Label.TEMPLATE).sum()) for lab in labels) > 0
    assert sum(int((lab == Label.CONTENT).sum()) for lab in labels) > 0
    for page, got, want in zip(site, labels, expected, strict=True):
        assert got.tolist() == want.tolist(), page.page.id
