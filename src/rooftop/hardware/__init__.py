"""Device catalogs (datasheet roofs) and, in measure/, sustained roofs."""
