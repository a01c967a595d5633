"""label_sites: a site's pages are held only as long as its statistics need them."""

from dataclasses import replace

import pytest
from sitegen import generated_site

from denoise.site import METHODS, FingerprintMethod
from engine.sites import label_sites


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
    two = signature(label_sites(sites(), lambda _: FingerprintMethod(), grouped=True, jobs=2))
    assert two == one


def test_sites_whose_methods_segment_otherwise_are_refused():
    """Pages are segmented before their site's method is asked (on workers too), so a
    site whose method cuts pages otherwise would be labelled on the wrong blocks."""
    def method_for(site):
        return FingerprintMethod() if site == sites()[0].site else METHODS["shingle"]()

    with pytest.raises(ValueError, match="segments pages otherwise"):
        list(label_sites(sites(), method_for))


def test_a_page_a_worker_cannot_parse_goes_to_on_error():
    from denoise.page import Page

    pages = [*sites()[:3], Page(id="empty.html", html="", site=sites()[0].site)]
    errors = []
    labelled = list(label_sites(pages, lambda _: FingerprintMethod(), jobs=2,
                                on_error=errors.append))
    assert len(labelled) == 3
    assert [e.source for e in errors] == ["empty.html"]


def interleaved_sites():
    first, second = generated_site(1, 6), generated_site(2, 5)
    mixed = [page for pair in zip(first, second, strict=False) for page in pair]
    return mixed + first[len(second):]


@pytest.mark.parametrize("make", [
    lambda: FingerprintMethod(),
    lambda: FingerprintMethod(structure=True, contained=0.85),
    *[lambda name=name: METHODS[name]() for name in ("table-chunk", "shingle", "style-offset")],
])
@pytest.mark.parametrize("hold_bytes", [0, 10_000])  # all spilled; the first few held
def test_pages_spilled_to_disk_get_the_same_labels_as_held_ones(make, hold_bytes):
    """The same ``--out`` lines and per-site reports, every page held or some spilled."""
    from commands.denoise import _block_lines
    from denoise.site.batch import SiteReport

    def output(labelled):
        lines, reports = [], {}
        for page in labelled:
            lines.append(_block_lines(page, type(make())))
            reports.setdefault(page.page.site, SiteReport(page.page.site)).add(page)
        return lines, [report.as_dict() for report in reports.values()]

    held = output(label_sites(interleaved_sites(), lambda _: make()))
    spilled = output(label_sites(interleaved_sites(), lambda _: make(), hold_bytes=hold_bytes))
    assert spilled == held
    assert len(held[0]) == 11 and all(held[0])


@pytest.mark.parametrize("hold_bytes", [0, 10_000])  # all spilled; the first few held
def test_a_spilled_page_is_read_back_whole_once_when_fit_needs_only_its_keys(monkeypatch,
                                                                           hold_bytes):
    from denoise.site.spill import Spill

    read, keys_read = [], []
    pages, keys = Spill.read, Spill.read_keys
    monkeypatch.setattr(Spill, "read", lambda self, offsets: (
        read.append((page.page.site, page.page.id)) or page for page in pages(self, offsets)))
    monkeypatch.setattr(Spill, "read_keys", lambda self, offsets: (
        keys_read.append(key) or (key, digests) for key, digests in keys(self, offsets)))
    labelled = list(label_sites(interleaved_sites(), lambda _: FingerprintMethod(),
                                hold_bytes=hold_bytes))
    assert len(labelled) == 11
    assert 0 < len(read) < 11 if hold_bytes else len(read) == 11
    assert len(read) == len(set(read)) == len(keys_read)  # each spilled page once, and its keys
    assert sorted(id for _, id in read) == sorted(key.rpartition("#")[0] for key in keys_read)
    read.clear()
    list(label_sites(interleaved_sites(), lambda _: FingerprintMethod(structure=True),
                     hold_bytes=hold_bytes))
    assert len(read) == 3 * len(set(read))  # its fit reads the whole pages, twice


@pytest.mark.parametrize("hold_bytes", [0, 10**9])
def test_each_page_is_keyed_once_held_or_spilled(monkeypatch, hold_bytes):
    """Fit and label read a page's text keys from its notes, made when it was segmented
    and carried through the spill file, rather than making them again."""
    from denoise.site import fingerprint

    made = []
    keys = fingerprint.text_keys
    monkeypatch.setattr(fingerprint, "text_keys", lambda page, *a: made.append(1) or keys(page, *a))
    labelled = list(label_sites(interleaved_sites(), lambda _: FingerprintMethod(),
                                hold_bytes=hold_bytes))
    assert len(labelled) == len(made) == 11


