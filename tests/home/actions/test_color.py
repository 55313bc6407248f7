"""Colour arithmetic, checked against values Home Assistant 2025.4.4 reported for demo lights."""

from __future__ import annotations

from addon.home.actions import color


def test_red_in_hs_and_xy() -> None:
    """Red is hue 0, saturation 100, xy (0.701, 0.299)."""
    assert color.rgb_to_hs(255, 0, 0) == (0.0, 100.0)
    assert color.rgb_to_xy(255, 0, 0) == (0.701, 0.299)


def test_hs_to_rgb_matches_a_demo_light() -> None:
    """The demo kitchen light's hs (345, 75) shows as rgb (255, 64, 112), xy (0.588, 0.274)."""
    assert color.hs_to_rgb(345, 75) == (255, 64, 112)
    assert color.hs_to_xy(345, 75) == (0.588, 0.274)


def test_3000_kelvin_in_hs() -> None:
    """3000 K is hs (27.825, 56.895) on a light without colour temperature."""
    assert color.kelvin_to_hs(3000) == (27.825, 56.895)


def test_kelvin_to_mired_floors() -> None:
    """Mireds are floor(1e6 / K)."""
    assert color.kelvin_to_mired(2700) == 370


def test_rgbw_round_trip_of_the_demo_strip() -> None:
    """RGBW (255, 0, 0, 255) looks like rgb (255, 128, 128); pure red has no white."""
    assert color.rgbw_to_rgb(255, 0, 0, 255) == (255, 128, 128)
    assert color.rgb_to_rgbw(255, 0, 0) == (255, 0, 0, 0)


def test_black_has_xy_zero() -> None:
    """Black has no chromaticity; it does not divide by zero."""
    assert color.rgb_to_xy(0, 0, 0) == (0.0, 0.0)
