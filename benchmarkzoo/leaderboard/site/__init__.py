"""The static leaderboard site: HTML pages and build-time plots made from validated submissions.

``build_site_from_root(root)`` reads ``<root>/leaderboard.json`` and the submissions it lists and
writes ``<root>/site/``; ``build_site`` does the same from data already in memory (the layer the
tests feed hostile strings to). Everything a submission says is escaped by Jinja2's autoescaping;
only http(s) URLs become links; the pages run no JavaScript, and a Content-Security-Policy
forbids any, so even a templating bug could not make an injected script run.
"""

from benchmarkzoo.leaderboard.site.builder import build_site, build_site_from_root

__all__ = ["build_site", "build_site_from_root"]
