"""Pages fetched from the web: ``http://`` and ``https://`` inputs (issue 30).

:class:`Fetcher` gets a URL's page with urllib3 (the HTTP client under requests and pip)
and hands its bytes to the same decoding and bad-input rules as a file
(:func:`denoise.decode.decode_html`): a page it cannot use is a :class:`Skipped` naming the
URL and the reason, never an exception that stops a batch.

Choices, and why:

- **Not a way into the network it runs on.** A service that fetches what its callers
  name can be pointed at ``http://127.0.0.1:8080/admin`` or a cloud's metadata address.
  Every host is resolved here and every address it resolves to must be public (not
  loopback, private, link-local, multicast, reserved or unspecified), and the
  connection goes to the address that was checked (so a second DNS answer cannot swap
  it), the TLS certificate still checked against the host's name. Redirects are
  followed here, one at a time, each checked the same way. ``allow_private`` lifts the
  rule, for crawling an intranet on purpose (and for tests on a local server).
- **Bounded**: connect and read timeouts, at most :data:`MAX_REDIRECTS` redirects, and
  the body read up to ``max_bytes`` (a larger page is skipped, as a larger file is).
- **Polite and patient**: a user agent that names the toolkit, and at least
  ``delay`` seconds between two requests to one host; a connection error, a 429 or a
  5xx is tried again up to ``retries`` times, after 1, 2, 4... seconds (or the
  server's ``Retry-After``, up to :data:`MAX_RETRY_AFTER`).
- Only HTML: a response whose ``Content-Type`` names another type (an image, a PDF) is
  skipped; one without a type is read as HTML if it decodes as such.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from denoise.decode import DEFAULT_MAX_BYTES, decode_html
from denoise.errors import PageError
from denoise.page import Page, site_of
from denoise.reader import Skipped, is_url

__all__ = ["USER_AGENT", "Fetcher", "is_url"]

USER_AGENT = "webdenoise/0.1 (web-mining toolkit; +https://pypi.org/project/webdenoise/)"
MAX_REDIRECTS = 5
MAX_RETRY_AFTER = 60.0
_RETRY_STATUS = {429, 500, 502, 503, 504}
_HTML_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/xml",
               "text/xml")
_CHUNK = 64 << 10


class _Refused(Exception):
    """A URL not fetched, with the reason a :class:`Skipped` says."""


@dataclass
class Fetcher:
    """Fetches pages, one URL at a time (see the module notes).

    Parameters
    ----------
    timeout : seconds to connect, and seconds between two reads.
    max_bytes : the largest body read; a larger page is skipped.
    retries : attempts after the first on a connection error, 429 or 5xx.
    delay : least seconds between two requests to one host.
    allow_private : fetch loopback, private and link-local addresses too.
    """

    timeout: float = 10.0
    max_bytes: int = DEFAULT_MAX_BYTES
    retries: int = 2
    delay: float = 1.0
    allow_private: bool = False
    user_agent: str = USER_AGENT
    _last: dict[str, float] = field(default_factory=dict, repr=False)

    def page(self, url: str, site: str | None = None) -> Page | Skipped:
        """The page at ``url`` (its id and URL the address asked for; ``site`` as
        :func:`denoise.reader.read_pages` gives it), or why it could not be used."""
        try:
            final, body, charset = self._get(url)
            html = decode_html(body, url, header_charset=charset, max_bytes=self.max_bytes)
        except _Refused as error:
            return Skipped(url, str(error))
        except PageError as error:
            return Skipped(url, error.reason)
        return Page(id=url, html=html, url=final, site=site or site_of(final))

    # -- one request after another -------------------------------------------------
    def _get(self, url: str) -> tuple[str, bytes, str | None]:
        """The final URL, body and declared charset, redirects followed."""
        for _ in range(MAX_REDIRECTS + 1):
            status, headers, body = self._request(url)
            if status in (301, 302, 303, 307, 308) and headers.get("location"):
                url = urljoin(url, headers["location"])
                if not is_url(url):
                    raise _Refused(f"redirected to a non-web address ({url})")
                continue
            if status != 200:
                raise _Refused(f"HTTP {status}")
            kind = (headers.get("content-type") or "").split(";")[0].strip().lower()
            if kind and kind not in _HTML_TYPES:
                raise _Refused(f"not HTML ({kind})")
            return url, body, _charset(headers.get("content-type") or "")
        raise _Refused(f"more than {MAX_REDIRECTS} redirects")

    def _request(self, url: str) -> tuple[int, dict[str, str], bytes]:
        """One response (status, lower-cased headers, body), retried as the notes say."""
        import urllib3

        for attempt in range(self.retries + 1):
            self._wait_turn(url)
            try:
                status, headers, body = self._once(url)
            except (urllib3.exceptions.HTTPError, OSError) as error:
                if attempt == self.retries:
                    raise _Refused(f"cannot fetch ({_short(error)})") from None
                time.sleep(2 ** attempt)
                continue
            if status in _RETRY_STATUS and attempt < self.retries:
                time.sleep(_retry_after(headers.get("retry-after"), 2 ** attempt))
                continue
            return status, headers, body
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait_turn(self, url: str) -> None:
        host = (urlsplit(url).hostname or "").lower()
        wait = self._last.get(host, -float("inf")) + self.delay - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last[host] = time.monotonic()

    def _once(self, url: str) -> tuple[int, dict[str, str], bytes]:
        import certifi
        import urllib3

        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        host = parts.hostname
        if scheme not in ("http", "https") or not host:
            raise _Refused("not an http(s) URL")
        try:
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError:
            raise _Refused("bad port") from None
        address = self._checked_address(host, port)
        timeout = urllib3.Timeout(connect=self.timeout, read=self.timeout)
        if scheme == "https":
            pool: urllib3.HTTPConnectionPool = urllib3.HTTPSConnectionPool(
                address, port, timeout=timeout, retries=False, server_hostname=host,
                assert_hostname=host, cert_reqs="CERT_REQUIRED", ca_certs=certifi.where())
        else:
            pool = urllib3.HTTPConnectionPool(address, port, timeout=timeout, retries=False)
        path = parts.path or "/"
        if parts.query:
            path += f"?{parts.query}"
        with pool:
            response = pool.urlopen(
                "GET", path, redirect=False, preload_content=False,
                headers={"Host": parts.netloc.rsplit("@", 1)[-1], "User-Agent": self.user_agent,
                         "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
                         "Accept-Encoding": "gzip, deflate"})
            try:
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > self.max_bytes:
                    raise _Refused(f"larger than {self.max_bytes} bytes")
                body = bytearray()
                for chunk in response.stream(_CHUNK, decode_content=True):
                    body += chunk
                    if len(body) > self.max_bytes:
                        raise _Refused(f"larger than {self.max_bytes} bytes")
            finally:
                response.release_conn()
            headers = {k.lower(): v for k, v in response.headers.items()}
            return response.status, headers, bytes(body)

    def _checked_address(self, host: str, port: int) -> str:
        """An address of ``host`` to connect to: each one it resolves to must be public
        (unless ``allow_private``), so no answer can lead inside."""
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as error:
            raise _Refused(f"cannot resolve {host} ({error.strerror})") from None
        addresses = [info[4][0] for info in infos]
        if not addresses:
            raise _Refused(f"cannot resolve {host}")
        if not self.allow_private:
            for address in addresses:
                ip = ipaddress.ip_address(address.split("%")[0])
                if not _public(ip):
                    raise _Refused(f"{host} is a {_kind(ip)} address ({address}); "
                                   "--allow-private fetches it")
        return addresses[0]


def _public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether an address is on the public internet (IANA's global registry), and not a
    multicast group."""
    return ip.is_global and not ip.is_multicast


def _kind(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    for name in ("loopback", "link_local", "private", "multicast", "unspecified", "reserved"):
        if getattr(ip, f"is_{name}"):
            return name.replace("_", "-")
    return "non-public"


def _charset(content_type: str) -> str | None:
    for part in content_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def _retry_after(value: str | None, default: float) -> float:
    try:
        return min(float(value), MAX_RETRY_AFTER) if value else default
    except ValueError:
        return default


def _short(error: BaseException) -> str:
    text = str(error).split(": ", 1)[-1]
    return text if len(text) <= 80 else text[:77] + "..."
