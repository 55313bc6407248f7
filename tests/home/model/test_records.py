"""Registry records parsed from what each supported Home Assistant release sends."""

from __future__ import annotations

from addon.home.model.records import RegistryEntry


def test_the_name_placeholder_among_aliases_is_not_an_alias() -> None:
    """2026.x lists the entity's own name as a null among its aliases: never the text "None"."""
    entry = RegistryEntry.from_ha(
        {"entity_id": "script.dim_light"}, {"aliases": [None, " Dimmer ", "", "Night light"]}
    )
    assert entry.aliases == ("Dimmer", "Night light")
