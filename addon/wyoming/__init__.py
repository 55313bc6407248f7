"""Home Agent as a Wyoming ``handle`` service: Home Assistant's Wyoming integration talks to it."""
