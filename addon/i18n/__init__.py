"""Home Agent's own words in each language it serves, and how language codes are read."""
