#!/usr/bin/env python3
"""A headless $BROWSER for the conformance suite's authorization servers: opens the
authorization URL, and follows its redirects until one points at the client's loopback
redirect, which it then visits (as a browser would after the person approved)."""

import sys
import urllib.error
import urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def main():
    url = sys.argv[1]
    opener = urllib.request.build_opener(NoRedirect)
    for _ in range(10):
        try:
            response = opener.open(url, timeout=30)
            response.read()
            return
        except urllib.error.HTTPError as redirect:
            location = redirect.headers.get("Location")
            if redirect.code not in (301, 302, 303, 307, 308) or not location:
                sys.exit(f"browser.py: {url} answered {redirect.code}")
            url = urllib.parse.urljoin(url, location)
            if url.startswith("http://127.0.0.1:") or url.startswith("http://localhost:"):
                urllib.request.urlopen(url, timeout=30).read()
                return
    sys.exit("browser.py: too many redirects")


if __name__ == "__main__":
    import urllib.parse

    main()
