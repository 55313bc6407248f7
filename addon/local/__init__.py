"""Local first: Home Assistant's own sentence matcher answers what it knows before the model."""
