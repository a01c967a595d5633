"""label_sites: a site's pages are held only as long as its statistics need them."""

import pytest
from sitegen import generated_site

from denoise.site import FingerprintMethod
from denoise.site.batch import label_sites


def sites():
    return generated_site(1, 6) + generated_site(2, 5)


def signature(labelled):
    return [(p.page.id, p.labels.tolist()) for p in labelled]


def test_grouped_input_gives_the_same_labels_site_by_site():
    held = signature(label_sites(sites(), lambda _: FingerprintMethod()))
    grouped = signature(label_sites(sites(), lambda _: FingerprintMethod(), grouped=True))
    assert grouped == held
    assert len(held) == 11


def test_grouped_input_releases_a_site_before_reading_the_next():
    pages = sites()
    first_site = pages[0].site
    events = []

    def reading():
        for page in pages:
            events.append(("read", page.site))
            yield page

    for labelled in label_sites(reading(), lambda _: FingerprintMethod(), grouped=True):
        events.append(("labelled", labelled.page.site))
    reads_of_second = [i for i, e in enumerate(events) if e == ("read", pages[-1].site)]
    # every page of the first site is labelled before the second site is read past its
    # first page (the page that tells the first site is complete)
    labelled_first = [i for i, e in enumerate(events) if e == ("labelled", first_site)]
    assert len(labelled_first) == 6
    assert reads_of_second[0] < min(labelled_first)
    assert max(labelled_first) < reads_of_second[1]


def test_a_site_that_comes_back_is_refused_when_grouped():
    pages = sites()
    interleaved = pages[:3] + pages[6:] + pages[3:6]
    with pytest.raises(ValueError, match="not grouped by site"):
        list(label_sites(interleaved, lambda _: FingerprintMethod(), grouped=True))
    # without the promise, the same input is labelled whole
    assert len(list(label_sites(interleaved, lambda _: FingerprintMethod()))) == 11


def test_worker_processes_segment_and_the_labels_are_the_same():
    one = signature(label_sites(sites(), lambda _: FingerprintMethod(), grouped=True))
    two = signature(label_sites(sites(), lambda _: FingerprintMethod(), grouped=True, jobs=2,
                                scheme=FingerprintMethod.scheme))
    assert two == one
    with pytest.raises(ValueError, match="scheme"):
        list(label_sites(sites(), lambda _: FingerprintMethod(), jobs=2))


def test_a_page_a_worker_cannot_parse_goes_to_on_error():
    from denoise.page import Page

    pages = [*sites()[:3], Page(id="empty.html", html="", site=sites()[0].site)]
    errors = []
    labelled = list(label_sites(pages, lambda _: FingerprintMethod(), jobs=2,
                                scheme=FingerprintMethod.scheme, on_error=errors.append))
    assert len(labelled) == 3
    assert [e.source for e in errors] == ["empty.html"]
