"""Colour arithmetic the virtual executor needs to show a light the way Home Assistant would.

Home Assistant's ``light`` component converts whatever colour a call carries into the colour
mode the light supports, and reports every light in several colour spaces at once (``hs_color``,
``rgb_color``, ``xy_color``, plus ``color_temp_kelvin`` or ``rgbw_color``). A dry run that shows
"Kitchen Lights: red" must show the same numbers a live run leaves behind, so these functions
follow the standard definitions Home Assistant uses: HSV from ``colorsys``; CIE xy through the
sRGB gamma curve and the wide-gamut D65 matrix Philips published for Hue; black-body colour
from Tanner Helland's fit; mireds as ``floor(1e6 / kelvin)``. Values are rounded as Home
Assistant rounds them in state attributes (three decimals for hs and xy).
"""

from __future__ import annotations

import colorsys
import math

RGB = tuple[int, int, int]


def rgb_to_hs(red: float, green: float, blue: float) -> tuple[float, float]:
    """Hue (0-360) and saturation (0-100) of an RGB colour, rounded to 3 decimals."""
    hue, saturation, _ = colorsys.rgb_to_hsv(red / 255, green / 255, blue / 255)
    return round(hue * 360, 3), round(saturation * 100, 3)


def hs_to_rgb(hue: float, saturation: float) -> RGB:
    """The full-brightness RGB colour for a hue and saturation."""
    red, green, blue = colorsys.hsv_to_rgb(hue / 360, saturation / 100, 1.0)
    return round(red * 255), round(green * 255), round(blue * 255)


def _linear(channel: int) -> float:
    """The sRGB gamma expansion of one 0-255 channel."""
    value = channel / 255
    return ((value + 0.055) / 1.055) ** 2.4 if value > 0.04045 else value / 12.92


def rgb_to_xy(red: int, green: int, blue: int) -> tuple[float, float]:
    """CIE 1931 xy chromaticity of an RGB colour (wide-gamut D65), rounded to 3 decimals."""
    if red == green == blue == 0:
        return 0.0, 0.0
    r, g, b = _linear(red), _linear(green), _linear(blue)
    x_ = r * 0.664511 + g * 0.154324 + b * 0.162028
    y_ = r * 0.283881 + g * 0.668433 + b * 0.047685
    z_ = r * 0.000088 + g * 0.072310 + b * 0.986039
    total = x_ + y_ + z_
    return round(x_ / total, 3), round(y_ / total, 3)


def hs_to_xy(hue: float, saturation: float) -> tuple[float, float]:
    """The xy chromaticity of a hue and saturation at full brightness."""
    return rgb_to_xy(*hs_to_rgb(hue, saturation))


def kelvin_to_rgb(kelvin: float) -> tuple[float, float, float]:
    """Black-body colour of a temperature (Tanner Helland's fit, 1000-40000 K)."""
    temp = max(1000.0, min(40000.0, kelvin)) / 100
    if temp <= 66:
        red = 255.0
        green = 99.4708025861 * math.log(temp) - 161.1195681661
    else:
        red = 329.698727446 * (temp - 60) ** -0.1332047592
        green = 288.1221695283 * (temp - 60) ** -0.0755148492
    if temp >= 66:
        blue = 255.0
    elif temp <= 19:
        blue = 0.0
    else:
        blue = 138.5177312231 * math.log(temp - 10) - 305.0447927307

    def clamp(value: float) -> float:
        return max(0.0, min(255.0, value))

    return clamp(red), clamp(green), clamp(blue)


def kelvin_to_hs(kelvin: float) -> tuple[float, float]:
    """Hue and saturation of a colour temperature."""
    return rgb_to_hs(*kelvin_to_rgb(kelvin))


def kelvin_to_mired(kelvin: float) -> int:
    """Mireds, as Home Assistant reports the deprecated ``color_temp`` attribute."""
    return math.floor(1_000_000 / kelvin)


def _match_max(source: tuple[float, ...], target: tuple[float, ...]) -> tuple[int, ...]:
    """Scale ``target`` so its largest channel equals ``source``'s largest, then round."""
    source_max, target_max = max(source), max(target)
    factor = source_max / target_max if target_max else 0.0
    return tuple(round(value * factor) for value in target)


def rgb_to_rgbw(red: int, green: int, blue: int) -> tuple[int, int, int, int]:
    """RGBW for an RGB colour: the common part goes to the white channel."""
    white = min(red, green, blue)
    scaled = _match_max((red, green, blue), (red - white, green - white, blue - white, white))
    return scaled[0], scaled[1], scaled[2], scaled[3]


def rgbw_to_rgb(red: int, green: int, blue: int, white: int) -> RGB:
    """RGB an RGBW colour looks like: white added to each channel, brightness kept."""
    scaled = _match_max((red, green, blue, white), (red + white, green + white, blue + white))
    return scaled[0], scaled[1], scaled[2]