def test_the_spill_folder_is_removed_when_the_run_ends_or_stops(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    labelled = label_sites(interleaved_sites(), lambda _: FingerprintMethod(), hold_bytes=0)
    next(labelled)
    assert [p.name for p in tmp_path.iterdir()]  # pages are waiting on disk
    labelled.close()  # a consumer that stops early
    assert not list(tmp_path.iterdir())
    assert len(list(label_sites(interleaved_sites(), lambda _: FingerprintMethod(),
                                hold_bytes=0))) == 11
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(("hold_bytes", "held"), [(0, False), (10**9, True)])
def test_spilled_pages_are_not_kept_alive_between_fit_and_label(hold_bytes, held):
    import gc

    from denoise.blocks import PageBlocks

    alive = []

    class Counting(FingerprintMethod):
        def label(self, page):
            gc.collect()
            alive.append(sum(isinstance(o, PageBlocks) and o.page.site == "spill.example"
                             for o in gc.get_objects()))  # this run's pages only
            return super().label(page)

    pages = [replace(page, site="spill.example") for page in generated_site(1, 12)]
    labelled = label_sites(pages, lambda _: Counting(), hold_bytes=hold_bytes)
    assert sum(1 for _ in labelled) == 12
    # the page being labelled, the one before it, and the one the reader is on
    assert (max(alive) >= 12) if held else (max(alive) <= 3)


def test_a_labelled_site_lets_its_statistics_go():
    import gc
    import weakref

    made = {}

    def method_for(site):
        method = made.setdefault(site, [])
        fresh = FingerprintMethod()
        method.append(weakref.ref(fresh))
        return fresh

    labelled = label_sites(interleaved_sites(), method_for)  # all sites end with the input
    first = next(labelled).page.site
    for page in labelled:
        if page.page.site != first:
            break
    gc.collect()
    assert [ref() for ref in made[first]] == [None]  # its counts are gone
    assert any(ref() is not None for site, refs in made.items() if site != first
               for ref in refs)


def test_interleaved_sites_are_counted_one_at_a_time_after_the_input():
    """Counting each page as it comes would hold every unfinished site's counts at once,
    which grow with the input; a site is fitted once complete, the last one let go."""
    import gc
    import weakref

    pages = interleaved_sites()
    read, fitted = [], []

    class Watched(FingerprintMethod):
        def fit(self, site_pages):
            gc.collect()
            alive = [ref for ref in fitted if ref() is not None]
            fitted.append(weakref.ref(self))
            assert len(read) == len(pages)  # every page read before any site is counted
            assert not alive  # the site before this one has let its counts go
            return super().fit(site_pages)

    labelled = label_sites(pages, lambda _: Watched(), on_page=read.append)
    assert len(list(labelled)) == len(pages)
    assert len(fitted) == 2


@pytest.mark.parametrize("make", [
    lambda: FingerprintMethod(),
    lambda: FingerprintMethod(contained=0.85, theta=0.3),
    lambda: FingerprintMethod(structure=True),
    lambda: METHODS["shingle"](),
])
@pytest.mark.parametrize("hold_bytes", [0, 10_000, 10**9])
def test_a_report_alone_gets_the_same_labels_from_pages_without_their_text(make, hold_bytes):
    """``text=False`` (``denoise site`` with no --out): a method that fits from keys
    labels pages reduced to their text shares, held or spilled, and every label and
    site report is as with whole pages; another method keeps whole pages."""
    from denoise.site.batch import SiteReport

    def labels_and_reports(labelled):
        labels, reports = [], {}
        for page in labelled:
            labels.append((page.page.id, page.labels.tolist(), page.reasons.tolist(),
                           page.support.tolist(), page.example.tolist(), page.blocks.text))
            reports.setdefault(page.page.site, SiteReport(page.page.site)).add(page)
        return labels, [report.as_dict() for report in reports.values()]

    whole = labels_and_reports(label_sites(interleaved_sites(), lambda _: make()))
    labels, reports = labels_and_reports(label_sites(
        interleaved_sites(), lambda _: make(), hold_bytes=hold_bytes, text=False))
    assert reports == whole[1]
    keyed = make().name == "fingerprint" and not make().structure
    assert [label[:5] for label in labels] == [label[:5] for label in whole[0]]
    assert all((text == "") == keyed for *_, text in labels)
    assert all(text for *_, text in whole[0])


def test_a_method_whose_segmenter_takes_no_options_labels_whole_pages():
    """``shares_only`` is asked for only when a report alone is wanted: a site method
    written before it (``segmenter(self)``) labels as before."""

    class Plain(FingerprintMethod):
        def segmenter(self):
            return super().segmenter()

    want = signature(label_sites(sites(), lambda _: FingerprintMethod()))
    assert signature(label_sites(sites(), lambda _: Plain())) == want


def test_one_process_labelling_readies_only_its_own_process(monkeypatch):
    # with --jobs 1 the pages are segmented here: a command's own process, like a
    # worker, gets the batch set-up (a frozen heap, one BLAS thread); a library caller's
    # process does not
    from engine import sites as batch

    readied = []
    monkeypatch.setattr(batch, "ready_for_pages", lambda: readied.append(True))
    next(label_sites(sites(), lambda _: FingerprintMethod(), jobs=1))
    assert readied == []
    next(label_sites(sites(), lambda _: FingerprintMethod(), jobs=1, own_process=True))
    assert readied == [True]
