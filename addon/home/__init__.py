"""The live home: Home Assistant's registries and states, and Assist's target resolution."""
