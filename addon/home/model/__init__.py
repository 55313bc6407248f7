"""The live home: Home Assistant's registries, states and exposure, and the indexes over them."""
