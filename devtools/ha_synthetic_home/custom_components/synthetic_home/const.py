"""Names shared by the integration's modules."""

DOMAIN = "synthetic_home"
PLATFORMS = (
    "binary_sensor",
    "calendar",
    "climate",
    "cover",
    "fan",
    "light",
    "lock",
    "media_player",
    "sensor",
    "switch",
    "todo",
    "vacuum",
    "valve",
    "weather",
)
DATA_PATH = "path"  # the fixture file, read again on a reload
DATA_HOME = "home"  # the fixture's home mapping
DATA_ENTITIES = "entities"  # entity_id -> SyntheticEntity, filled as entities are added
