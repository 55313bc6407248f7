"""The ingress stand-in the browser tests use: the demo's, from ``devtools/ingress_proxy.py``."""

from __future__ import annotations

from devtools.ingress_proxy import INGRESS_TOKEN, PANEL_PATH, PREFIX, IngressProxy

__all__ = ["INGRESS_TOKEN", "PANEL_PATH", "PREFIX", "IngressProxy"]
